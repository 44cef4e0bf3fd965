"""The engine (ARCHITECTURE §5): enqueue after commit, drop on rollback, task bodies on the worker's own
long-lived loop. Runs with Huey's immediate mode, a SQLite queue and (marked redis) a Redis queue."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.kit.clock import ManualClock
from reelscope.kit.db import create_database
from reelscope.models import Job, LedgerEntry
from reelscope.runtime import Runtime
from reelscope.worker import enqueue
from reelscope.worker.engine import JobEngine
from reelscope.worker.jobs import service as jobs_service
from reelscope.worker.registry import UnknownTask
from tests.conftest import TeamKey

pytestmark = [pytest.mark.all_queues, pytest.mark.both_databases]


class Rollback(Exception):
    pass


async def effects(session: AsyncSession, reference_prefix: str = "effect:") -> int:
    stmt = (
        select(func.count())
        .select_from(LedgerEntry)
        .where(LedgerEntry.reference.like(f"{reference_prefix}%"))
    )
    return int((await session.execute(stmt)).scalar_one())


async def credit_job(session: AsyncSession, team: TeamKey, clock: ManualClock) -> Job:
    return await jobs_service.create(
        session,
        task="test.credit",
        type="tracking_report",
        at=clock.now(),
        team_id=team.team_id,
        resource_type="probe",
        resource_id="r1",
        params={"team_id": team.team_id},
    )


class TestEnqueueAfterCommit:
    async def test_a_job_runs_once_its_transaction_commits(
        self, runtime: Runtime, jobs: JobEngine, team: TeamKey, clock: ManualClock
    ) -> None:
        async with runtime.db.transaction() as session:
            job = await credit_job(session, team, clock)
        jobs.drain()
        async with runtime.db.transaction(write=False) as session:
            done = await session.get(Job, job.id)
            assert done is not None
            assert (done.status, done.attempts, done.result) == ("completed", 1, {"credited": 1})
            assert done.started_at == clock.now() and done.finished_at == clock.now()
            assert done.lease_token is None and done.locked_until is None
            assert await effects(session) == 1

    async def test_a_rolled_back_transaction_sends_nothing(
        self, runtime: Runtime, jobs: JobEngine, team: TeamKey, clock: ManualClock
    ) -> None:
        with pytest.raises(Rollback):
            async with runtime.db.transaction() as session:
                await credit_job(session, team, clock)
                enqueue(session, "test.credit", team_id=team.team_id, label="plain")
                raise Rollback
        assert jobs.pending_count() == 0
        assert jobs.drain() == 0
        async with runtime.db.transaction(write=False) as session:
            assert (await session.execute(select(func.count()).select_from(Job))).scalar_one() == 0
            assert await effects(session) == 0

    async def test_a_savepoint_rollback_drops_only_what_was_enqueued_inside_it(
        self, runtime: Runtime, jobs: JobEngine, team: TeamKey
    ) -> None:
        async with runtime.db.transaction() as session:
            enqueue(session, "test.credit", team_id=team.team_id, label="kept")
            with pytest.raises(Rollback):
                async with session.begin_nested():
                    enqueue(session, "test.credit", team_id=team.team_id, label="dropped")
                    raise Rollback
            async with session.begin_nested():
                enqueue(session, "test.credit", team_id=team.team_id, label="released")
        jobs.drain()
        async with runtime.db.transaction(write=False) as session:
            assert await effects(session, "effect:kept") == 1
            assert await effects(session, "effect:released") == 1
            assert await effects(session, "effect:dropped") == 0

    async def test_a_released_savepoint_sends_nothing_if_the_outer_transaction_rolls_back(
        self, runtime: Runtime, jobs: JobEngine, team: TeamKey
    ) -> None:
        with pytest.raises(Rollback):
            async with runtime.db.transaction() as session:
                async with session.begin_nested():
                    enqueue(session, "test.credit", team_id=team.team_id, label="inner")
                raise Rollback
        assert jobs.drain() == 0
        async with runtime.db.transaction(write=False) as session:
            assert await effects(session) == 0

    async def test_a_plain_task_call_runs_after_commit(
        self, runtime: Runtime, jobs: JobEngine, team: TeamKey
    ) -> None:
        async with runtime.db.transaction() as session:
            enqueue(session, "test.credit", team_id=team.team_id, credits=5, label="plain")
        jobs.drain()
        async with runtime.db.transaction(write=False) as session:
            assert await effects(session, "effect:plain") == 1

    async def test_work_enqueued_by_a_task_runs_after_the_task_commits(
        self, runtime: Runtime, jobs: JobEngine, team: TeamKey
    ) -> None:
        async with runtime.db.transaction() as session:
            enqueue(session, "test.followup", team_id=team.team_id)
        jobs.drain()
        async with runtime.db.transaction(write=False) as session:
            assert await effects(session, "effect:followup") == 1

    async def test_enqueueing_without_an_engine_fails_inside_the_transaction(
        self, database_url: str, jobs: JobEngine
    ) -> None:
        unbound = create_database(database_url)
        try:
            with pytest.raises(RuntimeError, match="no job engine"):
                async with unbound.transaction() as session:
                    enqueue(session, "test.where")
        finally:
            await unbound.dispose()

    async def test_an_unknown_task_is_refused_when_enqueued(
        self, runtime: Runtime, jobs: JobEngine, clock: ManualClock
    ) -> None:
        with pytest.raises(UnknownTask):
            async with runtime.db.transaction() as session:
                await jobs_service.create(session, task="test.no_such_task", type="x", at=clock.now())
        with pytest.raises(UnknownTask):
            async with runtime.db.transaction() as session:
                enqueue(session, "test.no_such_task")


class TestWorkerLoop:
    async def test_bodies_run_on_one_long_lived_loop_of_the_worker_not_the_callers(
        self, runtime: Runtime, jobs: JobEngine, clock: ManualClock
    ) -> None:
        import asyncio

        ids = []
        for _ in range(2):
            async with runtime.db.transaction() as session:
                job = await jobs_service.create(session, task="test.where", type="probe", at=clock.now())
                ids.append(job.id)
            jobs.drain()
        async with runtime.db.transaction(write=False) as session:
            results = [(await session.get(Job, job_id)).result for job_id in ids]  # type: ignore[union-attr]
        assert all(result["thread"].startswith("reelscope-loop-") for result in results)
        assert results[0]["loop"] == results[1]["loop"] != id(asyncio.get_running_loop())
