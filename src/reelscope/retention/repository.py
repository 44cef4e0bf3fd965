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
from sqlalchemy.orm import InstrumentedAttribute, aliased

from reelscope.models import (
    Agent,
    AgentActivity,
    AgentAd,
    AgentChange,
    AgentCreator,
    AgentEvent,
    AgentHashtag,
    AgentHook,
    AgentRun,
    AgentSimilarModel,
    AgentSlideshow,
    AgentSound,
    AgentTrend,
    AgentVideo,
    Job,
    LookupRun,
    OutboxCursor,
    OutboxEvent,
    Schedule,
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
AGENT_RESOURCE = "agent"  # agent.service.AGENT_RESOURCE: its runs' collection jobs and its schedule
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


# --- deleted agents --------------------------------------------------------------------------------

# every table with an agent's rows, each by the column that, with ``agent_id``, names one row; runs last,
# as the analysis jobs are found through them. Links only: the catalog rows they point at (videos,
# slideshows, ads, creators, sounds) are shared by every agent and the public reads, and stay.
AgentTable = tuple[Any, InstrumentedAttribute[Any]]
AGENT_TABLES: tuple[AgentTable, ...] = (
    (AgentVideo, AgentVideo.video_id),
    (AgentSlideshow, AgentSlideshow.slideshow_id),
    (AgentAd, AgentAd.ad_id),
    (AgentCreator, AgentCreator.creator_id),
    (AgentSound, AgentSound.sound_id),
    (AgentHashtag, AgentHashtag.hashtag),
    (AgentHook, AgentHook.video_id),
    (AgentSimilarModel, AgentSimilarModel.agent_id),  # one row: the agent's prepared creators
    (AgentTrend, AgentTrend.id),
    (AgentChange, AgentChange.id),
    (AgentActivity, AgentActivity.id),
    (AgentEvent, AgentEvent.id),
    (AgentRun, AgentRun.id),
)


def _deleted_before(agent_id: str, before: datetime) -> ColumnElement[bool]:
    """The agent was deleted before ``before``: an agent is never undeleted, but each ``DELETE`` says
    so again as every other purge does."""
    return exists().where(Agent.id == agent_id, Agent.deleted_at < before)


async def deleted_agents(session: AsyncSession, before: datetime, limit: int) -> list[str]:
    """Agents deleted before ``before``, longest deleted first (``ix_agents_deleted``, which holds
    deleted agents only)."""
    statement = (
        select(Agent.id).where(Agent.deleted_at < before).order_by(Agent.deleted_at, Agent.id).limit(limit)
    )
    return list((await session.scalars(statement)).all())


async def agent_rows(session: AsyncSession, table: AgentTable, agent_id: str, limit: int) -> list[Any]:
    """Up to ``limit`` keys of the agent's rows in ``table`` (each table's index leads with agent_id)."""
    model, key = table
    return list((await session.scalars(select(key).where(model.agent_id == agent_id).limit(limit))).all())


async def delete_agent_rows(
    session: AsyncSession,
    table: AgentTable,
    agent_id: str,
    keys: Sequence[Any],
    before: datetime,
) -> int:
    model, key = table
    return await _deleted(
        session,
        delete(model).where(model.agent_id == agent_id, key.in_(keys), _deleted_before(agent_id, before)),
    )


def _agent_job(agent_id: str, before: datetime) -> ColumnElement[bool]:
    """A finished job of the agent: its runs' collections (resource ``agent``) and analyses (resource
    ``agent_run``, made once per run: with the run gone it is never made again). Unfinished work stays."""
    runs = select(AgentRun.id).where(AgentRun.agent_id == agent_id)
    return and_(
        or_(
            and_(Job.resource_type == AGENT_RESOURCE, Job.resource_id == agent_id),
            and_(Job.resource_type == AGENT_RUN_RESOURCE, Job.resource_id.in_(runs)),
        ),
        Job.status.in_(FINISHED_JOBS),
        _deleted_before(agent_id, before),
    )


async def agent_jobs(session: AsyncSession, agent_id: str, before: datetime, limit: int) -> list[str]:
    statement = select(Job.id).where(_agent_job(agent_id, before)).limit(limit)
    return list((await session.scalars(statement)).all())


async def delete_agent_jobs(
    session: AsyncSession, ids: Sequence[str], agent_id: str, before: datetime
) -> int:
    return await _deleted(session, delete(Job).where(Job.id.in_(ids), _agent_job(agent_id, before)))


async def delete_agent(session: AsyncSession, agent_id: str, before: datetime) -> int:
    """The agent's schedule (one, stopped at deletion) and the agent's row. Run after its tables were
    emptied in batches, its ``ON DELETE CASCADE`` finds at most the few rows a job still running wrote
    since."""
    await session.execute(
        delete(Schedule).where(
            Schedule.resource_type == AGENT_RESOURCE,
            Schedule.resource_id == agent_id,
            _deleted_before(agent_id, before),
        )
    )
    return await _deleted(session, delete(Agent).where(Agent.id == agent_id, Agent.deleted_at < before))
