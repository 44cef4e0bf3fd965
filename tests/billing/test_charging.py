"""Charge only on 2xx, in the handler's transaction (ARCHITECTURE §3; spec §1, §7, §8.2)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from reelscope.auth import service as auth_service
from reelscope.billing import service as billing_service
from reelscope.kit.clock import ManualClock
from reelscope.models import LedgerEntry
from reelscope.runtime import Runtime
from tests.conftest import MakeTeam, TeamKey
from tests.kit.test_errors import assert_error
from tests.probe import mount_probe


@pytest.fixture(autouse=True)
def probe(client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch) -> None:
    transport = client._transport
    assert isinstance(transport, httpx.ASGITransport) and isinstance(transport.app, FastAPI)
    mount_probe(transport.app, monkeypatch)


async def balance(client: httpx.AsyncClient, team: TeamKey) -> int:
    return int(
        (await client.get("/v1/account/balance", headers=team.headers)).json()["data"]["credits_remaining"]
    )


async def ledger_rows(runtime: Runtime, team_id: str, kind: str) -> int:
    async with runtime.db.transaction(write=False) as session:
        stmt = (
            select(func.count())
            .select_from(LedgerEntry)
            .where(LedgerEntry.team_id == team_id, LedgerEntry.kind == kind)
        )
        return int((await session.execute(stmt)).scalar_one())


class TestChargedResponse:
    async def test_headers_of_a_charged_response(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        response = await client.get("/v1/probe", headers=team.headers)
        assert response.status_code == 200
        assert response.headers["X-Cost"] == "0.25"
        assert response.headers["X-Credits-Used"] == "25"
        assert response.headers["X-Credits-Remaining"] == "975"
        assert response.headers["X-Balance-Remaining"] == "9.75"
        assert await balance(client, team) == 975

    async def test_the_debit_is_a_ledger_row(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey
    ) -> None:
        await client.get("/v1/probe", headers=team.headers)
        await client.get("/v1/probe", headers=team.headers)
        assert await ledger_rows(runtime, team.team_id, "charge") == 2
        async with runtime.db.transaction(write=False) as session:
            assert await billing_service.verify_ledger(session) == []

    async def test_settled_price_is_what_is_charged(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        response = await client.get("/v1/probe/settle/half", headers=team.headers)
        assert response.headers["X-Cost"] == "0.10"
        assert await balance(client, team) == 990


class TestNeverChargedOnFailure:
    async def test_400_is_not_charged(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        assert_error(await client.get("/v1/probe?limit=0", headers=team.headers), 400, "validation_error")
        assert await balance(client, team) == 1000

    async def test_a_failed_handler_leaves_no_write_behind(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey
    ) -> None:
        response = await client.post("/v1/probe", json={"name": "conflict"}, headers=team.headers)
        assert_error(response, 409, "conflict")
        assert await ledger_rows(runtime, team.team_id, "adjustment") == 0
        assert await balance(client, team) == 1000

    async def test_a_charged_write_commits_with_its_debit(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey
    ) -> None:
        response = await client.post("/v1/probe", json={"name": "kept"}, headers=team.headers)
        assert response.status_code == 201
        assert response.headers["X-Credits-Used"] == "10"
        assert await ledger_rows(runtime, team.team_id, "adjustment") == 1
        assert await balance(client, team) == 990


class TestInsufficientCredits:
    async def test_402_before_any_work(
        self, client: httpx.AsyncClient, runtime: Runtime, make_team: MakeTeam
    ) -> None:
        poor = await make_team(9)
        response = await client.post("/v1/probe", json={"name": "kept"}, headers=poor.headers)
        body = assert_error(response, 402, "insufficient_credits")
        assert body["required_credits"] == 10
        assert body["remaining_credits"] == 9
        assert await ledger_rows(runtime, poor.team_id, "adjustment") == 0
        assert await balance(client, poor) == 9

    async def test_exact_balance_is_enough(self, client: httpx.AsyncClient, make_team: MakeTeam) -> None:
        exact = await make_team(25)
        response = await client.get("/v1/probe", headers=exact.headers)
        assert response.status_code == 200
        assert response.headers["X-Credits-Remaining"] == "0"
        assert_error(await client.get("/v1/probe", headers=exact.headers), 402, "insufficient_credits")

    async def test_a_402_does_not_consume_rate_limit(
        self, client: httpx.AsyncClient, runtime: Runtime, make_team: MakeTeam, clock: ManualClock
    ) -> None:
        poor = await make_team(0)
        for _ in range(3):
            assert (await client.get("/v1/probe", headers=poor.headers)).status_code == 402
        async with runtime.db.transaction() as session:
            await billing_service.add_credits(session, poor.team_id, 100, at=clock.now())
        paid = await client.get("/v1/probe", headers=poor.headers)
        assert paid.status_code == 200
        # the three 402s gave their count back: this is the first counted request on the path today
        assert paid.headers["X-RateLimit-Limit"] == "10000"
        assert paid.headers["X-RateLimit-Remaining"] == "9999"


class TestBadInputBeforeItsPrice:
    """§7, §8.1: bad input is a 400 whatever the balance, free and counted; only valid input meets a 402.
    The contract validates, without work, only a request its price may refuse (contract/route.py)."""

    @pytest.mark.parametrize(
        ("method", "path", "bad", "good"),
        [
            ("GET", "/v1/probe", {"params": {"limit": "0"}}, {}),  # a read
            ("GET", "/v1/tiktok/videos/digest", {"params": {"limit": "0"}}, {}),  # a precomputed read
            ("POST", "/v1/probe", {"json": {"name": ""}}, {"json": {"name": "kept"}}),  # a write
            ("POST", "/v1/probe", {"content": b"{"}, {"json": {"name": "kept"}}),
        ],
    )
    async def test_a_low_balance_gets_a_400_for_bad_input_and_a_402_for_good(
        self,
        client: httpx.AsyncClient,
        runtime: Runtime,
        make_team: MakeTeam,
        method: str,
        path: str,
        bad: dict[str, Any],
        good: dict[str, Any],
    ) -> None:
        poor = await make_team(3)
        refused = await client.request(method, path, headers=poor.headers, **bad)
        assert_error(refused, 400, "validation_error")
        assert refused.headers["X-Credits-Used"] == "0"
        short = await client.request(method, path, headers=poor.headers, **good)
        assert_error(short, 402, "insufficient_credits")
        # the 400 was counted and the 402 was not (§8.1): both report one request used
        remaining = refused.headers["X-RateLimit-Remaining"]
        assert int(refused.headers["X-RateLimit-Limit"]) - int(remaining) == 1
        assert short.headers["X-RateLimit-Remaining"] == remaining
        assert await ledger_rows(runtime, poor.team_id, "adjustment") == 0
        assert await balance(client, poor) == 3

    async def test_a_key_over_its_daily_cap_gets_a_400_for_bad_input(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey
    ) -> None:
        async with runtime.db.transaction() as session:
            await auth_service.set_daily_cap(session, team.key_id, 0)
        bad = await client.get("/v1/probe", params={"limit": "0"}, headers=team.headers)
        assert_error(bad, 400, "validation_error")
        assert_error(await client.get("/v1/probe", headers=team.headers), 402, "daily_cap_reached")

    @pytest.mark.parametrize(("method", "body"), [("GET", None), ("POST", {"name": "kept"})])
    async def test_a_low_balance_an_auto_top_up_covers_is_validated_then_served(
        self,
        client: httpx.AsyncClient,
        runtime: Runtime,
        make_team: MakeTeam,
        method: str,
        body: dict[str, str] | None,
    ) -> None:
        poor = await make_team(3)
        async with runtime.db.transaction() as session:
            await billing_service.configure_auto_top_up(session, poor.team_id, below=50, amount=500)
        response = await client.request(method, "/v1/probe", json=body, headers=poor.headers)
        assert 200 <= response.status_code < 300, response.text
        assert int(response.headers["X-Credits-Used"]) > 0


class TestBalanceReadBeforeTheWriteLock:
    async def test_credits_that_land_while_a_request_waits_for_the_lock_pay_for_it(
        self, client: httpx.AsyncClient, runtime: Runtime, make_team: MakeTeam, clock: ManualClock
    ) -> None:
        # the caller's balance is read before the write lock (ADR 0014); a balance that was too low
        # then must be read again under the lock, not answered with a stale 402
        poor = await make_team(credits=0)
        gate = runtime.sqlite_write_gate
        assert gate is not None
        async with gate:  # another request of this process holds SQLite's write lock
            request = asyncio.ensure_future(
                client.post("/v1/probe", json={"name": "paid late"}, headers=poor.headers)
            )
            while not gate._waiters:  # the request reached the lock and waits for it
                await asyncio.sleep(0)
            async with runtime.db.transaction() as session:
                await billing_service.add_credits(
                    session, poor.team_id, 100, reference="top up", at=clock.now()
                )
        response = await request
        assert response.status_code == 201, response.text
        assert response.headers["X-Credits-Remaining"] == "90"
