"""A probe family mounted only in tests, to exercise the request contract before real families exist."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import pytest
from fastapi import FastAPI, Query
from pydantic import Field

from reelscope.billing.prices import PRICES, Price
from reelscope.contract import CallDep, PrincipalDep, SessionDep, v1_router
from reelscope.kit.errors import Conflict
from reelscope.kit.platforms import Platform
from reelscope.kit.schemas import Envelope, RequestBody, errors
from reelscope.models import LedgerEntry

PROBE_PRICES = {
    "get_probe": Price(25),
    "get_platform_probe": Price(5),
    "create_probe": Price(10),
    "get_probe_free": Price(0),
    "fail_probe": Price(25),
    "crash_probe": Price(25),
    "settle_probe": Price(20),
}


class ProbeBody(RequestBody):
    name: str = Field(min_length=1, max_length=10)
    count: int = 1


def mount_probe(app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, price in PROBE_PRICES.items():
        monkeypatch.setitem(PRICES, name, price)
    router = v1_router(prefix="/v1/probe", tags=["probe"])

    @router.get("", responses=errors(400))
    async def get_probe(
        principal: PrincipalDep, limit: Annotated[int, Query(ge=1, le=100)] = 50
    ) -> Envelope[dict[str, object]]:
        return Envelope(data={"team_id": principal.team_id, "limit": limit})

    @router.get("/{platform}", responses=errors(400, 404))
    async def get_platform_probe(platform: Platform) -> Envelope[str]:
        return Envelope(data=platform.value)

    @router.post("", status_code=201, responses=errors(400))
    async def create_probe(body: ProbeBody, session: SessionDep, principal: PrincipalDep) -> Envelope[str]:
        # a write that must roll back if the request is not charged
        session.add(
            LedgerEntry(
                team_id=principal.team_id,
                kind="adjustment",
                credits=0,
                balance_after=0,
                operation="probe",
                reference=body.name,
                created_at=datetime.now(UTC),
            )
        )
        await session.flush()
        if body.name == "conflict":
            raise Conflict("written, then refused: nothing may remain")
        return Envelope(data=body.name)

    @router.get("/fail/conflict", responses=errors(409))
    async def fail_probe() -> Envelope[str]:
        raise Conflict("the probe always conflicts")

    @router.get("/fail/crash", responses=errors(500))
    async def crash_probe() -> Envelope[str]:
        raise RuntimeError("secret internal detail: password=hunter2")

    @router.get("/settle/half", responses=errors(400))
    async def settle_probe(call: CallDep) -> Envelope[str]:
        call.settle(10)
        return Envelope(data="settled")

    app.include_router(router)
