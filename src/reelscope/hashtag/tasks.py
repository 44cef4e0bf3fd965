"""The hashtag rollup as a fixed system job (§2.3: stats refresh every 6 hours)."""

from __future__ import annotations

from huey import crontab

from reelscope.hashtag import service as hashtag_service
from reelscope.worker import TaskContext, task


@task("hashtag.rollup", periodic=crontab(minute="7", hour="*/6"))
async def rollup(ctx: TaskContext) -> hashtag_service.RollupResult:
    return await hashtag_service.rollup(ctx.db, ctx.now())
