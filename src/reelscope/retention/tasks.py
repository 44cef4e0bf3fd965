"""The purge as a fixed system job on the background lane (issue 31): hourly, in small batches.

Each batch finds up to ``BATCH`` rows in a read transaction, then deletes them in a write transaction of its
own, so SQLite's write lock is held for one small ``DELETE`` at a time (a delivery's attempts go with it)
and other writers take turns between batches. Idempotency records have their own hourly purge
(``idempotency.purge``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import TypeVar

from huey import crontab
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.retention import repository
from reelscope.worker import TaskContext, task

TASK = "retention.purge"
BATCH = 500
# a delivery takes its attempts with it (up to 7 a round, more after retries by hand): 500 deliveries of 7
# attempts each held the lock ~40 ms on the 2-core box, so a smaller batch keeps well under ~50 ms
DELIVERY_BATCH = 200
# deleted agents listed per read; each is then purged table by table in batches of AGENT_ROWS_BATCH rows:
# 500 linked videos with their intelligence held SQLite's write lock 48-101 ms on the 2-core box, 200 ~20 ms
AGENTS_BATCH = 50
AGENT_ROWS_BATCH = 200
# §4.7, §8.3: a video outlier's result answers its poll for 24 hours after it finished
OUTLIER_RESULTS_FOR = timedelta(hours=24)

K = TypeVar("K")


@task(TASK, periodic=crontab(minute="23"))
async def purge(ctx: TaskContext) -> dict[str, int]:
    now = ctx.now()
    settings = ctx.settings
    deliveries_before = now - timedelta(days=settings.retain_deliveries_days)
    events_before = now - timedelta(days=settings.retain_events_days)
    jobs_before = now - timedelta(days=settings.retain_jobs_days)
    outliers_before = now - OUTLIER_RESULTS_FOR
    snapshots_before = now - timedelta(days=settings.retain_tracking_snapshots_days)
    agents_before = now - timedelta(days=settings.retain_deleted_agents_days)

    async with ctx.db.transaction(write=False) as session:
        up_to = await repository.read_up_to(session)
    return {
        "deliveries": await _in_batches(
            ctx,
            lambda session: repository.old_deliveries(session, deliveries_before, DELIVERY_BATCH),
            lambda session, ids: repository.delete_deliveries(session, ids, deliveries_before),
            DELIVERY_BATCH,
        ),
        # with no consumer of the outbox yet, no event has been fanned out: none is purged
        "events": 0
        if up_to is None
        else await _in_batches(
            ctx,
            lambda session: repository.old_events(session, events_before, up_to, BATCH),
            lambda session, ids: repository.delete_events(session, ids, events_before, up_to),
            BATCH,
        ),
        "jobs": await _in_batches(
            ctx,
            lambda session: repository.old_jobs(session, jobs_before, outliers_before, BATCH),
            lambda session, ids: repository.delete_jobs(session, ids, jobs_before, outliers_before),
            BATCH,
        ),
        "tracking_snapshots": await _in_batches(
            ctx,
            lambda session: repository.old_snapshots(session, snapshots_before, BATCH),
            lambda session, ids: repository.delete_snapshots(session, ids, snapshots_before),
            BATCH,
        ),
        "deleted_agents": await _purge_deleted_agents(ctx, agents_before),
    }


async def _purge_deleted_agents(ctx: TaskContext, before: datetime) -> int:
    """Agents deleted before ``before``, one at a time: each of its tables in batches, then its row."""
    purged = 0
    while True:
        async with ctx.db.transaction(write=False) as session:
            agent_ids = await repository.deleted_agents(session, before, AGENTS_BATCH)
        removed = 0
        for agent_id in agent_ids:
            removed += await _purge_agent(ctx, agent_id, before)
        purged += removed
        # a short list is the last; so is one no agent of which went (another purge took them)
        if len(agent_ids) < AGENTS_BATCH or removed == 0:
            return purged


async def _purge_agent(ctx: TaskContext, agent_id: str, before: datetime) -> int:
    # its jobs first: the analyses' are found through its runs
    await _in_batches(
        ctx,
        lambda session: repository.agent_jobs(session, agent_id, before, BATCH),
        lambda session, ids: repository.delete_agent_jobs(session, ids, agent_id, before),
        BATCH,
    )
    for table in repository.AGENT_TABLES:
        await _purge_agent_table(ctx, table, agent_id, before)
    async with ctx.db.transaction() as session:
        return await repository.delete_agent(session, agent_id, before)


async def _purge_agent_table(
    ctx: TaskContext, table: repository.AgentTable, agent_id: str, before: datetime
) -> int:
    return await _in_batches(
        ctx,
        lambda session: repository.agent_rows(session, table, agent_id, AGENT_ROWS_BATCH),
        lambda session, keys: repository.delete_agent_rows(session, table, agent_id, keys, before),
        AGENT_ROWS_BATCH,
    )


async def _in_batches(
    ctx: TaskContext,
    find: Callable[[AsyncSession], Awaitable[list[K]]],
    remove: Callable[[AsyncSession, Sequence[K]], Awaitable[int]],
    size: int,
) -> int:
    removed = 0
    while True:
        async with ctx.db.transaction(write=False) as session:
            ids = await find(session)
        deleted = 0
        if ids:
            async with ctx.db.transaction() as session:
                deleted = await remove(session, ids)
        removed += deleted
        # a short batch is the last; so is one whose rows all changed meanwhile (no loop on a race)
        if len(ids) < size or deleted == 0:
            return removed
