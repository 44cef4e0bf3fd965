"""The webhook pump: fan committed outbox events out to endpoints, then attempt every due delivery.

Sent after every commit that publishes an event or queues a delivery (test events, retries), and by
every dispatcher pass (``tick``), which is what attempts retries when their time comes (§6.1). It runs
on a lane of its own (ADR 0053), so a first attempt is not held behind the upkeep's long jobs.
"""

from __future__ import annotations

from reelscope.events import service as events_service
from reelscope.kit.logging import get_logger
from reelscope.webhook import delivery
from reelscope.webhook.transport import DeliveryClient
from reelscope.worker import TaskContext, task
from reelscope.worker.registry import Lane

log = get_logger(__name__)

CONSUMER = "webhooks"
BATCH = 200


async def fan_out_new_events(ctx: TaskContext) -> int:
    """Fan out every committed event the webhook consumer has not seen; how many deliveries were added."""
    added = 0
    while True:
        async with ctx.db.transaction() as session:
            cursor, batch = await events_service.claim_batch(session, CONSUMER, BATCH)
            for event in batch:
                added += await delivery.fan_out(
                    session, event.id, event.name, event.payload, event.team_id, event.created_at
                )
            if batch:
                cursor.sequence = batch[-1].sequence
        if len(batch) < BATCH:
            return added


@task(events_service.CONSUMER_TASK, tick=True, lane=Lane.EVENTS)
async def pump(ctx: TaskContext) -> dict[str, int]:
    fanned_out = await fan_out_new_events(ctx)

    async def refill() -> None:  # events committed while slow receivers hold this pump's slots
        nonlocal fanned_out
        fanned_out += await fan_out_new_events(ctx)

    client = DeliveryClient.from_settings(ctx.settings)
    try:
        report = await delivery.deliver_due(ctx.db, ctx.clock, client, refill=refill)
    finally:
        await client.aclose()
    if fanned_out or report.attempted:
        log.info(
            "webhook.pump", fanned_out=fanned_out, attempted=report.attempted, delivered=report.delivered
        )
    return {"fanned_out": fanned_out, "attempted": report.attempted, "delivered": report.delivered}
