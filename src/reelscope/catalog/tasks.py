"""Continuous collection as periodic jobs (issue 5 §4; ARCHITECTURE §5 "fixed system jobs").

Every few minutes each enabled connector's discovery feed is pulled from where collection last left
off (at most a week back: older videos would never be counted, §2.3); every half hour the counters of
videos younger than a week and a day are re-read. Both are idempotent upserts, so a run repeated after
a crash changes nothing twice.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from huey import crontab

from reelscope.catalog import collection, hooks
from reelscope.catalog import repository as catalog_repository
from reelscope.collectors.registry import build_sources
from reelscope.worker import TaskContext, task

# how far back a collection run looks, at least and at most
OVERLAP = timedelta(minutes=30)
LOOKBACK_LIMIT = timedelta(days=7)


@task("catalog.collect", periodic=crontab(minute="*/5"))
async def collect(ctx: TaskContext) -> dict[str, Any]:
    now = ctx.now()
    async with ctx.db.transaction(write=False) as session:
        last = await catalog_repository.latest_found_at(session)
        regions = await catalog_repository.country_regions(session)
    since = min(last or now, now) - OVERLAP
    since = max(since, now - LOOKBACK_LIMIT)
    sources = build_sources(ctx.settings, ctx.clock, ctx.db)
    result = await collection.collect(ctx.db, sources, ctx.clock, since, now, regions=regions)
    if sum(result.videos.values()):
        await hooks.changed(ctx.db, ctx.now())  # e.g. digests refresh when collection lands new data
    return {"videos": sum(result.videos.values()), "failures": len(result.failures)}


@task("catalog.refresh_stats", periodic=crontab(minute="*/30"))
async def refresh_stats(ctx: TaskContext) -> dict[str, int]:
    result = await collection.refresh_recent_stats(
        ctx.db, build_sources(ctx.settings, ctx.clock, ctx.db), ctx.clock
    )
    if result.refreshed:
        await hooks.changed(ctx.db, ctx.now())  # new view counts reorder the digests
    return {"refreshed": result.refreshed, "missing": result.missing, "failed": result.failed}
