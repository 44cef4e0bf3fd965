"""The periodic collection jobs: resume from the last new video, find new videos as they appear."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select

from reelscope.catalog import tasks as catalog_tasks
from reelscope.kit.clock import ManualClock
from reelscope.models import Video
from reelscope.runtime import Runtime
from reelscope.worker.context import TaskContext


async def count_videos(runtime: Runtime) -> int:
    async with runtime.db.transaction(write=False) as session:
        return int((await session.execute(select(func.count()).select_from(Video))).scalar_one())


class TestCollectTask:
    async def test_each_run_adds_what_was_posted_since_and_finds_it_now(
        self, runtime: Runtime, clock: ManualClock, task_context: TaskContext
    ) -> None:
        first = await catalog_tasks.collect(task_context)
        assert first["videos"] > 0 and first["failures"] == 0
        before = await count_videos(runtime)
        clock.advance(timedelta(minutes=20))
        await catalog_tasks.collect(task_context)
        assert await count_videos(runtime) > before
        async with runtime.db.transaction(write=False) as session:
            found = (
                await session.execute(select(Video.found_at).order_by(Video.published_at.desc()).limit(1))
            ).scalar_one()
        assert found.replace(tzinfo=None) == clock.now().replace(tzinfo=None)

    async def test_a_repeated_run_changes_nothing(self, runtime: Runtime, task_context: TaskContext) -> None:
        await catalog_tasks.collect(task_context)
        before = await count_videos(runtime)
        await catalog_tasks.collect(task_context)
        assert await count_videos(runtime) == before

    async def test_refresh_task_reports_counts(self, task_context: TaskContext, clock: ManualClock) -> None:
        await catalog_tasks.collect(task_context)
        clock.advance(timedelta(hours=1))
        result = await catalog_tasks.refresh_stats(task_context)
        assert result["refreshed"] > 0 and result["failed"] == 0
