"""The retention purge (issue 31 item 1): old outbox events, finished jobs and tracking snapshots go, newer
ones and pending work stay. Webhook deliveries and the delivery log's cursor: tests/webhook/test_retention.py.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.kit.clock import ManualClock
from reelscope.kit.ids import new_id
from reelscope.models import Job, LookupRun, OutboxCursor, OutboxEvent, TrackedItem, TrackingSnapshotRow
from reelscope.retention import repository as retention_repository
from reelscope.retention import tasks as retention_tasks
from reelscope.runtime import Runtime
from reelscope.worker import TaskContext
from reelscope.worker.registry import Lane, get
from tests.conftest import TeamKey

DAY = timedelta(days=1)


def test_the_purge_is_a_periodic_background_task() -> None:
    definition = get(retention_tasks.TASK)
    assert definition.periodic is not None
    assert definition.lane is Lane.BACKGROUND


# --- events ----------------------------------------------------------------------------------------


async def add_events(runtime: Runtime, *created: datetime) -> list[int]:
    async with runtime.db.transaction() as session:
        rows = [
            OutboxEvent(
                id=new_id(), name="satellite.lookup.completed", team_id=None, payload={}, created_at=at
            )
            for at in created
        ]
        session.add_all(rows)
        await session.flush()
        return [row.sequence for row in rows]


async def set_cursor(runtime: Runtime, sequence: int) -> None:
    async with runtime.db.transaction() as session:
        cursor = await session.get(OutboxCursor, "webhooks")
        if cursor is None:
            session.add(OutboxCursor(consumer="webhooks", sequence=sequence))
        else:
            cursor.sequence = sequence


async def event_sequences(runtime: Runtime) -> list[int]:
    async with runtime.db.transaction(write=False) as session:
        return list(
            (await session.scalars(select(OutboxEvent.sequence).order_by(OutboxEvent.sequence))).all()
        )


@pytest.mark.both_databases
class TestEvents:
    async def test_old_fanned_out_events_go_and_unread_ones_stay(
        self, runtime: Runtime, clock: ManualClock, task_context: TaskContext
    ) -> None:
        now = clock.now()
        old, old_unread, young = await add_events(runtime, now - 91 * DAY, now - 91 * DAY, now - 89 * DAY)
        # no consumer has read anything yet: nothing is purged
        assert (await retention_tasks.purge(task_context))["events"] == 0
        # the webhook fan-out has read the first only: the second is not fanned out yet and stays
        await set_cursor(runtime, old)
        assert (await retention_tasks.purge(task_context))["events"] == 1
        assert await event_sequences(runtime) == [old_unread, young]
        # once read, it goes; the one younger than 90 days (the default) stays
        await set_cursor(runtime, young)
        assert (await retention_tasks.purge(task_context))["events"] == 1
        assert await event_sequences(runtime) == [young]


# --- jobs ------------------------------------------------------------------------------------------


async def add_job(runtime: Runtime, team: TeamKey, *, finished_ago: timedelta | None, **fields: Any) -> str:
    now: datetime = runtime.clock.now()
    status = fields.pop("status", "completed" if finished_ago is not None else "pending")
    job = Job(
        id=new_id(),
        team_id=team.team_id,
        task=fields.pop("task", "probe.task"),
        type=fields.pop("type", "probe"),
        status=status,
        params={},
        expires_at=now + DAY,
        finished_at=None if finished_ago is None else now - finished_ago,
        created_at=now - 30 * DAY,
        updated_at=now,
        **fields,
    )
    async with runtime.db.transaction() as session:
        session.add(job)
    return job.id


async def job_ids(runtime: Runtime) -> set[str]:
    async with runtime.db.transaction(write=False) as session:
        return set((await session.scalars(select(Job.id))).all())


@pytest.mark.both_databases
class TestJobs:
    async def test_jobs_finished_past_the_window_go(
        self, runtime: Runtime, team: TeamKey, task_context: TaskContext
    ) -> None:
        completed_old = await add_job(runtime, team, finished_ago=15 * DAY)
        failed_old = await add_job(runtime, team, finished_ago=15 * DAY, status="failed")
        expired_old = await add_job(runtime, team, finished_ago=15 * DAY, status="expired")
        fired_old = await add_job(runtime, team, finished_ago=15 * DAY, dedupe_key=f"schedule:{new_id()}:x")
        completed_young = await add_job(runtime, team, finished_ago=13 * DAY)
        # pending and processing work is never purged, however old
        pending = await add_job(runtime, team, finished_ago=None)
        processing = await add_job(runtime, team, finished_ago=None, status="processing")
        # a job made at most once ever (a tracked item's first collection) would be made again: kept
        once = await add_job(runtime, team, finished_ago=15 * DAY, dedupe_key=f"tracking:{new_id()}:first")

        assert (await retention_tasks.purge(task_context))["jobs"] == 4
        gone = {completed_old, failed_old, expired_old, fired_old}
        assert await job_ids(runtime) == {completed_young, pending, processing, once}
        assert not gone & await job_ids(runtime)

    async def test_video_outlier_results_go_after_their_24_hours(
        self, runtime: Runtime, team: TeamKey, task_context: TaskContext
    ) -> None:
        """§4.7, §8.3: a video outlier's result is polled for 24 hours, then it is 404."""
        await add_job(runtime, team, finished_ago=timedelta(hours=25), type="video_outlier")
        young = await add_job(runtime, team, finished_ago=timedelta(hours=23), type="video_outlier")
        assert (await retention_tasks.purge(task_context))["jobs"] == 1
        assert await job_ids(runtime) == {young}

    async def test_a_given_up_job_of_an_open_lookup_stays(
        self, runtime: Runtime, team: TeamKey, task_context: TaskContext
    ) -> None:
        """A lookup run still `processing` shows `failed` from its job's give-up (§6.3): the job stays."""
        stalled = await add_job(runtime, team, finished_ago=15 * DAY, status="expired")
        done = await add_job(runtime, team, finished_ago=15 * DAY)
        now = runtime.clock.now()
        async with runtime.db.transaction() as session:
            for job_id, status in ((stalled, "processing"), (done, "completed")):
                session.add(
                    LookupRun(
                        team_id=team.team_id,
                        user_id=new_id(),
                        type="creator_lookup",
                        platform="tiktok",
                        target="someone",
                        cache_key=new_id(),
                        request={},
                        status=status,
                        job_id=job_id,
                        created_at=now - 20 * DAY,
                    )
                )
        assert (await retention_tasks.purge(task_context))["jobs"] == 1
        assert await job_ids(runtime) == {stalled}


# --- tracking snapshots ----------------------------------------------------------------------------


async def add_item_with_snapshots(runtime: Runtime, team: TeamKey, *ages: timedelta) -> dict[timedelta, str]:
    now = runtime.clock.now()
    item = TrackedItem(
        id=new_id(),
        team_id=team.team_id,
        kind="creator",
        platform="tiktok",
        target=new_id(),
        status="active",
        cadence="daily",
        created_at=now - 800 * DAY,
        updated_at=now,
    )
    rows = {
        age: TrackingSnapshotRow(
            id=new_id(),
            item_id=item.id,
            team_id=team.team_id,
            scheduled_for=now - age,
            taken_at=now - age,
            metrics={},
            report={},
        )
        for age in ages
    }
    async with runtime.db.transaction() as session:
        session.add(item)
        await session.flush()
        session.add_all(rows.values())
    return {age: row.id for age, row in rows.items()}


async def snapshot_ids(runtime: Runtime) -> set[str]:
    async with runtime.db.transaction(write=False) as session:
        return set((await session.scalars(select(TrackingSnapshotRow.id))).all())


@pytest.mark.both_databases
async def test_snapshots_past_the_window_go_but_each_items_newest_stays(
    runtime: Runtime, team: TeamKey, task_context: TaskContext
) -> None:
    """Older than 365 days (the default) go; an item whose every snapshot is that old (paused a year)
    keeps its newest, which its report and its next cycle's deltas read."""
    tracked = await add_item_with_snapshots(runtime, team, 400 * DAY, 366 * DAY, 364 * DAY, DAY)
    paused = await add_item_with_snapshots(runtime, team, 500 * DAY, 450 * DAY)
    assert (await retention_tasks.purge(task_context))["tracking_snapshots"] == 3
    assert await snapshot_ids(runtime) == {tracked[364 * DAY], tracked[DAY], paused[450 * DAY]}


async def test_each_batch_is_a_transaction_of_its_own(
    runtime: Runtime, team: TeamKey, task_context: TaskContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The purge removes at most BATCH rows per session and goes on until a batch is short."""
    monkeypatch.setattr(retention_tasks, "BATCH", 2)
    for _ in range(5):
        await add_job(runtime, team, finished_ago=15 * DAY)
    batches: list[tuple[AsyncSession, int]] = []
    delete_jobs = retention_repository.delete_jobs

    async def spy(session: AsyncSession, *args: Any) -> int:
        removed = await delete_jobs(session, *args)
        batches.append((session, removed))  # kept alive: distinct objects
        return removed

    monkeypatch.setattr(retention_repository, "delete_jobs", spy)
    assert (await retention_tasks.purge(task_context))["jobs"] == 5
    assert [removed for _, removed in batches] == [2, 2, 1]
    assert len({id(session) for session, _ in batches}) == 3
    assert await job_ids(runtime) == set()
