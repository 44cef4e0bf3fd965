"""yt-dlp as a source: opt-in enrichment and a no-key fallback (issue 26 item 4; connectors reference §5, §8).

- **video / stats by id** on the three platforms, from the id's page (an Instagram media id becomes its
  link code, §3.7). A YouTube video that yt-dlp says is not a Short is ``NotFound``: spec §2.1 keeps only
  Shorts for YouTube.
- **a creator's posts** on TikTok (the profile's entries carry every field) and YouTube (the channel's
  Shorts tab, whose entries carry no date: each is resolved by its own fetch).
- **search** on YouTube only (``ytsearchN:``; TikTok has none, §5.2): Shorts among the results (a
  ``/shorts/`` link), each resolved by its own fetch for its date and counters.

Resolving costs a fetch per video (seconds each, ``CHILDREN`` at a time), so at most ``RESOLVE_AT_MOST``
entries are resolved per call; the cap is logged. A resolved entry that fails is left out; when every
one fails, the most hopeful of their errors is raised (``routing.combined``).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Sequence
from datetime import datetime, timedelta
from typing import Any

import httpx

from reelscope.collectors.base import (
    ALL_PLATFORMS,
    Capability,
    ConnectorError,
    NotFound,
    Unavailable,
    UpstreamError,
    VideoRecord,
    VideoStats,
)
from reelscope.collectors.checks import InvalidRecord, check_external_id, check_video
from reelscope.collectors.ledger import Breaker, Ledger
from reelscope.collectors.routing import combined
from reelscope.collectors.unoffered import Unoffered
from reelscope.collectors.ytdlp.client import Ytdlp
from reelscope.collectors.ytdlp.mapper import UnmappableInfo, info_to_video, is_short, media_id_to_shortcode
from reelscope.config import Settings
from reelscope.kit.clock import Clock
from reelscope.kit.logging import get_logger
from reelscope.kit.platforms import Platform

log = get_logger(__name__)

RESOLVE_AT_MOST = 30
CHECK_URL = "https://www.youtube.com/watch?v=jNQXAC9IVRw"
# search results asked for per wanted video: not every result is a Short
SEARCH_RESULTS_PER_VIDEO, SEARCH_RESULTS_AT_MOST = 3, 60
HANDLE = re.compile(r"[\w.\-]{1,100}")
# a flat entry's date is approximate ("2 weeks ago"): one this far before the window is surely out
APPROXIMATE = timedelta(days=7)


def video_url(platform: Platform, external_id: str) -> str:
    """The page of a video; an id not of its platform's shape (``checks.ID_SHAPES``) is ``NotFound``."""
    try:
        check_external_id(platform, external_id)
    except InvalidRecord as exc:
        raise NotFound(str(exc)) from exc
    if platform is Platform.YOUTUBE:
        return f"https://www.youtube.com/shorts/{external_id}"
    if platform is Platform.TIKTOK:
        return f"https://www.tiktok.com/@/video/{external_id}"  # yt-dlp takes the id without the handle
    return f"https://www.instagram.com/reel/{media_id_to_shortcode(external_id)}/"


def profile(handle: str) -> str:
    """A handle as it appears in a profile's URL; one that could not be a handle is ``NotFound``."""
    bare = handle.strip().lstrip("@")
    if not HANDLE.fullmatch(bare):
        raise NotFound(f"{handle!r} is not a handle")
    return bare


def _entries(info: dict[str, Any]) -> list[dict[str, Any]]:
    """A listing's entries that are dicts (``ignoreerrors`` leaves ``None`` for a failed one)."""
    entries = info.get("entries")
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


class YtdlpConnector(Unoffered):
    name = "ytdlp"
    platforms = ALL_PLATFORMS
    capabilities = {
        Capability.VIDEO: ALL_PLATFORMS,
        Capability.STATS: ALL_PLATFORMS,
        Capability.CREATOR_POSTS: frozenset({Platform.TIKTOK, Platform.YOUTUBE}),
        Capability.SEARCH: frozenset({Platform.YOUTUBE}),
    }
    # per-host blocks are paused in the ledger (client.py); this opens the whole source's circuit only
    # when failures keep coming anyway (a broken yt-dlp, a dead network)
    breaker = Breaker(threshold=5, cooldown=timedelta(minutes=2), max_cooldown=timedelta(hours=1))
    # a fetch is seconds and a process per video: never the background refresh's source (catalog/collection)
    on_demand_only = True

    def __init__(self, client: Ytdlp, clock: Clock) -> None:
        self.client, self.clock = client, clock

    def _record(self, info: dict[str, Any]) -> VideoRecord:
        """The video of a dict; one whose values cannot be true (``checks.py``) is an odd answer."""
        now = self.clock.now()
        try:
            record = info_to_video(info, now)
            check_video(record, now)
        except (UnmappableInfo, InvalidRecord) as exc:
            raise UpstreamError(f"yt-dlp: unusable info dict ({exc})", retryable=True) from exc
        return record

    async def _full(self, platform: Platform, external_id: str) -> tuple[VideoRecord, dict[str, Any]]:
        info = await self.client.info(platform, video_url(platform, external_id))
        return self._record(info), info

    async def video(self, platform: Platform, external_id: str) -> VideoRecord:
        record, info = await self._full(platform, external_id)
        if platform is Platform.YOUTUBE and is_short(info) is False:
            raise NotFound(f"YouTube video {external_id} is not a Short")
        return record

    async def video_stats(self, platform: Platform, external_id: str) -> VideoStats:
        record, _ = await self._full(platform, external_id)
        return _stats(record)

    async def videos_stats(self, platform: Platform, external_ids: Sequence[str]) -> list[VideoStats]:
        records = await self._each(
            [self._full(platform, i) for i in dict.fromkeys(external_ids)], what="stats"
        )
        return [_stats(record) for record, _ in records]

    async def creator_posts(self, platform: Platform, handle: str, *, limit: int = 50) -> list[VideoRecord]:
        handle = profile(handle)
        if platform is Platform.TIKTOK:
            info = await self.client.info(platform, f"https://www.tiktok.com/@{handle}", items=limit)
            posts = [r for r in (self._mapped(e) for e in _entries(info)) if r is not None]
        elif platform is Platform.YOUTUBE:
            info = await self.client.info(
                platform, f"https://www.youtube.com/@{handle}/shorts", items=min(limit, RESOLVE_AT_MOST)
            )
            posts = await self._resolve(platform, _entries(info), limit)
        else:
            raise Unavailable(f"ytdlp does not offer creator_posts for {platform.value}")
        return sorted(posts, key=lambda r: r.published_at, reverse=True)[:limit]

    async def search_videos(
        self, platform: Platform, keyword: str, since: datetime, until: datetime, *, limit: int = 100
    ) -> list[VideoRecord]:
        if platform is not Platform.YOUTUBE:
            raise Unavailable(f"ytdlp does not offer search_videos for {platform.value}")
        wanted = min(max(limit, 1) * SEARCH_RESULTS_PER_VIDEO, SEARCH_RESULTS_AT_MOST)
        # "#shorts" in the query only biases the results toward Shorts (§8); the /shorts/ link decides
        info = await self.client.info(platform, f"ytsearch{wanted}:{keyword} #shorts")
        shorts = [
            e
            for e in _entries(info)
            if is_short(e) and not (isinstance(e.get("timestamp"), int | float) and _before(e, since))
        ]
        found = await self._resolve(platform, shorts, limit)
        inside = [r for r in found if since <= r.published_at < until]
        return sorted(inside, key=lambda r: r.views, reverse=True)[:limit]

    async def check(self) -> None:
        """One fetch of a video that has stood since 2005: yt-dlp runs here and YouTube does not block
        this address (a bot check pauses the host as any call's would)."""
        self._record(await self.client.info(Platform.YOUTUBE, CHECK_URL))

    # --- helpers -----------------------------------------------------------------------------------

    def _mapped(self, entry: dict[str, Any]) -> VideoRecord | None:
        """A listing's entry as a video, or None (logged) when it is partial or cannot be true."""
        try:
            return self._record(entry)
        except UpstreamError as exc:
            log.info("collectors.ytdlp.entry_skipped", reason=str(exc))
            return None

    async def _resolve(
        self, platform: Platform, entries: list[dict[str, Any]], limit: int
    ) -> list[VideoRecord]:
        ids = list(dict.fromkeys(str(e["id"]) for e in entries if e.get("id")))
        cap = min(limit, RESOLVE_AT_MOST)
        if len(ids) > cap:
            log.info("collectors.ytdlp.resolve_cap", found=len(ids), resolved=cap)
        resolved = await self._each([self._full(platform, i) for i in ids[:cap]], what="resolve")
        return [
            record
            for record, info in resolved
            if not (platform is Platform.YOUTUBE and is_short(info) is False)
        ]

    async def _each(
        self, calls: list[Awaitable[tuple[VideoRecord, dict[str, Any]]]], *, what: str
    ) -> list[tuple[VideoRecord, dict[str, Any]]]:
        """Every call's answer; unknown videos left out; raise only when nothing but failures came."""
        outcomes = await asyncio.gather(*(_attempt(c) for c in calls))
        done = [o for o in outcomes if not isinstance(o, ConnectorError)]
        failed = [o for o in outcomes if isinstance(o, ConnectorError) and not isinstance(o, NotFound)]
        if failed:
            log.info("collectors.ytdlp.partial", what=what, answered=len(done), failed=len(failed))
        if failed and not done:
            raise combined([(f"video {n}", e) for n, e in enumerate(failed, 1)])
        return done


async def _attempt(
    call: Awaitable[tuple[VideoRecord, dict[str, Any]]],
) -> tuple[VideoRecord, dict[str, Any]] | ConnectorError:
    try:
        return await call
    except ConnectorError as exc:
        return exc


def _before(entry: dict[str, Any], since: datetime) -> bool:
    return float(entry["timestamp"]) < (since - APPROXIMATE).timestamp()


def _stats(record: VideoRecord) -> VideoStats:
    return VideoStats(
        platform=record.platform,
        external_id=record.external_id,
        fetched_at=record.fetched_at,
        views=record.views,
        likes=record.likes,
        comments=record.comments,
        shares=record.shares,
        bookmarks=record.bookmarks,
    )


def from_settings(
    settings: Settings,
    clock: Clock,
    ledger: Ledger | None,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
) -> YtdlpConnector:
    """``transport`` is unused: yt-dlp has its own HTTP stack, in its own process."""
    return YtdlpConnector(Ytdlp(clock=clock, ledger=ledger, seconds=settings.ytdlp_timeout_seconds), clock)
