"""The Meta Ad Library behind the connector protocol (issue 27 item 3; connectors reference §4): the ads
of agents that collect them (spec §4.4 ``meta_ads_enabled``, ``GET /v1/agents/{id}/ads``).

``ads(keyword)`` is one counted Graph call per page of 50 (bucket ``calls``; Meta publishes no quota, it
throttles with codes 613, 4, 17, 32: the bucket is paused, ``RateLimited``), at most ``PAGES`` pages,
stopping at an empty page, a repeated cursor or a page of ads already seen. A token whose developer has not
completed identity confirmation fails every call with code 10/2332002: ``Unavailable`` saying so.
"""

from __future__ import annotations

import math
from datetime import timedelta

import httpx

from reelscope.collectors.base import AdRecord, Capability
from reelscope.collectors.budget import Bucket
from reelscope.collectors.graph import CALLS, GraphClient
from reelscope.collectors.ledger import Breaker, Ledger
from reelscope.collectors.meta_ads import client as meta
from reelscope.collectors.meta_ads import mapper
from reelscope.collectors.unoffered import Unoffered
from reelscope.config import Settings
from reelscope.kit.clock import Clock
from reelscope.kit.logging import get_logger
from reelscope.kit.platforms import Platform

log = get_logger(__name__)

PAGES = 4
CHECK_KEYWORD = "news"


class MetaAdsConnector(Unoffered):
    """Ads of the Meta Ad Library. ``breaker``: after 5 failures in a row the router skips it for 2
    minutes, doubling up to 30."""

    name = meta.SOURCE
    platforms: frozenset[Platform] = frozenset()
    capabilities = {Capability.ADS: frozenset[Platform]()}
    breaker = Breaker(threshold=5, cooldown=timedelta(minutes=2), max_cooldown=timedelta(minutes=30))
    buckets = (CALLS,)

    def __init__(self, client: meta.MetaAdsClient, clock: Clock) -> None:
        self.client = client
        self.clock = clock

    def bucket_of(self, capability: Capability) -> Bucket:
        return CALLS

    @property
    def unavailable_reason(self) -> str | None:
        return self.client.graph.missing_token()

    async def ads(self, keyword: str, *, limit: int = 50) -> list[AdRecord]:
        """Ads whose text matches ``keyword`` (any words, any order), as the library orders them."""
        wanted = " ".join(keyword.split())
        if limit <= 0 or not wanted:
            return []
        found: dict[str, AdRecord] = {}
        after: str | None = None
        pages = min(PAGES, math.ceil(limit / meta.PAGE_SIZE))
        async with self.client.graph.session() as api:
            for page in range(1, pages + 1):
                items, following = await self.client.archive(api, wanted, after)
                now = self.clock.now()
                fresh = 0
                for item in items:
                    try:
                        ad = mapper.to_ad(item, wanted, now)
                    except mapper.UnmappableItem as exc:
                        log.warning("meta_ads.item_skipped", reason=str(exc), id=mapper.ad_id(item))
                        continue
                    if ad.external_id not in found:
                        found[ad.external_id] = ad
                        fresh += 1
                if not fresh or following is None or following == after or len(found) >= limit:
                    break
                after = following
                if page == pages:
                    log.info("meta_ads.page_cap", pages=pages, ads=len(found))
        return list(found.values())[:limit]

    async def check(self) -> None:
        """One call: a page of one ad (validates the token and the identity confirmation)."""
        async with self.client.graph.session() as api:
            await self.client.archive(api, CHECK_KEYWORD, None, limit=1)


def from_settings(
    settings: Settings,
    clock: Clock,
    ledger: Ledger | None,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
) -> MetaAdsConnector:
    """The connector the registry builds for ``meta_ads``. Without the token it is built all the same and
    answers every call with ``Unavailable``."""
    graph = GraphClient(
        meta.access(settings.meta_access_token),
        base_url=settings.meta_base_url,
        timeout=settings.collector_timeout_seconds,
        clock=clock,
        ledger=ledger,
        transport=transport,
    )
    return MetaAdsConnector(meta.MetaAdsClient(graph, meta.countries(settings.meta_ads_countries)), clock)
