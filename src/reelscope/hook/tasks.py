"""Keeping the hooks table (ADR 0021): after every catalog change, and every 10 minutes as the backfill
and catch-up (a first run on an existing catalog makes every video's hook)."""

from __future__ import annotations

from datetime import datetime

from huey import crontab

from reelscope.catalog import hooks as catalog_hooks
from reelscope.hook import service as hook_service
from reelscope.kit.db import Database
from reelscope.worker import TaskContext, task


@task("hook.refresh", periodic=crontab(minute="*/10"))
async def refresh(ctx: TaskContext) -> dict[str, int]:
    return await hook_service.refresh(ctx.db, ctx.now())


@catalog_hooks.after_change
async def refresh_after_catalog_change(db: Database, now: datetime) -> dict[str, int]:
    """New videos or new view counts: their hooks, scores and usage counts now."""
    return await hook_service.refresh(db, now)
