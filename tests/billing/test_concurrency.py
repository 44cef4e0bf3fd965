"""The balance invariant under concurrency (issue 3 "Checked by"; ARCHITECTURE §3; spec §1, §7, §8.2).

200 charged requests at once against a balance that covers exactly 37 of them: the conditional debit
lets exactly 37 through, the other 163 get 402 ``insufficient_credits``, and the balance never goes
below zero at any point (every ledger row records the balance right after it).
"""

from __future__ import annotations

import asyncio
from collections import Counter

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from reelscope.billing import service as billing_service
from reelscope.models import LedgerEntry
from reelscope.runtime import Runtime
from tests.conftest import MakeTeam
from tests.probe import PROBE_PRICES, mount_probe

pytestmark = pytest.mark.both_databases

REQUESTS = 200
AFFORDABLE = 37


@pytest.fixture(autouse=True)
def probe(client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch) -> None:
    transport = client._transport
    assert isinstance(transport, httpx.ASGITransport) and isinstance(transport.app, FastAPI)
    mount_probe(transport.app, monkeypatch)


class TestConcurrentCharges:
    async def test_exactly_the_affordable_requests_succeed(
        self, client: httpx.AsyncClient, runtime: Runtime, make_team: MakeTeam
    ) -> None:
        price = PROBE_PRICES["get_probe"].base
        initial = AFFORDABLE * price
        team = await make_team(initial)

        responses = await asyncio.gather(
            *(client.get("/v1/probe", headers=team.headers) for _ in range(REQUESTS))
        )

        statuses = Counter(r.status_code for r in responses)
        assert statuses == {200: AFFORDABLE, 402: REQUESTS - AFFORDABLE}, [
            r.text for r in responses if r.status_code not in (200, 402)
        ][:3]
        refused = [r.json() for r in responses if r.status_code == 402]
        assert {body["code"] for body in refused} == {"insufficient_credits"}
        assert {body["required_credits"] for body in refused} == {price}
        assert all(0 <= body["remaining_credits"] < price for body in refused)
        charged = [r for r in responses if r.status_code == 200]
        assert sorted(int(r.headers["X-Credits-Remaining"]) for r in charged) == [
            initial - price * n for n in range(AFFORDABLE, 0, -1)
        ]

        async with runtime.db.transaction(write=False) as session:
            final = await billing_service.balance(session, team.team_id)
            rows = (
                (await session.execute(select(LedgerEntry).where(LedgerEntry.team_id == team.team_id)))
                .scalars()
                .all()
            )
            mismatches = await billing_service.verify_ledger(session)
        assert final == initial - AFFORDABLE * price == 0
        assert sum(row.credits for row in rows) == final
        assert [row.credits for row in rows if row.kind == "charge"] == [-price] * AFFORDABLE
        # every point in the balance's history is a ledger row's balance_after: none is negative
        assert min(row.balance_after for row in rows) >= 0
        assert mismatches == []
