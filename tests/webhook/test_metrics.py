"""Webhook metrics (issue 29 item 2): deliveries due read at scrape time, attempts and lag counted."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest

from reelscope.kit.clock import ManualClock
from tests.conftest import TeamKey
from tests.test_metrics import scrape, value
from tests.webhook.conftest import CreateWebhook, Deliver, Publish
from tests.webhook.receiver import Receiver

pytestmark = pytest.mark.both_databases

LOOKUP = "satellite.lookup.completed"


async def test_due_then_delivered_with_its_lag(
    create_webhook: CreateWebhook,
    team: TeamKey,
    publish: Publish,
    deliver: Deliver,
    receiver: Receiver,
    client: httpx.AsyncClient,
    clock: ManualClock,
) -> None:
    await create_webhook(team)
    await publish(LOOKUP, {"run_id": "r-1", "status": "success"}, team_id=team.team_id)
    clock.advance(timedelta(seconds=4))
    due = await scrape(client)
    assert value(due, "reelscope_webhook_deliveries_due") == 1
    assert value(due, "reelscope_webhook_oldest_due_seconds") == 4

    report = await deliver()
    assert report.delivered == 1
    done = await scrape(client)
    assert value(done, "reelscope_webhook_deliveries_due") == 0
    attempts = {"outcome": "delivered", "status": "delivered"}
    name = "reelscope_webhook_attempts_total"
    assert value(done, name, **attempts) - value(due, name, **attempts) == 1
    lag = "reelscope_webhook_delivery_lag_seconds"
    assert value(done, f"{lag}_count", event_type=LOOKUP) - value(due, f"{lag}_count", event_type=LOOKUP) == 1
    assert value(done, f"{lag}_sum", event_type=LOOKUP) - value(due, f"{lag}_sum", event_type=LOOKUP) == 4
    shown = {v for s in done for v in s.labels.values()}
    assert team.team_id not in shown and receiver.url("/hook") not in shown
