"""Refunds of paid async work that fails for good (ARCHITECTURE §3): a compensating ledger row, once."""

from __future__ import annotations

import pytest

from reelscope.billing import service as billing_service
from reelscope.billing import usage
from reelscope.billing.repository import count_entries
from reelscope.kit.clock import ManualClock
from reelscope.runtime import Runtime
from tests.conftest import TeamKey

pytestmark = pytest.mark.both_databases


class TestRefund:
    async def test_a_refund_is_a_ledger_row_and_the_balance_follows(
        self, runtime: Runtime, make_team: object, clock: ManualClock
    ) -> None:
        team: TeamKey = await make_team(credits=100)  # type: ignore[operator]
        async with runtime.db.transaction() as session:
            await billing_service.charge(
                session, team.team_id, 50, operation="op", reference="req", at=clock.now()
            )
            assert await usage.refund(session, team.team_id, 50, "job:1", clock.now()) == 100
        async with runtime.db.transaction(write=False) as session:
            assert await billing_service.balance(session, team.team_id) == 100
            assert await count_entries(session, team.team_id, billing_service.REFUND) == 1
            assert await billing_service.verify_ledger(session) == []

    async def test_the_same_reference_is_refunded_once(
        self, runtime: Runtime, team: TeamKey, clock: ManualClock
    ) -> None:
        async with runtime.db.transaction() as session:
            assert await usage.refund(session, team.team_id, 25, "job:2", clock.now()) == 1025
        async with runtime.db.transaction() as session:
            assert await usage.refund(session, team.team_id, 25, "job:2", clock.now()) is None
            assert await usage.refund(session, team.team_id, 0, "job:3", clock.now()) is None
            assert await billing_service.balance(session, team.team_id) == 1025
