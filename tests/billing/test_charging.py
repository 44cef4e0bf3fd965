"""Charge only on 2xx, in the handler's transaction (ARCHITECTURE §3; spec §1, §7, §8.2)."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

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
