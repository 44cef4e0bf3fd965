"""Job engine overhead on SQLite (the embedded default), against baselines measured in the same run.

1. jobs: N jobs created (one transaction each), sent through the SQLite queue and run by the engine
   (claim, body, completion) — against the same task body called N times directly on one loop.
2. dispatch: one dispatcher pass firing N due schedules (claim, advance, one job each) — against
   creating N jobs in one transaction without schedules.

Writes benchmarks/results/jobs.json. Run: .venv/bin/python benchmarks/jobs.py [--jobs N] [--schedules N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reelscope import models  # noqa: F401
from reelscope.auth import service as auth_service
from reelscope.billing import service as billing_service
from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from reelscope.kit.db import Base, Database, create_database
from reelscope.kit.logging import configure_logging
from reelscope.worker import TaskContext, task
from reelscope.worker.dispatcher import dispatch_once
from reelscope.worker.engine import JobEngine
from reelscope.worker.jobs import service as jobs_service
from reelscope.worker.schedules import service as schedules_service

RESULTS = Path(__file__).resolve().parent / "results" / "jobs.json"


@task("bench.credit")
async def bench_credit(ctx: TaskContext, *, team_id: str, **_: Any) -> dict[str, int]:
    async with ctx.db.transaction() as session:
        await billing_service.add_credits(session, team_id, 1, reference="bench", at=ctx.now())
        if ctx.job is not None:
            await ctx.complete(session, {"credited": 1})
    return {"credited": 1}


async def prepare(data_dir: Path, clock: ManualClock) -> tuple[Settings, Database, str]:
    settings = Settings(data_dir=data_dir)
    database = create_database(settings.effective_database_url)
    async with database.engine.begin() as conn:
        await conn.run_sync(Base.metadata.create_all)
    async with database.transaction() as session:
        team = await auth_service.create_team(session, "bench", 0, clock.now())
    return settings, database, team.id


async def bench_jobs(n: int) -> dict[str, float]:
    clock = ManualClock(datetime(2026, 11, 21, 12, 0, tzinfo=UTC))
    with tempfile.TemporaryDirectory() as tmp:
        settings, database, team_id = await prepare(Path(tmp), clock)
        ctx = TaskContext(settings=settings, clock=clock, db=database)
        started = time.perf_counter()
        for _ in range(n):
            await bench_credit(ctx, team_id=team_id)
        direct = time.perf_counter() - started

        engine = JobEngine(settings, clock)
        engine.bind(database)
        started = time.perf_counter()
        for _ in range(n):
            async with database.transaction() as session:
                await jobs_service.create(
                    session, task="bench.credit", type="bench", at=clock.now(), params={"team_id": team_id}
                )
        created = time.perf_counter() - started
        ran = await asyncio.to_thread(engine.drain)
        run = time.perf_counter() - started - created
        assert ran == n
        await asyncio.to_thread(engine.close)
        await database.dispose()
    return {
        "jobs": n,
        "baseline_direct_body_per_job_ms": direct / n * 1000,
        "create_and_send_per_job_ms": created / n * 1000,
        "run_through_queue_per_job_ms": run / n * 1000,
        "engine_total_per_job_ms": (created + run) / n * 1000,
        "engine_jobs_per_second": n / (created + run),
    }


async def bench_dispatch(n: int) -> dict[str, float]:
    clock = ManualClock(datetime(2026, 11, 21, 12, 0, tzinfo=UTC))
    with tempfile.TemporaryDirectory() as tmp:
        settings, database, team_id = await prepare(Path(tmp), clock)
        engine = JobEngine(settings, clock)
        engine.bind(database)
        params = {"team_id": team_id}

        started = time.perf_counter()
        async with database.transaction() as session:
            for _ in range(n):
                await jobs_service.create(
                    session, task="bench.credit", type="bench", at=clock.now(), params=params
                )
        baseline = time.perf_counter() - started

        async with database.transaction() as session:
            for _ in range(n):
                await schedules_service.create(
                    session,
                    task="bench.credit",
                    job_type="bench",
                    cadence="cron:0 9 * * *",
                    at=clock.now(),
                    params=params,
                )
        clock.advance(timedelta(days=1))
        ctx = TaskContext(settings=settings, clock=clock, db=database)
        started = time.perf_counter()
        fired = (await dispatch_once(ctx)).fired  # one pass drains the backlog in batches of 100
        dispatched = time.perf_counter() - started
        assert fired == n
        await asyncio.to_thread(engine.close)
        await database.dispose()
    return {
        "schedules": n,
        "baseline_create_jobs_one_transaction_ms": baseline * 1000,
        "dispatch_fire_all_ms": dispatched * 1000,
        "dispatch_per_schedule_ms": dispatched / n * 1000,
    }


def git_commit() -> str:
    done = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False)
    return done.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=500)
    parser.add_argument("--schedules", type=int, default=1000)
    args = parser.parse_args()
    configure_logging("warning")  # per-job log lines would dominate the figures
    results = {
        "benchmark": "jobs",
        "commit": git_commit(),
        "at": datetime.now(UTC).isoformat(),
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "processor": platform.processor(),
        },
        "database": "sqlite (WAL), queue: SqliteHuey",
        "jobs": asyncio.run(bench_jobs(args.jobs)),
        "dispatch": asyncio.run(bench_dispatch(args.schedules)),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
