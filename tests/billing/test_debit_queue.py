"""The group-commit queue of charged reads (billing/debits.py, ADR 0011, 0014) at shutdown."""

from __future__ import annotations

import pytest

from reelscope.billing import service as billing_service
from reelscope.billing.debits import Debit
from reelscope.kit.clock import ManualClock
from reelscope.kit.errors import NotFound
from reelscope.runtime import Runtime
from tests.conftest import MakeTeam


def debit(team_id: str, clock: ManualClock, reference: str) -> Debit:
    return Debit(
        team_id=team_id,
        credits=25,
        operation="get_videos_digest",
        reference=reference,
        at=clock.now(),
        auto_top_up_below=None,
    )


class TestClosing:
    @pytest.mark.both_databases
    async def test_a_closed_queue_takes_no_debit_and_charges_nothing(
        self, runtime: Runtime, make_team: MakeTeam, clock: ManualClock
    ) -> None:
        team = await make_team(credits=100)
        queue = runtime.debits
        assert await queue.debit(debit(team.team_id, clock, "before")) == 75
        await queue.aclose()
        with pytest.raises(RuntimeError, match="nothing was charged"):
            await queue.debit(debit(team.team_id, clock, "after"))
        async with runtime.db.transaction(write=False) as session:
            assert await billing_service.balance(session, team.team_id) == 75
            assert await billing_service.verify_ledger(session) == []

    async def test_a_debit_for_a_team_that_is_gone_is_a_404(
        self, runtime: Runtime, make_team: MakeTeam, clock: ManualClock
    ) -> None:
        # as billing.service.charge: the plain-SQL batch answers "not found", not a 402 with balance 0
        team = await make_team(credits=100)
        with pytest.raises(NotFound):
            await runtime.debits.debit(debit("00000000-0000-4000-8000-000000000000", clock, "ghost"))
        assert await runtime.debits.debit(debit(team.team_id, clock, "alive")) == 75
