"""A region's detection run, start to finish (spec §4.3 production rules, §6.2–6.3 trend events).

Detection is CPU work over catalog rows and runs off the event loop; the merge into the day group, the
run record and the event are one transaction, so a run either lands whole or not at all.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.catalog import reads as catalog_reads
from reelscope.events import service as events_service
from reelscope.kit.clock import iso
from reelscope.kit.db import Database
from reelscope.kit.logging import get_logger
from reelscope.models.trends import TrendGroup, TrendReading, TrendRegion, TrendRun
from reelscope.trend import momentum as trend_momentum
from reelscope.trend import repository
from reelscope.trend import service as trend_service
from reelscope.trend.detection import Detection, Detector, InProcess, OwnProcess
from reelscope.trend.regions import GLOBAL, RUN_HOURS

log = get_logger(__name__)

EXEMPLARS_KEPT = 20
EVENT_TRENDS = 20  # trends carried by one event, top ranked first
EVENT_EXEMPLARS = 5
EXEMPLAR_EVENT_FIELDS = ("video_id", "url", "platform", "views", "thumbnail_url", "publish_date", "author")
REGION_EVENT = "trends.region.completed"
GLOBAL_EVENT = "trends.daily.completed"


def _exemplar_ids(detection: Detection) -> list[str]:
    ids: list[str] = []
    for trend in [*detection.trends, *(p.trend for p in detection.promotions)]:
        ids.extend(trend.exemplar_ids[:EXEMPLARS_KEPT])
    return ids


async def store(
    session: AsyncSession,
    region: TrendRegion,
    scheduled_for: datetime,
    detection: Detection,
    *,
    now: datetime,
    announce: bool,
    views_as_of: datetime | None = None,
    quiet: bool = False,
) -> TrendRun | None:
    """Merge a run into the region's day group and record it; None when this run was stored before.

    ``announce`` publishes the §6.3 event (scheduled runs do; the first-start backfill does not).
    ``views_as_of`` shows the exemplars with the views the catalog had observed by then (a past run
    computed later), not today's.
    """
    if await repository.get_run(session, region.code, scheduled_for) is not None:
        return None  # the job ran twice: the first one's result stands
    snapshots = await catalog_reads.exemplar_snapshots(session, _exemplar_ids(detection), as_of=views_as_of)
    group, merged = await trend_service.merge_run(
        session, region, scheduled_for, detection.trends, snapshots, detection.promotions
    )
    for item in merged:
        if item.is_new:
            # the first reading of the exemplars' views: the momentum loop measures growth from here
            views = sum(int(e.get("views") or 0) for e in item.row.exemplars)
            likes = sum(int(e.get("likes") or 0) for e in item.row.exemplars)
            session.add(TrendReading(ranking_id=item.row.id, at=scheduled_for, views=views, likes=likes))
    run = TrendRun(
        region=region.code,
        scheduled_for=scheduled_for,
        status="completed",
        trends_found=len(merged),
        completed_at=now,
    )
    session.add(run)
    if announce:
        await events_service.publish(
            session,
            GLOBAL_EVENT if region.code == GLOBAL else REGION_EVENT,
            await _completed_payload(session, group),
            None,
            at=now,
        )
    await session.flush()
    # a history of runs computed in the background logs each run at debug (the first start's welcome
    # stays on screen) and one summary at the end
    (log.debug if quiet else log.info)(
        "trend.run.completed", region=region.code, scheduled_for=iso(scheduled_for), trends=len(merged)
    )
    return run


async def record_failure(
    session: AsyncSession,
    region: TrendRegion,
    scheduled_for: datetime,
    code: str,
    message: str,
    now: datetime,
) -> TrendRun:
    """A failed run is recorded and announced in the failure form of §6.3."""
    run = TrendRun(
        region=region.code,
        scheduled_for=scheduled_for,
        status="failed",
        error_code=code,
        error_message=message,
        completed_at=now,
    )
    session.add(run)
    await session.flush()
    await events_service.publish(
        session,
        GLOBAL_EVENT if region.code == GLOBAL else REGION_EVENT,
        {
            "run_id": run.id,
            "region": region.code,
            "status": "failed",
            "completed_at": iso(now),
            "error": {"code": code, "message": message},
        },
        None,
        at=now,
    )
    log.warning("trend.run.failed", region=region.code, scheduled_for=iso(scheduled_for), code=code)
    return run


async def _completed_payload(session: AsyncSession, group: TrendGroup) -> dict[str, Any]:
    rows = sorted(await repository.rows_of_group(session, group.id), key=lambda r: r.ranking)[:EVENT_TRENDS]
    trends = {t.id: t for t in await repository.trends_by_id(session, [r.trend_id for r in rows])}
    return {
        "trend_group_id": group.id,
        # §6.3: "date (previous day, YYYY-MM-DD)"
        "date": (group.local_date - timedelta(days=1)).isoformat(),
        "region": group.region,
        "trends": [
            {
                "trend_id": row.trend_id,
                "trend_ranking_id": row.id,
                "title": trends[row.trend_id].name,
                "description": trends[row.trend_id].description,
                "ranking": row.ranking,
                "scrape_status": "completed",
                "exemplar_count": len(row.exemplars),
                "velocity": {
                    "band": row.velocity_band,
                    "count_24h_total": row.count_recent,
                    "median_views": float(row.median_views),
                    "source": "catalog",
                    "per_platform": dict(row.per_platform),
                },
                "top_exemplars": [
                    {k: e[k] for k in EXEMPLAR_EVENT_FIELDS} for e in row.exemplars[:EVENT_EXEMPLARS]
                ],
            }
            for row in rows
        ],
    }


Finish = Callable[[AsyncSession], Awaitable[None]]


async def run_region(
    db: Database, region_code: str, scheduled_for: datetime, *, now: datetime, finish: Finish | None = None
) -> TrendRun | None:
    """Load, detect (off the event loop) and store one scheduled run; None if it was stored before.

    ``finish`` runs inside the storing transaction (a job marks itself completed there, so the run and
    the job's completion land together).
    """
    async with db.transaction(write=False) as session:
        region = await trend_service.region_or_400(session, region_code)
        done_before = await repository.get_run(session, region.code, scheduled_for) is not None
    if not done_before:
        detection = await InProcess(db, [region.code]).detect(region.code, scheduled_for)
    async with db.transaction() as session:
        run = None
        if not done_before:
            region = await trend_service.region_or_400(session, region_code)
            run = await store(session, region, scheduled_for, detection, now=now, announce=True)
        if finish is not None:
            await finish(session)
    return run


# ``trend.backfill`` computes this many region-local days of groups by default (issue 8 §6); the first
# start computes the whole backfilled catalog period instead (``trend.history``, issue 17 item 4)
BACKFILL_DAYS = 3


def scheduled_times(timezone: str, since: datetime, until: datetime) -> list[datetime]:
    """The run times (07:00, 13:00, 19:00 in ``timezone``) in [since, until], in ``until``'s zone."""
    zone = ZoneInfo(timezone)
    day = since.astimezone(zone).date()
    last = until.astimezone(zone).date()
    times = []
    while day <= last:
        for hour in RUN_HOURS:
            moment = datetime(day.year, day.month, day.day, hour, tzinfo=zone)
            if since <= moment <= until:
                times.append(moment.astimezone(until.tzinfo))
        day += timedelta(days=1)
    return times


def latest_scheduled(timezone: str, at: datetime) -> datetime:
    """The last run time at or before ``at``."""
    return scheduled_times(timezone, at - timedelta(days=2), at)[-1]


def backfill_times(timezone: str, now: datetime, days: int) -> list[datetime]:
    """The run times (07:00, 13:00, 19:00 local) of the last ``days`` local days that are past."""
    zone = ZoneInfo(timezone)
    today = now.astimezone(zone).date()
    first = today - timedelta(days=days - 1)
    return scheduled_times(timezone, datetime(first.year, first.month, first.day, tzinfo=zone), now)


# called after each planned run: (region, scheduled_for, stored now)
OnRun = Callable[[TrendRegion, datetime, bool], None]


class RunSequence:
    """Planned runs stored in time order, skipping runs stored before (by anyone: the scheduler of a
    running server included). Each run is the scheduled run's own detection and merge (``store``), so
    groups come out as live runs make them; the windows move from run to run (``Populations``).

    ``announce`` says which runs publish their §6.3 event (none by default: the events of past runs
    would describe the past). With ``replay_momentum`` each stored run also reads the exemplars' views
    as the catalog's snapshots had them at the run time and moves the region's live rows' momentum to
    that time (``momentum.replay``): an imported history gets its momentum as it happened. With
    ``own_process`` the detection runs in a process of its own (``detection.OwnProcess``; a database
    file or server, not one in memory). Use it as ``async with``: that stops the detector.
    """

    def __init__(
        self,
        db: Database,
        planned: Sequence[tuple[TrendRegion, datetime]],
        now: datetime,
        *,
        announce: Callable[[TrendRegion, datetime], bool] | None = None,
        replay_momentum: bool = False,
        on_run: OnRun | None = None,
        quiet: bool = False,
        own_process: bool = False,
    ) -> None:
        self.db = db
        self.now = now
        self.announce = announce
        self.replay_momentum = replay_momentum
        self.on_run = on_run
        self.quiet = quiet
        self.waiting = sorted(planned, key=lambda item: (item[1], item[0].position, item[0].code))
        regions = {region.code for region, _ in planned}
        self.detector: Detector = InProcess(db, regions)
        if own_process and planned:
            self.detector = OwnProcess(db.engine.url.render_as_string(hide_password=False), regions)

    async def __aenter__(self) -> RunSequence:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.detector.close()

    async def run_until(self, before: datetime | None = None) -> int:
        """Store the waiting runs due before ``before`` (all of them when None); the runs stored now.

        Each run is its own short transactions: the write lock is held for one merge at a time."""
        stored = 0
        while self.waiting and (before is None or self.waiting[0][1] < before):
            region, at = self.waiting.pop(0)
            stored += await self._run(region, at)
        return stored

    async def _run(self, region: TrendRegion, at: datetime) -> bool:
        db = self.db
        async with db.transaction(write=False) as session:
            done_before = await repository.get_run(session, region.code, at) is not None
        if done_before:
            if self.on_run is not None:
                self.on_run(region, at, False)
            return False
        detection = await self.detector.detect(region.code, at)
        try:
            async with db.transaction() as session:
                run = await store(
                    session,
                    region,
                    at,
                    detection,
                    now=self.now,
                    announce=self.announce is not None and self.announce(region, at),
                    views_as_of=at if self.replay_momentum else None,
                    quiet=self.quiet,
                )
                if run is not None and self.replay_momentum:
                    await trend_momentum.replay(session, region.code, at)
        except IntegrityError:
            run = None  # a running server stored the same run (or opened the same day group) first
        if self.on_run is not None:
            self.on_run(region, at, run is not None)
        return run is not None


async def run_planned(
    db: Database,
    planned: Sequence[tuple[TrendRegion, datetime]],
    now: datetime,
    *,
    announce: Callable[[TrendRegion, datetime], bool] | None = None,
    replay_momentum: bool = False,
    on_run: OnRun | None = None,
    quiet: bool = False,
) -> int:
    """Store every planned run (``RunSequence``); returns the runs stored now."""
    async with RunSequence(
        db, planned, now, announce=announce, replay_momentum=replay_momentum, on_run=on_run, quiet=quiet
    ) as sequence:
        return await sequence.run_until()


async def plan(
    db: Database, now: datetime, *, days: int, latest_only: bool = False
) -> list[tuple[TrendRegion, datetime]]:
    """The past runs of every region over the last ``days`` local days (or each region's latest)."""
    async with db.transaction(write=False) as session:
        regions = list(await trend_service.regions(session))
    planned: list[tuple[TrendRegion, datetime]] = []
    for region in regions:
        times = backfill_times(region.timezone, now, days if not latest_only else 2)
        planned += [(region, at) for at in (times[-1:] if latest_only else times)]
    return planned


async def backfill(
    db: Database,
    now: datetime,
    *,
    days: int,
    latest_only: bool = False,
    replay_momentum: bool = False,
    quiet: bool = False,
    on_run: OnRun | None = None,
) -> int:
    """Store the past runs of every region over the last ``days`` local days (or only each region's
    latest past run), skipping runs stored before. Backfilled runs are recorded like scheduled ones, so
    the scheduler does not redo them, but announce nothing: their events would describe the past.
    ``replay_momentum`` moves momentum through the period as it happened (``run_planned``)."""
    planned = await plan(db, now, days=days, latest_only=latest_only)
    stored = (
        await run_planned(db, planned, now, replay_momentum=replay_momentum, on_run=on_run, quiet=quiet)
        if planned
        else 0
    )
    log.info("trend.backfill.done", runs=stored, latest_only=latest_only, days=days)
    return stored
