"""The Instagram Graph API behind the connector protocol (issue 27 item 2; connectors reference §3).

What it offers, each a counted Graph call per page (bucket ``calls``, pauses on throttling):

    search_videos    the keyword as a hashtag (words run together: Instagram has no keyword search), its
                     top media posted in [since, until): 1 search + ≤ SEARCH_PAGES pages of 50
    hashtag_videos   top media (``top``) or the last day's media (``recent``): ≤ HASHTAG_PAGES pages
    creator          1 call (Business Discovery: professional accounts only)
    creator_posts    the account's Reels, 25 media a call, ≤ CREATOR_PAGES calls

A hashtag first searched this week takes one of the account's 30 weekly places (``hashtags.py``): when all
are held, the answer is ``RateLimited`` until the earliest frees. Before a new hashtag takes a place, the
connector reads once which hashtags Meta already counts (``recently_searched_hashtags``: another app or
deployment may use the same account) and adds those it lacks. Hashtag edges page with an ``after`` cursor
that may never change: a walk stops at an empty page, a repeated cursor, a page of media already seen, or
its page cap (logged). Hashtag media have no author, no views and no thumbnail (§3.6).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, TypeVar

import httpx

from reelscope.collectors.base import (
    Capability,
    CreatorRecord,
    HashtagSort,
    NotFound,
    RateLimited,
    Unavailable,
    UpstreamError,
    VideoRecord,
)
from reelscope.collectors.budget import Bucket
from reelscope.collectors.graph import CALLS, GraphClient, GraphSession, after_cursor
from reelscope.collectors.instagram import client as ig
from reelscope.collectors.instagram import mapper
from reelscope.collectors.instagram.hashtags import HashtagBudget, Place
from reelscope.collectors.ledger import Breaker, Ledger
from reelscope.collectors.status import BucketStatus
from reelscope.collectors.unoffered import Unoffered
from reelscope.config import Settings
from reelscope.kit.clock import Clock, as_utc
from reelscope.kit.logging import get_logger
from reelscope.kit.platforms import Platform

log = get_logger(__name__)

SEARCH_PAGES = 2
HASHTAG_PAGES = 4
CREATOR_PAGES = 4
INSTAGRAM = frozenset({Platform.INSTAGRAM})
EDGES: dict[str, str] = {"top": "top_media", "recent": "recent_media"}

R = TypeVar("R")


class InstagramConnector(Unoffered):
    """Reels from hashtags and from professional accounts. ``breaker``: after 5 failures in a row the
    router skips it for 2 minutes, doubling up to 30 (an expired token fails every call alike)."""

    name = ig.SOURCE
    platforms = INSTAGRAM
    capabilities = {
        capability: INSTAGRAM
        for capability in (
            Capability.SEARCH,
            Capability.HASHTAG_VIDEOS,
            Capability.CREATOR,
            Capability.CREATOR_POSTS,
        )
    }
    breaker = Breaker(threshold=5, cooldown=timedelta(minutes=2), max_cooldown=timedelta(minutes=30))
    buckets = (CALLS,)

    def __init__(self, client: ig.InstagramClient, hashtags: HashtagBudget, clock: Clock) -> None:
        self.client = client
        self.hashtags = hashtags
        self.clock = clock
        self._reconciled = False

    # --- what the planner and the status read --------------------------------------------------------

    def bucket_of(self, capability: Capability) -> Bucket:
        return CALLS

    @property
    def unavailable_reason(self) -> str | None:
        return self.client.missing()

    async def quota_status(self) -> list[BucketStatus]:
        """The weekly hashtag places, as a bucket of the collector status (they are not the ledger's)."""
        usage = await self.hashtags.usage() if self.client.user_id is not None else None
        if usage is None:
            return []
        return [
            BucketStatus(
                name="hashtags_7d",
                daily_limit=usage.limit,
                used=usage.used,
                used_background=0,
                background_limit=None,
                left=max(usage.limit - usage.used, 0),
                resets_at=usage.frees_at,
                paused_until=None,
                pause_reason=None,
            )
        ]

    # --- the protocol -------------------------------------------------------------------------------

    async def search_videos(
        self, platform: Platform, keyword: str, since: datetime, until: datetime, *, limit: int = 100
    ) -> list[VideoRecord]:
        """The keyword's hashtag's top Reels posted in [since, until), most liked first (hashtag media
        carry no views)."""
        _instagram_only(platform, "search")
        name = mapper.hashtag_name(keyword)
        if limit <= 0 or name is None:
            return []
        pages = min(SEARCH_PAGES, math.ceil(limit / ig.HASHTAG_PAGE))
        reels = await self._hashtag_reels(name, "top_media", pages)
        found = [r for r in reels if as_utc(since) <= r.published_at < as_utc(until)]
        found.sort(key=lambda r: (r.likes, r.comments), reverse=True)
        return found[:limit]

    async def hashtag_videos(
        self, platform: Platform, tag: str, *, sort: HashtagSort = "top", limit: int = 50
    ) -> list[VideoRecord]:
        """Reels carrying ``tag``: its top media (``top``), or the last day's newest first (``recent``)."""
        _instagram_only(platform, "hashtag videos")
        name = mapper.hashtag_name(tag)
        if limit <= 0 or name is None:
            return []
        pages = min(HASHTAG_PAGES, math.ceil(limit / ig.HASHTAG_PAGE) + 1)
        found = await self._hashtag_reels(name, EDGES[sort], pages)
        if sort == "recent":
            found.sort(key=lambda r: r.published_at, reverse=True)
        return found[:limit]

    async def creator(self, platform: Platform, handle: str) -> CreatorRecord:
        """A professional account's profile (Business Discovery); ``NotFound`` for an unknown, personal
        or age-gated account."""
        _instagram_only(platform, "creator")
        username = _username(handle)
        async with self.client.graph.session() as api:
            self._require_account()
            found = await self.client.business_discovery(api, username)
        return self._creator(found, username)

    async def creator_posts(self, platform: Platform, handle: str, *, limit: int = 50) -> list[VideoRecord]:
        """The account's latest Reels, newest first, each with its views and the account."""
        _instagram_only(platform, "creator posts")
        username = _username(handle)
        if limit <= 0:
            return []
        posts: dict[str, VideoRecord] = {}
        seen: set[str] = set()
        after: str | None = None
        creator: CreatorRecord | None = None
        async with self.client.graph.session() as api:
            self._require_account()
            for page in range(1, CREATOR_PAGES + 1):
                found = await self.client.business_discovery(
                    api, username, media=ig.CREATOR_PAGE, after=after
                )
                creator = creator or self._creator(found, username)
                media = found.get("media")
                items = _unseen(_data(media), seen)
                now = self.clock.now()
                for item in items:
                    if mapper.is_reel(item):
                        record = _mapped(mapper.to_video, item, now, creator=creator)
                        if record is not None:
                            posts.setdefault(record.external_id, record)
                following = _after(media)
                if not items or following is None or following == after or len(posts) >= limit:
                    break
                after = following
                if page == CREATOR_PAGES:
                    log.info("instagram.page_cap", what="creator posts", pages=CREATOR_PAGES)
        ordered = sorted(posts.values(), key=lambda r: r.published_at, reverse=True)
        return ordered[:limit]

    async def check(self) -> None:
        """One call: our own account (validates the token and REELSCOPE_INSTAGRAM_USER_ID)."""
        async with self.client.graph.session() as api:
            self._require_account()
            await self.client.me(api)

    # --- hashtags -----------------------------------------------------------------------------------

    async def _hashtag_reels(self, name: str, edge: str, pages: int) -> list[VideoRecord]:
        async with self.client.graph.session() as api:
            self._require_account()
            hashtag_id = await self._hashtag_id(api, name)
            reels: dict[str, VideoRecord] = {}
            seen: set[str] = set()
            after: str | None = None
            for page in range(1, pages + 1):
                items, following = await self.client.hashtag_media(api, hashtag_id, edge, after)
                fresh = _unseen(items, seen)
                now = self.clock.now()
                for item in fresh:
                    if mapper.is_reel(item):
                        record = _mapped(mapper.to_video, item, now)
                        if record is not None:
                            reels.setdefault(record.external_id, record)
                # §3.3: the cursor may never change; never loop on it
                if not fresh or following is None or following == after:
                    break
                after = following
                if page == pages:
                    log.info("instagram.page_cap", what=edge, hashtag=name, pages=pages)
        return list(reels.values())

    async def _hashtag_id(self, api: GraphSession, name: str) -> str:
        """The hashtag's id, its place among the weekly 30 taken first (see the module's doc)."""
        if not self._reconciled and not await self.hashtags.held(name):
            await self._reconcile(api)
        place = await self.hashtags.take(name)
        if place.hashtag_id is not None:
            return place.hashtag_id
        try:
            hashtag_id = await self.client.hashtag_id(api, name)
        except NotFound:
            raise NotFound(f"instagram: no hashtag #{name}") from None
        except UpstreamError as exc:
            if exc.retryable:
                await self._give_back(place)
                raise
            # §3.5: a "sensitive" hashtag is refused with a generic error, its place spent [unverified]
            raise NotFound(f"instagram: hashtag #{name} refused ({exc})") from None
        except (RateLimited, Unavailable):
            await self._give_back(place)
            raise
        if hashtag_id is None:
            raise NotFound(f"instagram: no hashtag #{name}")
        await self.hashtags.remember_id(name, hashtag_id)
        return hashtag_id

    async def _reconcile(self, api: GraphSession) -> None:
        """Once per connector: the hashtags Meta counts this week added to ours. Its failure is logged and
        forgotten (the local count still holds); a spent or refused source fails the search after it."""
        self._reconciled = True
        try:
            searched = await self.client.recently_searched(api)
        except (NotFound, UpstreamError) as exc:
            log.info("instagram.reconcile_failed", error=type(exc).__name__)
            return
        await self.hashtags.reconcile(searched)

    async def _give_back(self, place: Place) -> None:
        try:
            await self.hashtags.give_back(place)
        except Exception:  # the place stays taken: counting one too many is the safe side
            log.exception("instagram.hashtag_give_back_failed", hashtag=place.name)

    # --- helpers ------------------------------------------------------------------------------------

    def _require_account(self) -> None:
        if self.client.user_id is None:
            raise Unavailable(self.client.missing() or f"{ig.SOURCE}: no professional account configured")

    def _creator(self, found: dict[str, Any], username: str) -> CreatorRecord:
        try:
            return mapper.to_creator(found, self.clock.now())
        except mapper.UnmappableItem:
            raise NotFound(f"instagram: no professional account @{username}") from None


def _username(handle: str) -> str:
    username = handle.strip().lstrip("@")
    if not mapper.USERNAME.fullmatch(username):
        raise NotFound(f"instagram: {username!r} is not an Instagram username")
    return username


def _unseen(items: list[dict[str, Any]], seen: set[str]) -> list[dict[str, Any]]:
    """The media of a page not seen on an earlier one (by Graph id), now seen."""
    fresh = []
    for item in items:
        key = mapper.id_or_none(item)
        if key is not None and key not in seen:
            seen.add(key)
            fresh.append(item)
    return fresh


def _data(edge: Any) -> list[dict[str, Any]]:
    data = edge.get("data") if isinstance(edge, dict) else None
    return [item for item in data if isinstance(item, dict)] if isinstance(data, list) else []


def _after(edge: Any) -> str | None:
    return after_cursor(edge) if isinstance(edge, dict) else None


def _mapped(build: Callable[..., R], item: dict[str, Any], *args: Any, **kwargs: Any) -> R | None:
    try:
        return build(item, *args, **kwargs)
    except mapper.UnmappableItem as exc:
        log.warning("instagram.item_skipped", reason=str(exc), id=mapper.id_or_none(item))
        return None


def _instagram_only(platform: Platform, what: str) -> None:
    if platform is not Platform.INSTAGRAM:
        raise Unavailable(f"instagram: no {what} for {platform.value}")


def from_settings(
    settings: Settings,
    clock: Clock,
    ledger: Ledger | None,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
) -> InstagramConnector:
    """The connector the registry builds for ``instagram``. Without the token or the account id it is built
    all the same and answers every call with ``Unavailable``."""
    graph = GraphClient(
        ig.access(settings.instagram_access_token),
        base_url=settings.instagram_base_url,
        timeout=settings.collector_timeout_seconds,
        clock=clock,
        ledger=ledger,
        transport=transport,
    )
    client = ig.InstagramClient(graph, settings.instagram_user_id)
    account = client.user_id or ""
    budget = HashtagBudget(ledger.db if ledger is not None else None, clock, account)
    return InstagramConnector(client, budget, clock)
