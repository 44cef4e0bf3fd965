"""publish() writes the event in the caller's transaction; events_after() reads them back in order."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from reelscope.events import service as events_service
from reelscope.kit.clock import ManualClock
from reelscope.runtime import Runtime
from tests.conftest import TeamKey
from tests.events import samples

pytestmark = pytest.mark.both_databases


class Rollback(Exception):
    pass


class TestPublish:
    async def test_an_event_exists_exactly_when_its_transaction_commits(
        self, runtime: Runtime, team: TeamKey, clock: ManualClock
    ) -> None:
        [audience] = samples.SAMPLES["audience.snapshot.completed"]
        with pytest.raises(Rollback):
            async with runtime.db.transaction() as session:
                await events_service.publish(
                    session, "audience.snapshot.completed", audience, team.team_id, at=clock.now()
                )
                raise Rollback
        async with runtime.db.transaction() as session:
            row = await events_service.publish(
                session, "audience.snapshot.completed", audience, team.team_id, at=clock.now()
            )
        async with runtime.db.transaction(write=False) as session:
            events = await events_service.events_after(session)
        assert [(e.id, e.name, e.team_id, e.created_at) for e in events] == [
            (row.id, "audience.snapshot.completed", team.team_id, clock.now())
        ]
        assert events[0].payload["confidence_per_signal"]["country"] == 0.8

    async def test_events_come_back_in_creation_order_page_by_page(
        self, runtime: Runtime, team: TeamKey, clock: ManualClock
    ) -> None:
        [paused] = samples.SAMPLES["tracking.paused"]
        published = []
        for n in range(5):
            async with runtime.db.transaction() as session:
                row = await events_service.publish(
                    session,
                    "tracking.paused",
                    {**paused, "tracking_id": f"t{n}"},
                    team.team_id,
                    at=clock.now(),
                )
                published.append(row.id)
        async with runtime.db.transaction(write=False) as session:
            first = await events_service.events_after(session, 0, limit=3)
            rest = await events_service.events_after(session, first[-1].sequence, limit=3)
            done = await events_service.events_after(session, rest[-1].sequence, limit=3)
        assert [e.id for e in first + rest] == published
        assert [e.payload["tracking_id"] for e in first + rest] == ["t0", "t1", "t2", "t3", "t4"]
        assert done == []

    async def test_an_agent_run_also_fires_its_legacy_alias(
        self, runtime: Runtime, team: TeamKey, clock: ManualClock
    ) -> None:
        async with runtime.db.transaction() as session:
            for data in (samples.agent_run_success(False), samples.agent_run_failed(True)):
                await events_service.publish(
                    session, "content_research_agent.run.completed", data, team.team_id, at=clock.now()
                )
        async with runtime.db.transaction(write=False) as session:
            events = await events_service.events_after(session)
        assert [(e.name, e.payload["run_id"]) for e in events] == [
            ("content_research_agent.run.completed", "run-1"),
            ("orbit.run.completed", "run-1"),
            ("content_research_agent.run.completed", "run-2"),
            ("comet.run.completed", "run-2"),
        ]
        assert len({e.id for e in events}) == 4

    async def test_public_events_carry_no_team_and_team_events_need_one(
        self, runtime: Runtime, team: TeamKey, clock: ManualClock
    ) -> None:
        [paused] = samples.SAMPLES["tracking.paused"]
        async with runtime.db.transaction() as session:
            row = await events_service.publish(
                session, "trends.daily.completed", samples.trends(), None, at=clock.now()
            )
            assert row.team_id is None
            with pytest.raises(ValueError, match="public"):
                await events_service.publish(
                    session, "trends.region.completed", samples.trends(), team.team_id, at=clock.now()
                )
            with pytest.raises(ValueError, match="team-scoped"):
                await events_service.publish(session, "tracking.paused", paused, None, at=clock.now())

    async def test_unknown_events_and_bad_payloads_are_refused(
        self, runtime: Runtime, team: TeamKey, clock: ManualClock
    ) -> None:
        async with runtime.db.transaction() as session:
            with pytest.raises(ValueError, match="not an event"):
                await events_service.publish(session, "agent.finished", {}, team.team_id, at=clock.now())
            with pytest.raises(ValidationError):
                await events_service.publish(
                    session, "satellite.lookup.completed", samples.trends(), team.team_id, at=clock.now()
                )
