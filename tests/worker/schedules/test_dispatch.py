"""The dispatcher of due schedules (ARCHITECTURE §5): each due row fires once, on time, across DST changes,
even with two dispatchers at once."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from reelscope.kit.clock import ManualClock
from reelscope.kit.db import create_database
from reelscope.models import Job, LedgerEntry, Schedule
from reelscope.runtime import Runtime
from reelscope.worker.context import TaskContext
from reelscope.worker.dispatcher import dispatch_once
from reelscope.worker.engine import JobEngine
from reelscope.worker.schedules import service as schedules_service
from tests.conftest import TeamKey

pytestmark = pytest.mark.both_databases


async def new_schedule(
    runtime: Runtime, clock: ManualClock, team: TeamKey, cadence: str, **options: object
) -> str:
    async with runtime.db.transaction() as session:
        schedule = await schedules_service.create(
            session,
            task="test.credit",
            job_type="trend_run",
            cadence=cadence,
            at=clock.now(),
            params={"team_id": team.team_id},
            **options,  # type: ignore[arg-type]
        )
        return schedule.id


async def fired_jobs(runtime: Runtime, schedule_id: str) -> list[Job]:
    async with runtime.db.transaction(write=False) as session:
        stmt = (
            select(Job).where(Job.params["schedule_id"].as_string() == schedule_id).order_by(Job.created_at)
        )
        return list((await session.execute(stmt)).scalars())


async def load(runtime: Runtime, schedule_id: str) -> Schedule:
    async with runtime.db.transaction(write=False) as session:
        schedule = await session.get(Schedule, schedule_id)
        assert schedule is not None
        return schedule


class TestNewYorkSevenAm:
    """A regional trend run at 07:00 New York time (§4.3) across the 2026 daylight-saving changes."""

    async def test_across_the_march_change(
        self, runtime: Runtime, jobs: JobEngine, task_context: TaskContext, team: TeamKey, clock: ManualClock
    ) -> None:
        clock.set(datetime(2026, 3, 7, 12, 0, tzinfo=UTC))  # Saturday 07:00 EST
        schedule_id = await new_schedule(runtime, clock, team, "local:07:00", timezone="America/New_York")
        assert (await load(runtime, schedule_id)).next_run_at == datetime(2026, 3, 8, 11, 0, tzinfo=UTC)

        clock.set(datetime(2026, 3, 8, 10, 59, 59, tzinfo=UTC))
        await dispatch_once(task_context)
        assert await fired_jobs(runtime, schedule_id) == []

        clock.set(datetime(2026, 3, 8, 11, 0, tzinfo=UTC))  # Sunday 07:00 EDT
        await dispatch_once(task_context)
        await dispatch_once(task_context)
        [job] = await fired_jobs(runtime, schedule_id)
        assert job.params["scheduled_for"] == "2026-03-08T11:00:00Z"
        assert job.status == "completed"
        schedule = await load(runtime, schedule_id)
        assert schedule.next_run_at == datetime(2026, 3, 9, 11, 0, tzinfo=UTC)
        assert (schedule.run_count, schedule.last_run_at) == (1, clock.now())

    async def test_across_the_november_change(
        self, runtime: Runtime, jobs: JobEngine, task_context: TaskContext, team: TeamKey, clock: ManualClock
    ) -> None:
        clock.set(datetime(2026, 10, 31, 10, 0, tzinfo=UTC))
        schedule_id = await new_schedule(runtime, clock, team, "local:07:00", timezone="America/New_York")
        fired_at = []
        for _ in range(3):
            due = (await load(runtime, schedule_id)).next_run_at
            assert due is not None
            clock.set(due - timedelta(seconds=1))
            await dispatch_once(task_context)
            clock.set(due)
            await dispatch_once(task_context)
            fired_at.append(due)
        assert fired_at == [
            datetime(2026, 10, 31, 11, 0, tzinfo=UTC),  # Saturday 07:00 EDT
            datetime(2026, 11, 1, 12, 0, tzinfo=UTC),  # Sunday 07:00 EST, 25 hours later
            datetime(2026, 11, 2, 12, 0, tzinfo=UTC),
        ]
        assert [job.params["scheduled_for"] for job in await fired_jobs(runtime, schedule_id)] == [
            "2026-10-31T11:00:00Z",
            "2026-11-01T12:00:00Z",
            "2026-11-02T12:00:00Z",
        ]


class TestFiring:
    async def test_firings_missed_while_nothing_dispatched_collapse_into_one(
        self, runtime: Runtime, jobs: JobEngine, task_context: TaskContext, team: TeamKey, clock: ManualClock
    ) -> None:
        schedule_id = await new_schedule(runtime, clock, team, "cron:0 9 * * *")
        clock.advance(timedelta(days=3))
        await dispatch_once(task_context)
        assert len(await fired_jobs(runtime, schedule_id)) == 1
        assert (await load(runtime, schedule_id)).next_run_at == datetime(2026, 11, 25, 9, 0, tzinfo=UTC)

    async def test_an_interval_keeps_its_grid(
        self, runtime: Runtime, jobs: JobEngine, task_context: TaskContext, team: TeamKey, clock: ManualClock
    ) -> None:
        start = clock.now()
        schedule_id = await new_schedule(runtime, clock, team, "interval:3600")
        clock.advance(timedelta(hours=2, minutes=10))
        await dispatch_once(task_context)
        assert (await load(runtime, schedule_id)).next_run_at == start + timedelta(hours=3)

    async def test_once_fires_at_its_time_and_stops(
        self, runtime: Runtime, jobs: JobEngine, task_context: TaskContext, team: TeamKey, clock: ManualClock
    ) -> None:
        retry_at = clock.now() + timedelta(minutes=10)
        schedule_id = await new_schedule(runtime, clock, team, "once", first_run_at=retry_at)
        clock.set(retry_at)
        await dispatch_once(task_context)
        clock.advance(timedelta(days=1))
        await dispatch_once(task_context)
        assert len(await fired_jobs(runtime, schedule_id)) == 1
        schedule = await load(runtime, schedule_id)
        assert (schedule.is_active, schedule.next_run_at) == (False, None)

    async def test_a_paused_schedule_does_not_fire_and_resumes_from_now(
        self, runtime: Runtime, jobs: JobEngine, task_context: TaskContext, team: TeamKey, clock: ManualClock
    ) -> None:
        schedule_id = await new_schedule(runtime, clock, team, "cron:0 9 * * *")
        async with runtime.db.transaction() as session:
            schedule = await session.get(Schedule, schedule_id)
            assert schedule is not None
            schedules_service.set_active(schedule, False, at=clock.now())
        clock.advance(timedelta(days=2))
        await dispatch_once(task_context)
        assert await fired_jobs(runtime, schedule_id) == []
        async with runtime.db.transaction() as session:
            schedule = await session.get(Schedule, schedule_id)
            assert schedule is not None
            schedules_service.set_active(schedule, True, at=clock.now())
        assert (await load(runtime, schedule_id)).next_run_at == datetime(2026, 11, 24, 9, 0, tzinfo=UTC)


class TestConcurrentDispatchers:
    @pytest.mark.parametrize("queue_backend", ["sqlite"], indirect=True)
    async def test_two_dispatchers_at_once_fire_each_due_row_exactly_once(
        self,
        runtime: Runtime,
        jobs: JobEngine,
        database_url: str,
        team: TeamKey,
        clock: ManualClock,
    ) -> None:
        schedule_ids = [await new_schedule(runtime, clock, team, "cron:0 9 * * *") for _ in range(30)]
        clock.set(datetime(2026, 11, 22, 9, 0, tzinfo=UTC))
        # two dispatchers, each with its own connection pool, as two worker processes would have
        databases = [create_database(database_url) for _ in range(2)]
        for database in databases:
            jobs.bind(database)
        try:
            contexts = [TaskContext(settings=runtime.settings, clock=clock, db=db) for db in databases]
            reports = await asyncio.gather(*(dispatch_once(ctx) for ctx in contexts))
        finally:
            for database in databases:
                await database.dispose()
        assert sum(report.fired for report in reports) == 30
        jobs.drain()
        async with runtime.db.transaction(write=False) as session:
            assert (await session.execute(select(func.count()).select_from(Job))).scalar_one() == 30
            runs = (await session.execute(select(Schedule.run_count))).scalars().all()
            credited = (
                await session.execute(
                    select(func.count())
                    .select_from(LedgerEntry)
                    .where(LedgerEntry.reference.like("effect:%"))
                )
            ).scalar_one()
        assert sorted(runs) == [1] * len(schedule_ids)
        assert credited == 30


class TestMisconfiguredWorker:
    async def test_a_schedule_whose_task_is_not_installed_skips_its_firing_without_blocking_others(
        self, runtime: Runtime, jobs: JobEngine, task_context: TaskContext, team: TeamKey, clock: ManualClock
    ) -> None:
        orphan_id = await new_schedule(runtime, clock, team, "cron:0 9 * * *")
        healthy_id = await new_schedule(runtime, clock, team, "cron:0 10 * * *")
        async with runtime.db.transaction() as session:
            orphan = await session.get(Schedule, orphan_id)
            assert orphan is not None
            orphan.task = "family.not_deployed"
        clock.set(datetime(2026, 11, 22, 10, 0, tzinfo=UTC))
        await dispatch_once(task_context)
        assert await fired_jobs(runtime, orphan_id) == []
        assert len(await fired_jobs(runtime, healthy_id)) == 1
        assert (await load(runtime, orphan_id)).next_run_at == datetime(2026, 11, 23, 9, 0, tzinfo=UTC)
