"""Reads not declared small run in a read worker process (issue 33, ADR 0040): a client gets the same
answer, charged the same, as when the endpoint runs on the event loop, and while one read waits in the
worker the loop goes on answering everyone else.

Each test starts one worker process (a couple of seconds: it imports the app), hence the marker."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text, update

from reelscope.collectors.base import SoundRecord
from reelscope.contract.read_workers import BODY_FILE_BYTES, ReadCall, ReadWorkers
from reelscope.kit.clock import ManualClock
from reelscope.kit.migrate import HEAD
from reelscope.kit.platforms import Platform
from reelscope.models import AgentRun
from reelscope.runtime import Runtime
from reelscope.sound import service as sound_service
from reelscope.worker.engine import JobEngine
from tests.catalog_builders import ingest, video
from tests.conftest import TeamKey
from tests.kit.test_errors import assert_error
from tests.sound.test_endpoints import ESPRESSO, sound_id
from tests.test_probes import stamp

pytestmark = pytest.mark.process

LOFI = SoundRecord(platform=Platform.TIKTOK, external_id="s-lofi", title="Lo-fi beat", usage_count=900)


@pytest.fixture
async def sounds(runtime: Runtime, clock: ManualClock) -> None:
    """Two sounds used by videos of the last few days (the manual clock's days: the worker must read the
    same moment as the loop)."""
    now = clock.now()
    records = [
        video(f"e{i}", now - timedelta(days=1 + i), sound=ESPRESSO, views=1000 * (i + 1)) for i in range(3)
    ]
    records.append(video("l0", now - timedelta(days=2), sound=LOFI, views=50))
    await ingest(runtime, *records)
    await sound_service.refresh(runtime.db, now)  # the counts trending reads are kept by this job (ADR 0038)


@pytest.fixture
def workers(runtime: Runtime) -> ReadWorkers:
    """One read worker for the test's runtime (closed with it)."""
    runtime.read_workers = ReadWorkers(runtime.settings, 1)
    return runtime.read_workers


async def balance(client: httpx.AsyncClient, team: TeamKey) -> int:
    response = await client.get("/v1/account/balance", headers=team.headers)
    assert response.status_code == 200
    return int(response.json()["data"]["credits_remaining"])


@pytest.mark.both_databases
class TestSameAnswer:
    async def test_a_read_in_a_worker_answers_and_charges_as_on_the_loop(
        self,
        client: httpx.AsyncClient,
        runtime: Runtime,
        team: TeamKey,
        sounds: None,
        workers: ReadWorkers,
    ) -> None:
        in_worker = await client.get("/v1/sounds/trending", headers=team.headers)
        assert in_worker.status_code == 200, in_worker.text
        assert in_worker.headers["X-Credits-Used"] == "25"
        assert [item["id"] for item in in_worker.json()["data"]][:2] == [sound_id(ESPRESSO), sound_id(LOFI)]
        # a price the endpoint settles there is the one charged: +$0.10 only for the request that made
        # the resolution (§4.7), which the worker wrote
        resolve = f"/v1/sounds/{sound_id(ESPRESSO)}?resolve=true"
        assert (await client.get(resolve, headers=team.headers)).headers["X-Credits-Used"] == "15"
        assert (await client.get(resolve, headers=team.headers)).headers["X-Credits-Used"] == "5"
        assert await balance(client, team) == 1000 - 25 - 15 - 5
        runtime.read_workers = None
        on_loop = await client.get("/v1/sounds/trending", headers=team.headers)
        assert on_loop.status_code == 200
        assert in_worker.json() == on_loop.json()


async def agent_with_a_large_run(
    client: httpx.AsyncClient, runtime: Runtime, team: TeamKey
) -> tuple[str, dict[str, object]]:
    """The runs path of a new agent whose run's analysis is 2.4 MB of UTF-8, and that analysis."""
    created = await client.post(
        "/v1/agents",
        json={"name": "big", "keywords": ["sourdough"], "platforms": ["tiktok"]},
        headers=team.headers,
    )
    agent = created.json()["data"]
    analysis: dict[str, object] = {"run_id": agent["run_id"], "blob": ["é" * 1000] * 1200}
    async with runtime.db.transaction() as session:
        await session.execute(
            update(AgentRun).where(AgentRun.id == agent["run_id"]).values(analysis=analysis)
        )
    return f"/v1/agents/{agent['id']}/runs", analysis


class TestLargeBodies:
    async def test_a_body_past_a_megabyte_crosses_as_a_file_and_leaves_none(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey, jobs: JobEngine
    ) -> None:
        """ADR 0062: the worker writes it to a file of the API process's directory in memory, which the
        API process maps and unlinks: the client gets the bytes it gets on the loop, and no file stays."""
        path, analysis = await agent_with_a_large_run(client, runtime, team)
        shared = Path("/dev/shm") if Path("/dev/shm").is_dir() else Path(tempfile.gettempdir())
        before = set(shared.glob(f"reelscope-bodies-{os.getpid()}-*"))
        workers = runtime.read_workers = ReadWorkers(runtime.settings, 1)
        in_worker = await client.get(path, headers=team.headers)
        assert in_worker.status_code == 200 and len(in_worker.content) > BODY_FILE_BYTES
        (directory,) = set(shared.glob(f"reelscope-bodies-{os.getpid()}-*")) - before
        assert list(directory.iterdir()) == []
        await workers.close()
        assert not directory.exists()
        runtime.read_workers = None
        on_loop = await client.get(path, headers=team.headers)
        assert in_worker.content == on_loop.content
        assert in_worker.json()["data"]["runs"][0]["analysis"] == analysis

    async def test_the_body_file_of_a_cancelled_request_is_removed(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey, jobs: JobEngine
    ) -> None:
        """A request cancelled while its worker renders a large body: nobody maps that file, so it is
        removed once written rather than kept in memory until the pool closes."""
        path, _ = await agent_with_a_large_run(client, runtime, team)
        shared = Path("/dev/shm") if Path("/dev/shm").is_dir() else Path(tempfile.gettempdir())
        before = set(shared.glob(f"reelscope-bodies-{os.getpid()}-*"))
        workers = runtime.read_workers = ReadWorkers(runtime.settings, 1)
        try:
            cancelled = asyncio.create_task(client.get(path, headers=team.headers))
            # the directory is made with the pool, just before the call is given to it
            deadline = time.monotonic() + 60
            while not set(shared.glob(f"reelscope-bodies-{os.getpid()}-*")) - before:
                assert time.monotonic() < deadline, "the call never reached the pool"
                await asyncio.sleep(0.01)
            (directory,) = set(shared.glob(f"reelscope-bodies-{os.getpid()}-*")) - before
            cancelled.cancel()
            with pytest.raises(asyncio.CancelledError):
                await cancelled
            # one worker answers in order: once the next answer is here, the cancelled one was written
            answered = await client.get(path, headers=team.headers)
            assert answered.status_code == 200 and len(answered.content) > BODY_FILE_BYTES
            assert list(directory.iterdir()) == []
        finally:
            await workers.close()
            runtime.read_workers = None


class TestOtherRequests:
    async def test_a_post_that_writes_nothing_gets_its_body_in_the_worker(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey, sounds: None, workers: ReadWorkers
    ) -> None:
        """§4.4 suggest-keywords (``@writes_nothing``) runs like a read, so in a worker, with its JSON."""
        body = {"intent": "espresso latte art at home", "mode": "create"}
        in_worker = await client.post("/v1/agents/suggest-keywords", json=body, headers=team.headers)
        assert in_worker.status_code == 200, in_worker.text
        runtime.read_workers = None
        on_loop = await client.post("/v1/agents/suggest-keywords", json=body, headers=team.headers)
        assert in_worker.json() == on_loop.json()
        assert in_worker.json()["data"]["keywords"]

    async def test_a_read_whose_client_left_before_its_turn_is_not_run(self, runtime: Runtime) -> None:
        workers = ReadWorkers(runtime.settings, 1)

        async def gone() -> bool:
            return True

        def build() -> ReadCall:
            raise AssertionError("not built: nothing is sent to a worker")

        assert await workers.run("team", build, gone) is None
        await workers.close()


class TestReadiness:
    async def test_not_ready_until_its_read_workers_have_started(
        self, client: httpx.AsyncClient, runtime: Runtime, workers: ReadWorkers
    ) -> None:
        """/readyz (issue 29 item 3): a long read sent before the workers started waited seconds for one
        to import the app, so a load balancer must not send it yet."""
        await stamp(runtime, HEAD)
        response = await client.get("/readyz")
        assert response.status_code == 503
        assert response.json()["checks"]["read_workers"] == "read workers not started"

        workers.start()
        for started in workers._warming:
            await asyncio.wrap_future(started)

        response = await client.get("/readyz")
        assert response.status_code == 200, response.text
        assert response.json()["checks"]["read_workers"] == "ok"


class TestErrors:
    async def test_an_error_raised_in_the_worker_has_its_spec_body_and_charges_nothing(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey, workers: ReadWorkers
    ) -> None:
        missing = await client.get("/v1/sounds/no-such-sound", headers=team.headers)
        assert_error(missing, 404, "not_found")
        invalid = await client.get("/v1/sounds/trending?limit=zero", headers=team.headers)
        body = assert_error(invalid, 400, "validation_error")
        runtime.read_workers = None
        assert (await client.get("/v1/sounds/no-such-sound", headers=team.headers)).json() == missing.json()
        assert (await client.get("/v1/sounds/trending?limit=zero", headers=team.headers)).json() == body
        assert await balance(client, team) == 1000


async def wait_for_a_blocked_read(runtime: Runtime) -> None:
    deadline = time.monotonic() + 60  # the worker process starts first: a couple of seconds
    while time.monotonic() < deadline:
        async with runtime.db.transaction(write=False) as session:
            waiting = await session.scalar(text("SELECT count(*) FROM pg_locks WHERE NOT granted"))
        if waiting:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the read never reached the locked table")


@pytest.mark.postgres
@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
class TestWhileAReadWaits:
    async def test_the_loop_answers_others_meanwhile(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey, sounds: None, workers: ReadWorkers
    ) -> None:
        async with runtime.db.transaction() as lock:
            # another transaction holds the sounds table: a read of it waits, in the worker
            await lock.execute(text("LOCK TABLE sounds IN ACCESS EXCLUSIVE MODE"))
            waiting = asyncio.create_task(client.get("/v1/sounds/trending", headers=team.headers))
            await wait_for_a_blocked_read(runtime)
            assert (await client.get("/")).status_code == 200
            assert await balance(client, team) == 1000
            assert not waiting.done()
        response = await waiting
        assert response.status_code == 200
        assert await balance(client, team) == 1000 - 25


# an API process with one read worker, started as `reelscope api` starts them; it waits to be killed
API_WITH_A_WORKER = """
import sys, time
from reelscope.config import Settings
from reelscope.contract.read_workers import ReadWorkers
ReadWorkers(Settings(data_dir=sys.argv[1]), 1).start()
time.sleep(300)
"""


def spawned_children(pid: int) -> list[int]:
    """The multiprocessing children of ``pid`` (the read workers, and the resource tracker that goes with
    them), from /proc."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            found += [int(child) for child in (task / "children").read_text().split()]
    return [c for c in found if b"multiprocessing" in Path(f"/proc/{c}/cmdline").read_bytes()]


def running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


class TestAKilledApiProcess:
    def test_its_read_workers_leave_with_it(self, tmp_path: Path) -> None:
        """Found by benchmarks/soak.py (issue 31 item 2): after `kill -9` of `reelscope serve`, its read
        worker stayed on, an orphan with its memory and database connections, one more each time."""
        api = subprocess.Popen([sys.executable, "-c", API_WITH_A_WORKER, str(tmp_path)])
        try:
            deadline = time.monotonic() + 60
            while not (workers := spawned_children(api.pid)) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert workers, "the read worker never started"
        finally:
            api.kill()
            api.wait()
        deadline = time.monotonic() + 60  # the worker's start imports the app: a couple of seconds
        while any(running(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = [pid for pid in workers if running(pid)]
        for pid in left:  # not to leave them behind when the test fails
            os.kill(pid, signal.SIGKILL)
        assert not left
