"""The connector protocol and the normalized records every source maps into (ARCHITECTURE §7).

Records are plain frozen dataclasses: cheap to build in bulk (the sandbox makes hundreds of thousands)
and validated from JSON by Pydantic where they come from outside (``reelscope ingest``). Field rules
follow spec §2.1/§2.2 and the shared normalization rules (connectors reference §0.2):

- ``external_id`` is always a string (TikTok ids exceed 2^53);
- ``views``/``likes``/``comments`` are integers, ``0`` meaning "not reported";
- ``shares``/``bookmarks`` are real only on TikTok, ``None`` elsewhere;
- YouTube hashtags keep their leading ``#``, the others have none; ``tags`` are the uploader's
  keyword tags, kept apart from hashtags (ADR 0026);
- ``is_duet``/``is_stitch``/``is_eligible_for_commission`` are TikTok only (``None`` elsewhere).

The service UUIDs (video ``id``, ``author_id``, ``sound.id``) are the catalog's business, never a
connector's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Literal, Protocol, runtime_checkable

from reelscope.kit.platforms import Platform

HashtagSort = Literal["top", "recent"]


class Capability(StrEnum):
    """What a source can do (issue 26: capability routing). A family asks for a capability on a platform
    and gets the enabled sources that declare it, in the configured order (``collectors/routing.py``)."""

    SEARCH = "search"  # search_videos: keyword search (agents)
    POPULAR_FEED = "popular_feed"  # discovery_feed(platform, region): a country's popular chart
    WORLD_FEED = "world_feed"  # discovery_feed(platform, None): every video posted (the sandbox world)
    VIDEO = "video"  # video by id
    STATS = "stats"  # video_stats, videos_stats: counters of known ids
    CREATOR = "creator"  # a creator's profile
    CREATOR_POSTS = "creator_posts"
    COMMENTS = "comments"
    SOUND = "sound"  # sound, sound_videos
    HASHTAG_VIDEOS = "hashtag_videos"
    SLIDESHOWS = "slideshows"
    ADS = "ads"  # not a platform's: the ad library
    NEWS = "news"  # not a platform's: news articles


# the capabilities no platform qualifies: a source declares them with an empty platform set
PLATFORMLESS = frozenset({Capability.ADS, Capability.NEWS})
ALL_PLATFORMS = frozenset(Platform)

Capabilities = Mapping[Capability, frozenset[Platform]]


# --- records ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CreatorRecord:
    """A creator profile (connectors reference §0.3). Counts are ``None`` when the source did not say."""

    platform: Platform
    handle: str
    display_name: str | None = None
    platform_user_id: str | None = None
    followers: int | None = None
    following: int | None = None
    total_likes: int | None = None
    total_views: int | None = None
    video_count: int | None = None
    verified: bool | None = None
    avatar_url: str | None = None
    bio: str | None = None
    country: str | None = None
    fetched_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class UsagePoint:
    """A sound's usage count at one moment."""

    at: datetime
    usage_count: int


@dataclass(frozen=True, slots=True)
class SoundRecord:
    """A sound (§2.2) keyed by the platform's own id; ``usage`` is its usage count over time."""

    platform: Platform
    external_id: str
    title: str
    duration: int | None = None
    cover_url: str = ""
    is_original: bool = False
    usage_count: int | None = None
    owner_handle: str | None = None
    owner_nickname: str | None = None
    is_commerce_music: bool | None = None
    usage: tuple[UsagePoint, ...] = ()
    fetched_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class VideoRecord:
    """One short-form video with everything the §2.1 digest needs, plus creator and sound references."""

    platform: Platform
    external_id: str
    url: str
    published_at: datetime
    fetched_at: datetime
    description: str | None = None
    views: int = 0
    likes: int = 0
    comments: int = 0
    shares: int | None = None
    bookmarks: int | None = None
    hashtags: tuple[str, ...] = ()
    thumbnail_url: str | None = None
    duration: int | None = None
    transcript: str | None = None
    sound: SoundRecord | None = None
    # the vendor's sound id when no sound object could be built (§0.2: kept for later enrichment)
    sound_external_id: str | None = None
    upload_region: str | None = None
    upload_region_source: str | None = None
    is_duet: bool | None = None
    is_stitch: bool | None = None
    is_eligible_for_commission: bool | None = None
    creator: CreatorRecord | None = None
    region: str | None = None
    language: str | None = None
    # the uploader's keyword tags (yt-dlp ``tags``): features for trends and agents, not §2.1 hashtags
    tags: tuple[str, ...] = ()
    # the lower-case trend region whose feed carried the video, when the source says (ADR 0026)
    feed_region: str | None = None
    # the fields its source sent, when it sent only some (a hand-written ``reelscope ingest`` line):
    # the others keep their stored value; None for a whole record, as the connectors make (issue 31)
    sent: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class VideoStats:
    """A video's counters at one moment (the cheap refresh of ``video_stats``)."""

    platform: Platform
    external_id: str
    fetched_at: datetime
    views: int = 0
    likes: int = 0
    comments: int = 0
    shares: int | None = None
    bookmarks: int | None = None


@dataclass(frozen=True, slots=True)
class SlideshowRecord:
    """A photo carousel (TikTok photo mode, Instagram carousel); ``panels`` is the text on each image."""

    platform: Platform
    external_id: str
    url: str
    published_at: datetime
    fetched_at: datetime
    description: str | None = None
    panels: tuple[str, ...] = ()
    image_count: int = 0
    views: int = 0
    likes: int = 0
    comments: int = 0
    shares: int | None = None
    bookmarks: int | None = None
    hashtags: tuple[str, ...] = ()
    thumbnail_url: str | None = None
    sound: SoundRecord | None = None
    creator: CreatorRecord | None = None
    language: str | None = None


@dataclass(frozen=True, slots=True)
class AdRecord:
    """One ad of the Meta ad library (connectors reference §4)."""

    external_id: str
    page_id: str
    page_name: str
    bodies: tuple[str, ...]
    start_date: datetime
    fetched_at: datetime
    stop_date: datetime | None = None
    publisher_platforms: tuple[str, ...] = ()
    snapshot_url: str | None = None
    page_likes: int | None = None
    keyword: str | None = None
    languages: tuple[str, ...] = ()
    # what the Ad Library tells of political and issue ads only: impressions and spend as (lower, upper)
    # bounds (upper None: open-ended), the spend's currency; and of ads delivered in the EU, the reach
    impressions: tuple[int, int | None] | None = None
    spend: tuple[int, int | None] | None = None
    currency: str | None = None
    reach: int | None = None


@dataclass(frozen=True, slots=True)
class CommentRecord:
    """A comment on a video. Author age bracket and gender are set only where the source knows them."""

    platform: Platform
    external_id: str
    video_external_id: str
    author_handle: str
    text: str
    posted_at: datetime
    fetched_at: datetime
    language: str | None = None
    country: str | None = None
    likes: int = 0
    author_age_bracket: str | None = None
    author_gender: str | None = None


@dataclass(frozen=True, slots=True)
class NewsItem:
    """A news article (connectors reference §7)."""

    title: str
    url: str
    domain: str
    published_at: datetime
    fetched_at: datetime
    summary: str | None = None
    keywords: tuple[str, ...] = field(default=())


# --- errors ----------------------------------------------------------------------------------------


class ConnectorError(Exception):
    """Base of the four typed errors every vendor failure is mapped to (connectors reference §0.1)."""


class NotFound(ConnectorError):
    """The video, user, hashtag or page does not exist or is private: record it, do not retry."""


class RateLimited(ConnectorError):
    """Throttled or out of quota: pause this source until ``retry_at``."""

    def __init__(self, message: str, *, retry_at: datetime) -> None:
        super().__init__(message)
        self.retry_at = retry_at


class UpstreamError(ConnectorError):
    """5xx, timeouts, odd shapes (``retryable``) or a bad parameter (not retryable: our bug)."""

    def __init__(self, message: str, *, retryable: bool = True) -> None:
        super().__init__(message)
        self.retryable = retryable


class Unavailable(ConnectorError):
    """Credentials missing or refused, or the operation is not offered: stop until reconfigured."""


# --- the protocol ----------------------------------------------------------------------------------


@runtime_checkable
class Connector(Protocol):
    """One data source. Operations a source does not offer raise ``Unavailable``.

    ``name`` is the source's name in ``REELSCOPE_CONNECTORS``; ``capabilities`` says which operations it
    offers for which platforms (``PLATFORMLESS`` ones with an empty set); ``platforms`` is every platform
    it serves at all."""

    name: str
    platforms: frozenset[Platform]

    @property
    def capabilities(self) -> Capabilities: ...

    async def search_videos(
        self, platform: Platform, keyword: str, since: datetime, until: datetime, *, limit: int = 100
    ) -> list[VideoRecord]:
        """Videos whose caption or transcript mentions ``keyword``, posted in [since, until), top first."""
        ...

    async def video(self, platform: Platform, external_id: str) -> VideoRecord:
        """One video, fully."""
        ...

    async def video_stats(self, platform: Platform, external_id: str) -> VideoStats:
        """One video's current counters."""
        ...

    async def videos_stats(self, platform: Platform, external_ids: Sequence[str]) -> list[VideoStats]:
        """Current counters of many videos in one call (APIs take ids in batches); unknown ids are
        left out of the answer."""
        ...

    async def creator(self, platform: Platform, handle: str) -> CreatorRecord:
        """A creator's profile."""
        ...

    async def creator_posts(self, platform: Platform, handle: str, *, limit: int = 50) -> list[VideoRecord]:
        """A creator's most recent videos, newest first."""
        ...

    async def sound(self, platform: Platform, external_id: str) -> SoundRecord:
        """A sound with its usage over time."""
        ...

    async def sound_videos(
        self, platform: Platform, external_id: str, *, limit: int = 50
    ) -> list[VideoRecord]:
        """Recent videos using a sound, top first."""
        ...

    async def hashtag_videos(
        self, platform: Platform, tag: str, *, sort: HashtagSort = "top", limit: int = 50
    ) -> list[VideoRecord]:
        """Videos carrying a hashtag (with or without ``#``, any case), by views or newest first."""
        ...

    async def slideshows(
        self, platform: Platform, keyword: str, since: datetime, until: datetime, *, limit: int = 50
    ) -> list[SlideshowRecord]:
        """Carousels mentioning ``keyword`` (TikTok and Instagram)."""
        ...

    async def ads(self, keyword: str, *, limit: int = 50) -> list[AdRecord]:
        """Ads of the ad library matching ``keyword``."""
        ...

    async def comments(
        self, platform: Platform, video_external_id: str, *, limit: int = 100
    ) -> list[CommentRecord]:
        """Comments of one video, newest first."""
        ...

    async def news(self, keywords: Sequence[str], since: datetime, until: datetime) -> list[NewsItem]:
        """News items mentioning any of ``keywords``, newest first."""
        ...

    async def discovery_feed(
        self, platform: Platform, region: str | None, since: datetime, until: datetime
    ) -> list[VideoRecord]:
        """Every video the source surfaces for a platform and region (``None`` = worldwide) posted in
        [since, until): what continuous collection pulls."""
        ...
