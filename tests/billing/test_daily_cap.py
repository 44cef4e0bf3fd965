"""Per-key daily spending caps (issue 30 item 4, ADR 0047; beyond the spec, §7: codes are only added).

A key with a cap is refused 402 ``daily_cap_reached`` before any work when a charge would take what it
was charged in the UTC day past the cap; the cap counts in the debit's own transaction, so concurrent
requests of the key never pass it (on both databases); the day starts again at midnight UTC.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from reelscope.auth import service as auth_service
from reelscope.billing import service as billing_service
from reelscope.kit.clock import ManualClock
from reelscope.models import ApiKey, LedgerEntry
from reelscope.runtime import Runtime
from tests.conftest import MakeTeam, TeamKey
from tests.probe import PROBE_PRICES, mount_probe

GET_PRICE = PROBE_PRICES["get_probe"].base  # 25
POST_PRICE = PROBE_PRICES["create_probe"].base  # 10


@pytest.fixture(autouse=True)
def probe(client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch) -> None:
    transport = client._transport
    assert isinstance(transport, httpx.ASGITransport) and isinstance(transport.app, FastAPI)
    mount_probe(transport.app, monkeypatch)


async def capped_key(runtime: Runtime, clock: ManualClock, team: TeamKey, cap: int | None) -> TeamKey:
    """A second key of ``team`` with a daily cap of ``cap`` credits."""
    async with runtime.db.transaction() as session:
        found = await auth_service.team_by_name(session, team.name)
        issued = await auth_service.issue_key(session, found, clock.now(), daily_cap=cap)
    return TeamKey(team_id=team.team_id, key_id=issued.key.id, api_key=issued.api_key, name=team.name)


async def spent(runtime: Runtime, key_id: str) -> tuple[str | None, int]:
    async with runtime.db.transaction(write=False) as session:
        key = (await session.execute(select(ApiKey).where(ApiKey.id == key_id))).scalar_one()
        return key.spent_day, key.spent_credits


class TestDailyCap:
    async def test_refused_before_work_with_its_own_code(
        self, client: httpx.AsyncClient, runtime: Runtime, clock: ManualClock, team: TeamKey
    ) -> None:
        key = await capped_key(runtime, clock, team, cap=60)  # two GETs of 25, not three
        assert [(await client.get("/v1/probe", headers=key.headers)).status_code for _ in range(2)] == [
            200
        ] * 2
        refused = await client.get("/v1/probe", headers=key.headers)
        assert refused.status_code == 402
        body = refused.json()
        assert body["code"] == "daily_cap_reached" and body["statusCode"] == 402
        assert body["required_credits"] == GET_PRICE
        assert (body["daily_cap_credits"], body["spent_today_credits"]) == (60, 50)
        assert body["reset_at_formatted"] == "2026-11-22T00:00:00Z"  # the next midnight UTC
        assert refused.headers["X-Credits-Used"] == "0"
        # §8.1: a 402 does not count against the rate limit, like insufficient_credits
        counted = await client.get("/v1/probe", headers=key.headers)
        assert counted.headers["X-RateLimit-Remaining"] == refused.headers["X-RateLimit-Remaining"]
        # a cheaper write still fits (10 of the 10 left), in its own transaction; then nothing does
        created = await client.post("/v1/probe", headers=key.headers, json={"name": "fits"})
        assert created.status_code == 201
        denied = await client.post("/v1/probe", headers=key.headers, json={"name": "over"})
        assert denied.status_code == 402 and denied.json()["code"] == "daily_cap_reached"
        # nothing of the refused write remains (its probe row would be an "adjustment" ledger row)
        async with runtime.db.transaction(write=False) as session:
            adjustments = select(LedgerEntry.reference).where(
                LedgerEntry.team_id == team.team_id, LedgerEntry.kind == "adjustment"
            )
            rows = (await session.execute(adjustments)).scalars().all()
        assert rows == ["fits"]
        assert await spent(runtime, key.key_id) == ("2026-11-21", 60)
        # the team's other key is not capped, and free operations stay free to a capped key
        assert (await client.get("/v1/probe", headers=team.headers)).status_code == 200
        assert (await client.get("/v1/account/balance", headers=key.headers)).status_code == 200

    async def test_a_new_utc_day_starts_again(
        self, client: httpx.AsyncClient, runtime: Runtime, clock: ManualClock, team: TeamKey
    ) -> None:
        key = await capped_key(runtime, clock, team, cap=GET_PRICE)
        assert (await client.get("/v1/probe", headers=key.headers)).status_code == 200
        assert (await client.get("/v1/probe", headers=key.headers)).status_code == 402
        clock.advance(timedelta(hours=12))  # 2026-11-22 00:00:30 UTC
        assert (await client.get("/v1/probe", headers=key.headers)).status_code == 200
        assert await spent(runtime, key.key_id) == ("2026-11-22", GET_PRICE)

    async def test_shown_in_the_balance(
        self, client: httpx.AsyncClient, runtime: Runtime, clock: ManualClock, team: TeamKey
    ) -> None:
        key = await capped_key(runtime, clock, team, cap=500)
        await client.get("/v1/probe", headers=key.headers)
        data = (await client.get("/v1/account/balance", headers=key.headers)).json()["data"]
        assert data["key_daily_cap"] == {
            "cap_credits": 500,
            "cap_usd": 5.0,
            "spent_today_credits": GET_PRICE,
            "spent_today_usd": 0.25,
            "left_today_credits": 500 - GET_PRICE,
            "resets_at": "2026-11-22T00:00:00Z",
        }
        assert data["credits_remaining"] == 1000 - GET_PRICE  # existing fields unchanged
        clock.advance(timedelta(days=1))
        data = (await client.get("/v1/account/balance", headers=key.headers)).json()["data"]
        assert data["key_daily_cap"]["spent_today_credits"] == 0
        assert data["key_daily_cap"]["resets_at"] == "2026-11-23T00:00:00Z"

    async def test_a_cap_set_on_a_key_holds_at_once(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey
    ) -> None:
        assert (await client.get("/v1/probe", headers=team.headers)).status_code == 200
        async with runtime.db.transaction() as session:
            await auth_service.set_daily_cap(session, team.key_id, 0)
        refused = await client.get("/v1/probe", headers=team.headers)
        assert refused.status_code == 402 and refused.json()["code"] == "daily_cap_reached"
        async with runtime.db.transaction() as session:
            await auth_service.set_daily_cap(session, team.key_id, None)
        assert (await client.get("/v1/probe", headers=team.headers)).status_code == 200


REQUESTS = 60
FITTING = 7


@pytest.mark.both_databases
class TestConcurrentCappedCharges:
    async def test_exactly_what_fits_under_the_cap_is_charged(
        self, client: httpx.AsyncClient, runtime: Runtime, clock: ManualClock, make_team: MakeTeam
    ) -> None:
        # plenty of balance: only the cap stops them. Reads (group commit) and writes (one transaction
        # each) of the same key at once, the writes in a whole multiple so that exactly FITTING fit
        team = await make_team(100_000)
        key = await capped_key(runtime, clock, team, cap=FITTING * GET_PRICE)
        requests = [
            client.get("/v1/probe", headers=key.headers) if n % 2 else
            client.post("/v1/probe", headers=key.headers, json={"name": f"p{n}"})
            for n in range(REQUESTS)
        ]  # fmt: skip
        responses = await asyncio.gather(*requests)

        statuses = Counter(r.status_code for r in responses)
        assert set(statuses) <= {200, 201, 402}, [r.text for r in responses][:3]
        assert {r.json()["code"] for r in responses if r.status_code == 402} == {"daily_cap_reached"}
        charged = sum(int(r.headers["X-Credits-Used"]) for r in responses)
        day, spent_credits = await spent(runtime, key.key_id)
        async with runtime.db.transaction(write=False) as session:
            charges = select(LedgerEntry.credits).where(
                LedgerEntry.team_id == team.team_id, LedgerEntry.kind == "charge"
            )
            ledger = (await session.execute(charges)).scalars().all()
            mismatches = await billing_service.verify_ledger(session)
        # never past the cap, and the key's count is exactly what the ledger charged
        assert charged == spent_credits == -sum(ledger) <= FITTING * GET_PRICE
        # refused only when it did not fit: some reads were refused, so less than one read's price is left
        assert FITTING * GET_PRICE - spent_credits < GET_PRICE
        assert day == "2026-11-21" and mismatches == []
