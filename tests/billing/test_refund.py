"""Refunds of paid async work that fails for good (ARCHITECTURE §3): a compensating ledger row, once."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import text

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


async def blocked_on_a_lock(runtime: Runtime) -> None:
    """Return once some PostgreSQL backend waits for a lock (polled from a third connection)."""
    for _ in range(500):
        async with runtime.db.transaction(write=False) as session:
            waiting = await session.scalar(text("SELECT count(*) FROM pg_locks WHERE NOT granted"))
        if waiting:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the second refund never waited for the first")


class TestConcurrentRefunds:
    async def test_two_concurrent_refunds_of_one_job_pay_once(
        self, runtime: Runtime, team: TeamKey, clock: ManualClock, backend: str
    ) -> None:
        """A lookup task's failure refund and the dispatcher expiring the same job: the second one runs
        while the first has not committed, so it cannot see its ledger row; the unique refund index
        decides (ARCHITECTURE §3). SQLite runs one writer at a time, so only PostgreSQL can interleave."""
        if backend == "sqlite":
            pytest.skip("SQLite serializes write transactions: no interleaving to test")
        first_done = asyncio.Event()

        async def second() -> int | None:
            async with runtime.db.transaction() as session:
                await first_done.wait()
                return await usage.refund(session, team.team_id, 40, "job:raced", clock.now())

        async with runtime.db.transaction() as session:
            racing = asyncio.create_task(second())
            assert await usage.refund(session, team.team_id, 40, "job:raced", clock.now()) == 1040
            first_done.set()
            await blocked_on_a_lock(runtime)  # the second now waits on the first's uncommitted rows
        assert await racing is None
        async with runtime.db.transaction(write=False) as session:
            assert await billing_service.balance(session, team.team_id) == 1040
            assert await count_entries(session, team.team_id, billing_service.REFUND) == 1
            assert await billing_service.verify_ledger(session) == []
