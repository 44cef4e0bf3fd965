"""SQL for jobs rows. Every state change is one conditional UPDATE, so racing workers and dispatchers
cannot both win: a claim needs a claimable status, a completion needs the attempt's lease token."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, func, literal, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.kit.db import UtcDateTime
from reelscope.models import Job

PENDING = "pending"
PROCESSING = "processing"
COMPLETED = "completed"
FAILED = "failed"
EXPIRED = "expired"
WAITING = (PENDING, FAILED)
UNFINISHED = (PENDING, PROCESSING, FAILED)


@dataclass(frozen=True)
class GivenUp:
    """A job that will never run again without completing: refunded if it charged credits."""

    id: str
    team_id: str | None
    charged_credits: int


def add(session: AsyncSession, job: Job) -> Job:
    session.add(job)
    return job


async def get_for_update(session: AsyncSession, job_id: str) -> Job | None:
    stmt = select(Job).where(Job.id == job_id).with_for_update().execution_options(populate_existing=True)
    return (await session.execute(stmt)).scalar_one_or_none()


async def get_by_dedupe_key(session: AsyncSession, key: str) -> Job | None:
    return (await session.execute(select(Job).where(Job.dedupe_key == key))).scalar_one_or_none()


async def list_for_resource(
    session: AsyncSession, resource_type: str, resource_id: str, *, team_id: str | None = None
) -> Sequence[Job]:
    stmt = select(Job).where(Job.resource_type == resource_type, Job.resource_id == resource_id)
    if team_id is not None:
        stmt = stmt.where(Job.team_id == team_id)
    return (await session.execute(stmt.order_by(Job.created_at, Job.id))).scalars().all()


async def list_unfinished_for_resource(
    session: AsyncSession,
    resource_type: str,
    resource_id: str,
    *,
    team_id: str | None = None,
    task: str | None = None,
) -> Sequence[Job]:
    """The resource's jobs not yet completed or expired (what ``pending_jobs`` can list, §2.6): bounded by
    the retry window, however long the resource's history of finished jobs grows."""
    stmt = select(Job).where(
        Job.resource_type == resource_type, Job.resource_id == resource_id, Job.status.in_(UNFINISHED)
    )
    if team_id is not None:
        stmt = stmt.where(Job.team_id == team_id)
    if task is not None:
        stmt = stmt.where(Job.task == task)
    return (await session.execute(stmt.order_by(Job.created_at, Job.id))).scalars().all()


async def latest_completed_for_resource(
    session: AsyncSession, resource_type: str, resource_id: str, *, team_id: str, task: str
) -> Job | None:
    """The resource's most recently created completed job of ``task`` (one row, by ORDER BY … LIMIT 1)."""
    stmt = (
        select(Job)
        .where(
            Job.resource_type == resource_type,
            Job.resource_id == resource_id,
            Job.team_id == team_id,
            Job.task == task,
            Job.status == COMPLETED,
        )
        .order_by(Job.created_at.desc(), Job.id.desc())
        .limit(1)
    )
    return (await session.execute(stmt)).scalar_one_or_none()


def _claimable(now: datetime) -> ColumnElement[bool]:
    return and_(
        Job.status.in_(WAITING),
        Job.next_attempt_at.is_not(None),
        Job.next_attempt_at <= now,
        Job.expires_at > now,
        Job.attempts < Job.max_attempts,
    )


@dataclass(frozen=True)
class TaskBacklog:
    """A task's jobs waiting for a worker (claimable now) and running, and the longest wait."""

    task: str
    waiting: int
    oldest_due_at: datetime | None
    running: int


async def backlog_by_task(session: AsyncSession, now: datetime) -> list[TaskBacklog]:
    """Every task with jobs waiting (claimable now: the rule a claim applies) or running (metrics, read at
    scrape time). Both filters lead with ``status``, on ``ix_jobs_status_next_attempt``: finished jobs
    are never scanned."""
    waiting = (
        select(Job.task, func.count(), func.min(Job.next_attempt_at))
        .where(_claimable(now))
        .group_by(Job.task)
    )
    running = select(Job.task, func.count()).where(Job.status == PROCESSING).group_by(Job.task)
    found = {task: (int(count), oldest, 0) for task, count, oldest in (await session.execute(waiting)).all()}
    for task, count in (await session.execute(running)).all():
        before = found.get(task, (0, None, 0))
        found[task] = (before[0], before[1], int(count))
    return [TaskBacklog(task, *found[task]) for task in sorted(found)]


async def claim(
    session: AsyncSession, job_id: str, *, token: str, now: datetime, locked_until: datetime
) -> Job | None:
    """Take the job for one attempt; None if it is not claimable (running elsewhere, done, not due)."""
    stmt = (
        update(Job)
        .where(Job.id == job_id, _claimable(now))
        .values(
            status=PROCESSING,
            attempts=Job.attempts + 1,
            lease_token=token,
            locked_until=locked_until,
            started_at=func.coalesce(Job.started_at, literal(now, UtcDateTime())),
            updated_at=now,
        )
        .returning(Job)
        .execution_options(synchronize_session=False, populate_existing=True)
    )
    return (await session.execute(stmt)).scalar_one_or_none()


async def complete(session: AsyncSession, job_id: str, token: str, *, result: Any, now: datetime) -> bool:
    stmt = (
        update(Job)
        .where(Job.id == job_id, Job.lease_token == token, Job.status == PROCESSING)
        .values(
            status=COMPLETED,
            result=result,
            error=None,
            lease_token=None,
            locked_until=None,
            next_attempt_at=None,
            finished_at=now,
            updated_at=now,
        )
        .returning(Job.id)
        .execution_options(synchronize_session=False)
    )
    return (await session.execute(stmt)).scalar_one_or_none() is not None


async def extend_lease(
    session: AsyncSession, job_id: str, token: str, *, locked_until: datetime, now: datetime
) -> bool:
    stmt = (
        update(Job)
        .where(Job.id == job_id, Job.lease_token == token, Job.status == PROCESSING)
        .values(locked_until=locked_until, updated_at=now)
        .returning(Job.id)
        .execution_options(synchronize_session=False)
    )
    return (await session.execute(stmt)).scalar_one_or_none() is not None


async def save_progress(
    session: AsyncSession, job_id: str, token: str, *, progress: dict[str, Any], now: datetime
) -> bool:
    stmt = (
        update(Job)
        .where(Job.id == job_id, Job.lease_token == token, Job.status == PROCESSING)
        .values(progress=progress, updated_at=now)
        .returning(Job.id)
        .execution_options(synchronize_session=False)
    )
    return (await session.execute(stmt)).scalar_one_or_none() is not None


async def record_failure(
    session: AsyncSession,
    job_id: str,
    token: str,
    *,
    error: dict[str, Any],
    next_attempt_at: datetime | None,
    now: datetime,
) -> bool:
    """The attempt failed: retry at ``next_attempt_at``, or give up (None) until the window ends."""
    stmt = (
        update(Job)
        .where(Job.id == job_id, Job.lease_token == token, Job.status == PROCESSING)
        .values(
            status=FAILED,
            error=error,
            lease_token=None,
            locked_until=None,
            next_attempt_at=next_attempt_at,
            finished_at=None if next_attempt_at is not None else now,
            updated_at=now,
        )
        .returning(Job.id)
        .execution_options(synchronize_session=False)
    )
    return (await session.execute(stmt)).scalar_one_or_none() is not None


async def expire_overdue(session: AsyncSession, now: datetime) -> tuple[list[GivenUp], int]:
    """Past the retry window: expired (§3). The jobs given up on now, and the count already given up."""
    overdue = and_(Job.status.in_((PENDING, PROCESSING, FAILED)), Job.expires_at <= now)
    expire = {
        "status": EXPIRED,
        "lease_token": None,
        "locked_until": None,
        "next_attempt_at": None,
        "updated_at": now,
    }
    given_up = (
        await session.execute(
            update(Job)
            .where(overdue, Job.finished_at.is_(None))
            .values(finished_at=now, **expire)
            .returning(Job.id, Job.team_id, Job.charged_credits)
            .execution_options(synchronize_session=False)
        )
    ).all()
    # failed for good earlier (refunded then): only the status moves
    already = (
        await session.execute(
            update(Job)
            .where(overdue, Job.finished_at.is_not(None))
            .values(**expire)
            .returning(Job.id)
            .execution_options(synchronize_session=False)
        )
    ).all()
    return [GivenUp(id=r[0], team_id=r[1], charged_credits=r[2]) for r in given_up], len(already)


async def release_lost_leases(
    session: AsyncSession, now: datetime, *, error: dict[str, Any]
) -> tuple[list[str], list[GivenUp]]:
    """Processing jobs whose worker stopped renewing the lease (it died): retried now, or given up."""
    lost = and_(Job.status == PROCESSING, Job.locked_until <= now, Job.expires_at > now)
    release = {"status": FAILED, "error": error, "lease_token": None, "locked_until": None, "updated_at": now}
    retried = (
        await session.execute(
            update(Job)
            .where(lost, Job.attempts < Job.max_attempts)
            .values(next_attempt_at=now, **release)
            .returning(Job.id)
            .execution_options(synchronize_session=False)
        )
    ).all()
    given_up = (
        await session.execute(
            update(Job)
            .where(lost, Job.attempts >= Job.max_attempts)
            .values(next_attempt_at=None, finished_at=now, **release)
            .returning(Job.id, Job.team_id, Job.charged_credits)
            .execution_options(synchronize_session=False)
        )
    ).all()
    return [r[0] for r in retried], [GivenUp(id=r[0], team_id=r[1], charged_credits=r[2]) for r in given_up]


async def mark_due_enqueued(
    session: AsyncSession, now: datetime, *, stale_before: datetime, limit: int
) -> list[tuple[str, str]]:
    """Jobs that should be running and whose message is missing or stale, as (id, task); marks them sent.

    Due: a retry whose time has come and was not sent for it, or a message sent before ``stale_before``
    that no worker took (lost). ``SKIP LOCKED`` on PostgreSQL lets two dispatchers split the work; the
    outer conditions are re-checked on the locked row, so each job is sent by one of them.
    """
    due = and_(
        _claimable(now),
        or_(
            Job.enqueued_at.is_(None),
            Job.enqueued_at < Job.next_attempt_at,
            Job.enqueued_at <= stale_before,
        ),
    )
    candidates = (
        select(Job.id).where(due).order_by(Job.next_attempt_at).limit(limit).with_for_update(skip_locked=True)
    )
    stmt = (
        update(Job)
        .where(Job.id.in_(candidates.scalar_subquery()), due)
        .values(enqueued_at=now)
        .returning(Job.id, Job.task)
        .execution_options(synchronize_session=False)
    )
    return [(r[0], r[1]) for r in (await session.execute(stmt)).all()]
