"""Property: over any sequence of handler outcomes, charged 2xx responses = debit ledger rows.

Spec §1 ("only 2xx responses are charged"), §7 ("4xx and 5xx are never billed"), ARCHITECTURE §3. The
handler writes a row before deciding its outcome, so a request that is not charged must also leave no
write behind.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

import httpx
import pytest
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from reelscope.billing.prices import PRICES, Price
from reelscope.contract import PrincipalDep, SessionDep, v1_router
from reelscope.kit.errors import Conflict, NotFound, UpstreamError, ValidationFailed
from reelscope.kit.schemas import Envelope
from reelscope.models import LedgerEntry
from reelscope.runtime import Runtime
from tests.conftest import MakeTeam

PRICE = 7
Outcome = Literal["ok", "created", "accepted", "returned_404", "400", "404", "409", "502", "crash"]
OUTCOMES: list[Outcome] = ["ok", "created", "accepted", "returned_404", "400", "404", "409", "502", "crash"]
EXPECTED_STATUS = {
    "ok": 200,
    "created": 201,
    "accepted": 202,
    "returned_404": 404,
    "400": 400,
    "404": 404,
    "409": 409,
    "502": 502,
    "crash": 500,
}


def mount_outcome_probe(app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(PRICES, "run_outcome_probe", Price(PRICE))
    router = v1_router(prefix="/v1/outcome-probe", tags=["probe"])

    @router.post("/{outcome}", response_model=None)
    async def run_outcome_probe(
        outcome: Outcome, session: SessionDep, principal: PrincipalDep
    ) -> Envelope[str] | JSONResponse:
        session.add(
            LedgerEntry(
                team_id=principal.team_id,
                kind="adjustment",
                credits=0,
                balance_after=0,
                operation="outcome_probe",
                reference=outcome,
                created_at=datetime.now(UTC),
            )
        )
        await session.flush()
        match outcome:
            case "created":
                return JSONResponse({"data": outcome}, status_code=201)
            case "accepted":
                return JSONResponse({"data": outcome}, status_code=202)
            case "returned_404":
                # a handler that returns (rather than raises) a non-2xx response is not charged either
                return JSONResponse({"data": None}, status_code=404)
            case "400":
                raise ValidationFailed("outcome is bad")
            case "404":
                raise NotFound()
            case "409":
                raise Conflict()
            case "502":
                raise UpstreamError()
            case "crash":
                raise RuntimeError("boom")
        return Envelope(data=outcome)

    app.include_router(router)


@pytest.fixture(autouse=True)
def probe(client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch) -> None:
    transport = client._transport
    assert isinstance(transport, httpx.ASGITransport) and isinstance(transport.app, FastAPI)
    mount_outcome_probe(transport.app, monkeypatch)


async def count_rows(runtime: Runtime, team_id: str, kind: str) -> int:
    async with runtime.db.transaction(write=False) as session:
        stmt = select(func.count()).where(LedgerEntry.team_id == team_id, LedgerEntry.kind == kind)
        return int((await session.execute(stmt)).scalar_one())


class TestChargeOnlyOn2xx:
    # the fixtures (app, database) are shared by the examples; each example uses a team of its own
    @settings(
        max_examples=20,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )
    @given(outcomes=st.lists(st.sampled_from(OUTCOMES), max_size=10))
    async def test_charged_responses_equal_debit_rows(
        self, client: httpx.AsyncClient, runtime: Runtime, make_team: MakeTeam, outcomes: list[Outcome]
    ) -> None:
        team = await make_team(1000)
        charged = 0
        for outcome in outcomes:
            response = await client.post(f"/v1/outcome-probe/{outcome}", headers=team.headers)
            assert response.status_code == EXPECTED_STATUS[outcome]
            used = int(response.headers["X-Credits-Used"])
            assert used == (PRICE if 200 <= response.status_code < 300 else 0)
            assert ("X-Credits-Remaining" in response.headers) == (used > 0)
            charged += used > 0

        assert await count_rows(runtime, team.team_id, "charge") == charged
        # the handler's own write survives exactly when the request was charged
        assert await count_rows(runtime, team.team_id, "adjustment") == charged
        balance = await client.get("/v1/account/balance", headers=team.headers)
        assert balance.json()["data"]["credits_remaining"] == 1000 - PRICE * charged
