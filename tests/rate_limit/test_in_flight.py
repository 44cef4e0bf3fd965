"""The optional cap on a team's requests in flight (issue 33 item 6; beyond the spec, off by default):
with ``REELSCOPE_TEAM_MAX_IN_FLIGHT=2``, a team's third request while two are unanswered is 429
``rate_limit_exceeded`` with ``Retry-After: 1`` in the §7 shape, not charged, not counted, changing
nothing; another team is not held back. Run on the in-memory and the Redis limiter storage."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest

from reelscope.billing import prices
from reelscope.billing.prices import Price
from reelscope.config import Settings
from reelscope.contract import ContractRoute
from reelscope.kit.clock import ManualClock
from reelscope.main import create_app
from reelscope.runtime import Runtime, build_runtime
from tests.conftest import MakeTeam, TeamKey
from tests.kit.test_errors import assert_error

CAP = 2


class Gates:
    """What the test's slow route waits for, per call: it stays in flight until the test opens its gate."""

    def __init__(self) -> None:
        self.entered: asyncio.Queue[str] = asyncio.Queue()
        self.open: dict[str, asyncio.Event] = {}

    async def wait(self, name: str) -> dict[str, str]:
        self.open.setdefault(name, asyncio.Event())
        await self.entered.put(name)
        await self.open[name].wait()
        return {"name": name}


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"team_max_in_flight": CAP})


@pytest.fixture
def gates() -> Gates:
    return Gates()


@pytest.fixture
async def client(
    runtime: Runtime, gates: Gates, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[httpx.AsyncClient]:
    monkeypatch.setitem(prices.PRICES, "slow_probe", Price(3))

    async def slow_probe(name: str) -> dict[str, str]:
        return await gates.wait(name)

    app = create_app(runtime=runtime)
    app.router.add_api_route(
        "/v1/probe/slow", slow_probe, methods=["GET"], route_class_override=ContractRoute
    )
    transport = httpx.ASGITransport(app=app, client=("203.0.113.7", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http


async def in_flight(
    client: httpx.AsyncClient, gates: Gates, team: TeamKey, name: str
) -> asyncio.Task[httpx.Response]:
    """A request of ``team`` that has reached the route and waits there."""
    task = asyncio.create_task(client.get(f"/v1/probe/slow?name={name}", headers=team.headers))
    assert await asyncio.wait_for(gates.entered.get(), timeout=10) == name
    return task


async def balance(client: httpx.AsyncClient, team: TeamKey) -> int:
    response = await client.get("/v1/account/balance", headers=team.headers)
    return int(response.json()["data"]["credits_remaining"])


@pytest.mark.both_limiters
class TestTeamMaxInFlight:
    async def test_a_request_beyond_the_cap_is_429_and_changes_nothing(
        self, client: httpx.AsyncClient, gates: Gates, team: TeamKey, clock: ManualClock
    ) -> None:
        first = await in_flight(client, gates, team, "a")
        second = await in_flight(client, gates, team, "b")
        refused = await client.get("/v1/probe/slow?name=c", headers=team.headers)
        body = assert_error(refused, 429, "rate_limit_exceeded")
        assert refused.headers["Retry-After"] == "1"
        now = int(clock.now().timestamp())
        assert body["limit"] == CAP
        assert body["remaining"] == 0
        assert body["retry_after"] == 1
        assert body["reset_at"] == now + 1
        assert isinstance(body["reset_at_formatted"], str) and body["reset_at_formatted"].endswith("Z")
        # not counted: the next counted request sees the count of the two in flight only
        counted_before = int(refused.headers["X-RateLimit-Remaining"])
        for name in ("a", "b"):
            gates.open[name].set()
        assert [(await t).status_code for t in (first, second)] == [200, 200]
        assert await balance(client, team) == 1000 - 2 * 3
        later = await in_flight(client, gates, team, "d")
        gates.open["d"].set()
        response = await later
        assert response.status_code == 200
        assert int(response.headers["X-RateLimit-Remaining"]) == counted_before - 1

    async def test_bad_input_at_the_cap_is_400_not_429(
        self, client: httpx.AsyncClient, gates: Gates, team: TeamKey
    ) -> None:
        """§7: bad input is 400 and free whatever else would refuse it; it needs no place in flight, and
        takes none (issue 33 item 6)."""
        held = [await in_flight(client, gates, team, name) for name in ("a", "b")]
        bad = await client.get("/v1/probe/slow", headers=team.headers)  # no ``name``
        assert_error(bad, 400, "validation_error")
        # the well-formed request is still refused by the cap
        assert_error(
            await client.get("/v1/probe/slow?name=c", headers=team.headers), 429, "rate_limit_exceeded"
        )
        for name in ("a", "b"):
            gates.open[name].set()
        assert [(await task).status_code for task in held] == [200, 200]
        assert await balance(client, team) == 1000 - 2 * 3
        # below the cap it is the same 400, from the endpoint's own validation
        assert_error(await client.get("/v1/probe/slow", headers=team.headers), 400, "validation_error")
        # the bad requests took no place: two can be in flight again
        again = [await in_flight(client, gates, team, name) for name in ("d", "e")]
        for name in ("d", "e"):
            gates.open[name].set()
        assert [(await task).status_code for task in again] == [200, 200]

    async def test_another_team_is_not_held_back(
        self, client: httpx.AsyncClient, gates: Gates, team: TeamKey, make_team: MakeTeam
    ) -> None:
        other = await make_team()
        held = [await in_flight(client, gates, team, name) for name in ("a", "b")]
        assert (await client.get("/v1/account/balance", headers=other.headers)).status_code == 200
        assert (await client.get("/v1/account/balance", headers=team.headers)).status_code == 429
        for name in ("a", "b"):
            gates.open[name].set()
        for task in held:
            assert (await task).status_code == 200
        assert (await client.get("/v1/account/balance", headers=team.headers)).status_code == 200


@pytest.mark.redis
@pytest.mark.parametrize("limiter_backend", ["redis"], indirect=True)
class TestAcrossProcesses:
    async def test_with_redis_the_requests_in_flight_of_every_process_count(
        self,
        client: httpx.AsyncClient,
        gates: Gates,
        team: TeamKey,
        settings: Settings,
        clock: ManualClock,
    ) -> None:
        """A second API process (its own runtime and in-memory state) on the same Redis."""
        other_process = build_runtime(settings, clock)
        try:
            transport = httpx.ASGITransport(app=create_app(runtime=other_process))
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as second:
                held = [await in_flight(client, gates, team, name) for name in ("a", "b")]
                refused = await second.get("/v1/account/balance", headers=team.headers)
                assert_error(refused, 429, "rate_limit_exceeded")
                for name in ("a", "b"):
                    gates.open[name].set()
                for task in held:
                    assert (await task).status_code == 200
                assert (await second.get("/v1/account/balance", headers=team.headers)).status_code == 200
        finally:
            await other_process.close()
