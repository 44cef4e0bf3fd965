"""Running one message on the worker loop: a plain task call, or one attempt of a jobs row."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import timedelta
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from reelscope.kit import metrics
from reelscope.kit.logging import get_logger
from reelscope.worker import registry
from reelscope.worker.context import JobFailed, JobLost, JobRun, TaskContext
from reelscope.worker.jobs import service as jobs_service

log = get_logger(__name__)


async def run_call(ctx: TaskContext, task: str, kwargs: dict[str, Any]) -> None:
    try:
        definition = registry.get(task)
        result = await definition.body(ctx, **kwargs)
    # the task boundary: a failing body is logged, never allowed to kill the worker
    except Exception as exc:
        log.error("task.failed", task=task, error_type=type(exc).__name__, exc_info=exc)
        metrics.TASK_CALLS.labels(task, registry.lane_of(task).value, "failed").inc()
        return
    log.info("task.completed", task=task, result=result)
    metrics.TASK_CALLS.labels(task, registry.lane_of(task).value, "ok").inc()


async def run_job(ctx: TaskContext, job_id: str, *, lease: timedelta) -> None:
    """Claim the job, run its body under a renewed lease, and record the outcome on the row."""
    async with ctx.db.transaction() as session:
        run = await jobs_service.claim(session, job_id, now=ctx.clock.now(), lease=lease)
    if run is None:
        # done, running elsewhere, expired, or a retry not yet due: the message was a duplicate
        log.info("job.not_claimed", job_id=job_id)
        return
    ctx.job = run
    log.info("job.started", job_id=run.id, task=run.task, attempt=run.attempt)
    heartbeat = asyncio.create_task(_heartbeat(ctx, run, lease))
    try:
        await _attempt(ctx, run)
    finally:
        heartbeat.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await heartbeat


async def _attempt(ctx: TaskContext, run: JobRun) -> None:
    try:
        definition = registry.get(run.task)
        result = await definition.body(ctx, **run.params)
        if not ctx.completed:
            async with ctx.db.transaction() as session:
                if not await jobs_service.complete(session, run, result=result, now=ctx.clock.now()):
                    raise JobLost(run.id)
        log.info("job.completed", job_id=run.id, task=run.task, attempt=run.attempt)
        _count(run, "completed")
    except JobLost:
        # the lease was reclaimed (or the window ended) while this attempt ran; its writes rolled back
        log.warning("job.lost", job_id=run.id, task=run.task, attempt=run.attempt)
        _count(run, "lost")
    except registry.UnknownTask as exc:
        await _record_failure(ctx, run, "unknown_task", str(exc), retry=True)
    except JobFailed as exc:
        await _record_failure(ctx, run, exc.code, exc.message, retry=exc.retry)
    # the job boundary: whatever a body raises is recorded on its row, and retried while the window lasts
    except Exception as exc:
        log.error(
            "job.attempt_failed", job_id=run.id, task=run.task, error_type=type(exc).__name__, exc_info=exc
        )
        await _record_failure(ctx, run, "internal_error", "The job failed unexpectedly", retry=True)


async def _record_failure(ctx: TaskContext, run: JobRun, code: str, message: str, *, retry: bool) -> None:
    async with ctx.db.transaction() as session:
        outcome = await jobs_service.fail(
            session, run, code=code, message=message, retry=retry, now=ctx.clock.now()
        )
    log.info("job.failed", job_id=run.id, task=run.task, attempt=run.attempt, code=code, outcome=outcome)
    _count(run, outcome)


def _count(run: JobRun, outcome: str) -> None:
    """An attempt's outcome: completed, retry, gave_up or lost (kit/metrics.py)."""
    metrics.JOB_OUTCOMES.labels(run.task, registry.lane_of(run.task).value, outcome).inc()


async def _heartbeat(ctx: TaskContext, run: JobRun, lease: timedelta) -> None:
    """Renew the lease every third of it while the body runs; a dead worker stops renewing."""
    while True:
        await asyncio.sleep(lease.total_seconds() / 3)
        try:
            async with ctx.db.transaction() as session:
                if not await jobs_service.extend_lease(session, run, now=ctx.clock.now(), lease=lease):
                    return
        except SQLAlchemyError as exc:
            log.warning("job.heartbeat_failed", job_id=run.id, error_type=type(exc).__name__)
