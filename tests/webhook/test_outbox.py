"""From the outbox to the receiver: events published in a transaction are delivered once it commits
(spec §6.1, §6.2; ARCHITECTURE §6). The job engine runs in Huey's immediate mode here, so the pump
that a commit sends runs before ``commit`` returns."""

from __future__ import annotations

from datetime import timedelta

import pytest

from reelscope.events import service as events_service
from reelscope.kit.clock import ManualClock
from reelscope.runtime import Runtime
from reelscope.webhook import samples
from reelscope.webhook.tasks import fan_out_new_events
from reelscope.worker.context import TaskContext
from reelscope.worker.engine import JobEngine
from tests.conftest import MakeTeam
from tests.webhook.conftest import CreateWebhook
from tests.webhook.receiver import Receiver

LOOKUP = "satellite.lookup.completed"
REGION = "trends.region.completed"


@pytest.fixture(autouse=True)
def engine(jobs: JobEngine) -> JobEngine:
    return jobs


async def publish(
    runtime: Runtime, clock: ManualClock, event: str, team_id: str | None, user_id: str = ""
) -> str:
    data = samples.sample_data(event, team_id=team_id or "", user_id=user_id, now=clock.now())
    async with runtime.db.transaction() as session:
        row = await events_service.publish(session, event, data, team_id, at=clock.now())
    return row.id


class TestOutboxToReceiver:
    async def test_a_committed_team_event_reaches_the_teams_endpoint(
        self,
        runtime: Runtime,
        clock: ManualClock,
        make_team: MakeTeam,
        create_webhook: CreateWebhook,
        receiver: Receiver,
    ) -> None:
        team = await make_team()
        other = await make_team()
        await create_webhook(team, url=receiver.url("/mine"), enabled_events=[LOOKUP])
        await create_webhook(other, url=receiver.url("/theirs"), enabled_events=[LOOKUP])
        await publish(runtime, clock, LOOKUP, team.team_id)
        mine = receiver.at("/mine")
        assert len(mine) == 1
        assert mine[0].headers["service-event-type"] == LOOKUP
        assert mine[0].json()["data"]["team_id"] == team.team_id
        assert receiver.at("/theirs") == []  # team-scoped (§6.1)

    async def test_public_trend_events_reach_every_subscribed_team(
        self,
        runtime: Runtime,
        clock: ManualClock,
        make_team: MakeTeam,
        create_webhook: CreateWebhook,
        receiver: Receiver,
    ) -> None:
        first, second, deaf = await make_team(), await make_team(), await make_team()
        await create_webhook(first, url=receiver.url("/a"), enabled_events=[REGION])
        await create_webhook(second, url=receiver.url("/b"), enabled_events=[REGION, LOOKUP])
        await create_webhook(deaf, url=receiver.url("/c"), enabled_events=[LOOKUP])
        await publish(runtime, clock, REGION, None)
        a, b = receiver.at("/a"), receiver.at("/b")
        assert len(a) == len(b) == 1
        assert a[0].json()["id"] != b[0].json()["id"]  # one delivery id per endpoint
        assert a[0].json()["data"] == b[0].json()["data"]
        assert receiver.at("/c") == []

    async def test_a_rolled_back_event_is_never_delivered(
        self,
        runtime: Runtime,
        clock: ManualClock,
        make_team: MakeTeam,
        create_webhook: CreateWebhook,
        receiver: Receiver,
    ) -> None:
        team = await make_team()
        await create_webhook(team, url=receiver.url("/mine"), enabled_events=[LOOKUP])
        data = samples.sample_data(LOOKUP, team_id=team.team_id, user_id="", now=clock.now())
        with pytest.raises(RuntimeError):
            async with runtime.db.transaction() as session:
                await events_service.publish(session, LOOKUP, data, team.team_id, at=clock.now())
                raise RuntimeError("the state change failed")
        await publish(runtime, clock, LOOKUP, team.team_id)  # a later event still goes out, alone
        assert len(receiver.at("/mine")) == 1

    async def test_each_event_is_fanned_out_once(
        self,
        runtime: Runtime,
        clock: ManualClock,
        make_team: MakeTeam,
        create_webhook: CreateWebhook,
        receiver: Receiver,
        task_context: TaskContext,
    ) -> None:
        team = await make_team()
        await create_webhook(team, url=receiver.url("/mine"), enabled_events=[LOOKUP])
        for _ in range(3):
            await publish(runtime, clock, LOOKUP, team.team_id)
        # the pumps already ran; running the fan-out again finds nothing new
        assert await fan_out_new_events(task_context) == 0
        clock.advance(timedelta(hours=1))
        assert len(receiver.at("/mine")) == 3
