"""Retries, lost messages, dead workers and retry windows (ARCHITECTURE §5; spec §2.6, §3 "Pending job").

Nothing is left processing forever, nothing paid is kept when work fails for good, and no side effect
happens twice. The dispatcher pass runs directly, on the manual clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.billing import service as billing_service
from reelscope.kit.clock import ManualClock
from reelscope.models import Job, LedgerEntry
from reelscope.runtime import Runtime
from reelscope.worker.context import JobLost, TaskContext
from reelscope.worker.dispatcher import dispatch_once
from reelscope.worker.engine import JobEngine
from reelscope.worker.jobs import service as jobs_service
from reelscope.worker.queue import SENDER_KEY, Message
from tests.conftest import TeamKey
from tests.worker import sample_tasks

pytestmark = [pytest.mark.all_queues, pytest.mark.both_databases]

LEASE = timedelta(seconds=300)  # the default REELSCOPE_JOB_LEASE_SECONDS
STALE = timedelta(seconds=120)  # the default REELSCOPE_JOB_STALE_AFTER_SECONDS


class LostSender:
    """Stands in for a queue that loses every message (a crash between commit and send)."""

    def send(self, messages: Sequence[Message]) -> None:
        pass


async def create(
    runtime: Runtime, clock: ManualClock, task: str, *, lose_message: bool = False, **options: Any
) -> str:
    async with runtime.db.transaction() as session:
        if lose_message:
            session.sync_session.info[SENDER_KEY] = LostSender()
        job = await jobs_service.create(session, task=task, type="viral_analysis", at=clock.now(), **options)
        return job.id


async def load(runtime: Runtime, job_id: str) -> Job:
    async with runtime.db.transaction(write=False) as session:
        job = await session.get(Job, job_id)
        assert job is not None
        return job


async def ledger(session: AsyncSession, team_id: str, kind: str) -> list[int]:
    stmt = select(LedgerEntry.credits).where(LedgerEntry.team_id == team_id, LedgerEntry.kind == kind)
    return list((await session.execute(stmt)).scalars())


async def effects(runtime: Runtime, job_id: str) -> int:
    async with runtime.db.transaction(write=False) as session:
        stmt = (
            select(func.count()).select_from(LedgerEntry).where(LedgerEntry.reference == f"effect:{job_id}")
        )
        return int((await session.execute(stmt)).scalar_one())


async def dispatch(task_context: TaskContext, jobs: JobEngine) -> None:
    await dispatch_once(task_context)
    jobs.drain()


class TestRetries:
    async def test_a_failed_attempt_is_retried_after_a_backoff_then_given_up_and_refunded(
        self, runtime: Runtime, jobs: JobEngine, task_context: TaskContext, team: TeamKey, clock: ManualClock
    ) -> None:
        job_id = await create(
            runtime, clock, "test.fail", team_id=team.team_id, charged_credits=50, max_attempts=2
        )
        jobs.drain()
        job = await load(runtime, job_id)
        assert (job.status, job.attempts) == ("failed", 1)
        assert job.error == {"code": "upstream_error", "message": "The source did not answer"}
        assert job.next_attempt_at == clock.now() + timedelta(seconds=30)

        await dispatch(task_context, jobs)  # not due yet: nothing runs
        assert (await load(runtime, job_id)).attempts == 1

        clock.advance(timedelta(seconds=30))
        await dispatch(task_context, jobs)
        job = await load(runtime, job_id)
        assert (job.status, job.attempts, job.next_attempt_at) == ("failed", 2, None)
        assert job.finished_at == clock.now()
        async with runtime.db.transaction(write=False) as session:
            assert await ledger(session, team.team_id, "refund") == [50]

    async def test_a_body_that_gives_up_is_not_retried_and_expires_after_its_window(
        self, runtime: Runtime, jobs: JobEngine, task_context: TaskContext, team: TeamKey, clock: ManualClock
    ) -> None:
        job_id = await create(
            runtime,
            clock,
            "test.fail",
            params={"retry": False},
            team_id=team.team_id,
            charged_credits=25,
            retry_window=timedelta(minutes=10),
        )
        jobs.drain()
        job = await load(runtime, job_id)
        assert (job.status, job.attempts, job.next_attempt_at) == ("failed", 1, None)

        clock.advance(timedelta(minutes=10))
        await dispatch(task_context, jobs)
        assert (await load(runtime, job_id)).status == "expired"
        async with runtime.db.transaction(write=False) as session:
            # refunded once, when it was given up; expiry adds nothing
            assert await ledger(session, team.team_id, "refund") == [25]
            assert await billing_service.verify_ledger(session) == []

    async def test_an_unexpected_exception_is_recorded_without_internals_and_retried(
        self, runtime: Runtime, jobs: JobEngine, clock: ManualClock
    ) -> None:
        job_id = await create(runtime, clock, "test.crash")
        jobs.drain()
        job = await load(runtime, job_id)
        assert job.status == "failed" and job.next_attempt_at is not None
        assert job.error == {"code": "internal_error", "message": "The job failed unexpectedly"}


class TestLostMessages:
    async def test_a_pending_job_whose_message_was_lost_is_sent_again_once_stale(
        self, runtime: Runtime, jobs: JobEngine, task_context: TaskContext, team: TeamKey, clock: ManualClock
    ) -> None:
        job_id = await create(
            runtime, clock, "test.credit", lose_message=True, params={"team_id": team.team_id}
        )
        jobs.drain()
        assert (await load(runtime, job_id)).status == "pending"

        clock.advance(STALE - timedelta(seconds=1))
        await dispatch(task_context, jobs)
        assert (await load(runtime, job_id)).status == "pending"  # not stale yet: it may still be queued

        clock.advance(timedelta(seconds=1))
        await dispatch(task_context, jobs)
        assert (await load(runtime, job_id)).status == "completed"
        assert await effects(runtime, job_id) == 1

    async def test_a_duplicate_message_does_not_run_a_job_twice(
        self, runtime: Runtime, jobs: JobEngine, team: TeamKey, clock: ManualClock
    ) -> None:
        job_id = await create(runtime, clock, "test.credit", params={"team_id": team.team_id})
        jobs.send([Message(task="test.credit", job_id=job_id)])
        jobs.drain()
        assert (await load(runtime, job_id)).attempts == 1
        assert await effects(runtime, job_id) == 1

    async def test_a_job_never_run_expires_after_its_window_and_is_refunded(
        self, runtime: Runtime, jobs: JobEngine, task_context: TaskContext, team: TeamKey, clock: ManualClock
    ) -> None:
        # the message is lost and no dispatcher runs until the window has passed
        job_id = await create(
            runtime,
            clock,
            "test.credit",
            lose_message=True,
            params={"team_id": team.team_id},
            team_id=team.team_id,
            charged_credits=40,
            retry_window=timedelta(hours=1),
        )
        clock.advance(timedelta(hours=1))
        await dispatch(task_context, jobs)
        await dispatch(task_context, jobs)  # a second pass changes nothing
        job = await load(runtime, job_id)
        assert (job.status, job.attempts, job.finished_at) == ("expired", 0, clock.now())
        assert await effects(runtime, job_id) == 0
        async with runtime.db.transaction(write=False) as session:
            assert await ledger(session, team.team_id, "refund") == [40]


class TestDeadWorkers:
    async def claim_and_die(self, runtime: Runtime, job_id: str, clock: ManualClock) -> TaskContext:
        """Claim an attempt as a worker would, then never finish it (the worker was killed)."""
        async with runtime.db.transaction() as session:
            run = await jobs_service.claim(session, job_id, now=clock.now(), lease=LEASE)
        assert run is not None
        return TaskContext(settings=runtime.settings, clock=clock, db=runtime.db, job=run)

    async def test_a_job_whose_worker_died_is_retried_once_its_lease_expires(
        self, runtime: Runtime, jobs: JobEngine, task_context: TaskContext, team: TeamKey, clock: ManualClock
    ) -> None:
        job_id = await create(
            runtime, clock, "test.credit", lose_message=True, params={"team_id": team.team_id}
        )
        dead = await self.claim_and_die(runtime, job_id, clock)

        clock.advance(LEASE - timedelta(seconds=1))
        await dispatch(task_context, jobs)
        assert (await load(runtime, job_id)).status == "processing"  # the lease still holds

        clock.advance(timedelta(seconds=1))
        await dispatch(task_context, jobs)
        job = await load(runtime, job_id)
        assert (job.status, job.attempts) == ("completed", 2)
        assert await effects(runtime, job_id) == 1

        # the dead attempt wakes up and tries to finish: its completion and side effect roll back
        with pytest.raises(JobLost):
            async with runtime.db.transaction() as session:
                await billing_service.add_credits(
                    session, team.team_id, 1, reference=f"effect:{job_id}", at=clock.now()
                )
                await dead.complete(session, {"late": True})
        assert await effects(runtime, job_id) == 1
        assert (await load(runtime, job_id)).result == {"credited": 1}

    async def test_a_dead_worker_on_the_last_attempt_gives_the_job_up_and_refunds_it(
        self, runtime: Runtime, jobs: JobEngine, task_context: TaskContext, team: TeamKey, clock: ManualClock
    ) -> None:
        job_id = await create(
            runtime,
            clock,
            "test.credit",
            lose_message=True,
            params={"team_id": team.team_id},
            team_id=team.team_id,
            charged_credits=30,
            max_attempts=1,
        )
        await self.claim_and_die(runtime, job_id, clock)
        clock.advance(LEASE)
        await dispatch(task_context, jobs)
        job = await load(runtime, job_id)
        assert (job.status, job.next_attempt_at, job.error["code"]) == ("failed", None, "worker_lost")  # type: ignore[index]
        async with runtime.db.transaction(write=False) as session:
            assert await ledger(session, team.team_id, "refund") == [30]

    async def test_a_job_still_processing_when_its_window_ends_expires(
        self, runtime: Runtime, jobs: JobEngine, task_context: TaskContext, team: TeamKey, clock: ManualClock
    ) -> None:
        job_id = await create(
            runtime,
            clock,
            "test.credit",
            lose_message=True,
            params={"team_id": team.team_id},
            retry_window=timedelta(minutes=3),
        )
        alive = await self.claim_and_die(runtime, job_id, clock)
        clock.advance(timedelta(minutes=3))  # the lease (5 min) still holds, the window does not
        await dispatch(task_context, jobs)
        assert (await load(runtime, job_id)).status == "expired"
        with pytest.raises(JobLost):
            async with runtime.db.transaction() as session:
                await alive.complete(session, {})


class TestSteps:
    """A job that works in steps records where it stands with each step (``save_progress``); the attempt
    after a failure or a restart reads it and goes on (ADR 0042)."""

    async def test_the_attempt_after_a_failure_goes_on_from_the_last_step_landed(
        self, runtime: Runtime, jobs: JobEngine, task_context: TaskContext, team: TeamKey, clock: ManualClock
    ) -> None:
        params = {"team_id": team.team_id}
        job_id = await create(runtime, clock, "test.steps", team_id=team.team_id, params=params)
        jobs.drain()
        job = await load(runtime, job_id)
        assert (job.status, job.progress) == ("failed", {"step": 1})

        clock.advance(timedelta(seconds=30))  # the retry's backoff
        await dispatch(task_context, jobs)
        job = await load(runtime, job_id)
        assert (job.status, job.attempts, job.result) == ("completed", 2, {"steps": 2})
        assert sample_tasks.PROGRESS_SEEN[job_id] == [{}, {"step": 1}]
        async with runtime.db.transaction(write=False) as session:
            stmt = select(LedgerEntry.reference).where(LedgerEntry.reference.like("step%"))
            references = sorted((await session.execute(stmt)).scalars())
        # the first step landed once: the second attempt did not do it again
        assert references == [f"step1:{job_id}", f"step2:{job_id}"]

    async def test_an_attempt_that_lost_the_job_cannot_record_progress(
        self, runtime: Runtime, jobs: JobEngine, task_context: TaskContext, team: TeamKey, clock: ManualClock
    ) -> None:
        params = {"team_id": team.team_id}  # the message is lost: the test claims the job itself
        job_id = await create(runtime, clock, "test.credit", lose_message=True, params=params)
        async with runtime.db.transaction() as session:
            run = await jobs_service.claim(session, job_id, now=clock.now(), lease=LEASE)
        assert run is not None
        clock.advance(LEASE + timedelta(seconds=1))
        await dispatch(task_context, jobs)  # the lease lapsed: released and run again elsewhere
        ctx = TaskContext(settings=runtime.settings, clock=clock, db=runtime.db, job=run)
        with pytest.raises(JobLost):
            async with runtime.db.transaction() as session:
                await ctx.save_progress(session, {"step": 1})
        assert (await load(runtime, job_id)).progress is None

    async def test_a_task_that_resumes_from_its_progress_gets_more_attempts(
        self, runtime: Runtime, clock: ManualClock
    ) -> None:
        # the first start's history job goes on from its last landed step: restarts while it runs must
        # not use up the three attempts an ordinary job has (found by benchmarks/soak.py)
        history = await create(runtime, clock, "trend.backfill", lose_message=True)
        ordinary = await create(runtime, clock, "test.credit", lose_message=True, params={"team_id": "t"})
        assert (await load(runtime, history)).max_attempts == 12
        assert (await load(runtime, ordinary)).max_attempts == jobs_service.DEFAULT_MAX_ATTEMPTS == 3
