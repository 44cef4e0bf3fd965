"""Trend jobs: the three daily runs of each region, the momentum loop, schedules, first-start backfill."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any

from huey import crontab
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.collectors.registry import build_connectors, build_sources
from reelscope.kit.clock import iso
from reelscope.kit.db import Database
from reelscope.kit.logging import get_logger
from reelscope.trend import momentum as trend_momentum
from reelscope.trend import repository
from reelscope.trend import runs as trend_runs
from reelscope.trend import service as trend_service
from reelscope.trend.regions import RUN_HOURS
from reelscope.worker import JobFailed, TaskContext, task
from reelscope.worker.schedules import service as schedules_service

log = get_logger(__name__)

RUN_TASK = "trend.run"
RESOURCE = "trend_region"


def run_cadence() -> str:
    """07:00, 13:00 and 19:00 in the region's own zone, DST-correct (§4.3)."""
    return "local:" + ",".join(f"{h:02d}:00" for h in RUN_HOURS)


async def ensure_schedules(session: AsyncSession, now: datetime) -> int:
    """A run schedule for every region that has none (regions are data: new ones get one here)."""
    created = 0
    for region in await trend_service.regions(session):
        if await schedules_service.for_resource(session, RESOURCE, region.code):
            continue
        await schedules_service.create(
            session,
            task=RUN_TASK,
            job_type="trend_run",
            cadence=run_cadence(),
            timezone=region.timezone,
            resource_type=RESOURCE,
            resource_id=region.code,
            params={"region": region.code},
            at=now,
        )
        created += 1
    return created


@task(RUN_TASK, background=True)
async def run(ctx: TaskContext, *, region: str, scheduled_for: str | None = None, **_: Any) -> dict[str, Any]:
    at = datetime.fromisoformat(scheduled_for.replace("Z", "+00:00")) if scheduled_for else ctx.now()
    finish = ctx.complete if ctx.job is not None else None
    try:
        stored = await trend_runs.run_region(ctx.db, region, at, now=ctx.now(), finish=finish)
    except JobFailed:
        raise
    except Exception as exc:
        # §6.3: a failed update sends the failure form; the next scheduled run tries again
        async with ctx.db.transaction() as session:
            region_row = await trend_service.region_or_400(session, region)
            if await repository.get_run(session, region, at) is None:
                await trend_runs.record_failure(
                    session, region_row, at, "detection_failed", str(exc), ctx.now()
                )
        raise JobFailed("detection_failed", "The trend run failed", retry=False) from exc
    return {
        "region": region,
        "scheduled_for": iso(at),
        "stored": stored is not None,
        "trends": stored.trends_found if stored else 0,
    }


@task("trend.momentum", periodic=crontab(minute="20", hour="*/2"))
async def refresh_momentum(ctx: TaskContext) -> dict[str, int]:
    report = await trend_momentum.refresh(ctx.db, build_sources(ctx.settings, ctx.clock, ctx.db), ctx.now())
    return {"rows": report.rows, "exemplars": report.exemplars_read, "failures": report.failures}


@task("trend.ensure_schedules", periodic=crontab(minute="7"))
async def ensure_run_schedules(ctx: TaskContext) -> dict[str, int]:
    async with ctx.db.transaction() as session:
        return {"created": await ensure_schedules(session, ctx.now())}


# it records its progress and goes on from it: a first start's history survives a dozen restarts while
# it runs (three attempts were used up by restarts in benchmarks/soak.py, and the history stayed missing)
@task("trend.backfill", background=True, max_attempts=12)
async def backfill(
    ctx: TaskContext,
    *,
    days: int = trend_runs.BACKFILL_DAYS,
    replay_momentum: bool = False,
    older_catalog_days: int = 0,
    catalog_until_days_ago: int = 0,
    scheduled_for: str | None = None,
    **_: Any,
) -> dict[str, int]:
    """The groups of the last ``days`` region-local days (runs stored already are skipped).

    The first start (``bootstrap``) queues it for the whole backfilled period with momentum replayed,
    after first collecting the ``older_catalog_days`` of the catalog that end ``catalog_until_days_ago``
    days ago (serve collects only the newest days before it answers, issue 17 item 4). It works in
    steps, each in short transactions (ADR 0042): one day of the catalog at a time, oldest first, and
    the runs each day completes, stored while the next day is collected (detection in a process of its
    own), so day groups land from the first minute; the job's ``progress`` records the last catalog day
    stored, so an attempt after a restart goes on from there (and skips the stored runs). Hashtag
    statistics and digests are refreshed once the older days are in. The period is the one of the
    firing (``scheduled_for``), whenever an attempt runs. Each run logs at debug: one line at the end
    says what was done."""
    now = datetime.fromisoformat(scheduled_for) if scheduled_for else ctx.now()
    planned = await trend_runs.plan(ctx.db, now, days=days)
    progress = dict(ctx.job.progress) if ctx.job is not None else {}
    stored = collected = 0
    # detection in a process of its own: the API and the user lane keep this one's interpreter lock
    async with trend_runs.RunSequence(
        ctx.db, planned, now, replay_momentum=replay_momentum, quiet=True, own_process=True
    ) as runs:
        if older_catalog_days > 0 and not progress.get("catalog_done"):
            until = now - timedelta(days=catalog_until_days_ago)
            resume = progress.get("catalog_until")
            collected, stored = await _older_catalog(
                ctx, runs, older_catalog_days, until, datetime.fromisoformat(resume) if resume else None
            )
        stored += await runs.run_until()
    log.info("trend.backfill.done", runs=stored, days=days, videos=collected)
    result = {"runs": stored, "videos": collected}
    if ctx.job is not None:
        async with ctx.db.transaction() as session:
            await ctx.complete(session, result)
    return result


async def _older_catalog(
    ctx: TaskContext, runs: trend_runs.RunSequence, days: int, until: datetime, resume_at: datetime | None
) -> tuple[int, int]:
    """The history job's catalog days, oldest first: each day landed is recorded on the job, and the
    runs it completes are stored while the next day is collected. Then the hashtag statistics and the
    digests. Returns (videos collected, runs stored)."""
    from reelscope.catalog import collection
    from reelscope.digest import service as digest_service
    from reelscope.hashtag import service as hashtag_service
    from reelscope.sound import service as sound_service

    landed: asyncio.Queue[datetime | None] = asyncio.Queue()

    async def record(end: datetime) -> None:
        async with ctx.db.transaction() as session:
            await ctx.save_progress(session, {"catalog_until": iso(end)})
        landed.put_nowait(end)

    async def follow() -> int:
        stored = 0
        while (end := await landed.get()) is not None:
            stored += await runs.run_until(end)
        return stored

    follower = asyncio.create_task(follow())
    try:
        collected = await collection.backfill(
            ctx.db,
            collection.world_feeds(build_connectors(ctx.settings, ctx.clock)),
            ctx.clock,
            days=days,
            until=until,
            resume_at=resume_at,
            after_window=record,
        )
    except BaseException:
        follower.cancel()
        raise
    landed.put_nowait(None)
    stored = await follower
    await hashtag_service.rollup(ctx.db, ctx.now())
    await digest_service.refresh(ctx.db, ctx.now())
    await sound_service.refresh(ctx.db, ctx.now())
    async with ctx.db.transaction() as session:
        await ctx.save_progress(session, {"catalog_done": True})
    return collected, stored


async def bootstrap(
    db: Database,
    now: datetime,
    *,
    history_days: int = trend_runs.BACKFILL_DAYS,
    catalog_days_collected: int | None = None,
    replay_momentum: bool = False,
    on_run: trend_runs.OnRun | None = None,
) -> int:
    """At every start: run schedules for every region. On the first start (no trend group yet): the latest
    run of each region now, so the endpoints have data at once, and the runs of the last
    ``history_days`` local days (with momentum replayed through them) as a job the embedded worker picks
    up within seconds — after collecting the older catalog days when serve collected only the newest
    ``catalog_days_collected``. Returns the runs stored now."""
    async with db.transaction() as session:
        await ensure_schedules(session, now)
        first_start = await repository.groups_count(session) == 0
    if not first_start:
        return 0
    stored = await trend_runs.backfill(db, now, days=1, latest_only=True, on_run=on_run)
    params: dict[str, Any] = {"days": history_days, "replay_momentum": replay_momentum}
    if catalog_days_collected is not None and catalog_days_collected < history_days:
        params |= {
            "older_catalog_days": history_days - catalog_days_collected,
            "catalog_until_days_ago": catalog_days_collected,
        }
    async with db.transaction() as session:
        await schedules_service.create(
            session,
            task="trend.backfill",
            job_type="trend_backfill",
            cadence="once",
            params=params,
            at=now,
            first_run_at=now,
        )
    return stored
