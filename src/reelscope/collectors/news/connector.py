"""The news source: GDELT DOC 2.0 and Google News RSS behind ``Connector.news`` (issue 26 item 3; connectors
reference §7).

Both sub-sources are asked at once for the keywords OR'ed; their items are merged (``mapper.merge``). If
one fails and the other answers, the answer is what the other found (the failure is logged); if both
fail, the more hopeful error speaks: throttled (retry at the earlier moment), then a retryable failure.
No key is needed, so the source is never ``Unavailable`` for want of configuration.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from datetime import datetime, timedelta
from typing import Any

import httpx

from reelscope.collectors.base import Capability, ConnectorError, NewsItem
from reelscope.collectors.ledger import Breaker, Ledger
from reelscope.collectors.news import mapper
from reelscope.collectors.news.client import GDELT, RSS, Gdelt, GoogleNewsRss, Sleep
from reelscope.collectors.routing import combined
from reelscope.collectors.unoffered import Unoffered
from reelscope.config import Settings
from reelscope.kit.clock import Clock
from reelscope.kit.logging import get_logger
from reelscope.kit.platforms import Platform

log = get_logger(__name__)


async def _attempt(call: Awaitable[list[Any]]) -> list[Any] | ConnectorError:
    """A sub-source's answer, or its typed failure (any other exception is a bug and propagates)."""
    try:
        return await call
    except ConnectorError as exc:
        return exc


def _kept(sub_source: str, mapped: list[NewsItem | None]) -> list[NewsItem]:
    """The items that mapped; how many did not is logged (an entry without a title, link or date)."""
    kept = [item for item in mapped if item is not None]
    if len(kept) < len(mapped):
        log.info("collectors.news.skipped", sub_source=sub_source, skipped=len(mapped) - len(kept))
    return kept


class NewsConnector(Unoffered):
    name = "news"
    platforms: frozenset[Platform] = frozenset()
    capabilities = {Capability.NEWS: frozenset[Platform]()}
    # both sub-sources failing again and again: skip the source for a while
    breaker = Breaker(threshold=3, cooldown=timedelta(minutes=5), max_cooldown=timedelta(hours=2))
    # no quota, only pacing and throttles: listed so the collector status shows their pauses
    buckets = (GDELT, RSS)

    def __init__(self, gdelt: Gdelt, rss: GoogleNewsRss, clock: Clock) -> None:
        self.gdelt, self.rss, self.clock = gdelt, rss, clock

    async def news(self, keywords: Sequence[str], since: datetime, until: datetime) -> list[NewsItem]:
        words = mapper.clean_keywords(keywords)
        if not words or since >= until:
            return []
        now = self.clock.now()
        from_gdelt, from_rss = await asyncio.gather(
            _attempt(self.gdelt.articles(words, since, until)), _attempt(self.rss.search(words, since, now))
        )
        failures = {
            name: outcome
            for name, outcome in (("gdelt", from_gdelt), ("google news", from_rss))
            if isinstance(outcome, ConnectorError)
        }
        if len(failures) == 2:
            raise combined(list(failures.items()))
        for sub_source, error in failures.items():
            log.warning(
                "collectors.news.partial", failed=sub_source, error=type(error).__name__, reason=str(error)
            )
        gdelt: list[NewsItem | None] = []
        rss: list[NewsItem | None] = []
        if not isinstance(from_gdelt, ConnectorError):
            gdelt = [mapper.gdelt_article(article, words, now) for article in from_gdelt]
        if not isinstance(from_rss, ConnectorError):
            rss = [mapper.rss_entry(entry, words, now) for entry in from_rss]
        return mapper.merge(_kept("gdelt", gdelt), _kept("google news", rss), since, until)

    async def check(self) -> None:
        """One small request to each sub-source (they have a base URL each, both worth validating)."""
        await self.rss.check()
        await self.gdelt.check()


def from_settings(
    settings: Settings,
    clock: Clock,
    ledger: Ledger | None,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    sleep: Sleep = asyncio.sleep,
) -> NewsConnector:
    timeout = settings.collector_timeout_seconds
    gdelt = Gdelt(
        settings.gdelt_base_url, clock=clock, ledger=ledger, timeout=timeout, transport=transport, sleep=sleep
    )
    rss = GoogleNewsRss(
        settings.news_rss_base_url,
        language=settings.news_language,
        country=settings.news_country,
        clock=clock,
        ledger=ledger,
        timeout=timeout,
        transport=transport,
    )
    return NewsConnector(gdelt, rss, clock)
