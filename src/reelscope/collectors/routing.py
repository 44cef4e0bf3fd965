"""Capability routing: a family asks for an operation, the enabled sources that offer it answer in the
configured order (issue 26 item 1; ADR 0044).

``Sources`` is itself a ``Connector``: ``sources.creator(platform, handle)`` asks every enabled source
that declares ``Capability.CREATOR`` for that platform, in ``REELSCOPE_CONNECTORS`` order, and returns
the first answer. A source that is spent or throttled (``RateLimited``), refuses or lacks credentials
(``Unavailable``) or fails (``UpstreamError``) is passed over for the next; ``NotFound`` is an answer (the
thing does not exist) and ends the search. When every source fails, the caller gets one error that says
what each source said, typed by the most hopeful of them: throttled (retry at the earliest reset), then a
retryable failure, then a permanent one, then unavailable.

A source whose circuit is open (``Ledger.may_call``: it kept failing, ``Breaker``) is skipped without
a call, so a source that answers 503 or blocks for an hour costs each request nothing after the calls
that opened the circuit, each bounded by its own timeout; when the circuit's time is up, one call tries
it again while the others still skip it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import TypeVar

from reelscope.collectors.base import (
    PLATFORMLESS,
    AdRecord,
    Capability,
    CommentRecord,
    Connector,
    ConnectorError,
    CreatorRecord,
    HashtagSort,
    NewsItem,
    NotFound,
    RateLimited,
    SlideshowRecord,
    SoundRecord,
    Unavailable,
    UpstreamError,
    VideoRecord,
    VideoStats,
)
from reelscope.collectors.budget import Bucket
from reelscope.collectors.ledger import Breaker, Ledger
from reelscope.kit import metrics
from reelscope.kit.logging import get_logger
from reelscope.kit.platforms import Platform

log = get_logger(__name__)

T = TypeVar("T")
# the kinds a failed call is counted under: the four of the connector protocol, however a source refines them
ERROR_KINDS = (NotFound, RateLimited, UpstreamError, Unavailable)


def offers(connector: Connector, capability: Capability, platform: Platform | None) -> bool:
    platforms = connector.capabilities.get(capability)
    if platforms is None:
        return False
    return capability in PLATFORMLESS or platform is None or platform in platforms


def breaker_of(connector: Connector) -> Breaker | None:
    """The source's circuit breaker; the sandbox has none (its injected failures are part of its world)."""
    found = getattr(connector, "breaker", None)
    return found if isinstance(found, Breaker) else None


def bucket_of(connector: Connector, capability: Capability) -> Bucket | None:
    """The quota bucket a call of ``capability`` spends (a source's ``bucket_of``); None: no quota."""
    find = getattr(connector, "bucket_of", None)
    return find(capability) if callable(find) else None


def _rank(error: ConnectorError) -> int:
    """Which failure speaks for all when every source failed: the most hopeful for a retry."""
    if isinstance(error, RateLimited):
        return 0
    if isinstance(error, UpstreamError):
        return 1 if error.retryable else 2
    return 3


def combined(failures: Sequence[tuple[str, ConnectorError]]) -> ConnectorError:
    """One error for several failed calls (sources, or the parts of one source's answer): what each
    said, typed by the most hopeful of them (throttled: retry at the earliest moment)."""
    said = "; ".join(f"{name}: {error}" for name, error in failures)
    best = min((error for _, error in failures), key=_rank)
    if isinstance(best, RateLimited):
        retry_at = min(e.retry_at for _, e in failures if isinstance(e, RateLimited))
        return RateLimited(said, retry_at=retry_at)
    if isinstance(best, UpstreamError):
        return UpstreamError(said, retryable=best.retryable)
    return Unavailable(said)


class Sources:
    """The enabled sources in the configured order, routed by capability."""

    name = "sources"

    def __init__(self, connectors: Sequence[Connector], ledger: Ledger | None) -> None:
        self.connectors = list(connectors)
        self.ledger = ledger
        self.platforms: frozenset[Platform] = frozenset().union(*(c.platforms for c in self.connectors))
        every: dict[Capability, frozenset[Platform]] = {}
        for connector in self.connectors:
            for capability, platforms in connector.capabilities.items():
                every[capability] = every.get(capability, frozenset()) | platforms
        self.capabilities = every

    def offering(self, capability: Capability, platform: Platform | None = None) -> list[Connector]:
        """The enabled sources that offer ``capability`` (for ``platform``), in the configured order."""
        return [c for c in self.connectors if offers(c, capability, platform)]

    def offers(self, capability: Capability, platform: Platform | None = None) -> bool:
        return bool(self.offering(capability, platform))

    def by_name(self, name: str) -> Connector | None:
        return next((c for c in self.connectors if c.name == name), None)

    async def call(self, connector: Connector, operation: Callable[[Connector], Awaitable[T]]) -> T:
        """One call of one source, its outcome kept in the ledger (health, circuit breaker) and counted
        (kit/metrics.py: ``ok`` or the connector error's kind)."""
        try:
            answer = await operation(connector)
        except NotFound:
            metrics.COLLECTOR_CALLS.labels(connector.name, NotFound.__name__).inc()
            await self._note(connector, None)
            raise
        except ConnectorError as exc:
            metrics.COLLECTOR_CALLS.labels(connector.name, _kind(exc)).inc()
            await self._note(connector, exc)
            raise
        metrics.COLLECTOR_CALLS.labels(connector.name, "ok").inc()
        await self._note(connector, None)
        return answer

    async def _note(self, connector: Connector, error: ConnectorError | None) -> None:
        if self.ledger is None:
            return
        if error is None:
            await self.ledger.succeeded(connector.name)
        elif not isinstance(error, RateLimited):  # a spent quota is the bucket's state, not ill health
            await self.ledger.failed(connector.name, error, breaker_of(connector))

    async def first(
        self,
        capability: Capability,
        platform: Platform | None,
        operation: Callable[[Connector], Awaitable[T]],
    ) -> T:
        """The first answer of the sources offering ``capability``, in order (see the module's doc)."""
        failures: list[tuple[str, ConnectorError]] = []
        for connector in self.offering(capability, platform):
            breaker = breaker_of(connector)
            if self.ledger is not None and breaker is not None:
                blocked = await self.ledger.may_call(connector.name, breaker)
                if blocked is not None:
                    until, why = blocked
                    failures.append((connector.name, RateLimited(f"circuit open ({why})", retry_at=until)))
                    continue
            try:
                return await self.call(connector, operation)
            except NotFound:
                raise
            except ConnectorError as exc:
                log.info(
                    "collectors.fell_through",
                    source=connector.name,
                    capability=capability.value,
                    platform=platform.value if platform else None,
                    error=type(exc).__name__,
                )
                failures.append((connector.name, exc))
        raise self._all_failed(capability, platform, failures)

    @staticmethod
    def _all_failed(
        capability: Capability, platform: Platform | None, failures: list[tuple[str, ConnectorError]]
    ) -> ConnectorError:
        where = f" for {platform.value}" if platform and capability not in PLATFORMLESS else ""
        if not failures:
            return Unavailable(f"no enabled source offers {capability.value}{where} (REELSCOPE_CONNECTORS)")
        return combined(failures)

    # --- the connector protocol, routed ------------------------------------------------------------

    async def search_videos(
        self, platform: Platform, keyword: str, since: datetime, until: datetime, *, limit: int = 100
    ) -> list[VideoRecord]:
        return await self.first(
            Capability.SEARCH,
            platform,
            lambda c: c.search_videos(platform, keyword, since, until, limit=limit),
        )

    async def video(self, platform: Platform, external_id: str) -> VideoRecord:
        return await self.first(Capability.VIDEO, platform, lambda c: c.video(platform, external_id))

    async def video_stats(self, platform: Platform, external_id: str) -> VideoStats:
        return await self.first(Capability.STATS, platform, lambda c: c.video_stats(platform, external_id))

    async def videos_stats(self, platform: Platform, external_ids: Sequence[str]) -> list[VideoStats]:
        return await self.first(Capability.STATS, platform, lambda c: c.videos_stats(platform, external_ids))

    async def creator(self, platform: Platform, handle: str) -> CreatorRecord:
        return await self.first(Capability.CREATOR, platform, lambda c: c.creator(platform, handle))

    async def creator_posts(self, platform: Platform, handle: str, *, limit: int = 50) -> list[VideoRecord]:
        return await self.first(
            Capability.CREATOR_POSTS, platform, lambda c: c.creator_posts(platform, handle, limit=limit)
        )

    async def sound(self, platform: Platform, external_id: str) -> SoundRecord:
        return await self.first(Capability.SOUND, platform, lambda c: c.sound(platform, external_id))

    async def sound_videos(
        self, platform: Platform, external_id: str, *, limit: int = 50
    ) -> list[VideoRecord]:
        return await self.first(
            Capability.SOUND, platform, lambda c: c.sound_videos(platform, external_id, limit=limit)
        )

    async def hashtag_videos(
        self, platform: Platform, tag: str, *, sort: HashtagSort = "top", limit: int = 50
    ) -> list[VideoRecord]:
        return await self.first(
            Capability.HASHTAG_VIDEOS,
            platform,
            lambda c: c.hashtag_videos(platform, tag, sort=sort, limit=limit),
        )

    async def slideshows(
        self, platform: Platform, keyword: str, since: datetime, until: datetime, *, limit: int = 50
    ) -> list[SlideshowRecord]:
        return await self.first(
            Capability.SLIDESHOWS,
            platform,
            lambda c: c.slideshows(platform, keyword, since, until, limit=limit),
        )

    async def ads(self, keyword: str, *, limit: int = 50) -> list[AdRecord]:
        return await self.first(Capability.ADS, None, lambda c: c.ads(keyword, limit=limit))

    async def comments(
        self, platform: Platform, video_external_id: str, *, limit: int = 100
    ) -> list[CommentRecord]:
        return await self.first(
            Capability.COMMENTS, platform, lambda c: c.comments(platform, video_external_id, limit=limit)
        )

    async def news(self, keywords: Sequence[str], since: datetime, until: datetime) -> list[NewsItem]:
        return await self.first(Capability.NEWS, None, lambda c: c.news(keywords, since, until))

    async def discovery_feed(
        self, platform: Platform, region: str | None, since: datetime, until: datetime
    ) -> list[VideoRecord]:
        capability = Capability.WORLD_FEED if region is None else Capability.POPULAR_FEED
        return await self.first(
            capability, platform, lambda c: c.discovery_feed(platform, region, since, until)
        )


def _kind(error: ConnectorError) -> str:
    """The protocol's name for a connector error (a bounded label value)."""
    return next((kind.__name__ for kind in ERROR_KINDS if isinstance(error, kind)), ConnectorError.__name__)
