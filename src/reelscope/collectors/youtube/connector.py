"""The YouTube Data API v3 behind the connector protocol (issue 26 item 2; connectors reference §1, §8).

What each operation costs (``client.py`` counts every page before it is sent):

    search_videos    per page: 1 search call (search.list, 50 results) + 1 unit (videos.list of the new
                     ids) + 1 unit per 50 authors not yet known (channels.list); at most SEARCH_PAGES pages
    discovery_feed   per page: 1 unit (videos.list chart=mostPopular) + authors; at most FEED_PAGES pages
    video            1 unit + 1 unit for an unknown author
    video_stats      1 unit; videos_stats: 1 unit per 50 ids
    creator          1 unit (channels.list forHandle)
    creator_posts    1 unit (the channel) + per page of 50 uploads: 1 unit (playlistItems.list) + 1 unit
                     (videos.list); at most UPLOADS_PAGES pages

Spec §2.1 keeps only Shorts of this platform and the API has no Shorts flag: every video this connector
returns has passed the §8 rule 3 (``mapper.is_short``: length by publication date, no live or upcoming
broadcast; ADR 0039). Every paged walk stops at the end of the list, at a page that brings no new id (a
vendor that keeps handing out the same page), or at its page cap, which is logged.

Channels are fetched once per ``CHANNEL_TTL`` per connector instance: the same authors recur in every
feed page and search, and each lookup is a unit.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from contextlib import aclosing
from datetime import datetime, timedelta
from typing import Any, TypeVar

import httpx

from reelscope.collectors.base import (
    AdRecord,
    Capability,
    CommentRecord,
    CreatorRecord,
    HashtagSort,
    NewsItem,
    NotFound,
    SlideshowRecord,
    SoundRecord,
    Unavailable,
    UpstreamError,
    VideoRecord,
    VideoStats,
)
from reelscope.collectors.budget import Bucket
from reelscope.collectors.ledger import Breaker, Ledger
from reelscope.collectors.youtube import mapper, paging
from reelscope.collectors.youtube.client import SOURCE, Buckets, Session, YouTubeClient
from reelscope.config import Settings
from reelscope.kit.clock import Clock, as_utc
from reelscope.kit.logging import get_logger
from reelscope.kit.platforms import Platform

log = get_logger(__name__)

PAGE_SIZE = 50  # the most search.list, videos.list and playlistItems.list return, and ids per call
SEARCH_PAGES = 4  # 200 candidates: 4 of the day's 100 search calls for one keyword at most
FEED_PAGES = 4  # mostPopular has about 200 entries per region
UPLOADS_PAGES = 4  # a creator's 200 latest uploads
VIDEO_PARTS = "snippet,statistics,contentDetails"
CHANNEL_TTL = timedelta(hours=24)
CHANNEL_CACHE_SIZE = 10_000
YOUTUBE = frozenset({Platform.YOUTUBE})

R = TypeVar("R")


class YouTubeConnector:
    """Shorts from the YouTube Data API v3. ``breaker``: Google's API rarely fails for long; after 5
    failures in a row (5xx, timeouts, a refused key) the router skips it for 2 minutes, doubling up to 30,
    so a bad key or an outage costs a few calls per half hour rather than one per request."""

    name = SOURCE
    platforms = YOUTUBE
    capabilities = {
        capability: YOUTUBE
        for capability in (
            Capability.SEARCH,
            Capability.POPULAR_FEED,
            Capability.VIDEO,
            Capability.STATS,
            Capability.CREATOR,
            Capability.CREATOR_POSTS,
        )
    }
    breaker = Breaker(threshold=5, cooldown=timedelta(minutes=2), max_cooldown=timedelta(minutes=30))

    # a stats refresh asks for 50 ids per call (videos.list), 1 unit each
    stats_batch = PAGE_SIZE

    def __init__(self, client: YouTubeClient, clock: Clock) -> None:
        self.client = client
        self.clock = clock
        # channel id → (creator, when fetched), oldest first
        self._channels: OrderedDict[str, tuple[CreatorRecord, datetime]] = OrderedDict()

    # --- what the planner and the status read --------------------------------------------------------

    @property
    def buckets(self) -> tuple[Bucket, ...]:
        return (self.client.buckets.search, self.client.buckets.units)

    def bucket_of(self, capability: Capability) -> Bucket:
        """The bucket a call of ``capability`` spends (search.list has its own; §1.4)."""
        return self.client.buckets.search if capability is Capability.SEARCH else self.client.buckets.units

    @property
    def unavailable_reason(self) -> str | None:
        """Why nothing can be asked at all (no key), for the collector status; None when configured."""
        return self.client.missing_key()

    # --- the protocol: what YouTube offers ---------------------------------------------------------

    async def search_videos(
        self, platform: Platform, keyword: str, since: datetime, until: datetime, *, limit: int = 100
    ) -> list[VideoRecord]:
        """Shorts matching ``keyword`` posted in [since, until), most viewed first. ``videoDuration=short``
        (under 4 minutes) only narrows the candidates; the Shorts rule decides."""
        _youtube_only(platform, "search")
        if limit <= 0 or not keyword.strip():
            return []
        params: dict[str, str | int] = {
            "part": "snippet",
            "type": "video",
            "videoDuration": "short",
            "order": "viewCount",
            "q": keyword.strip(),
            "publishedAfter": _rfc3339(since),
            "publishedBefore": _rfc3339(until),
            "maxResults": PAGE_SIZE,
        }
        found: list[VideoRecord] = []
        async with (
            self.client.session() as api,
            aclosing(paging.pages(api, "search", params, SEARCH_PAGES, paging.search_ids)) as pages,
        ):
            async for ids in pages:
                records = await self._shorts(api, await self._videos(api, ids, VIDEO_PARTS))
                found.extend(r for r in records if as_utc(since) <= r.published_at < as_utc(until))
                if len(found) >= limit:
                    break
        found.sort(key=lambda r: r.views, reverse=True)
        return found[:limit]

    async def discovery_feed(
        self, platform: Platform, region: str | None, since: datetime, until: datetime
    ) -> list[VideoRecord]:
        """The Shorts of ``region``'s mostPopular chart, each with ``feed_region`` = the region.

        A chart is what is popular now, not what was posted in a window: ``since`` and ``until`` are
        ignored, and a video may be days old. There is no worldwide chart: ``region`` None (or anything
        that is not a two-letter country code, such as ``global``) is ``Unavailable``."""
        _youtube_only(platform, "popular feed")
        code = (region or "").strip()
        if len(code) != 2 or not code.isalpha():
            raise Unavailable(
                f"youtube: no mostPopular chart for region {region!r} (a two-letter country code is needed)"
            )
        params: dict[str, str | int] = {
            "part": VIDEO_PARTS,
            "chart": "mostPopular",
            "regionCode": code.upper(),
            "maxResults": PAGE_SIZE,
        }
        records: list[VideoRecord] = []
        async with self.client.session() as api:
            async for items in paging.pages(api, "videos", params, FEED_PAGES, paging.items_with_ids):
                records.extend(await self._shorts(api, items, feed_region=code.lower()))
        return records

    async def video(self, platform: Platform, external_id: str) -> VideoRecord:
        """One Short by id; ``NotFound`` when YouTube does not return it (unknown, removed, private) or when
        it is no Short (too long, live or upcoming: spec §2.1 keeps only Shorts)."""
        _youtube_only(platform, "video")
        wanted = external_id.strip()
        if not wanted:
            raise NotFound("youtube: empty video id")
        async with self.client.session() as api:
            items = await self._videos(api, [wanted], VIDEO_PARTS)
            if not items:
                raise NotFound(f"youtube: no video {wanted}")
            records = await self._shorts(api, items)
        if not records:
            raise NotFound(f"youtube: video {wanted} is not a Short")
        return records[0]

    async def video_stats(self, platform: Platform, external_id: str) -> VideoStats:
        """One video's counters (1 unit); ``NotFound`` when YouTube does not return it."""
        found = await self.videos_stats(platform, [external_id])
        if not found:
            raise NotFound(f"youtube: no video {external_id.strip()}")
        return found[0]

    async def videos_stats(self, platform: Platform, external_ids: Sequence[str]) -> list[VideoStats]:
        """Counters of many videos, 50 ids a unit; ids YouTube does not return are left out."""
        _youtube_only(platform, "stats")
        ids = list(dict.fromkeys(i.strip() for i in external_ids if i.strip()))
        if not ids:
            return []
        async with self.client.session() as api:
            items = await self._videos(api, ids, "statistics")
        now = self.clock.now()
        return [stats for item in items if (stats := _mapped(mapper.to_stats, item, now)) is not None]

    async def creator(self, platform: Platform, handle: str) -> CreatorRecord:
        """A channel by its handle (with or without ``@``); ``NotFound`` when no channel has it."""
        _youtube_only(platform, "creator")
        async with self.client.session() as api:
            creator, _ = await self._channel_by_handle(api, handle)
        return creator

    async def creator_posts(self, platform: Platform, handle: str, *, limit: int = 50) -> list[VideoRecord]:
        """The channel's latest Shorts, newest first, from its uploads playlist (no search call spent)."""
        _youtube_only(platform, "creator posts")
        if limit <= 0:
            return []
        async with self.client.session() as api:
            creator, uploads = await self._channel_by_handle(api, handle)
            if uploads is None:
                raise UpstreamError(f"youtube: channel @{creator.handle} has no uploads playlist")
            params: dict[str, str | int] = {
                "part": "contentDetails",
                "playlistId": uploads,
                "maxResults": PAGE_SIZE,
            }
            posts: list[VideoRecord] = []
            walk = paging.pages(api, "playlistItems", params, UPLOADS_PAGES, paging.playlist_ids)
            try:
                async with aclosing(walk) as pages:
                    async for ids in pages:
                        posts.extend(await self._shorts(api, await self._videos(api, ids, VIDEO_PARTS)))
                        if len(posts) >= limit:
                            break
            except NotFound:
                # a channel that never uploaded has no uploads playlist to read: it has no posts
                log.info("youtube.uploads_missing", handle=creator.handle, playlist=uploads)
        posts.sort(key=lambda r: r.published_at, reverse=True)
        return posts[:limit]

    async def check(self) -> None:
        """One unit: the first entry of the US chart. Raises the typed errors (a refused key:
        ``Unavailable``)."""
        async with self.client.session() as api:
            await api.get(
                "videos", {"part": "id", "chart": "mostPopular", "regionCode": "US", "maxResults": 1}
            )

    # --- the protocol: what YouTube does not offer --------------------------------------------------

    async def sound(self, platform: Platform, external_id: str) -> SoundRecord:
        raise _not_offered("sounds")

    async def sound_videos(
        self, platform: Platform, external_id: str, *, limit: int = 50
    ) -> list[VideoRecord]:
        raise _not_offered("sounds")

    async def hashtag_videos(
        self, platform: Platform, tag: str, *, sort: HashtagSort = "top", limit: int = 50
    ) -> list[VideoRecord]:
        raise _not_offered("hashtag videos")

    async def slideshows(
        self, platform: Platform, keyword: str, since: datetime, until: datetime, *, limit: int = 50
    ) -> list[SlideshowRecord]:
        raise _not_offered("slideshows")

    async def ads(self, keyword: str, *, limit: int = 50) -> list[AdRecord]:
        raise _not_offered("ads")

    async def comments(
        self, platform: Platform, video_external_id: str, *, limit: int = 100
    ) -> list[CommentRecord]:
        raise _not_offered("comments")

    async def news(self, keywords: Sequence[str], since: datetime, until: datetime) -> list[NewsItem]:
        raise _not_offered("news")

    # --- the calls behind them ----------------------------------------------------------------------

    async def _videos(self, api: Session, ids: Sequence[str], parts: str) -> list[dict[str, Any]]:
        """videos.list of ``ids`` in chunks of 50, in the order YouTube answers; absent ids are left out."""
        items: list[dict[str, Any]] = []
        for start in range(0, len(ids), PAGE_SIZE):
            chunk = ids[start : start + PAGE_SIZE]
            body = await api.get("videos", {"part": parts, "id": ",".join(chunk), "maxResults": PAGE_SIZE})
            items.extend(paging.items(body))
        return items

    async def _shorts(
        self, api: Session, items: Iterable[dict[str, Any]], *, feed_region: str | None = None
    ) -> list[VideoRecord]:
        """The Shorts among videos.list items, with their channels; unmappable items are skipped."""
        shorts = [item for item in items if mapper.is_short(item)]
        authors = await self._creators(api, {c for item in shorts if (c := mapper.channel_id(item))})
        now = self.clock.now()
        records: list[VideoRecord] = []
        for item in shorts:
            author = authors.get(mapper.channel_id(item) or "")
            record = _mapped(mapper.to_video, item, now, creator=author, feed_region=feed_region)
            if record is not None:
                records.append(record)
        return records

    async def _creators(self, api: Session, channel_ids: set[str]) -> dict[str, CreatorRecord]:
        """Channels by id: the cached ones, the rest by channels.list in chunks of 50."""
        now = self.clock.now()
        known: dict[str, CreatorRecord] = {}
        missing: list[str] = []
        for channel in sorted(channel_ids):
            cached = self._channels.get(channel)
            if cached is not None and now - cached[1] < CHANNEL_TTL:
                known[channel] = cached[0]
            else:
                missing.append(channel)
        for start in range(0, len(missing), PAGE_SIZE):
            chunk = missing[start : start + PAGE_SIZE]
            body = await api.get(
                "channels", {"part": "snippet,statistics", "id": ",".join(chunk), "maxResults": PAGE_SIZE}
            )
            for item in paging.items(body):
                creator = _mapped(mapper.to_creator, item, now)
                if creator is not None and creator.platform_user_id is not None:
                    known[creator.platform_user_id] = creator
                    self._remember(creator, now)
        return known

    async def _channel_by_handle(self, api: Session, handle: str) -> tuple[CreatorRecord, str | None]:
        """A channel by handle and its uploads playlist; ``NotFound`` when no channel has the handle."""
        wanted = handle.strip().lstrip("@")
        if not wanted:
            raise NotFound("youtube: empty handle")
        body = await api.get(
            "channels", {"part": "snippet,statistics,contentDetails", "forHandle": f"@{wanted}"}
        )
        now = self.clock.now()
        for item in paging.items(body):
            creator = _mapped(mapper.to_creator, item, now)
            if creator is not None:
                self._remember(creator, now)
                return creator, mapper.uploads_playlist(item)
        raise NotFound(f"youtube: no channel @{wanted}")

    def _remember(self, creator: CreatorRecord, now: datetime) -> None:
        if creator.platform_user_id is None:
            return
        self._channels[creator.platform_user_id] = (creator, now)
        self._channels.move_to_end(creator.platform_user_id)
        while len(self._channels) > CHANNEL_CACHE_SIZE:
            self._channels.popitem(last=False)


def from_settings(
    settings: Settings,
    clock: Clock,
    ledger: Ledger | None,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
) -> YouTubeConnector:
    """The connector the registry builds for ``youtube`` in ``REELSCOPE_CONNECTORS``. Without
    ``REELSCOPE_YOUTUBE_API_KEY`` it is built all the same and answers every call with ``Unavailable``."""
    client = YouTubeClient(
        api_key=settings.youtube_api_key,
        base_url=settings.youtube_base_url,
        timeout=settings.collector_timeout_seconds,
        clock=clock,
        ledger=ledger,
        buckets=Buckets.of(
            search_daily=settings.youtube_search_daily_limit,
            units_daily=settings.youtube_units_daily_limit,
            background_share=settings.youtube_background_share,
        ),
        transport=transport,
    )
    return YouTubeConnector(client, clock)


# --- small helpers ----------------------------------------------------------------------------------


def _mapped(build: Callable[..., R], item: dict[str, Any], *args: Any, **kwargs: Any) -> R | None:
    """``build(item, …)``, or None (logged) when the item lacks what a record needs: one odd item does not
    sink a page."""
    try:
        return build(item, *args, **kwargs)
    except mapper.UnmappableItem as exc:
        log.warning("youtube.item_skipped", reason=str(exc), id=paging.id_or_none(item) or item.get("id"))
        return None


def _rfc3339(moment: datetime) -> str:
    return as_utc(moment).strftime("%Y-%m-%dT%H:%M:%SZ")


def _youtube_only(platform: Platform, what: str) -> None:
    if platform is not Platform.YOUTUBE:
        raise Unavailable(f"youtube: no {what} for {platform.value}")


def _not_offered(what: str) -> Unavailable:
    return Unavailable(f"youtube offers no {what}")
