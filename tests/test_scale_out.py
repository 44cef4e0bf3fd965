"""Scale-out as the README runs it (issue 29 item 1): two `reelscope api` processes and two `reelscope
worker` processes (one with periodic tasks) on one PostgreSQL database and one Redis.

Nothing is shared between the processes but the database and Redis, so each check below holds only if
the state it needs lives there: a team's rate limit (Redis windows, §8.1), its balance (§8.2), an
idempotency key (§7), a schedule's firing, a webhook delivery (§6.1), a job's lease (ARCHITECTURE §5).
Requests are spread over both API ports; nothing stands in front of them. Waiting is polling for a state
with a deadline, never a fixed sleep.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from reelscope.auth import service as auth_service
from reelscope.config import Settings
from reelscope.kit.clock import SystemClock
from reelscope.kit.db import Database, create_database
from reelscope.kit.migrate import upgrade_to_head
from reelscope.models import Job, LedgerEntry
from reelscope.worker.context import TaskContext
from reelscope.worker.dispatcher import dispatch_once
from reelscope.worker.engine import JobEngine
from reelscope.worker.jobs import service as jobs_service
from reelscope.worker.schedules import service as schedules_service
from tests.fixtures.jobs import flush_redis
from tests.fixtures.services import (
    TEST_DATABASE_URL,
    TEST_REDIS_URL,
    WORKER,
    require_postgres,
    require_redis,
)
from tests.test_process import free_port, wait_until_up
from tests.webhook.receiver import Receiver, ReceiverServer, make_tls

pytestmark = [pytest.mark.process, pytest.mark.postgres, pytest.mark.redis]

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parents[1]
AGENT_RUN_COMPLETED = "content_research_agent.run.completed"


@dataclass
class Cluster:
    env: dict[str, str]
    apis: list[str]
    workers: dict[str, subprocess.Popen[str]]
    logs: Path
    url: str
    receiver: Receiver
    teams: dict[str, dict[str, Any]] = field(default_factory=dict)

    def headers(self, team: str, **extra: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.teams[team]['api_key']}", **extra}

    async def team(self, database: Database, name: str, credits: int, **limits: int) -> None:
        """A team and its key, written as `reelscope admin` writes them: the APIs read them at once."""
        now = SystemClock().now()
        async with database.transaction() as session:
            team = await auth_service.create_team(session, name, credits, now)
            issued = await auth_service.issue_key(session, team, now)
            for feature, per_hour in limits.items():
                await auth_service.set_limits(
                    session, team, feature, per_minute=None, per_hour=per_hour, per_day=None, at=now
                )
        self.teams[name] = {"team_id": team.id, "api_key": issued.api_key}

    def alive(self) -> None:
        for name, proc in self.workers.items():
            assert proc.poll() is None, f"worker {name} exited with {proc.returncode}: {self.log_tail()}"

    def log_tail(self) -> str:
        return "\n".join(
            f"--- {log.name}\n{log.read_text()[-3000:]}" for log in sorted(self.logs.glob("*.log"))
        )


def start(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[str]:
    with log.open("a") as out:
        return subprocess.Popen(
            [str(BIN / "reelscope"), *command], env=env, stdout=out, stderr=subprocess.STDOUT, text=True
        )


def stop(procs: list[subprocess.Popen[str]]) -> None:
    """Ctrl-C to all at once, then wait for each (a worker takes up to 5 s to finish its jobs)."""
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
    for proc in procs:
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def eventually(
    check: Callable[[], Awaitable[bool]], what: str, cluster: Cluster, seconds: int = 60
) -> None:
    for _ in range(seconds * 10):
        if await check():
            return
        cluster.alive()
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}\n{cluster.log_tail()}")


def database_url() -> str:
    """A database of this checkout and xdist worker's own, made anew for the class."""
    checkout = hashlib.sha1(str(ROOT).encode()).hexdigest()[:8]
    return TEST_DATABASE_URL.rsplit("/", 1)[0] + f"/reelscope_scale_{checkout}_{WORKER or 'main'}"


async def recreate(url: str, *, create: bool = True) -> None:
    """Drop the database (one an interrupted run left too) and, unless told not to, create it empty."""
    name = url.rsplit("/", 1)[1]
    admin = create_async_engine(TEST_DATABASE_URL, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    async with admin.connect() as conn:
        await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        if create:
            await conn.execute(text(f'CREATE DATABASE "{name}"'))
    await admin.dispose()


@pytest.fixture(scope="class")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Migrated once, then two APIs and two workers started together (about 10 s on a busy 2-core box).
    Under pytest-xdist the class runs on one worker (tests/fixtures/scheduling.py)."""
    require_postgres()
    require_redis()
    flush_redis()
    tmp = tmp_path_factory.mktemp("scale")
    url = database_url()
    asyncio.run(recreate(url))
    tls = make_tls(tmp / "tls")
    receiver_server = ReceiverServer(tls)
    receiver = receiver_server.start()
    env = {
        **os.environ,
        "REELSCOPE_DATA_DIR": str(tmp / "data"),
        "REELSCOPE_DATABASE_URL": url,
        "REELSCOPE_REDIS_URL": TEST_REDIS_URL,
        "REELSCOPE_READ_WORKERS": "0",
        "REELSCOPE_EXTRA_TASK_MODULES": "tests.worker.sample_tasks",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        # a short lease and a quick dispatcher, so a dead worker's job is noticed within seconds
        "REELSCOPE_JOB_LEASE_SECONDS": "3",
        "REELSCOPE_JOB_DISPATCH_INTERVAL_SECONDS": "0.5",
        "REELSCOPE_JOB_WORKERS": "1",
        "REELSCOPE_JOB_USER_WORKERS": "1",
        # the test's receiver: HTTPS on the loopback with a certificate of its own CA (README's recipe)
        "REELSCOPE_WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8",
        "REELSCOPE_WEBHOOK_CA_BUNDLE": str(tls.ca),
        "REELSCOPE_HOST": "127.0.0.1",
    }
    # what `reelscope migrate` runs, in this process: the cluster's processes are the point, and each would
    # otherwise start by upgrading the new database at the same moment
    upgrade_to_head(url)
    logs = tmp / "logs"
    logs.mkdir()
    ports = [free_port(), free_port()]
    procs = [start(["api", "--port", str(port)], env, logs / f"api-{i}.log") for i, port in enumerate(ports)]
    workers = {
        "periodic": start(["worker"], env, logs / "worker-periodic.log"),
        "plain": start(["worker", "--no-periodic"], env, logs / "worker-plain.log"),
    }
    made = Cluster(env, [f"http://127.0.0.1:{p}" for p in ports], workers, logs, url, receiver)
    try:
        for base, proc in zip(made.apis, procs, strict=True):
            wait_until_up(base, proc, deadline_s=120)
        made.alive()
        yield made
    finally:
        stop([*procs, *made.workers.values()])
        receiver_server.stop()
        flush_redis()
        asyncio.run(recreate(url, create=False))


@pytest.fixture
async def database(cluster: Cluster) -> AsyncIterator[Database]:
    """The test's own handle on the cluster's database (on the test's event loop)."""
    handle = create_database(cluster.url)
    yield handle
    await handle.dispose()


async def spread(
    cluster: Cluster, count: int, send: Callable[[httpx.AsyncClient, str, int], Awaitable[httpx.Response]]
) -> list[httpx.Response]:
    """``count`` requests at once, alternating between the two APIs."""
    async with httpx.AsyncClient(timeout=30) as http:
        return list(await asyncio.gather(*(send(http, cluster.apis[i % 2], i) for i in range(count))))


class TestScaleOut:
    async def test_a_teams_rate_limit_holds_exactly_across_apis(
        self, cluster: Cluster, database: Database
    ) -> None:
        # §8.1: a per-hour limit of 5 on hashtag stats, shared by both processes through Redis
        params = {"start_date": "2026-11-01", "end_date": "2026-11-20"}
        for attempt in range(2):
            name = f"limited-{attempt}"
            await cluster.team(database, name, 10_000, hashtag_stats=5)

            async def send(http: httpx.AsyncClient, base: str, _i: int, name: str = name) -> httpx.Response:
                return await http.get(base + "/v1/hashtags", params=params, headers=cluster.headers(name))

            responses = await spread(cluster, 12, send)
            # one window for all: a burst that straddled the top of an hour met two (with a fresh team
            # the second attempt is a full hour away from another straddle)
            if len({r.headers.get("X-RateLimit-Reset") for r in responses}) == 1:
                break
        codes = sorted(r.status_code for r in responses)
        assert codes == [200] * 5 + [429] * 7, [r.text for r in responses]
        assert all(r.headers["X-RateLimit-Limit"] == "5" for r in responses)
        assert all("Retry-After" in r.headers for r in responses if r.status_code == 429)

    async def test_a_balance_never_overdraws_under_concurrent_charges_on_both_apis(
        self, cluster: Cluster, database: Database
    ) -> None:
        # §8.2: hashtag stats cost $0.05 = 5 credits; 20 credits pay for exactly four of twelve
        await cluster.team(database, "thrifty", 20)
        params = {"start_date": "2026-11-01", "end_date": "2026-11-20"}

        async def send(http: httpx.AsyncClient, base: str, _i: int) -> httpx.Response:
            return await http.get(base + "/v1/hashtags", params=params, headers=cluster.headers("thrifty"))

        responses = await spread(cluster, 12, send)
        codes = sorted(r.status_code for r in responses)
        assert codes == [200] * 4 + [402] * 8, [r.text for r in responses]
        remaining = sorted(int(r.headers["X-Credits-Remaining"]) for r in responses if r.status_code == 200)
        assert remaining == [0, 5, 10, 15]
        async with httpx.AsyncClient() as http:
            balance = await http.get(
                cluster.apis[1] + "/v1/account/balance", headers=cluster.headers("thrifty")
            )
        assert balance.json()["data"]["credits_remaining"] == 0
        # every balance still equals the sum of its ledger
        verified = subprocess.run(
            [str(BIN / "reelscope"), "admin", "credits", "verify"],
            env=cluster.env,
            capture_output=True,
            text=True,
        )
        assert verified.returncode == 0, verified.stdout + verified.stderr

    async def test_an_agent_run_started_on_one_api_finishes_on_a_worker_reads_on_the_other_webhook_once(
        self, cluster: Cluster, database: Database
    ) -> None:
        await cluster.team(database, "agency", 1_000)
        async with httpx.AsyncClient(timeout=30) as http:
            endpoints = []
            for path in ("/first", "/second"):
                created = await http.post(
                    cluster.apis[0] + "/v1/webhooks",
                    json={"url": cluster.receiver.url(path), "enabled_events": [AGENT_RUN_COMPLETED]},
                    headers=cluster.headers("agency"),
                )
                assert created.status_code == 201, created.text
                endpoints.append(created.json())

            # §7: the same Idempotency-Key on the other process replays the first answer, charged once
            body = {"name": "bread", "keywords": ["sourdough"], "platforms": ["tiktok", "youtube"]}
            key = {"Idempotency-Key": "scale-out-agent-1"}
            first = await http.post(
                cluster.apis[0] + "/v1/agents", json=body, headers=cluster.headers("agency", **key)
            )
            again = await http.post(
                cluster.apis[1] + "/v1/agents", json=body, headers=cluster.headers("agency", **key)
            )
            assert first.status_code == again.status_code == 201, first.text + again.text
            assert again.json() == first.json()
            agent_id = first.json()["data"]["id"]
            balance = await http.get(
                cluster.apis[1] + "/v1/account/balance", headers=cluster.headers("agency")
            )
            assert balance.json()["data"]["credits_remaining"] == 1_000 - 50  # $0.50 once (§4.4)
            listed = await http.get(cluster.apis[1] + "/v1/agents", headers=cluster.headers("agency"))
            assert listed.json()["data"]["count"] == 1

            async def run_finished() -> bool:
                read = await http.get(
                    cluster.apis[1] + f"/v1/agents/{agent_id}/runs", headers=cluster.headers("agency")
                )
                runs = read.json()["data"]["runs"]
                return bool(runs) and runs[0]["status"] in {"completed", "failed"}

            await eventually(run_finished, "a worker to finish the agent run", cluster)
            runs = (
                await http.get(
                    cluster.apis[1] + f"/v1/agents/{agent_id}/runs", headers=cluster.headers("agency")
                )
            ).json()
            assert runs["data"]["runs"][0]["status"] == "completed", runs

            async def delivered() -> bool:
                for endpoint in endpoints:
                    log = await http.get(
                        cluster.apis[1] + f"/v1/webhooks/{endpoint['id']}/deliveries",
                        headers=cluster.headers("agency"),
                    )
                    rows = log.json()["deliveries"]
                    if not rows or any(row["status"] != "delivered" for row in rows):
                        return False
                return True

            await eventually(delivered, "both endpoints' deliveries to settle", cluster)
        # §6.1: once per endpoint, though two workers could have sent it; each webhook's delivery has its
        # own id (the Service-Event-Id header)
        ids = []
        for path in ("/first", "/second"):
            got = [r for r in cluster.receiver.at(path) if r.json()["event"] == AGENT_RUN_COMPLETED]
            assert len(got) == 1, [r.json() for r in got]
            data = got[0].json()["data"]
            assert (data["status"], data["orbit"]["id"]) == ("success", agent_id)
            ids.append(got[0].headers["service-event-id"])
        assert len(set(ids)) == 2

    async def test_a_schedule_fires_once_with_two_dispatchers(
        self, cluster: Cluster, database: Database
    ) -> None:
        # the periodic worker's dispatcher and this test's own dispatch passes race for one due firing
        await cluster.team(database, "scheduled", 0)
        team_id = cluster.teams["scheduled"]["team_id"]
        now = SystemClock().now()
        async with database.transaction() as session:
            schedule = await schedules_service.create(
                session,
                task="test.credit",
                job_type="probe",
                cadence="once",
                at=now,
                first_run_at=now,
                team_id=team_id,
                params={"team_id": team_id},
            )
        settings = Settings(data_dir=Path(cluster.env["REELSCOPE_DATA_DIR"]), redis_url=TEST_REDIS_URL)
        engine = JobEngine(settings, SystemClock())
        engine.bind(database)
        ctx = TaskContext(settings=settings, clock=SystemClock(), db=database)
        try:
            await asyncio.gather(*(dispatch_once(ctx) for _ in range(3)))

            async def credited() -> bool:
                async with database.transaction(write=False) as session:
                    jobs = (await session.execute(select(Job).where(Job.team_id == team_id))).scalars().all()
                return len(jobs) >= 1 and all(job.status == "completed" for job in jobs)

            await eventually(credited, "the fired job to complete", cluster)
            await dispatch_once(ctx)  # a pass after the firing fires nothing more
        finally:
            await asyncio.to_thread(engine.close)
        async with database.transaction(write=False) as session:
            jobs = (await session.execute(select(Job).where(Job.team_id == team_id))).scalars().all()
            assert [job.params["schedule_id"] for job in jobs] == [schedule.id]
            effects = (
                (
                    await session.execute(
                        select(LedgerEntry).where(
                            LedgerEntry.team_id == team_id, LedgerEntry.reference.like("effect:%")
                        )
                    )
                )
                .scalars()
                .all()
            )
            assert len(effects) == 1

    async def test_a_worker_killed_mid_job_loses_nothing(
        self, cluster: Cluster, database: Database, tmp_path: Path
    ) -> None:
        await cluster.team(database, "survivor", 0)
        team_id = cluster.teams["survivor"]["team_id"]
        gate, marks = tmp_path / "gate", tmp_path / "marks"
        marks.mkdir()
        settings = Settings(data_dir=Path(cluster.env["REELSCOPE_DATA_DIR"]), redis_url=TEST_REDIS_URL)
        engine = JobEngine(settings, SystemClock())
        engine.bind(database)
        try:
            async with database.transaction() as session:
                job = await jobs_service.create(
                    session,
                    task="test.blocking_credit",
                    type="probe",
                    at=SystemClock().now(),
                    team_id=team_id,
                    params={"team_id": team_id, "gate": str(gate), "marks": str(marks)},
                )

            async def started() -> bool:
                return (marks / "started-1").exists()

            await eventually(started, "a worker to start the job", cluster)
        finally:
            await asyncio.to_thread(engine.close)
        # the attempt's mark names the process running it: kill that one mid-job
        holder_pid = int((marks / "started-1").read_text())
        (holder,) = [name for name, proc in cluster.workers.items() if proc.pid == holder_pid]
        cluster.workers[holder].send_signal(signal.SIGKILL)
        cluster.workers[holder].wait(timeout=15)
        if holder == "periodic":
            # only a dispatcher notices an expired lease: an orchestrator restarts the periodic worker
            cluster.workers[holder] = start(["worker"], cluster.env, cluster.logs / "worker-periodic.log")
        else:
            del cluster.workers[holder]
        gate.touch()  # from now on an attempt runs to its end

        async def completed() -> bool:
            async with database.transaction(write=False) as session:
                row = await session.get(Job, job.id)
                return row is not None and row.status == "completed"

        await eventually(completed, "the job to complete after the kill", cluster)
        async with database.transaction(write=False) as session:
            done = await session.get(Job, job.id)
            assert done is not None and (done.attempts, done.result) == (2, {"credited": 1, "attempt": 2})
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
        assert int((marks / "started-2").read_text()) != holder_pid
