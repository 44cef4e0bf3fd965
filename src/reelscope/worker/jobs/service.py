"""Jobs: create, claim, complete, fail, expire, recover, and the §2.6 envelope (ARCHITECTURE §5).

Lifecycle of a row (statuses are §2.6's):

    pending ──claim──▶ processing ──complete──▶ completed
       ▲                  │  │
       │  (retry due)     │  └─fail, attempts left──▶ failed (next_attempt_at set) ──claim──▶ processing
       │                  └────fail for good───────▶ failed (next_attempt_at null, refunded)
       └─ any non-terminal status past expires_at ──▶ expired (refunded unless already given up)

A worker that dies leaves ``processing`` with a lease nobody renews; the dispatcher turns it into a
retry (``failed``, due now) or gives up. Nothing stays ``processing`` past its retry window.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.billing import usage
from reelscope.events.catalogue import EVENTS
from reelscope.kit.clock import iso
from reelscope.kit.ids import new_id
from reelscope.kit.logging import get_logger
from reelscope.models import Job
from reelscope.worker import queue, registry
from reelscope.worker.context import JobRun
from reelscope.worker.jobs import repository
from reelscope.worker.jobs.repository import COMPLETED, EXPIRED, FAILED, PENDING, PROCESSING, GivenUp
from reelscope.worker.jobs.schemas import AsyncState, PendingJob

log = get_logger(__name__)

__all__ = ["COMPLETED", "EXPIRED", "FAILED", "PENDING", "PROCESSING"]

DEFAULT_RETRY_WINDOW = timedelta(hours=2)
DEFAULT_MAX_ATTEMPTS = 3
# §8.4: "Default poll interval is 15 seconds or the given retry_after_seconds"
DEFAULT_POLL_SECONDS = 15
# wait before attempt n+1 after attempt n failed
RETRY_BACKOFF = (timedelta(seconds=30), timedelta(minutes=2), timedelta(minutes=10), timedelta(hours=1))
WORKER_LOST = {"code": "worker_lost", "message": "The worker running this job stopped; it will be retried"}


async def create(
    session: AsyncSession,
    *,
    task: str,
    type: str,
    at: datetime,
    team_id: str | None = None,
    resource_type: str | None = None,
    resource_id: str | None = None,
    params: dict[str, Any] | None = None,
    max_attempts: int | None = None,
    retry_window: timedelta = DEFAULT_RETRY_WINDOW,
    charged_credits: int = 0,
    poll_url: str | None = None,
    result_path: str | None = None,
    webhook_event: str | None = None,
    dedupe_key: str | None = None,
) -> Job:
    """A pending job, sent to the queue when the caller's transaction commits.

    ``charged_credits`` is what the creating request charged; it is refunded if the job fails for good.
    With ``dedupe_key``, creating the same job twice returns the first one. ``max_attempts``: by default
    the task's own (``@task(max_attempts=...)``), else ``DEFAULT_MAX_ATTEMPTS``.
    """
    defined = registry.get(task)  # a typo fails here, in the request, not silently in a worker
    if max_attempts is None:
        max_attempts = defined.max_attempts or DEFAULT_MAX_ATTEMPTS
    if webhook_event is not None and webhook_event not in EVENTS:
        raise ValueError(f"{webhook_event!r} is not an event of §6.2")
    if max_attempts < 1:
        raise ValueError("max_attempts must be at least 1")
    if dedupe_key is not None:
        existing = await repository.get_by_dedupe_key(session, dedupe_key)
        if existing is not None:
            return existing
    job = repository.add(
        session,
        Job(
            id=new_id(),
            team_id=team_id,
            task=task,
            type=type,
            resource_type=resource_type,
            resource_id=resource_id,
            status=PENDING,
            attempts=0,
            max_attempts=max_attempts,
            params=params or {},
            charged_credits=charged_credits,
            poll_url=poll_url,
            result_path=result_path,
            webhook_event=webhook_event,
            dedupe_key=dedupe_key,
            expires_at=at + retry_window,
            next_attempt_at=at,
            enqueued_at=at,
            created_at=at,
            updated_at=at,
        ),
    )
    queue.enqueue_job(session, job.id, job.task)
    return job


async def for_resource(
    session: AsyncSession, resource_type: str, resource_id: str, *, team_id: str | None = None
) -> Sequence[Job]:
    return await repository.list_for_resource(session, resource_type, resource_id, team_id=team_id)


async def unfinished_for_resource(
    session: AsyncSession, resource_type: str, resource_id: str, *, team_id: str, task: str | None = None
) -> Sequence[Job]:
    return await repository.list_unfinished_for_resource(
        session, resource_type, resource_id, team_id=team_id, task=task
    )


async def latest_completed_for_resource(
    session: AsyncSession, resource_type: str, resource_id: str, *, team_id: str, task: str
) -> Job | None:
    return await repository.latest_completed_for_resource(
        session, resource_type, resource_id, team_id=team_id, task=task
    )


async def claim(session: AsyncSession, job_id: str, *, now: datetime, lease: timedelta) -> JobRun | None:
    """Start one attempt of the job, or None when it is not ours to run (done, running, not due)."""
    job = await repository.claim(session, job_id, token=new_id(), now=now, locked_until=now + lease)
    if job is None or job.lease_token is None:
        return None
    return JobRun(
        id=job.id,
        task=job.task,
        type=job.type,
        team_id=job.team_id,
        resource_type=job.resource_type,
        resource_id=job.resource_id,
        params=dict(job.params or {}),
        attempt=job.attempts,
        lease_token=job.lease_token,
        charged_credits=job.charged_credits,
        progress=dict(job.progress or {}),
    )


async def extend_lease(session: AsyncSession, run: JobRun, *, now: datetime, lease: timedelta) -> bool:
    return await repository.extend_lease(session, run.id, run.lease_token, locked_until=now + lease, now=now)


async def complete(session: AsyncSession, run: JobRun, *, result: Any, now: datetime) -> bool:
    """Completed, if this attempt still owns the job; False otherwise (nothing changes)."""
    return await repository.complete(session, run.id, run.lease_token, result=result, now=now)


async def fail(
    session: AsyncSession, run: JobRun, *, code: str, message: str, retry: bool, now: datetime
) -> Literal["retry", "gave_up", "lost"]:
    """Record a failed attempt: retry after a backoff inside the window, or give up (and refund)."""
    job = await repository.get_for_update(session, run.id)
    if job is None or job.status != PROCESSING or job.lease_token != run.lease_token:
        return "lost"
    retry_at = now + RETRY_BACKOFF[min(job.attempts, len(RETRY_BACKOFF)) - 1]
    may_retry = retry and job.attempts < job.max_attempts and retry_at < job.expires_at
    next_attempt_at = retry_at if may_retry else None
    error = {"code": code, "message": message}
    if not await repository.record_failure(
        session, run.id, run.lease_token, error=error, next_attempt_at=next_attempt_at, now=now
    ):
        return "lost"
    if next_attempt_at is not None:
        return "retry"
    given_up = GivenUp(id=job.id, team_id=job.team_id, charged_credits=job.charged_credits)
    await _refund([given_up], session, now)
    return "gave_up"


async def expire_overdue(session: AsyncSession, *, now: datetime) -> int:
    """Every non-terminal job past its retry window becomes ``expired`` (§3 "Pending job")."""
    given_up, already = await repository.expire_overdue(session, now)
    await _refund(given_up, session, now)
    if given_up or already:
        log.info("jobs.expired", count=len(given_up) + already)
    return len(given_up) + already


async def recover_lost_leases(session: AsyncSession, *, now: datetime) -> int:
    """Jobs whose worker died mid-run: retried (due now) while attempts remain, else given up."""
    retried, given_up = await repository.release_lost_leases(session, now, error=WORKER_LOST)
    await _refund(given_up, session, now)
    if retried or given_up:
        log.warning("jobs.leases_recovered", retried=len(retried), given_up=len(given_up))
    return len(retried) + len(given_up)


async def resend_due(
    session: AsyncSession, *, now: datetime, stale_after: timedelta, limit: int = 200
) -> list[str]:
    """Send a message for every job due to run whose message is missing (retries) or lost (stale)."""
    due = await repository.mark_due_enqueued(session, now, stale_before=now - stale_after, limit=limit)
    for job_id, task in due:
        queue.enqueue_job(session, job_id, task)
    return [job_id for job_id, _ in due]


async def _refund(given_up: Sequence[GivenUp], session: AsyncSession, now: datetime) -> None:
    """Paid async work that fails for good gets a compensating ledger row (ARCHITECTURE §3)."""
    for job in given_up:
        if job.team_id is not None and job.charged_credits > 0:
            await usage.refund(session, job.team_id, job.charged_credits, f"job:{job.id}", now)


# --- the §2.6 envelope -----------------------------------------------------------------------------


def effective_status(job: Job, now: datetime) -> str:
    """The status a client sees: past the retry window, a job is expired even before the dispatcher runs."""
    if job.status in (COMPLETED, EXPIRED):
        return job.status
    return EXPIRED if job.expires_at <= now else job.status


def render(jobs: Sequence[Job], *, now: datetime, resource_done: bool = True) -> AsyncState:
    """``finalized`` and ``pending_jobs`` for a resource from its secondary jobs (§2.6).

    Completed jobs are never listed. An expired job is listed (status ``expired``) only while something
    else is still open; once nothing is, the resource is finalized and ``pending_jobs`` is empty — so a
    job that fails for good or never runs leaves ``pending_jobs`` after its retry window.
    ``resource_done`` is the family's own main-job signal (e.g. the agent run finished collecting).
    """
    entries: list[PendingJob] = []
    still_open = False
    for job in jobs:
        status = effective_status(job, now)
        if status == COMPLETED:
            continue
        still_open = still_open or status != EXPIRED
        entries.append(_entry(job, status, now))
    finalized = resource_done and not still_open
    return AsyncState(finalized=finalized, pending_jobs=[] if finalized else entries)


async def envelope(
    session: AsyncSession,
    resource_type: str,
    resource_id: str,
    *,
    now: datetime,
    team_id: str | None = None,
    resource_done: bool = True,
) -> AsyncState:
    """The §2.6 state of a resource from its unfinished jobs only (completed ones are never listed, and
    an expired one leaves ``pending_jobs``, §3), so the read stays small as the history grows."""
    jobs = await repository.list_unfinished_for_resource(session, resource_type, resource_id, team_id=team_id)
    return render(jobs, now=now, resource_done=resource_done)


def _entry(job: Job, status: str, now: datetime) -> PendingJob:
    return PendingJob(
        type=job.type,
        status=status,
        job_id=job.id,
        poll_url=job.poll_url,
        result_path=job.result_path,
        webhook_event=job.webhook_event,
        started_at=iso(job.started_at),
        retry_after_seconds=_retry_after(job, status, now),
    )


def _retry_after(job: Job, status: str, now: datetime) -> int | None:
    if status == EXPIRED:
        return None
    if status == FAILED:
        # a retry is due at next_attempt_at; a job given up on changes when its window ends
        changes_at = job.next_attempt_at or job.expires_at
        return max(1, math.ceil((changes_at - now).total_seconds()))
    return DEFAULT_POLL_SECONDS
