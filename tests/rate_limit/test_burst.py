"""The limiter under a burst and when its store is down (spec §7, §8.1; issue 14 item 1; ADR 0025).

Every test of the burst runs against the in-memory and the Redis limiter storage (``both_limiters``);
the Redis pool here has 4 connections, so 200 concurrent requests must wait for them, never fail.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from reelscope.auth import service as auth_service
from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from reelscope.main import create_app
from reelscope.rate_limit.storage import LimiterUnavailable, MemoryStorage, WindowSpec
from reelscope.runtime import Runtime, build_runtime
from tests.conftest import MakeTeam, TeamKey
from tests.kit.test_errors import assert_error
from tests.probe import mount_probe

BURST = 200
PRICE = 25  # the probe's GET (tests/probe.py)


@pytest.fixture
def settings(data_dir: Path, database_url: str, redis_url: str | None) -> Settings:
    # a request may wait a minute for one of the 4 connections: the test asserts that a burst waits and
    # never fails, not how fast; with the default 5 s a CI machine busy with other work answered 503s
    return Settings(
        data_dir=data_dir,
        database_url=database_url,
        redis_url=redis_url,
        redis_max_connections=4,
        redis_timeout_seconds=60,
    )


@pytest.fixture
def app(client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch) -> FastAPI:
    transport = client._transport
    assert isinstance(transport, httpx.ASGITransport) and isinstance(transport.app, FastAPI)
    mount_probe(transport.app, monkeypatch)
    return transport.app


async def raise_limits(runtime: Runtime, clock: ManualClock, team: TeamKey) -> None:
    """What ``reelscope admin limits set --per-minute 1000`` does."""
    async with runtime.db.transaction() as session:
        found = await auth_service.team_by_name(session, team.name)
        await auth_service.set_limits(
            session, found, "default", per_minute=1000, per_hour=None, per_day=None, at=clock.now()
        )


@pytest.mark.both_limiters
class TestBurst:
    async def test_a_burst_of_charged_requests_is_200_or_402_and_402s_give_their_count_back(
        self,
        app: FastAPI,
        client: httpx.AsyncClient,
        runtime: Runtime,
        clock: ManualClock,
        make_team: MakeTeam,
    ) -> None:
        """The reproduction: 200 concurrent charged requests from a team with 1,000 credits."""
        team = await make_team(1000)
        await raise_limits(runtime, clock, team)
        responses = await asyncio.gather(
            *(client.get("/v1/probe", headers=team.headers) for _ in range(BURST))
        )
        statuses = Counter(r.status_code for r in responses)
        assert statuses == {200: 1000 // PRICE, 402: BURST - 1000 // PRICE}
        for refused in (r for r in responses if r.status_code == 402):
            assert_error(refused, 402, "insufficient_credits")
        # only the 40 charged requests still count: every 402 gave its count back (§8.1)
        after = await client.get("/v1/probe", headers=team.headers)
        assert_error(after, 402, "insufficient_credits")
        assert after.headers["X-RateLimit-Limit"] == "1000"
        assert after.headers["X-RateLimit-Remaining"] == str(1000 - 1000 // PRICE)


class _ForgetfulStorage(MemoryStorage):
    """Counts like the memory storage, but cannot take a count back (its store went away)."""

    async def release(self, windows: list[WindowSpec]) -> None:
        raise LimiterUnavailable("connection lost")


class TestLimiterDown:
    @pytest.fixture
    async def unreachable(
        self, tmp_path: Path, database_url: str, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
    ) -> AsyncIterator[httpx.AsyncClient]:
        """The app on the same database, with a Redis limiter whose server is not there."""
        settings = Settings(
            data_dir=tmp_path / "down",
            database_url=database_url,
            redis_url="redis://127.0.0.1:9/0",  # the discard port: nothing listens
            redis_timeout_seconds=1,
        )
        down = build_runtime(settings, clock)
        application = create_app(runtime=down)
        mount_probe(application, monkeypatch)
        transport = httpx.ASGITransport(app=application, client=("203.0.113.7", 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            yield http
        await down.close()

    async def test_a_request_the_limiter_cannot_count_is_503_and_not_charged(
        self, unreachable: httpx.AsyncClient, client: httpx.AsyncClient, make_team: MakeTeam
    ) -> None:
        """Fail closed (ADR 0025): 503 service_unavailable, never a 500, never an uncounted request."""
        team = await make_team(1000)
        body = assert_error(
            await unreachable.get("/v1/probe", headers=team.headers), 503, "service_unavailable"
        )
        assert "retry" in str(body["message"])
        balance = await client.get("/v1/account/balance", headers=team.headers)
        assert balance.json()["data"]["credits_remaining"] == 1000

    async def test_the_per_ip_limiter_down_is_503(self, unreachable: httpx.AsyncClient) -> None:
        assert_error(await unreachable.get("/v1/probe"), 503, "service_unavailable")

    async def test_a_402_whose_count_cannot_be_given_back_is_still_a_402(
        self, app: FastAPI, client: httpx.AsyncClient, runtime: Runtime, make_team: MakeTeam
    ) -> None:
        runtime.limiter.storage = _ForgetfulStorage()
        poor = await make_team(0)
        first = await client.get("/v1/probe", headers=poor.headers)
        assert_error(first, 402, "insufficient_credits")
        # the headers say what happened: the count was kept
        assert first.headers["X-RateLimit-Remaining"] == "9999"
        second = await client.get("/v1/probe", headers=poor.headers)
        assert_error(second, 402, "insufficient_credits")
        assert second.headers["X-RateLimit-Remaining"] == "9998"
