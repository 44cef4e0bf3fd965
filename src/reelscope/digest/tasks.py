"""Digest refresh as a job (issue 6 §3): after collection lands data, and every 10 minutes so videos
leave the 48-hour window even when nothing new arrives."""

from __future__ import annotations

from datetime import datetime

from huey import crontab

from reelscope.catalog import hooks as catalog_hooks
from reelscope.digest import service as digest_service
from reelscope.kit.db import Database
from reelscope.worker import TaskContext, task


@task("digest.refresh", periodic=crontab(minute="*/10"))
async def refresh(ctx: TaskContext) -> dict[str, int]:
    return await digest_service.refresh(ctx.db, ctx.now())


@catalog_hooks.after_change
async def refresh_after_catalog_change(db: Database, now: datetime) -> dict[str, int]:
    """Collection landed videos or new view counts: the lists change now, not at the next 10 minutes."""
    return await digest_service.refresh(db, now)
