"""SQL of the purge: for each kind of row, the ids of up to ``limit`` purgeable rows, and their delete.

The task reads the ids in a read transaction and deletes them in a write transaction of their own, so
SQLite's write lock is held for one small ``DELETE`` only, never for the search. Every ``DELETE`` repeats
the condition the rows were chosen by: a row changed in between (a failed delivery retried by hand, a job
given a new attempt) is re-checked and kept, on SQLite and on PostgreSQL (read committed re-checks the
``WHERE`` of a row another transaction changed).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, delete, exists, func, not_, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from reelscope.models import (
    AgentRun,
    Job,
    LookupRun,
    OutboxCursor,
    OutboxEvent,
    TrackingSnapshotRow,
    WebhookDelivery,
)

# webhook delivery statuses no attempt follows unless a person asks (§2.7, §3); `pending` is scheduled
# or being attempted and is never purged
SETTLED_DELIVERIES = ("delivered", "failed", "dead", "payload_too_large")
# jobs no more work will happen on (worker.jobs sets ``finished_at`` with these)
FINISHED_JOBS = ("completed", "failed", "expired")
# an agent run or lookup run not over yet shows `failed` from its job's give-up (agent.service
# ``run_status``, lookup.service ``_effective``): that job stays as long as the run is open
OPEN_AGENT_RUNS = ("pending", "processing")
OPEN_LOOKUP_RUNS = ("processing",)
AGENT_RUN_RESOURCE = "agent_run"  # agent.repository.RUN_RESOURCE
# a job made with any other dedupe key is made at most once ever (a tracked item's first collection, a
# run's analysis); purging it would let it be made again. A schedule firing's time never comes again.
PURGEABLE_DEDUPE_PREFIX = "schedule:"
VIDEO_OUTLIER = "video_outlier"


async def _deleted(session: AsyncSession, statement: Any) -> int:
    result = await session.execute(statement)
    return int(getattr(result, "rowcount", 0) or 0)


# --- outbox events ---------------------------------------------------------------------------------


async def read_up_to(session: AsyncSession) -> int | None:
    """The outbox sequence every consumer has read up to (the lowest cursor); None with no consumer yet."""
    count, lowest = (await session.execute(select(func.count(), func.min(OutboxCursor.sequence)))).one()
    return None if count == 0 else lowest


async def old_events(session: AsyncSession, before: datetime, up_to: int, limit: int) -> list[int]:
    """The oldest events read by every consumer and created before ``before``: those of the first ``limit``
    by ``sequence`` (the primary key) that are old enough, so no index on ``created_at`` is needed and the
    search never walks the retained events."""
    rows = (
        await session.execute(
            select(OutboxEvent.sequence, OutboxEvent.created_at)
            .where(OutboxEvent.sequence <= up_to)
            .order_by(OutboxEvent.sequence)
            .limit(limit)
        )
    ).all()
    sequences: list[int] = []
    for sequence, created_at in rows:
        if created_at >= before:
            break
        sequences.append(sequence)
    return sequences


async def delete_events(session: AsyncSession, sequences: Sequence[int], before: datetime, up_to: int) -> int:
    # cursors only move forward: an ``up_to`` read earlier is never past an event not yet fanned out
    return await _deleted(
        session,
        delete(OutboxEvent).where(
            OutboxEvent.sequence.in_(sequences),
            OutboxEvent.sequence <= up_to,
            OutboxEvent.created_at < before,
        ),
    )


# --- webhook deliveries ----------------------------------------------------------------------------


def _settled_delivery(before: datetime) -> ColumnElement[bool]:
    return and_(WebhookDelivery.created_at < before, WebhookDelivery.status.in_(SETTLED_DELIVERIES))


async def old_deliveries(session: AsyncSession, before: datetime, limit: int) -> list[str]:
    """Settled deliveries created before ``before``, oldest first (``ix_webhook_deliveries_created``)."""
    statement = (
        select(WebhookDelivery.id)
        .where(_settled_delivery(before))
        .order_by(WebhookDelivery.created_at)
        .limit(limit)
    )
    return list((await session.scalars(statement)).all())


async def delete_deliveries(session: AsyncSession, ids: Sequence[str], before: datetime) -> int:
    """Their attempts go with them (``ON DELETE CASCADE``). The delivery log pages by ``(created_at, id)``
    values, not by position (webhook.service cursors), so a purged row at or before a client's cursor
    moves nothing of the pages after it (§8.3)."""
    return await _deleted(
        session, delete(WebhookDelivery).where(WebhookDelivery.id.in_(ids), _settled_delivery(before))
    )


# --- jobs ------------------------------------------------------------------------------------------


def _finished_job(before: datetime, outliers_before: datetime) -> ColumnElement[bool]:
    """Finished before ``before``, or a video outlier finished before ``outliers_before`` (its result is
    polled for 24 hours, §4.7, §8.3). ``before`` is never later than ``outliers_before`` (a day at least),
    so the first condition is a range of ``ix_jobs_finished_at``."""
    open_agent_run = exists().where(AgentRun.id == Job.resource_id, AgentRun.status.in_(OPEN_AGENT_RUNS))
    open_lookup_run = exists().where(LookupRun.job_id == Job.id, LookupRun.status.in_(OPEN_LOOKUP_RUNS))
    return and_(
        Job.finished_at < outliers_before,
        or_(Job.finished_at < before, Job.type == VIDEO_OUTLIER),
        Job.status.in_(FINISHED_JOBS),
        or_(Job.dedupe_key.is_(None), Job.dedupe_key.startswith(PURGEABLE_DEDUPE_PREFIX)),
        not_(and_(Job.resource_type == AGENT_RUN_RESOURCE, open_agent_run)),
        not_(open_lookup_run),
    )


async def old_jobs(
    session: AsyncSession, before: datetime, outliers_before: datetime, limit: int
) -> list[str]:
    statement = (
        select(Job.id).where(_finished_job(before, outliers_before)).order_by(Job.finished_at).limit(limit)
    )
    return list((await session.scalars(statement)).all())


async def delete_jobs(
    session: AsyncSession, ids: Sequence[str], before: datetime, outliers_before: datetime
) -> int:
    return await _deleted(session, delete(Job).where(Job.id.in_(ids), _finished_job(before, outliers_before)))


# --- tracking snapshots ----------------------------------------------------------------------------


def _old_snapshot(before: datetime) -> ColumnElement[bool]:
    """Taken before ``before`` and not its item's newest: the report and the next cycle's deltas read the
    newest, however old (a paused item keeps it)."""
    newer = aliased(TrackingSnapshotRow)
    return and_(
        TrackingSnapshotRow.taken_at < before,
        exists().where(
            newer.item_id == TrackingSnapshotRow.item_id, newer.taken_at > TrackingSnapshotRow.taken_at
        ),
    )


async def old_snapshots(session: AsyncSession, before: datetime, limit: int) -> list[str]:
    statement = (
        select(TrackingSnapshotRow.id)
        .where(_old_snapshot(before))
        .order_by(TrackingSnapshotRow.taken_at)
        .limit(limit)
    )
    return list((await session.scalars(statement)).all())


async def delete_snapshots(session: AsyncSession, ids: Sequence[str], before: datetime) -> int:
    return await _deleted(
        session, delete(TrackingSnapshotRow).where(TrackingSnapshotRow.id.in_(ids), _old_snapshot(before))
    )
