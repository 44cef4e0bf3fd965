"""The TikTok Research API behind the connector protocol (issue 27 item 1; connectors reference §2).

Every operation is one or more research calls, each counted before it is sent (``client.py``: 1,000 a day,
reset at 00:00 UTC). A video query names its dates (at most 30 days per query, so longer ranges are split
into windows, newest first) and pages with ``cursor`` and ``search_id``:

    search_videos    keyword EQ …, [since, until) in windows: at most SEARCH_PAGES pages in all
    hashtag_videos   hashtag_name EQ …, the last 30 days: as many pages as ``limit`` needs, ≤ HASHTAG_PAGES
    discovery_feed   a country's feed: region_code EQ … and view_count ≥ FEED_MIN_VIEWS, posted in the last
                     FEED_DAYS days (the 48-hour digest window), FEED_PAGES pages
    video, *_stats   video_id IN … (100 a call), in the window the id's own creation time names (reread in
                     the last 30 days for the ids it misses)
    creator          1 call (user/info)
    creator_posts    username EQ …, the last CREATOR_WINDOWS windows of 30 days, ≤ CREATOR_PAGES pages
    comments         1 call per 100 comments (video/comment/list), ≤ COMMENT_PAGES pages

Paging and where a walk stops: ``paging.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from datetime import date, datetime, timedelta
from typing import Any, TypeVar

import httpx

from reelscope.collectors.base import (
    Capability,
    CommentRecord,
    CreatorRecord,
    HashtagSort,
    NotFound,
    Unavailable,
    VideoRecord,
    VideoStats,
)
from reelscope.collectors.budget import Bucket
from reelscope.collectors.ledger import Breaker, Ledger
from reelscope.collectors.tiktok_research import mapper, paging
from reelscope.collectors.tiktok_research.client import (
    SOURCE,
    TOKENS,
    InvalidParams,
    Session,
    TikTokClient,
    TokenCache,
    requests_bucket,
)
from reelscope.collectors.unoffered import Unoffered
from reelscope.config import Settings
from reelscope.kit.clock import Clock, as_utc
from reelscope.kit.logging import get_logger
from reelscope.kit.platforms import Platform

log = get_logger(__name__)

PAGE_SIZE = 100  # max_count's maximum (§2.2), and ids per video_id IN query
SEARCH_PAGES = 3
HASHTAG_PAGES = 6  # a full hashtag lookup asks for about 500 videos
FEED_PAGES = 2
FEED_DAYS = 2
FEED_MIN_VIEWS = 10_000
CREATOR_WINDOWS = 3  # a creator's last 90 days
CREATOR_PAGES = 4
COMMENT_PAGES = 10  # the API serves about 1,000 comments of a video [unverified]
TIKTOK = frozenset({Platform.TIKTOK})
HANDLE_CHECKED = "tiktok"  # ``check`` asks for TikTok's own account

R = TypeVar("R")


class TikTokResearchConnector(Unoffered):
    """TikTok videos, creators and comments from the Research API. ``breaker``: after 5 failures in a
    row (5xx, timeouts, refused credentials) the router skips it for 2 minutes, doubling up to 30."""

    name = SOURCE
    platforms = TIKTOK
    capabilities = {
        capability: TIKTOK
        for capability in (
            Capability.SEARCH,
            Capability.HASHTAG_VIDEOS,
            Capability.POPULAR_FEED,
            Capability.VIDEO,
            Capability.STATS,
            Capability.CREATOR,
            Capability.CREATOR_POSTS,
            Capability.COMMENTS,
        )
    }
    breaker = Breaker(threshold=5, cooldown=timedelta(minutes=2), max_cooldown=timedelta(minutes=30))
    stats_batch = PAGE_SIZE

    def __init__(self, client: TikTokClient, clock: Clock) -> None:
        self.client = client
        self.clock = clock

    # --- what the planner and the status read --------------------------------------------------------

    @property
    def buckets(self) -> tuple[Bucket, ...]:
        return (self.client.bucket,)

    def bucket_of(self, capability: Capability) -> Bucket:
        return self.client.bucket

    @property
    def unavailable_reason(self) -> str | None:
        return self.client.missing_credentials()

    # --- videos -------------------------------------------------------------------------------------

    async def search_videos(
        self, platform: Platform, keyword: str, since: datetime, until: datetime, *, limit: int = 100
    ) -> list[VideoRecord]:
        """Videos whose description matches ``keyword``, posted in [since, until), most viewed first."""
        _tiktok_only(platform, "search")
        wanted = " ".join(keyword.split())
        if limit <= 0 or not wanted:
            return []
        query = {"and": [mapper.condition("keyword", "EQ", wanted)]}
        async with self.client.session() as api:
            items = await paging.walk(
                api, query, mapper.windows(since, until), limit=limit, pages=SEARCH_PAGES
            )
        found = [r for r in self._videos(items) if as_utc(since) <= r.published_at < as_utc(until)]
        found.sort(key=lambda r: r.views, reverse=True)
        return found[:limit]

    async def hashtag_videos(
        self, platform: Platform, tag: str, *, sort: HashtagSort = "top", limit: int = 50
    ) -> list[VideoRecord]:
        """Videos of the last 30 days carrying ``tag``: most viewed first (``top``) or newest first."""
        _tiktok_only(platform, "hashtag videos")
        name = tag.strip().lstrip("#").strip().lower()
        if limit <= 0 or not name:
            return []
        now = self.clock.now()
        query = {"and": [mapper.condition("hashtag_name", "EQ", name)]}
        pages = min(HASHTAG_PAGES, math.ceil(limit / PAGE_SIZE) + 1)
        spans = mapper.windows(now - timedelta(days=mapper.WINDOW_DAYS - 1), now)[:1]
        async with self.client.session() as api:
            items = await paging.walk(api, query, spans, limit=limit, pages=pages)
        found = self._videos(items)
        if sort == "top":
            found.sort(key=lambda r: r.views, reverse=True)
        else:
            found.sort(key=lambda r: r.published_at, reverse=True)
        return found[:limit]

    async def discovery_feed(
        self, platform: Platform, region: str | None, since: datetime, until: datetime
    ) -> list[VideoRecord]:
        """A country's recent videos past FEED_MIN_VIEWS views, newest first, each with ``feed_region``.

        The Research API has no chart: the feed is the videos of accounts registered in ``region``
        (``region_code``, the account's country, not where the video was watched) posted in the last
        FEED_DAYS days with at least FEED_MIN_VIEWS views. ``since``/``until`` are not used (a feed is what
        is recent now). ``region`` None or not a country code is ``Unavailable``."""
        _tiktok_only(platform, "popular feed")
        code = (region or "").strip()
        if len(code) != 2 or not code.isalpha():
            raise Unavailable(
                f"{SOURCE}: no feed for region {region!r} (a two-letter country code is needed)"
            )
        now = self.clock.now()
        query = {
            "and": [
                mapper.condition("region_code", "EQ", code.upper()),
                mapper.condition("view_count", "GTE", str(FEED_MIN_VIEWS)),
            ]
        }
        spans = mapper.windows(now - timedelta(days=FEED_DAYS - 1), now)
        async with self.client.session() as api:
            items = await paging.walk(api, query, spans, limit=FEED_PAGES * PAGE_SIZE, pages=FEED_PAGES)
        return self._videos(items, feed_region=code.lower())

    async def video(self, platform: Platform, external_id: str) -> VideoRecord:
        _tiktok_only(platform, "video")
        wanted = external_id.strip()
        if not wanted.isdigit():
            raise NotFound(f"{SOURCE}: {wanted!r} is not a TikTok video id")
        async with self.client.session() as api:
            items = await self._by_ids(api, [wanted])
        found = self._videos(items)
        if not found:
            raise NotFound(f"{SOURCE}: no video {wanted}")
        return found[0]

    async def video_stats(self, platform: Platform, external_id: str) -> VideoStats:
        found = await self.videos_stats(platform, [external_id])
        if not found:
            raise NotFound(f"{SOURCE}: no video {external_id.strip()}")
        return found[0]

    async def videos_stats(self, platform: Platform, external_ids: Sequence[str]) -> list[VideoStats]:
        """Counters of many videos, 100 ids a call; ids the API does not return are left out."""
        _tiktok_only(platform, "stats")
        ids = list(dict.fromkeys(i.strip() for i in external_ids if i.strip().isdigit()))
        if not ids:
            return []
        async with self.client.session() as api:
            items = await self._by_ids(api, ids)
        now = self.clock.now()
        return [stats for item in items if (stats := _mapped(mapper.to_stats, item, now)) is not None]

    # --- creators and comments ----------------------------------------------------------------------

    async def creator(self, platform: Platform, handle: str) -> CreatorRecord:
        """A user's profile (user/info); ``NotFound`` for an unknown or private user [unverified: the API
        answers those with invalid_params]."""
        _tiktok_only(platform, "creator")
        username = handle.strip().lstrip("@")
        if not username:
            raise NotFound(f"{SOURCE}: empty handle")
        async with self.client.session() as api:
            try:
                data = await api.post("user/info", mapper.USER_FIELDS, {"username": username})
            except InvalidParams:
                raise NotFound(f"{SOURCE}: no public user @{username}") from None
        if not data:
            raise NotFound(f"{SOURCE}: no public user @{username}")
        return mapper.to_creator(data, username, self.clock.now())

    async def creator_posts(self, platform: Platform, handle: str, *, limit: int = 50) -> list[VideoRecord]:
        """The user's videos of the last 90 days, newest first."""
        _tiktok_only(platform, "creator posts")
        username = handle.strip().lstrip("@")
        if limit <= 0 or not username:
            return []
        now = self.clock.now()
        query = {"and": [mapper.condition("username", "EQ", username)]}
        spans = mapper.windows(now - timedelta(days=CREATOR_WINDOWS * mapper.WINDOW_DAYS - 1), now)
        async with self.client.session() as api:
            items = await paging.walk(api, query, spans, limit=limit, pages=CREATOR_PAGES)
        found = self._videos(items)
        found.sort(key=lambda r: r.published_at, reverse=True)
        return found[:limit]

    async def comments(
        self, platform: Platform, video_external_id: str, *, limit: int = 100
    ) -> list[CommentRecord]:
        """A video's comments as the API orders them, 100 a call; ``NotFound`` for an unknown video
        [unverified: invalid_params]. Each comment stands for its own commenter (``mapper``)."""
        _tiktok_only(platform, "comments")
        wanted = video_external_id.strip()
        if not wanted.isdigit():
            raise NotFound(f"{SOURCE}: {wanted!r} is not a TikTok video id")
        if limit <= 0:
            return []
        found: dict[str, CommentRecord] = {}
        cursor = 0
        async with self.client.session() as api:
            for page in range(1, min(COMMENT_PAGES, math.ceil(limit / PAGE_SIZE)) + 1):
                body = {"video_id": int(wanted), "max_count": PAGE_SIZE, "cursor": cursor}
                try:
                    data = await api.post("video/comment/list", mapper.COMMENT_FIELDS, body)
                except InvalidParams:
                    if page == 1:
                        raise NotFound(f"{SOURCE}: no comments readable for video {wanted}") from None
                    break
                now = self.clock.now()
                fresh = 0
                for item in mapper.comments_of(data):
                    comment = _mapped(mapper.to_comment, item, wanted, now)
                    if comment is not None and comment.external_id not in found:
                        found[comment.external_id] = comment
                        fresh += 1
                following = paging.next_cursor(data, cursor)
                if not fresh or following is None or len(found) >= limit:
                    break
                cursor = following
        return list(found.values())[:limit]

    async def check(self) -> None:
        """A token (validates the key and secret) and one research call (validates the scope): 1 of the
        day's requests."""
        async with self.client.session() as api:
            await api.post("user/info", mapper.USER_FIELDS, {"username": HANDLE_CHECKED})

    # --- helpers ------------------------------------------------------------------------------------

    async def _by_ids(self, api: Session, ids: Sequence[str]) -> list[dict[str, Any]]:
        """Items of ``ids``, 100 a call, each in the window its id names; ids missed there are asked in
        the last 30 days once more (their id's time was not their creation time after all)."""
        now = self.clock.now()
        found: dict[str, dict[str, Any]] = {}
        recent = mapper.windows(now - timedelta(days=mapper.WINDOW_DAYS - 1), now)[0]
        missed: list[str] = []
        for start, end, group in mapper.ids_window(ids, now):
            for chunk in paging.chunks(group, PAGE_SIZE):
                await self._ids_in(api, chunk, start, end, found)
                if (start, end) != recent:
                    missed += [i for i in chunk if i not in found]
        for chunk in paging.chunks(missed, PAGE_SIZE):
            await self._ids_in(api, chunk, *recent, found)
        return [found[i] for i in ids if i in found]

    @staticmethod
    async def _ids_in(
        api: Session, chunk: list[str], start: date, end: date, found: dict[str, dict[str, Any]]
    ) -> None:
        query = {"and": [mapper.condition("video_id", "IN", *chunk)]}
        for item in await paging.walk(api, query, [(start, end)], limit=len(chunk), pages=2):
            item_id = mapper.id_or_none(item)
            if item_id is not None:
                found[item_id] = item

    def _videos(self, items: list[dict[str, Any]], *, feed_region: str | None = None) -> list[VideoRecord]:
        now = self.clock.now()
        return [
            record
            for item in items
            if (record := _mapped(mapper.to_video, item, now, feed_region=feed_region)) is not None
        ]


def _mapped(build: Callable[..., R], item: dict[str, Any], *args: Any, **kwargs: Any) -> R | None:
    """``build(item, …)``, or None (logged) when the item lacks what a record needs."""
    try:
        return build(item, *args, **kwargs)
    except mapper.UnmappableItem as exc:
        log.warning("tiktok_research.item_skipped", reason=str(exc), id=mapper.id_or_none(item))
        return None


def _tiktok_only(platform: Platform, what: str) -> None:
    if platform is not Platform.TIKTOK:
        raise Unavailable(f"{SOURCE}: no {what} for {platform.value}")


def from_settings(
    settings: Settings,
    clock: Clock,
    ledger: Ledger | None,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    tokens: TokenCache = TOKENS,
) -> TikTokResearchConnector:
    """The connector the registry builds for ``tiktok_research``. Without the client key and secret it is
    built all the same and answers every call with ``Unavailable``."""
    client = TikTokClient(
        client_key=settings.tiktok_client_key,
        client_secret=settings.tiktok_client_secret,
        base_url=settings.tiktok_base_url,
        timeout=settings.collector_timeout_seconds,
        clock=clock,
        ledger=ledger,
        bucket=requests_bucket(settings.tiktok_daily_request_limit, settings.tiktok_background_share),
        tokens=tokens,
        transport=transport,
    )
    return TikTokResearchConnector(client, clock)
