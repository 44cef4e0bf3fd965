"""Scheduled region runs over a sandbox catalog: groups, run records, §6.3 events, idempotence,
failures, the momentum loop, the first-start backfill and a detector process (spec §4.3, §6.2–6.3;
issue 8)."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select

from reelscope.collectors.routing import Sources
from reelscope.collectors.sandbox import SandboxConnector
from reelscope.events import service as events_service
from reelscope.kit.clock import ManualClock, iso
from reelscope.models import Job, OutboxEvent, Schedule, TrendGroup, TrendRanking, TrendReading, TrendRun
from reelscope.runtime import Runtime
from reelscope.trend import detection as trend_detection
from reelscope.trend import momentum as trend_momentum
from reelscope.trend import runs as trend_runs
from reelscope.trend import tasks as trend_tasks
from reelscope.trend.detection import InProcess, OwnProcess, _answer
from reelscope.worker.context import TaskContext
from reelscope.worker.engine import JobEngine
from reelscope.worker.jobs import service as jobs_service
from tests.catalog_builders import SEED
from tests.trend.sandbox_catalog import BUILT_AT, build_template, copy_to


# built in some 10 s; under pytest-xdist the module runs on one worker (tests/fixtures/scheduling.py)
@pytest.fixture(scope="session")
def catalog_template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield build_template(tmp_path_factory.mktemp("trend-catalog"))


@pytest.fixture
def database_url(catalog_template: Path, tmp_path: Path) -> str:
    return copy_to(catalog_template, tmp_path)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(BUILT_AT)


async def events(runtime: Runtime) -> list[OutboxEvent]:
    async with runtime.db.transaction(write=False) as session:
        return list(await events_service.events_after(session, 0, 1000))


async def count(runtime: Runtime, model: type) -> int:
    async with runtime.db.transaction(write=False) as session:
        return int((await session.execute(select(func.count()).select_from(model))).scalar_one())


class TestScheduledRun:
    async def test_a_country_run_stores_its_day_group_and_announces_it(
        self, runtime: Runtime, clock: ManualClock
    ) -> None:
        run = await trend_runs.run_region(runtime.db, "us", BUILT_AT, now=clock.now())
        assert run is not None and run.status == "completed" and run.trends_found >= 1
        async with runtime.db.transaction(write=False) as session:
            group = (await session.execute(select(TrendGroup))).scalar_one()
            rows = (await session.execute(select(TrendRanking))).scalars().all()
        assert group.region == "us" and group.local_date.isoformat() == "2026-11-19"  # New York's day
        assert sorted(r.ranking for r in rows) == list(range(1, len(rows) + 1))
        for row in rows:
            views = [e["views"] for e in row.exemplars]
            assert views == sorted(views, reverse=True)
            assert row.origin_region_codes is None and row.global_confidence is None
        [event] = await events(runtime)
        assert event.name == "trends.region.completed" and event.team_id is None  # public (§6.1)
        payload = event.payload
        assert payload["trend_group_id"] == group.id
        assert payload["date"] == "2026-11-18"  # §6.3: the previous day
        first = payload["trends"][0]
        assert set(first) >= {
            "trend_id",
            "trend_ranking_id",
            "title",
            "description",
            "ranking",
            "scrape_status",
            "exemplar_count",
            "velocity",
            "top_exemplars",
        }
        assert set(first["velocity"]) == {"band", "count_24h_total", "median_views", "source", "per_platform"}
        author = first["top_exemplars"][0]["author"]
        assert set(author) == {"username", "avatar_url", "verified"}

    async def test_the_global_run_promotes_multi_country_trends(
        self, runtime: Runtime, clock: ManualClock
    ) -> None:
        await trend_runs.run_region(runtime.db, "global", BUILT_AT, now=clock.now())
        async with runtime.db.transaction(write=False) as session:
            rows = (await session.execute(select(TrendRanking))).scalars().all()
        promoted = [r for r in rows if r.origin_region_codes]
        assert promoted, "the sandbox plants trends in several countries at this time"
        for row in promoted:
            assert len(row.origin_region_codes or []) >= 2
            assert row.global_confidence is not None and 0 < row.global_confidence <= 1
        assert [e.name for e in await events(runtime)] == ["trends.daily.completed"]

    async def test_a_run_repeated_changes_nothing(self, runtime: Runtime, clock: ManualClock) -> None:
        await trend_runs.run_region(runtime.db, "gb", BUILT_AT, now=clock.now())
        before = await count(runtime, TrendRanking)
        assert await trend_runs.run_region(runtime.db, "gb", BUILT_AT, now=clock.now()) is None
        assert await count(runtime, TrendRanking) == before
        assert len(await events(runtime)) == 1

    async def test_three_runs_of_a_day_share_one_group(self, runtime: Runtime, clock: ManualClock) -> None:
        # 07:00, 13:00 and 19:00 in New York on 2026-11-19
        for hours in (-12, -6, 0):
            await trend_runs.run_region(runtime.db, "us", BUILT_AT + timedelta(hours=hours), now=clock.now())
        assert await count(runtime, TrendGroup) == 1
        assert await count(runtime, TrendRun) == 3
        names = [e.payload["trend_group_id"] for e in await events(runtime)]
        assert len(set(names)) == 1  # same-day updates share a trend_group_id (§6.3)

    async def test_a_failed_run_sends_the_failure_form(
        self, runtime: Runtime, clock: ManualClock, task_context: TaskContext, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        def broken(*_args: object) -> trend_detection.Detection:
            raise RuntimeError("detector exploded")

        monkeypatch.setattr(trend_detection, "detect_region", broken)
        with pytest.raises(Exception, match="trend run failed"):
            await trend_tasks.run(task_context, region="au", scheduled_for=BUILT_AT.isoformat())
        [event] = await events(runtime)
        assert event.name == "trends.region.completed"
        assert event.payload["status"] == "failed" and event.payload["region"] == "au"
        assert event.payload["error"]["code"] == "detection_failed"
        assert set(event.payload) == {"run_id", "region", "status", "completed_at", "error"}


class TestMomentum:
    async def test_the_loop_reads_exemplars_through_the_connector_and_moves_status(
        self, runtime: Runtime, clock: ManualClock
    ) -> None:
        await trend_runs.run_region(runtime.db, "us", BUILT_AT, now=clock.now())
        connector = SandboxConnector(clock, seed=SEED)
        statuses: list[set[str]] = []
        for _ in range(3):
            clock.advance(timedelta(hours=2))
            report = await trend_momentum.refresh(runtime.db, Sources([connector], None), clock.now())
            assert report.rows >= 1 and report.exemplars_read > 0 and report.failures == 0
            async with runtime.db.transaction(write=False) as session:
                rows = (await session.execute(select(TrendRanking))).scalars().all()
            statuses.append({r.momentum_status or "" for r in rows})
            for row in rows:
                assert 0 <= (row.momentum_score or 0) <= 1
                assert row.momentum_updated_at == clock.now()
        assert statuses[-1] <= {"new", "rising", "steady", "fading"}
        assert statuses[-1] != {"new"}, "after three readings the status reflects the views' direction"
        # one reading at discovery, then one per refresh
        assert await count(runtime, TrendReading) == 4 * await count(runtime, TrendRanking)


class TestSchedulesAndBackfill:
    async def test_every_region_gets_its_local_run_schedule(
        self, runtime: Runtime, clock: ManualClock
    ) -> None:
        async with runtime.db.transaction() as session:
            assert await trend_tasks.ensure_schedules(session, clock.now()) == 4
            assert await trend_tasks.ensure_schedules(session, clock.now()) == 0
        async with runtime.db.transaction(write=False) as session:
            schedules = {s.resource_id: s for s in (await session.execute(select(Schedule))).scalars()}
        assert set(schedules) == {"global", "us", "gb", "au"}
        sydney = schedules["au"]
        assert sydney.timezone == "Australia/Sydney"
        assert sydney.cadence == "local:07:00,13:00,19:00"
        # 2026-11-20 00:00 UTC is 11:00 in Sydney (UTC+11): the next run is 13:00 local = 02:00 UTC
        assert sydney.next_run_at == datetime.fromisoformat("2026-11-20T02:00:00+00:00")

    async def test_first_start_computes_latest_runs_then_queues_the_rest(
        self, runtime: Runtime, clock: ManualClock, task_context: TaskContext
    ) -> None:
        stored = await trend_tasks.bootstrap(runtime.db, clock.now())
        assert stored == 4  # each region's latest past run, at once
        assert await count(runtime, TrendGroup) == 4
        async with runtime.db.transaction(write=False) as session:
            backfill = (
                await session.execute(select(Schedule).where(Schedule.task == "trend.backfill"))
            ).scalar_one()
        assert backfill.next_run_at == clock.now()
        result = await trend_tasks.backfill(task_context, days=2)
        assert result["runs"] > 0
        assert await trend_tasks.bootstrap(runtime.db, clock.now()) == 0  # not a first start any more
        # backfilled runs announce nothing: they describe the past
        assert await events(runtime) == []
        async with runtime.db.transaction(write=False) as session:
            rows = (await session.execute(select(TrendRanking))).scalars().all()
        assert all(r.detected_at <= r.last_seen_at for r in rows)

    async def test_serves_first_start_queues_the_whole_period_with_momentum(
        self, runtime: Runtime, clock: ManualClock, task_context: TaskContext
    ) -> None:
        """issue 17 item 4: serve collects the newest days, then the history job collects the older
        ones and computes every region's runs of the period, momentum replayed through them."""
        stored = await trend_tasks.bootstrap(
            runtime.db, clock.now(), history_days=14, catalog_days_collected=3, replay_momentum=True
        )
        assert stored == 4
        async with runtime.db.transaction(write=False) as session:
            history = (
                await session.execute(select(Schedule).where(Schedule.task == "trend.backfill"))
            ).scalar_one()
        assert history.params == {
            "days": 14,
            "replay_momentum": True,
            "older_catalog_days": 11,
            "catalog_until_days_ago": 3,
        }
        # the job's own work on a shorter period (the catalog fixture holds the last 8 days)
        result = await trend_tasks.backfill(task_context, days=2, replay_momentum=True)
        assert result["runs"] > 0
        async with runtime.db.transaction(write=False) as session:
            runs = (
                await session.execute(select(TrendRun.region, func.count()).group_by(TrendRun.region))
            ).all()
            statuses = {r.momentum_status for r in (await session.execute(select(TrendRanking))).scalars()}
        assert {region for region, _ in runs} == {"global", "us", "gb", "au"}
        assert all(n >= 3 for _, n in runs)  # three runs a day, over the days of the period
        assert statuses - {"new"}, statuses  # momentum moved through the period
        assert await events(runtime) == []  # past runs announce nothing

    async def test_the_history_job_after_a_restart_goes_on_from_its_progress(
        self, runtime: Runtime, clock: ManualClock, jobs: JobEngine
    ) -> None:
        """issue 33 item 5: the job records each catalog day it lands; an attempt after a restart starts
        after the last one (here: every older day was in) and records when the catalog is done."""
        until = clock.now() - timedelta(days=3)
        async with runtime.db.transaction() as session:
            job = await jobs_service.create(
                session,
                task="trend.backfill",
                type="trend_backfill",
                at=clock.now(),
                params={"days": 2, "older_catalog_days": 11, "catalog_until_days_ago": 3},
            )
            job.progress = {"catalog_until": iso(until)}  # where the attempt before the restart got
        jobs.drain()
        async with runtime.db.transaction(write=False) as session:
            done = await session.get(Job, job.id)
        assert done is not None and done.status == "completed"
        assert done.result is not None and done.result["videos"] == 0 and done.result["runs"] > 0
        assert done.progress == {"catalog_done": True}


class TestDetectorProcess:
    """A run sequence's detection in a process of its own (ADR 0042) gives the same answers."""

    async def test_a_detector_process_finds_what_this_process_finds(
        self, runtime: Runtime, database_url: str
    ) -> None:
        regions = ["global", "us"]
        here = InProcess(runtime.db, regions)
        there = OwnProcess(database_url, regions)
        try:
            for hours in (-12, 0):  # two runs of one sequence in each process
                at = BUILT_AT + timedelta(hours=hours)
                for code in regions:
                    found = await there.detect(code, at)
                    assert found == await here.detect(code, at)
                    assert found.trends  # the sandbox plants trends in these days
        finally:
            await there.close()

    async def test_a_failure_in_the_detector_process_is_raised_here(self, database_url: str) -> None:
        there = OwnProcess(database_url, ["us"])
        try:
            with pytest.raises(RuntimeError, match="KeyError"):
                await there.detect("gb", BUILT_AT)  # a region the sequence was not planned with
        finally:
            await there.close()

    async def test_a_parent_gone_mid_detection_ends_the_detector_quietly(self, database_url: str) -> None:
        """A restart stops the parent while its detector works: the answer has nowhere to go, and the
        detector ends without a BrokenPipeError traceback (the soak of issue 31 logged them)."""
        parent, child = multiprocessing.Pipe()
        parent.send(("gb", BUILT_AT))  # a region not planned: answered at once, with the failure
        parent.send(("us", BUILT_AT))
        parent.close()
        await _answer(child, database_url, ["us"])  # returns: no BrokenPipeError escapes
        child.close()
