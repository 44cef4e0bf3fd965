"""Rows are the truth (issue §6): a worker killed mid-delivery loses nothing. The delivery it held is
attempted again once its lease runs out — possibly twice, never dropped."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from datetime import timedelta

import pytest

from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from reelscope.runtime import Runtime
from reelscope.webhook.delivery import Attempted, DeliveryReport, claim_due, record
from reelscope.webhook.transport import DeliveryClient, Outcome, Result
from tests.conftest import TeamKey
from tests.webhook.conftest import CreateWebhook, Deliver, Publish, ReadLog
from tests.webhook.receiver import Receiver

pytestmark = pytest.mark.both_databases

LOOKUP = "satellite.lookup.completed"

# A delivery worker in a process of its own, on the same database and the same (manual) time.
WORKER = """
import asyncio, os
from datetime import datetime
from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from reelscope.kit.db import create_database
from reelscope.webhook.delivery import deliver_due
from reelscope.webhook.transport import DeliveryClient

async def main():
    settings = Settings(
        database_url=os.environ["WORKER_DATABASE_URL"],
        webhook_allowed_networks="127.0.0.0/8",
        webhook_ca_bundle=os.environ["WORKER_CA_BUNDLE"],
    )
    db = create_database(settings.effective_database_url)
    http = DeliveryClient.from_settings(settings)
    await deliver_due(db, ManualClock(datetime.fromisoformat(os.environ["WORKER_NOW"])), http)

asyncio.run(main())
"""


class TestKilledWorker:
    async def test_kill_9_mid_delivery_loses_nothing(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        deliver: Deliver,
        receiver: Receiver,
        clock: ManualClock,
        settings: Settings,
        sender: DeliveryClient,
        read_log: ReadLog,
    ) -> None:
        hook = await create_webhook(team, url=receiver.url("/gate"))
        await publish(LOOKUP, {"precious": True}, team_id=team.team_id)
        receiver.hold.set()  # the receiver keeps the worker's request open
        assert settings.webhook_ca_bundle is not None
        env = {
            **os.environ,
            "WORKER_DATABASE_URL": settings.effective_database_url,
            "WORKER_CA_BUNDLE": str(settings.webhook_ca_bundle),
            "WORKER_NOW": clock.now().isoformat(),
        }
        worker = subprocess.Popen([sys.executable, "-c", WORKER], env=env)
        try:
            assert await asyncio.to_thread(receiver.arrived.wait, 60), "the worker never sent its attempt"
        finally:
            os.kill(worker.pid, signal.SIGKILL)
            await asyncio.to_thread(worker.wait, 30)
        assert worker.returncode == -signal.SIGKILL
        receiver.hold.clear()

        [entry] = await read_log(team, hook["id"])
        assert (entry["status"], entry["attempts"]) == ("pending", 0)  # the worker died before recording
        assert (await deliver()).attempted == 0  # its lease still holds
        clock.advance(sender.policy.lease)
        report = await deliver()
        assert report.delivered == 1
        requests = receiver.at("/gate")
        assert len(requests) == 2  # delivered twice: duplicates are possible (§6.1), loss is not
        assert len({r.headers["service-event-id"] for r in requests}) == 1
        [entry] = await read_log(team, hook["id"])
        assert (entry["status"], entry["attempts"]) == ("delivered", 1)


class TestLeases:
    async def test_claimed_delivery_is_attempted_again_after_the_lease(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        deliver: Deliver,
        receiver: Receiver,
        clock: ManualClock,
        runtime: Runtime,
        sender: DeliveryClient,
    ) -> None:
        await create_webhook(team)
        await publish(LOOKUP, team_id=team.team_id)
        claims = await claim_due(runtime.db, clock, sender.policy)  # a worker that then vanishes
        assert len(claims) == 1
        assert (await deliver()).attempted == 0
        clock.advance(sender.policy.lease - timedelta(seconds=1))
        assert (await deliver()).attempted == 0
        clock.advance(timedelta(seconds=1))
        assert (await deliver()).delivered == 1
        assert len(receiver.at("/hook")) == 1

    async def test_a_late_record_from_a_lost_lease_changes_nothing(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        deliver: Deliver,
        clock: ManualClock,
        runtime: Runtime,
        sender: DeliveryClient,
        read_log: ReadLog,
    ) -> None:
        hook = await create_webhook(team)
        await publish(LOOKUP, team_id=team.team_id)
        [stale] = await claim_due(runtime.db, clock, sender.policy)
        clock.advance(sender.policy.lease)
        assert (await deliver()).delivered == 1
        report = DeliveryReport()
        await record(
            runtime.db, sender.policy, [Attempted(stale, Result(Outcome.RETRYABLE, 503), clock.now())], report
        )
        assert report.lost_leases == 1
        [entry] = await read_log(team, hook["id"])
        assert (entry["status"], entry["attempts"], entry["response_status"]) == ("delivered", 1, 200)
