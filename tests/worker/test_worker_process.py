"""Real processes (ARCHITECTURE §5): a `reelscope worker` killed with SIGKILL in the middle of a job, then a
new worker — the job completes exactly once; and the consumer `reelscope serve` embeds.

Test-only tasks reach the worker through REELSCOPE_EXTRA_TASK_MODULES (tests/worker/sample_tasks.py).
Waiting is polling for a state with a deadline, never a fixed sleep.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from reelscope.auth import service as auth_service
from reelscope.billing import service as billing_service
from reelscope.cli import app
from reelscope.config import Settings
from reelscope.kit.clock import SystemClock
from reelscope.kit.db import Database, create_database
from reelscope.models import Job, LedgerEntry
from reelscope.worker.engine import JobEngine
from reelscope.worker.jobs import service as jobs_service
from tests.fixtures.data_dirs import migrated_data_dir
from tests.test_process import free_port, wait_until_up

pytestmark = pytest.mark.process

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def env(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """On SQLite with the SqliteHuey queue; the Redis queue across real processes, a worker killed
    mid-job included, is tests/test_scale_out.py's (on PostgreSQL). The data dir starts migrated, as
    `reelscope migrate` leaves it (tests/fixtures/data_dirs.py)."""
    environment = {
        **os.environ,
        "REELSCOPE_DATA_DIR": str(migrated_data_dir(tmp_path_factory, tmp_path / "data")),
        "REELSCOPE_EXTRA_TASK_MODULES": "tests.worker.sample_tasks",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        # a short lease and a quick dispatcher, so a dead worker's job is noticed within seconds
        "REELSCOPE_JOB_LEASE_SECONDS": "3",
        "REELSCOPE_JOB_DISPATCH_INTERVAL_SECONDS": "0.5",
        "REELSCOPE_JOB_WORKERS": "1",
        "REELSCOPE_JOB_USER_WORKERS": "1",
    }
    environment.pop("REELSCOPE_DATABASE_URL", None)
    environment.pop("REELSCOPE_REDIS_URL", None)
    return environment


@pytest.fixture
async def side(env: dict[str, str]) -> AsyncIterator[tuple[Database, JobEngine, str]]:
    """The test's own handle on the data dir: the database, a sending engine, and a team with 0 credits
    (written as `reelscope admin team create` writes it: the processes read it at once)."""
    settings = Settings(data_dir=Path(env["REELSCOPE_DATA_DIR"]), redis_url=env.get("REELSCOPE_REDIS_URL"))
    database = create_database(settings.effective_database_url)
    engine = JobEngine(settings, SystemClock())
    engine.bind(database)
    async with database.transaction() as session:
        team_id = (await auth_service.create_team(session, "t", 0, SystemClock().now())).id
    yield database, engine, team_id
    await asyncio.to_thread(engine.close)
    await database.dispose()


@pytest.fixture
def small_catalog(env: dict[str, str], tmp_path: Path) -> None:
    """One video in the catalog, ingested as an operator would, so serve's first start skips the 14-day
    backfill of an empty catalog and its trend runs cover one video: 60-80 s of CPU that the consumer
    test does not look at. (tests/test_process.py covers a real first start of an empty data dir.)"""
    posted = datetime.now(UTC) - timedelta(hours=2)
    record = {
        "record": "video",
        "platform": "tiktok",
        "external_id": "7432109876543210987",
        "url": "https://www.tiktok.com/@crumblab/video/7432109876543210987",
        "published_at": posted.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "views": 1000,
        "hashtags": ["#sourdough"],
    }
    file = tmp_path / "one-video.jsonl"
    file.write_text(json.dumps(record) + "\n")
    # the command in this process: the test is about serve's process, not the ingest's
    ingested = CliRunner().invoke(
        app,
        ["ingest", str(file)],
        env={
            "REELSCOPE_DATA_DIR": env["REELSCOPE_DATA_DIR"],
            "REELSCOPE_DATABASE_URL": None,
            "REELSCOPE_REDIS_URL": None,
        },
    )
    assert ingested.exit_code == 0, ingested.output


def start(command: str, env: dict[str, str], log: Path) -> subprocess.Popen[str]:
    with log.open("a") as out:
        return subprocess.Popen(
            [str(BIN / "reelscope"), command], env=env, stdout=out, stderr=subprocess.STDOUT, text=True
        )


async def eventually(
    check: Callable[[], Awaitable[bool]], what: str, proc: subprocess.Popen[str], *, seconds: int = 60
) -> None:
    for _ in range(seconds * 10):
        if await check():
            return
        assert proc.poll() is None, f"process exited with {proc.returncode} while waiting for {what}"
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


async def job_row(database: Database, job_id: str) -> Job:
    async with database.transaction(write=False) as session:
        job = await session.get(Job, job_id)
        assert job is not None
        return job


class TestWorkerKilledMidJob:
    async def test_the_job_completes_exactly_once_after_a_kill_and_restart(
        self, env: dict[str, str], side: tuple[Database, JobEngine, str], tmp_path: Path
    ) -> None:
        database, _engine, team_id = side
        gate, marks, log = tmp_path / "gate", tmp_path / "marks", tmp_path / "worker.log"
        marks.mkdir()
        async with database.transaction() as session:
            job = await jobs_service.create(
                session,
                task="test.blocking_credit",
                type="probe",
                at=SystemClock().now(),
                team_id=team_id,
                params={"team_id": team_id, "gate": str(gate), "marks": str(marks)},
                retry_window=timedelta(minutes=10),
            )

        first = start("worker", env, log)
        try:

            async def started() -> bool:
                return (marks / "started-1").exists()

            await eventually(started, "the first attempt to start", first)
        finally:
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=15)
        killed = await job_row(database, job.id)
        assert (killed.status, killed.attempts) == ("processing", 1)

        gate.touch()  # from now on an attempt runs to its end
        second = start("worker", env, log)
        try:

            async def completed() -> bool:
                return (await job_row(database, job.id)).status == "completed"

            await eventually(completed, "the job to complete", second)
        finally:
            second.send_signal(signal.SIGINT)
            exit_code = second.wait(timeout=15)
        assert exit_code == 0, log.read_text()

        done = await job_row(database, job.id)
        assert (done.attempts, done.result) == (2, {"credited": 1, "attempt": 2})
        async with database.transaction(write=False) as session:
            effects = (
                (
                    await session.execute(
                        select(LedgerEntry).where(LedgerEntry.reference == f"effect:{job.id}")
                    )
                )
                .scalars()
                .all()
            )
            assert len(effects) == 1
            assert await billing_service.balance(session, team_id) == 1


@pytest.mark.usefixtures("small_catalog")
class TestServeRunsJobs:
    async def test_serve_runs_queued_jobs_and_stops_cleanly_on_ctrl_c(
        self, env: dict[str, str], side: tuple[Database, JobEngine, str], tmp_path: Path
    ) -> None:
        database, _engine, team_id = side
        port = free_port()
        # serve's defaults: two background and two user workers; the first start's history job holds a
        # background one, never the user workers this job runs on (ADR 0042)
        serve_env = {
            **env,
            "REELSCOPE_HOST": "127.0.0.1",
            "REELSCOPE_PORT": str(port),
            "REELSCOPE_JOB_WORKERS": "2",
            "REELSCOPE_JOB_USER_WORKERS": "2",
        }
        log = tmp_path / "serve.log"
        server = start("serve", serve_env, log)
        try:
            await asyncio.to_thread(wait_until_up, f"http://127.0.0.1:{port}", server)
            async with database.transaction() as session:
                job = await jobs_service.create(
                    session,
                    task="test.credit",
                    type="probe",
                    at=SystemClock().now(),
                    params={"team_id": team_id},
                )

            async def completed() -> bool:
                return (await job_row(database, job.id)).status == "completed"

            # the deadline only catches a consumer that never runs the job
            await eventually(completed, "serve's embedded consumer to run the job", server, seconds=120)
            assert httpx.get(f"http://127.0.0.1:{port}/").status_code == 200
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=15)
        output: Any = log.read_text()
        assert "worker.stopped" in output, output
