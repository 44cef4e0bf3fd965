"""Capability routing: each operation goes to the enabled sources offering it, in the configured order,
falling through on a spent, unavailable or failing source (issue 26 item 1; ADR 0044)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import datetime, timedelta

import pytest

from reelscope.collectors.base import (
    PLATFORMLESS,
    Capability,
    ConnectorError,
    CreatorRecord,
    NewsItem,
    NotFound,
    RateLimited,
    Unavailable,
    UpstreamError,
)
from reelscope.collectors.ledger import Breaker, Ledger
from reelscope.collectors.registry import UnknownConnector, build_sources
from reelscope.collectors.routing import Sources
from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from reelscope.runtime import Runtime


class Fake:
    """A source that offers what it is told and answers, or fails, as told; it counts its calls."""

    breaker: Breaker | None = None
    # when set, every call waits for it (a source that has not answered yet)
    gate: asyncio.Event | None = None

    def __init__(
        self,
        name: str,
        capabilities: dict[Capability, frozenset[Platform]],
        error: ConnectorError | None = None,
    ) -> None:
        self.name = name
        self.capabilities = capabilities
        self.platforms = frozenset().union(*capabilities.values())
        self.error = error
        self.calls = 0

    async def creator(self, platform: Platform, handle: str) -> CreatorRecord:
        self.calls += 1
        if self.gate is not None:
            await self.gate.wait()
        if self.error is not None:
            raise self.error
        return CreatorRecord(platform=platform, handle=handle, display_name=self.name)

    async def news(self, keywords: Sequence[str], since: datetime, until: datetime) -> list[NewsItem]:
        self.calls += 1
        if self.error is not None:
            raise self.error
        return []


YOUTUBE = frozenset({Platform.YOUTUBE})
CREATORS = {Capability.CREATOR: YOUTUBE}


def sources(*fakes: Fake, ledger: Ledger | None = None) -> Sources:
    return Sources(list(fakes), ledger)  # type: ignore[arg-type]


class TestOffering:
    def test_sources_are_asked_for_what_they_declare_in_the_configured_order(self) -> None:
        api = Fake("youtube", CREATORS)
        scraper = Fake("ytdlp", {Capability.CREATOR: frozenset(Platform)})
        news = Fake("news", {Capability.NEWS: frozenset()})
        routed = sources(api, scraper, news)
        assert routed.offering(Capability.CREATOR, Platform.YOUTUBE) == [api, scraper]
        assert routed.offering(Capability.CREATOR, Platform.TIKTOK) == [scraper]
        assert routed.offering(Capability.NEWS) == [news]
        assert not routed.offers(Capability.SEARCH, Platform.YOUTUBE)
        assert routed.platforms == frozenset(Platform)

    def test_the_default_is_the_sandbox_alone_and_unknown_names_are_refused(self, clock: ManualClock) -> None:
        built = build_sources(Settings(), clock, None)
        assert [c.name for c in built.connectors] == ["sandbox"]
        assert all(built.offers(c, None if c in PLATFORMLESS else Platform.TIKTOK) for c in Capability)
        with pytest.raises(UnknownConnector, match="myspace"):
            build_sources(Settings(connectors="sandbox,myspace"), clock, None)


class TestFallThrough:
    @pytest.mark.parametrize(
        "error",
        [
            RateLimited("search quota spent", retry_at=datetime(2026, 11, 22, 8, 0).astimezone()),
            Unavailable("REELSCOPE_YOUTUBE_API_KEY is not set"),
            UpstreamError("503", retryable=True),
        ],
    )
    async def test_a_failing_source_passes_the_call_to_the_next(self, error: ConnectorError) -> None:
        api, scraper = Fake("youtube", CREATORS, error), Fake("ytdlp", CREATORS)
        found = await sources(api, scraper).creator(Platform.YOUTUBE, "crumblab")
        assert found.display_name == "ytdlp" and (api.calls, scraper.calls) == (1, 1)

    async def test_not_found_is_an_answer(self) -> None:
        api, scraper = Fake("youtube", CREATORS, NotFound("no channel @nobody")), Fake("ytdlp", CREATORS)
        with pytest.raises(NotFound):
            await sources(api, scraper).creator(Platform.YOUTUBE, "nobody")
        assert scraper.calls == 0

    async def test_when_all_fail_the_most_hopeful_error_speaks_for_all_and_names_each(self) -> None:
        soon = datetime(2026, 11, 22, 7, 0).astimezone()
        routed = sources(
            Fake("youtube", CREATORS, RateLimited("quota spent", retry_at=soon + timedelta(hours=1))),
            Fake("ytdlp", CREATORS, Unavailable("blocked: bot check")),
            Fake("other", CREATORS, RateLimited("throttled", retry_at=soon)),
        )
        with pytest.raises(RateLimited) as failed:
            await routed.creator(Platform.YOUTUBE, "crumblab")
        assert failed.value.retry_at == soon
        assert str(failed.value) == "youtube: quota spent; ytdlp: blocked: bot check; other: throttled"

        with pytest.raises(UpstreamError) as upstream:
            await sources(
                Fake("a", CREATORS, Unavailable("no key")), Fake("b", CREATORS, UpstreamError("500"))
            ).creator(Platform.YOUTUBE, "x")
        assert upstream.value.retryable

    async def test_nothing_offered_is_unavailable(self) -> None:
        with pytest.raises(Unavailable, match="no enabled source offers creator for tiktok"):
            await sources(Fake("youtube", CREATORS)).creator(Platform.TIKTOK, "crumblab")
        with pytest.raises(Unavailable, match="no enabled source offers news"):
            await sources(Fake("youtube", CREATORS)).news(
                ["flour"], datetime.now().astimezone(), datetime.now().astimezone()
            )


@pytest.mark.both_databases
class TestCircuit:
    async def test_an_open_circuit_skips_the_source_without_a_call(
        self, runtime: Runtime, clock: ManualClock
    ) -> None:
        """A source answering 503 costs the calls that open its circuit; after that none until it closes,
        and the next source keeps serving the same capability (issue 26's aim)."""
        ledger = Ledger(runtime.db, clock)
        api = Fake("youtube", CREATORS, UpstreamError("503", retryable=True))
        api.breaker = Breaker(threshold=2, cooldown=timedelta(minutes=5))
        scraper = Fake("ytdlp", CREATORS)
        routed = sources(api, scraper, ledger=ledger)
        for _ in range(5):
            assert (await routed.creator(Platform.YOUTUBE, "crumblab")).display_name == "ytdlp"
        assert (api.calls, scraper.calls) == (2, 5)
        clock.advance(timedelta(minutes=5))
        api.error = None  # healthy again: the half-open call succeeds and closes the circuit
        assert (await routed.creator(Platform.YOUTUBE, "crumblab")).display_name == "youtube"
        assert await ledger.blocked_until("youtube") is None

    async def test_once_the_circuit_is_half_open_one_call_tries_while_the_others_skip_it(
        self, runtime: Runtime, clock: ManualClock
    ) -> None:
        """A source that hangs: when its circuit's time is up, one call waits for it (its trial), not
        every call that comes meanwhile; those are served by the next source at once."""
        ledger = Ledger(runtime.db, clock)
        api = Fake("youtube", CREATORS, UpstreamError("no answer within 20 s", retryable=True))
        api.breaker = Breaker(threshold=1, cooldown=timedelta(minutes=5))
        scraper = Fake("ytdlp", CREATORS)
        routed = sources(api, scraper, ledger=ledger)
        await routed.creator(Platform.YOUTUBE, "crumblab")  # opens the circuit
        clock.advance(timedelta(minutes=5))
        api.gate = asyncio.Event()
        calls = [asyncio.create_task(routed.creator(Platform.YOUTUBE, "crumblab")) for _ in range(4)]

        async def others_served() -> None:
            while scraper.calls < 1 + 3:
                await asyncio.sleep(0)

        await asyncio.wait_for(others_served(), timeout=30)  # without a single trial: never, all wait
        assert api.calls == 1 + 1
        api.gate.set()
        answered = await asyncio.gather(*calls)
        assert [a.display_name for a in answered] == ["ytdlp"] * 4 and api.calls == 2

    async def test_every_source_failing_with_open_circuits_is_rate_limited_until_the_first_closes(
        self, runtime: Runtime, clock: ManualClock
    ) -> None:
        ledger = Ledger(runtime.db, clock)
        api = Fake("youtube", CREATORS, UpstreamError("503", retryable=True))
        api.breaker = Breaker(threshold=1, cooldown=timedelta(minutes=5))
        routed = sources(api, ledger=ledger)
        with pytest.raises(UpstreamError):
            await routed.creator(Platform.YOUTUBE, "crumblab")
        with pytest.raises(RateLimited) as skipped:
            await routed.creator(Platform.YOUTUBE, "crumblab")
        assert skipped.value.retry_at == clock.now() + timedelta(minutes=5) and api.calls == 1
