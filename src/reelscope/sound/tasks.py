"""Keeping the counts of each sound's catalog videos (ADR 0038): after every catalog change, and every
10 minutes, since the 7-, 30- and 90-day windows move with the clock."""

from __future__ import annotations

from datetime import datetime

from huey import crontab

from reelscope.catalog import hooks as catalog_hooks
from reelscope.kit.db import Database
from reelscope.sound import service as sound_service
from reelscope.worker import TaskContext, task


@task("sound.refresh", periodic=crontab(minute="*/10"))
async def refresh(ctx: TaskContext) -> dict[str, int]:
    return await sound_service.refresh(ctx.db, ctx.now())


@catalog_hooks.after_change
async def refresh_after_catalog_change(db: Database, now: datetime) -> dict[str, int]:
    """New videos or re-ingested ones: their sounds' counts now."""
    return await sound_service.refresh(db, now)
