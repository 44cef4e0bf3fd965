"""The retention purge of webhook deliveries (issue 31 item 1): settled deliveries past 30 days go with their
attempts, pending ones stay, and a delivery log cursor stays valid across a purge (§2.7, §8.3)."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from sqlalchemy import func, select, update

from reelscope.kit.clock import ManualClock
from reelscope.models import WebhookAttempt, WebhookDelivery
from reelscope.retention import tasks as retention_tasks
from reelscope.runtime import Runtime
from reelscope.worker import TaskContext
from tests.conftest import TeamKey
from tests.webhook.conftest import CreateWebhook, Publish
from tests.webhook.test_delivery_log import walk

LOOKUP = "satellite.lookup.completed"
DAY = timedelta(days=1)


async def set_status(runtime: Runtime, event_ids: list[str], status: str) -> None:
    async with runtime.db.transaction() as session:
        await session.execute(
            update(WebhookDelivery)
            .where(WebhookDelivery.event_id.in_(event_ids))
            .values(status=status, next_attempt_at=None)
        )


async def surviving(runtime: Runtime) -> set[str]:
    async with runtime.db.transaction(write=False) as session:
        return set((await session.scalars(select(WebhookDelivery.event_id))).all())


@pytest.mark.both_databases
async def test_settled_deliveries_past_the_window_go_and_pending_ones_stay(
    runtime: Runtime,
    clock: ManualClock,
    team: TeamKey,
    create_webhook: CreateWebhook,
    publish: Publish,
    task_context: TaskContext,
) -> None:
    await create_webhook(team)
    settled = {status: await publish(LOOKUP, team_id=team.team_id) for status in
               ("delivered", "failed", "dead", "payload_too_large")}  # fmt: skip
    pending = await publish(LOOKUP, team_id=team.team_id)
    for status, event_id in settled.items():
        await set_status(runtime, [event_id], status)
    async with runtime.db.transaction() as session:
        delivery_id = (
            await session.scalars(
                select(WebhookDelivery.id).where(WebhookDelivery.event_id == settled["failed"])
            )
        ).one()
        session.add(
            WebhookAttempt(
                delivery_id=delivery_id, number=1, attempted_at=clock.now(), outcome="rejected", duration_ms=3
            )
        )
    clock.advance(29 * DAY)
    young = await publish(LOOKUP, team_id=team.team_id)
    await set_status(runtime, [young], "delivered")
    assert (await retention_tasks.purge(task_context))["deliveries"] == 0  # 29 days: nothing is old yet

    clock.advance(2 * DAY)
    assert (await retention_tasks.purge(task_context))["deliveries"] == 4
    # a delivery still scheduled (pending) is never purged, however old
    assert await surviving(runtime) == {pending, young}
    async with runtime.db.transaction(write=False) as session:
        assert (await session.scalar(select(func.count()).select_from(WebhookAttempt))) == 0


async def test_a_cursor_on_a_purged_delivery_still_pages(
    runtime: Runtime,
    client: httpx.AsyncClient,
    clock: ManualClock,
    team: TeamKey,
    create_webhook: CreateWebhook,
    publish: Publish,
    task_context: TaskContext,
) -> None:
    """§8.3: the cursor carries (created_at, id), not a position, so rows purged at or before it change
    nothing of the pages after it."""
    hook_id = str((await create_webhook(team))["id"])
    old = []
    for _ in range(6):
        old.append(await publish(LOOKUP, team_id=team.team_id))
        clock.advance(DAY)
    clock.advance(40 * DAY)
    young = [await publish(LOOKUP, team_id=team.team_id) for _ in range(2)]
    oldest_pending, *old_delivered = old
    await set_status(runtime, old_delivered + young, "delivered")

    first = (
        await client.get(f"/v1/webhooks/{hook_id}/deliveries", params={"limit": 3}, headers=team.headers)
    ).json()
    assert len(first["deliveries"]) == 3 and first["next_cursor"] is not None

    assert (await retention_tasks.purge(task_context))["deliveries"] == 5  # the cursor's own row among them
    response = await client.get(
        f"/v1/webhooks/{hook_id}/deliveries",
        params={"limit": 3, "cursor": first["next_cursor"]},
        headers=team.headers,
    )
    assert response.status_code == 200, response.text
    rest = response.json()
    assert rest["next_cursor"] is None
    assert [d["status"] for d in rest["deliveries"]] == ["pending"]
    # and a fresh walk shows exactly the survivors
    seen = [d for page in await walk(client, team, hook_id, 1) for d in page["deliveries"]]
    assert len(seen) == 3
    assert await surviving(runtime) == {oldest_pending, *young}
