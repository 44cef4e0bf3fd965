"""Tracking jobs: a cycle per due time (spec §3, §4.7) and deep post collections."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from reelscope.collectors.base import Unavailable
from reelscope.collectors.guard import UNAVAILABLE, UPSTREAM_ERROR, SourceFailed, guarded
from reelscope.collectors.registry import build_sources
from reelscope.dashboard import service as dashboard_service
from reelscope.kit.logging import get_logger
from reelscope.kit.platforms import Platform
from reelscope.models import TrackedItem
from reelscope.tracking import cycles, service
from reelscope.worker import JobFailed, TaskContext, task

log = get_logger(__name__)


def _moment(value: str | None, ctx: TaskContext) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else ctx.now()


@task(service.CYCLE_TASK)
async def cycle(
    ctx: TaskContext, *, item_id: str, scheduled_for: str | None = None, first: bool = False, **_: Any
) -> dict[str, Any]:
    """The first cycle is paid by the creation charge; scheduled ones debit the job price."""
    sources = build_sources(ctx.settings, ctx.clock, ctx.db)
    return await cycles.run(ctx, sources, item_id, _moment(scheduled_for, ctx), paid=not first)


@task(service.COLLECT_TASK)
async def collect_posts(ctx: TaskContext, *, item_id: str, max_videos: int, **_: Any) -> dict[str, Any]:
    """Deep post collection: the creator's latest ``max_videos`` posts into the item's posts. A failure
    is retried inside the job's window; a job given up on is refunded (jobs service)."""
    async with ctx.db.transaction(write=False) as session:
        item = await session.get(TrackedItem, item_id)
        handle = None if item is None else (item.handle or item.target)
        platform = None if item is None else Platform(item.platform)
    if handle is None or platform is None:
        raise JobFailed("not_found", "The tracked creator was deleted", retry=False)
    try:
        sources = build_sources(ctx.settings, ctx.clock, ctx.db)
        records = await guarded(sources.creator_posts(platform, handle, limit=max_videos))
    except Unavailable:
        raise JobFailed(UPSTREAM_ERROR, UNAVAILABLE, retry=False) from None
    except SourceFailed as failure:
        raise JobFailed(failure.code, failure.message, retry=failure.retryable) from failure
    async with ctx.db.transaction() as session:
        item = await session.get(TrackedItem, item_id)
        if item is None:
            raise JobFailed("not_found", "The tracked creator was deleted", retry=False)
        stored = await cycles.store_posts(session, item, records, ctx.now(), baseline=True)
        # its outliers and cadence may change
        await dashboard_service.draw_ahead(session, item.team_id, item.kind, item.id)
        result = {"videos_collected": len(stored), "new_posts": sum(1 for _, created in stored if created)}
        await ctx.complete(session, result)
    return result
