"""Auto top-up (spec §8.2: "auto top-up can refill it at most once every 5 minutes per account").

A charge that leaves the balance below the team's threshold refills the configured amount as a
``top_up`` ledger row in the same transaction; a request whose price the balance cannot cover is
refilled first when a refill is due. The probe's GET costs 25 credits.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from reelscope.billing import service as billing_service
from reelscope.kit.clock import ManualClock
from reelscope.models import LedgerEntry
from reelscope.runtime import Runtime
from tests.conftest import MakeTeam, TeamKey
from tests.kit.test_errors import assert_error
from tests.probe import mount_probe

pytestmark = pytest.mark.both_databases


@pytest.fixture(autouse=True)
def probe(client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch) -> None:
    transport = client._transport
    assert isinstance(transport, httpx.ASGITransport) and isinstance(transport.app, FastAPI)
    mount_probe(transport.app, monkeypatch)


async def configure(runtime: Runtime, team: TeamKey, below: int | None, amount: int | None) -> None:
    async with runtime.db.transaction() as session:
        await billing_service.configure_auto_top_up(session, team.team_id, below=below, amount=amount)


async def top_ups(runtime: Runtime, team: TeamKey) -> list[LedgerEntry]:
    async with runtime.db.transaction(write=False) as session:
        stmt = select(LedgerEntry).where(
            LedgerEntry.team_id == team.team_id,
            LedgerEntry.reference == billing_service.AUTO_TOP_UP_REFERENCE,
        )
        return list((await session.execute(stmt)).scalars().all())


async def charge(client: httpx.AsyncClient, team: TeamKey) -> httpx.Response:
    return await client.get("/v1/probe", headers=team.headers)


class TestAutoTopUp:
    async def test_a_charge_below_the_threshold_refills(
        self, client: httpx.AsyncClient, runtime: Runtime, clock: ManualClock, make_team: MakeTeam
    ) -> None:
        team = await make_team(100)
        await configure(runtime, team, below=50, amount=500)
        assert (await charge(client, team)).headers["X-Credits-Remaining"] == "75"
        assert (await charge(client, team)).headers["X-Credits-Remaining"] == "50"  # not below 50
        refilled = await charge(client, team)
        assert refilled.headers["X-Cost"] == "0.25"
        assert refilled.headers["X-Credits-Remaining"] == "525"
        assert [(row.kind, row.credits, row.balance_after) for row in await top_ups(runtime, team)] == [
            ("top_up", 500, 525)
        ]
        balance = (await client.get("/v1/account/balance", headers=team.headers)).json()["data"]
        assert balance["credits_remaining"] == 525
        assert balance["auto_top_up"] == {
            "below_credits": 50,
            "amount_credits": 500,
            "last_top_up_at": "2026-11-21T12:00:30Z",
        }

    async def test_at_most_once_every_5_minutes(
        self, client: httpx.AsyncClient, runtime: Runtime, clock: ManualClock, make_team: MakeTeam
    ) -> None:
        team = await make_team(50)
        await configure(runtime, team, below=50, amount=30)
        assert (await charge(client, team)).headers["X-Credits-Remaining"] == "55"  # 25, refilled
        assert (await charge(client, team)).headers["X-Credits-Remaining"] == "30"  # below, not due
        assert (await charge(client, team)).headers["X-Credits-Remaining"] == "5"
        assert_error(await charge(client, team), 402, "insufficient_credits")
        clock.advance(timedelta(minutes=4, seconds=59))
        assert_error(await charge(client, team), 402, "insufficient_credits")
        clock.advance(timedelta(seconds=1))
        # due again: the price check refills before refusing, then the request is charged
        assert (await charge(client, team)).headers["X-Credits-Remaining"] == "10"
        assert len(await top_ups(runtime, team)) == 2
        async with runtime.db.transaction(write=False) as session:
            assert await billing_service.verify_ledger(session) == []

    async def test_concurrent_charges_refill_once(
        self, client: httpx.AsyncClient, runtime: Runtime, make_team: MakeTeam
    ) -> None:
        team = await make_team(60)
        await configure(runtime, team, below=50, amount=1000)
        responses = await asyncio.gather(*(charge(client, team) for _ in range(20)))
        assert {r.status_code for r in responses} == {200}
        assert len(await top_ups(runtime, team)) == 1
        async with runtime.db.transaction(write=False) as session:
            assert await billing_service.balance(session, team.team_id) == 60 + 1000 - 20 * 25
            assert await billing_service.verify_ledger(session) == []

    async def test_switched_off_it_does_nothing(
        self, client: httpx.AsyncClient, runtime: Runtime, make_team: MakeTeam
    ) -> None:
        team = await make_team(30)
        await configure(runtime, team, below=50, amount=500)
        await configure(runtime, team, below=None, amount=None)
        assert (await charge(client, team)).headers["X-Credits-Remaining"] == "5"
        assert_error(await charge(client, team), 402, "insufficient_credits")
        assert await top_ups(runtime, team) == []
        balance = (await client.get("/v1/account/balance", headers=team.headers)).json()["data"]
        assert balance["auto_top_up"] is None

    async def test_a_request_that_fails_keeps_no_refill(
        self, client: httpx.AsyncClient, runtime: Runtime, make_team: MakeTeam
    ) -> None:
        """The refill at the price check belongs to the request's transaction (ARCHITECTURE §3)."""
        team = await make_team(5)
        await configure(runtime, team, below=50, amount=500)
        assert_error(await client.get("/v1/probe?limit=0", headers=team.headers), 400, "validation_error")
        assert await top_ups(runtime, team) == []
        assert (await charge(client, team)).headers["X-Credits-Remaining"] == "480"
