"""Tracking events reach a real HTTPS receiver (spec §6.1-6.3): the first cycle, a scheduled cycle with
its deltas, an outlier post and a pause, each delivered to the team's webhook once. Also: cycles live
in the database (schedules and jobs rows), so a worker started afresh runs the next one."""

from __future__ import annotations

import asyncio
import math
from datetime import timedelta
from urllib.parse import urlsplit

import httpx
import pytest

from reelscope.kit.clock import ManualClock
from reelscope.runtime import Runtime
from reelscope.worker.context import TaskContext
from reelscope.worker.dispatcher import dispatch_once
from reelscope.worker.engine import JobEngine
from tests.conftest import MakeTeam
from tests.tracking.conftest import Advance, creator_handle, events, failing
from tests.tracking.test_endpoints import get, track
from tests.webhook.conftest import (  # noqa: F401  (fixtures)
    CreateWebhook,
    client,
    create_webhook,
    guard,
    receiver,
    receiver_server,
    sender,
    settings,
    tls,
)
from tests.webhook.receiver import Receiver

EVENTS = ["tracking.cycle.completed", "tracking.outlier_video.detected", "tracking.paused"]


class TestDelivered:
    async def test_cycles_outliers_and_pauses_reach_the_receiver(
        self,
        client: httpx.AsyncClient,  # noqa: F811
        make_team: MakeTeam,
        jobs: JobEngine,
        advance: Advance,
        create_webhook: CreateWebhook,  # noqa: F811
        receiver: Receiver,  # noqa: F811
    ) -> None:
        team = await make_team()
        await create_webhook(team, url=receiver.url("/tracking"), enabled_events=EVENTS)
        item = await track(client, team, creator_handle(3))  # maxcloset3: an outlier on day 5
        for _ in range(6):
            await advance(timedelta(days=1))
        failing(jobs)
        for _ in range(3):
            await advance(timedelta(days=1))
        received = receiver.at("/tracking")
        kinds = [r.headers["service-event-type"] for r in received]
        assert kinds.count("tracking.cycle.completed") == 7
        assert kinds.count("tracking.outlier_video.detected") == 1
        assert kinds.count("tracking.paused") == 1
        assert len({r.json()["id"] for r in received}) == len(received)
        [outlier] = [r.json()["data"] for r in received if r.headers["service-event-type"] == EVENTS[1]]
        [video] = outlier["outlier_videos"]
        assert outlier["tracking_id"] == item["id"] and video["outlier_ratio"] >= 3
        assert video["weighted_score"] == pytest.approx(
            math.log(video["outlier_ratio"]) * math.log(video["median_views"]), rel=1e-3
        )
        [paused] = [r.json()["data"] for r in received if r.headers["service-event-type"] == EVENTS[2]]
        assert paused["reason"] == paused["pause_reason"] == "max_failures_reached"
        assert urlsplit(paused["dashboard_url"]).path.startswith("/dashboard/")


class TestRestart:
    async def test_a_fresh_worker_runs_the_next_cycle_from_the_database(
        self,
        client: httpx.AsyncClient,  # noqa: F811
        make_team: MakeTeam,
        jobs: JobEngine,
        runtime: Runtime,
        clock: ManualClock,
    ) -> None:
        team = await make_team()
        item = await track(client, team, creator_handle(0))
        # a new engine (its own queue and loops) in place of the one that ran the first cycle: only the
        # schedules and jobs rows carry over
        fresh = JobEngine(runtime.settings, clock, immediate=True)
        fresh.bind(runtime.db)
        try:
            clock.advance(timedelta(days=1))
            await dispatch_once(TaskContext(settings=runtime.settings, clock=clock, db=runtime.db))
        finally:
            await asyncio.to_thread(fresh.close)
        data = (await get(client, team, f"/v1/tracking/creators/{item['id']}"))["data"]
        assert data["cycles_completed"] == 2
        assert len(await events(runtime, "tracking.cycle.completed")) == 2
