"""The lanes of the job engine (ADR 0042, 0053; issue 33 item 5, issue 31): work a team waits for and the
webhook pump start while every background worker is busy with long upkeep, on a SQLite queue and on a
Redis queue; which tasks travel on which lane.

The consumers are real (``start_embedded``: Huey's thread workers polling the queue); the waiting is on
events the tasks set, with a deadline that only catches a user job that never starts.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest

from reelscope.agent import service as agent_service
from reelscope.audience import service as audience_service
from reelscope.config import Settings
from reelscope.events import service as events_service
from reelscope.kit.clock import SystemClock
from reelscope.lookup import service as lookup_service
from reelscope.runtime import Runtime
from reelscope.tracking import service as tracking_service
from reelscope.trend import tasks as trend_tasks
from reelscope.worker import enqueue
from reelscope.worker.consumer import start_embedded
from reelscope.worker.engine import JobEngine
from reelscope.worker.jobs import service as jobs_service
from reelscope.worker.registry import Lane, discover, lane_of, registered
from tests.conftest import TeamKey
from tests.fixtures.jobs import flush_redis
from tests.fixtures.services import TEST_REDIS_URL, require_redis
from tests.worker import sample_tasks

# how long a started user job may take to be seen: only a job that never starts comes near it
DEADLINE_SECONDS = 30


@pytest.fixture(params=["sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def consumer_settings(request: pytest.FixtureRequest, settings: Settings) -> Iterator[Settings]:
    """Two background workers and one user worker, on a SQLite queue in the data dir or on Redis."""
    update: dict[str, object] = {"job_workers": 2, "job_user_workers": 1, "job_event_workers": 1}
    if request.param == "redis":
        require_redis()
        flush_redis()
        update["redis_url"] = TEST_REDIS_URL
    yield settings.model_copy(update=update)
    if request.param == "redis":
        flush_redis()


class TestUserLane:
    async def test_a_user_job_starts_while_every_background_worker_holds_a_long_job(
        self, runtime: Runtime, consumer_settings: Settings, team: TeamKey, request: pytest.FixtureRequest
    ) -> None:
        label = request.node.name
        held = sample_tasks.HOLDS[label] = sample_tasks.Hold()
        started = sample_tasks.STARTED[label] = threading.Event()
        embedded = await asyncio.to_thread(start_embedded, consumer_settings, periodic=False)
        embedded.engine.bind(runtime.db)  # what the test commits is sent to these consumers' queues
        try:
            background = consumer_settings.job_workers
            async with runtime.db.transaction() as session:
                for _ in range(background + 1):  # one for each background worker, and one queued behind
                    enqueue(session, "test.hold", label=label)
            for _ in range(background):
                assert await asyncio.to_thread(held.started.acquire, True, DEADLINE_SECONDS)

            async with runtime.db.transaction() as session:
                job = await jobs_service.create(
                    session,
                    task="test.signal",
                    type="probe",
                    at=SystemClock().now(),  # the consumers claim on the system clock
                    team_id=team.team_id,
                    params={"label": label},
                )
            assert await asyncio.to_thread(started.wait, DEADLINE_SECONDS), f"job {job.id} never started"
            # it started while the upkeep still held every background worker (the third hold still waits)
            assert not held.started.acquire(blocking=False)
        finally:
            held.release.set()
            await asyncio.to_thread(embedded.stop)
            del sample_tasks.HOLDS[label], sample_tasks.STARTED[label]


class TestEventsLane:
    async def test_the_webhook_pumps_lane_runs_while_every_other_worker_holds_a_long_job(
        self, runtime: Runtime, consumer_settings: Settings, request: pytest.FixtureRequest
    ) -> None:
        """§6.1's first attempt is immediate: the soak (issue 31) saw it wait 321 s behind the upkeep."""
        label = request.node.name
        held = sample_tasks.HOLDS[label] = sample_tasks.Hold()
        started = sample_tasks.STARTED[label] = threading.Event()
        embedded = await asyncio.to_thread(start_embedded, consumer_settings, periodic=False)
        embedded.engine.bind(runtime.db)
        try:
            background = consumer_settings.job_workers
            async with runtime.db.transaction() as session:
                for _ in range(background + 1):
                    enqueue(session, "test.hold", label=label)
            for _ in range(background):
                assert await asyncio.to_thread(held.started.acquire, True, DEADLINE_SECONDS)
            async with runtime.db.transaction() as session:
                enqueue(session, "test.signal_event", label=label)
            assert await asyncio.to_thread(started.wait, DEADLINE_SECONDS), "the events lane never ran"
            assert not held.started.acquire(blocking=False)
        finally:
            held.release.set()
            await asyncio.to_thread(embedded.stop)
            del sample_tasks.HOLDS[label], sample_tasks.STARTED[label]


class TestRunNext:
    @pytest.mark.parametrize(
        "queue_backend", ["sqlite", pytest.param("redis", marks=pytest.mark.redis)], indirect=True
    )
    async def test_the_stand_in_for_the_consumers_takes_queued_user_work_first(
        self, runtime: Runtime, jobs: JobEngine, request: pytest.FixtureRequest
    ) -> None:
        label = request.node.name
        held = sample_tasks.HOLDS[label] = sample_tasks.Hold()
        held.release.set()  # a hold that runs ends at once here
        started = sample_tasks.STARTED[label] = threading.Event()
        try:
            async with runtime.db.transaction() as session:
                enqueue(session, "test.hold", label=label)  # queued first
                enqueue(session, "test.signal", label=label)
            assert jobs.run_next()
            assert started.is_set() and not held.started.acquire(blocking=False)
            assert jobs.run_next() and held.started.acquire(blocking=False)
            assert not jobs.run_next()
        finally:
            del sample_tasks.HOLDS[label], sample_tasks.STARTED[label]


class TestWhichLane:
    @pytest.fixture(autouse=True)
    def every_task_registered(self) -> None:
        # as a worker does at start: the lanes are read from the registry, which a task module fills
        # when imported (alone, this file imports some of them, not catalog's nor webhook's)
        discover()

    @pytest.mark.parametrize(
        "name",
        [
            agent_service.RUN_TASK,
            agent_service.SCHEDULED_RUN_TASK,
            agent_service.ANALYSIS_TASK,
            lookup_service.RUN_TASK,
            lookup_service.VIDEO_OUTLIER_TASK,
            tracking_service.CYCLE_TASK,
            tracking_service.COLLECT_TASK,
            audience_service.SNAPSHOT_TASK,
        ],
    )
    def test_work_a_team_waits_for_is_user_work(self, name: str) -> None:
        assert lane_of(name) is Lane.USER

    @pytest.mark.parametrize("name", [trend_tasks.RUN_TASK, "trend.backfill", "catalog.collect"])
    def test_the_upkeep_is_background_work(self, name: str) -> None:
        assert lane_of(name) is Lane.BACKGROUND

    def test_the_webhook_pump_has_a_lane_of_its_own(self) -> None:
        assert lane_of(events_service.CONSUMER_TASK) is Lane.EVENTS

    def test_every_periodic_task_is_background_work(self) -> None:
        periodic = [t for t in registered().values() if t.periodic is not None]
        assert periodic and all(t.lane is Lane.BACKGROUND for t in periodic)
