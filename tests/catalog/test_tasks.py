"""The periodic collection jobs: resume from the last new video, find new videos as they appear."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select

from reelscope.catalog import hooks as catalog_hooks
from reelscope.catalog import tasks as catalog_tasks
from reelscope.kit.clock import ManualClock
from reelscope.models import DigestList, Video
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


class TestAfterChangeHooks:
    async def test_collection_refreshes_the_digests_through_the_hook(
        self, runtime: Runtime, task_context: TaskContext
    ) -> None:
        # the digest family registers its refresh with the catalog (digest/tasks.py); the catalog itself
        # imports no consumer (catalog/hooks.py)
        from reelscope.digest import tasks as digest_tasks

        assert digest_tasks.refresh_after_catalog_change in catalog_hooks._hooks
        result = await catalog_tasks.collect(task_context)
        assert result["videos"] > 0
        async with runtime.db.transaction(write=False) as session:
            scopes = set((await session.execute(select(DigestList.scope))).scalars())
        assert scopes == {"all", "youtube", "tiktok", "instagram"}

    def test_the_catalog_imports_no_family_that_reads_it(self) -> None:
        import ast
        from pathlib import Path

        import reelscope.catalog

        consumers = ("reelscope.digest", "reelscope.hashtag", "reelscope.trend", "reelscope.sound")
        for path in Path(reelscope.catalog.__file__).parent.glob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.ImportFrom) and node.module:
                    assert not node.module.startswith(consumers), (path.name, node.module)
