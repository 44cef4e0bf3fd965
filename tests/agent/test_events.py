"""Breaking stories between runs of recurring agents (spec §4.4 /events, §6.2, §6.3
`content_research_agent.event.detected`; ADR 0032): the hourly scan job over the catalog and the news
source, the lifecycle on the manual clock, short-lived keywords or a proposal, and the webhook payload
through a real HTTPS receiver."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, cast

import pytest

from reelscope.agent import tasks as agent_tasks
from reelscope.agent.autopilot import breaking
from reelscope.collectors.base import Capability, Connector, NewsItem
from reelscope.collectors.routing import Sources
from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from reelscope.runtime import Runtime
from reelscope.worker import registry
from reelscope.worker.context import TaskContext
from tests.agent.conftest import CreateAgent, Get
from tests.catalog_builders import ingest, video
from tests.conftest import TeamKey
from tests.webhook import conftest as webhook_fixtures
from tests.webhook.conftest import CreateWebhook
from tests.webhook.receiver import Receiver, TlsFiles

tls = webhook_fixtures.tls
receiver_server = webhook_fixtures.receiver_server
receiver = webhook_fixtures.receiver
guard = webhook_fixtures.guard
client = webhook_fixtures.client
create_webhook = webhook_fixtures.create_webhook

EVENT = "content_research_agent.event.detected"
# crumbquake: a keyword the sandbox has no videos for, which bursts in the catalog below
BURSTING = {"keywords": ["sourdough", "crumbquake"], "platforms": ["tiktok"], "is_recurring": True}
PAYLOAD_FIELDS = {
    "agent_id", "agent_name", "is_recurring", "event_id", "title", "summary", "salience", "source",
    "status", "detected_at", "confirmed_at", "expires_at", "event_date", "keywords", "keywords_added",
    "evidence", "action_taken", "next_run_at",
}  # fmt: skip


@pytest.fixture
def settings(data_dir: Path, database_url: str, redis_url: str | None, tls: TlsFiles) -> Settings:
    return Settings(
        data_dir=data_dir,
        database_url=database_url,
        redis_url=redis_url,
        webhook_allowed_networks="127.0.0.0/8",
        webhook_ca_bundle=tls.ca,
    )


async def burst(runtime: Runtime, now: datetime, count: int = 12) -> None:
    """``count`` videos with #crumbquake #ovenspring posted in the last hours (none before)."""
    await ingest(
        runtime,
        *[
            video(
                f"quake{i}",
                now - timedelta(hours=1 + i % 6),
                views=1000 * (i + 1),
                hashtags=("#crumbquake", "#ovenspring", "#fyp"),
                fetched_at=now - timedelta(minutes=30),
            )
            for i in range(count)
        ],
    )


class StubNews:
    """A news source answering what the test says (the scan's only use of a connector here)."""

    name = "news"
    platforms = frozenset(Platform)
    capabilities = {Capability.NEWS: frozenset()}

    def __init__(self) -> None:
        self.items: list[NewsItem] = []

    async def news(self, keywords: Sequence[str], since: datetime, until: datetime) -> list[NewsItem]:
        return [i for i in self.items if since <= i.published_at < until]

    def article(self, domain: str, at: datetime) -> None:
        self.items.append(
            NewsItem(
                title="Laminated sourdough takes over",
                url=f"https://{domain}/laminated",
                domain=domain,
                published_at=at,
                fetched_at=at,
                summary="Bakers everywhere fold butter into sourdough.",
                keywords=("sourdough", "laminatedsourdough"),
            )
        )


class TestCorpusBurst:
    async def test_confirmed_story_adds_short_lived_keywords_and_fires_the_webhook(
        self,
        create_agent: CreateAgent,
        create_webhook: CreateWebhook,
        get: Get,
        team: TeamKey,
        receiver: Receiver,
        runtime: Runtime,
        clock: ManualClock,
        task_context: TaskContext,
    ) -> None:
        await create_webhook(team, url=receiver.url("/events"), enabled_events=[EVENT])
        agent = await create_agent(team, **BURSTING)
        path = f"/v1/agents/{agent['id']}"
        assert registry.get(breaking.SCAN_TASK).periodic is not None  # a fixed system job
        assert await get(team, f"{path}/events") == {"count": 0, "events": []}
        await burst(runtime, clock.now())

        report = await agent_tasks.scan_events(task_context)
        assert report["detected"] == report["confirmed"] == 1
        (event,) = (await get(team, f"{path}/events"))["events"]
        assert event["source"] == "corpus_burst" and event["status"] == "confirmed"
        assert event["keywords"] == ["crumbquake", "ovenspring"]  # #fyp is generic
        assert event["keywords_added"] == ["ovenspring"] and event["action_taken"] == "timely_keywords"
        assert 0 <= event["salience"] <= 10 and event["evidence"][0]["domain"] == "example.test"
        now = await get(team, path)
        assert now["keywords"][-1] == "ovenspring" and now["pinned_keywords"] == BURSTING["keywords"]
        assert now["timely_keywords"][0]["keyword"] == "ovenspring"
        assert now["timely_keywords"][0]["expires_at"] == event["expires_at"]

        (message,) = [r.json() for r in receiver.at("/events")]
        assert message["event"] == EVENT
        data = message["data"]
        assert set(data) == PAYLOAD_FIELDS
        assert data["agent_id"] == agent["id"] and data["agent_name"] == agent["name"]
        assert data["is_recurring"] is True and data["event_id"] == event["event_id"]
        assert data["status"] == "confirmed" and data["source"] == "corpus_burst"
        assert data["event_date"] is None and data["keywords_added"] == ["ovenspring"]
        assert data["confirmed_at"] == data["detected_at"] == "2026-11-21T12:00:30Z"
        assert data["expires_at"] == "2026-11-24T12:00:30Z"
        assert data["next_run_at"] == "2026-11-22T12:00:00Z"
        assert set(data["evidence"][0]) == {"title", "url", "domain"}

        # idempotent: the same scan again adds nothing and sends nothing
        again = await agent_tasks.scan_events(task_context)
        assert again["detected"] == again["confirmed"] == 0
        assert (await get(team, f"{path}/events"))["count"] == 1
        assert len(receiver.at("/events")) == 1
        assert len((await get(team, f"{path}/runs"))["runs"]) == 1  # no extra run, no charge

        clock.advance(timedelta(hours=73))
        ended = await agent_tasks.scan_events(task_context)
        assert ended["expired"] == 1
        (event,) = (await get(team, f"{path}/events"))["events"]
        assert event["status"] == "expired"
        after = await get(team, path)
        assert "ovenspring" not in after["keywords"] and after["timely_keywords"] == []
        actions = [a["action"] for a in (await get(team, f"{path}/activity"))["activity"]]
        assert actions[:1] == ["timely_keywords_expired"]
        assert {"event_confirmed", "timely_keywords_added"} <= set(actions)

    async def test_cognition_off_detects_nothing(
        self,
        client: Any,
        create_agent: CreateAgent,
        get: Get,
        team: TeamKey,
        runtime: Runtime,
        clock: ManualClock,
        task_context: TaskContext,
    ) -> None:
        agent = await create_agent(team, **BURSTING)
        path = f"/v1/agents/{agent['id']}"
        await client.put(f"{path}/autonomy", json={"cognition_enabled": False}, headers=team.headers)
        await burst(runtime, clock.now())
        assert (await agent_tasks.scan_events(task_context))["detected"] == 0
        assert (await get(team, f"{path}/events"))["count"] == 0


class TestNewsScan:
    async def test_a_single_article_waits_then_a_second_domain_confirms_it_as_a_proposal(
        self, create_agent: CreateAgent, get: Get, team: TeamKey, runtime: Runtime, clock: ManualClock
    ) -> None:
        """Autopilot off: the configuration stays as sent; the story's keywords become a proposal."""
        agent = await create_agent(
            team, keywords=["sourdough"], platforms=["tiktok"], is_recurring=True, autopilot=False
        )
        path = f"/v1/agents/{agent['id']}"
        news = StubNews()
        connectors = Sources([cast(Connector, news)], None)
        news.article("bakery.example", clock.now() - timedelta(hours=2))
        first = await breaking.scan(runtime.db, connectors, clock.now())
        assert (first.detected, first.confirmed) == (1, 0)
        (event,) = (await get(team, f"{path}/events"))["events"]
        assert event["status"] == "candidate" and event["action_taken"] is None
        assert event["source"] == "news_scan" and event["keywords"] == ["laminatedsourdough"]
        assert event["salience"] == 4.0

        clock.advance(timedelta(hours=1))
        news.article("crumbdaily.example", clock.now() - timedelta(minutes=10))
        second = await breaking.scan(runtime.db, connectors, clock.now())
        assert (second.detected, second.confirmed) == (0, 1)
        (event,) = (await get(team, f"{path}/events"))["events"]
        assert event["status"] == "confirmed" and event["salience"] == 7.0
        assert event["keywords_added"] == [] and event["action_taken"] == "none"
        assert {e["domain"] for e in event["evidence"]} == {"bakery.example", "crumbdaily.example"}
        assert (await get(team, path))["keywords"] == ["sourdough"]
        proposals = (await get(team, f"{path}/proposals"))["proposals"]
        (timely,) = [p for p in proposals if p["kind"] == "add_timely_keywords"]
        assert timely["id"] == event["proposal_id"] and timely["status"] == "proposed"
        assert timely["add"] == ["laminatedsourdough"] and timely["expires_at"] == event["expires_at"]

        clock.advance(timedelta(hours=72))
        await breaking.scan(runtime.db, connectors, clock.now())
        proposals = (await get(team, f"{path}/proposals"))["proposals"]
        assert [p["status"] for p in proposals if p["kind"] == "add_timely_keywords"] == ["expired"]

    async def test_active_stories_are_listed_first(
        self, create_agent: CreateAgent, get: Get, team: TeamKey, runtime: Runtime, clock: ManualClock
    ) -> None:
        """§4.4 /events: "active first", ahead of an ended story of higher salience."""
        agent = await create_agent(team, **BURSTING)
        news = StubNews()
        connectors = Sources([cast(Connector, news)], None)
        await burst(runtime, clock.now())
        await breaking.scan(runtime.db, connectors, clock.now())  # the burst, confirmed
        clock.advance(timedelta(hours=73))
        news.article("bakery.example", clock.now() - timedelta(hours=2))
        await breaking.scan(runtime.db, connectors, clock.now())  # the burst ends; an article waits
        events = (await get(team, f"/v1/agents/{agent['id']}/events"))["events"]
        assert [(e["source"], e["status"]) for e in events] == [
            ("news_scan", "candidate"),
            ("corpus_burst", "expired"),
        ]
        assert events[1]["salience"] > events[0]["salience"]

    async def test_another_teams_events_are_404(
        self, client: Any, create_agent: CreateAgent, team: TeamKey, make_team: Any
    ) -> None:
        agent = await create_agent(team, **BURSTING)
        other = await make_team()
        for sub in ("events", "activity"):
            response = await client.get(f"/v1/agents/{agent['id']}/{sub}", headers=other.headers)
            assert response.status_code == 404 and response.json()["code"] == "not_found"
