"""The sandbox behind the connector protocol: typed errors and failure injection (issue 5)."""

from __future__ import annotations

from datetime import timedelta
from itertools import pairwise

import pytest

from reelscope.collectors.base import Connector, NotFound, UpstreamError
from reelscope.collectors.registry import UnknownConnector, build_connectors
from reelscope.collectors.sandbox import SandboxConnector, parse_failures
from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform

SEED = 20240601


async def _outcomes(connector: SandboxConnector, platform: Platform, calls: int) -> list[bool]:
    """For each of ``calls`` identical calls: True when answered, False when the injected failure hit."""
    results = []
    for _ in range(calls):
        try:
            await connector.creator(platform, "nobody1")
        except UpstreamError as exc:
            assert exc.retryable
            results.append(False)
        except NotFound:
            results.append(True)
    return results


class TestProtocol:
    def test_the_sandbox_is_a_connector(self, clock: ManualClock) -> None:
        assert isinstance(SandboxConnector(clock, seed=SEED), Connector)

    def test_registry_builds_the_default_and_rejects_unknown_names(self, clock: ManualClock) -> None:
        built = build_connectors(Settings(connectors="sandbox"), clock)
        assert [c.name for c in built] == ["sandbox"]
        with pytest.raises(UnknownConnector):
            build_connectors(Settings(connectors="sandbox,myspace"), clock)

    async def test_not_found_is_typed(self, clock: ManualClock) -> None:
        connector = SandboxConnector(clock, seed=SEED)
        with pytest.raises(NotFound):
            await connector.video(Platform.TIKTOK, "7432109876543210987")
        with pytest.raises(NotFound):
            await connector.creator(Platform.INSTAGRAM, "crumblab")
        with pytest.raises(NotFound):
            await connector.sound(Platform.TIKTOK, "123")

    async def test_answers_follow_the_clock(self, clock: ManualClock) -> None:
        connector = SandboxConnector(clock, seed=SEED)
        feed = await connector.discovery_feed(
            Platform.TIKTOK, "gb", clock.now() - timedelta(hours=2), clock.now()
        )
        assert feed and all(v.creator is not None and v.creator.country == "GB" for v in feed)
        video = feed[0]
        before = await connector.video_stats(Platform.TIKTOK, video.external_id)
        clock.advance(timedelta(hours=5))
        after = await connector.video_stats(Platform.TIKTOK, video.external_id)
        assert after.views >= before.views and after.fetched_at == clock.now()
        many = await connector.videos_stats(Platform.TIKTOK, [v.external_id for v in feed[:50]] + ["1"])
        assert [s.external_id for s in many] == [v.external_id for v in feed[:50]]


class TestFailureInjection:
    def test_parse(self) -> None:
        assert parse_failures("tiktok:0.2, news:1") == {"tiktok": 0.2, "news": 1.0}
        assert parse_failures("") == {}
        for bad in ("tiktok", "tiktok:2", ":0.1", "tiktok:x"):
            with pytest.raises(ValueError):
                parse_failures(bad)

    async def test_a_fraction_of_calls_fail_deterministically(self, clock: ManualClock) -> None:
        failures = parse_failures("tiktok:0.2")
        first = await _outcomes(SandboxConnector(clock, seed=SEED, failures=failures), Platform.TIKTOK, 500)
        again = await _outcomes(SandboxConnector(clock, seed=SEED, failures=failures), Platform.TIKTOK, 500)
        assert first == again  # the same run replays exactly
        failed = first.count(False) / len(first)
        assert 0.14 < failed < 0.26
        # a retry is a later call, so it can succeed
        assert any(not a and b for a, b in pairwise(first))

    async def test_other_sources_are_unaffected(self, clock: ManualClock) -> None:
        connector = SandboxConnector(clock, seed=SEED, failures=parse_failures("tiktok:1"))
        assert all(await _outcomes(connector, Platform.INSTAGRAM, 50))
        assert await connector.ads("protein")
        with pytest.raises(UpstreamError):
            await connector.discovery_feed(
                Platform.TIKTOK, None, clock.now() - timedelta(hours=1), clock.now()
            )

    async def test_settings_turn_it_on(self, clock: ManualClock) -> None:
        (connector,) = build_connectors(Settings(sandbox_failures="youtube:1"), clock)
        with pytest.raises(UpstreamError):
            await connector.creator(Platform.YOUTUBE, "anyone1")
