"""Digest refresh as a job (issue 6 §3): after collection lands data, and every 10 minutes so videos
leave the 48-hour window even when nothing new arrives."""

from __future__ import annotations

from huey import crontab

from reelscope.digest import service as digest_service
from reelscope.worker import TaskContext, task


@task("digest.refresh", periodic=crontab(minute="*/10"))
async def refresh(ctx: TaskContext) -> dict[str, int]:
    return await digest_service.refresh(ctx.db, ctx.now())
