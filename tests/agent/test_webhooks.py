"""The run webhook through the outbox to a real HTTPS receiver (spec §6.2, §6.3): the success payload
after the AI analysis (orbit or comet settings), the failure payload, and the legacy names firing for
their subscribers."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from reelscope.worker.context import TaskContext
from reelscope.worker.dispatcher import dispatch_once
from tests.agent.conftest import CreateAgent
from tests.conftest import MakeTeam, TeamKey
from tests.webhook import conftest as webhook_fixtures
from tests.webhook.conftest import CreateWebhook
from tests.webhook.receiver import Receiver, TlsFiles

# the webhook family's real HTTPS receiver and the client that may deliver to it
tls = webhook_fixtures.tls
receiver_server = webhook_fixtures.receiver_server
receiver = webhook_fixtures.receiver
guard = webhook_fixtures.guard
client = webhook_fixtures.client
create_webhook = webhook_fixtures.create_webhook

EVENT = "content_research_agent.run.completed"
SMALL = {"keywords": ["sourdough"], "platforms": ["tiktok"]}


@pytest.fixture
def failures(request: pytest.FixtureRequest) -> str:
    return str(getattr(request, "param", ""))


@pytest.fixture
def settings(
    data_dir: Path, database_url: str, redis_url: str | None, tls: TlsFiles, failures: str
) -> Settings:
    return Settings(
        data_dir=data_dir,
        database_url=database_url,
        redis_url=redis_url,
        webhook_allowed_networks="127.0.0.0/8",
        webhook_ca_bundle=tls.ca,
        sandbox_failures=failures,
    )


def metrics_count(data: dict[str, Any]) -> int:
    """The videos a one-shot run analysed: every video it linked (all in its 30-day window)."""
    count: int = data["metrics"]["videos_linked"]
    return count


def bodies(receiver: Receiver, path: str) -> list[dict[str, Any]]:
    return [r.json() for r in receiver.at(path)]


class TestRunWebhook:
    async def test_success_carries_the_one_shot_settings_as_orbit(
        self,
        create_agent: CreateAgent,
        create_webhook: CreateWebhook,
        team: TeamKey,
        receiver: Receiver,
    ) -> None:
        await create_webhook(team, url=receiver.url("/new"), enabled_events=[EVENT])
        agent = await create_agent(team, **SMALL, intent="bread tips")
        (message,) = bodies(receiver, "/new")
        assert message["event"] == EVENT
        data = message["data"]
        assert data["run_id"] == agent["run_id"] and data["team_id"] == team.team_id
        assert data["user_id"]
        assert data["status"] == "success" and data["is_recurring"] is False
        assert data["error"] is None and data["intent_summary"] is None
        # §6.3: the analysis object, filled from the run's AI analysis
        analysis = data["analysis"]
        assert set(analysis) == {"id", "status", "analysis_data", "trends", "video_count", "cost_usd"}
        assert analysis["cost_usd"] == 0 and analysis["video_count"] == metrics_count(data)
        assert analysis["trends"] == analysis["analysis_data"]["themes"] and analysis["trends"]
        assert set(analysis["analysis_data"]) == {
            "key_highlight", "overview", "themes", "viral_tactics", "timing_analysis", "connecting_thread",
            "top_10_breakdown", "excluded_videos",
        }  # fmt: skip
        assert set(analysis["trends"][0]) == {
            "stable_key", "name", "why_it_works", "tactics", "confidence", "video_count",
            "evidence_video_ids",
        }  # fmt: skip
        assert "comet" not in data and "content_research_agent" not in data
        orbit = data["orbit"]
        assert orbit["id"] == agent["id"] and orbit["keywords"] == ["sourdough"]
        assert orbit["platforms"] == ["tiktok"] and orbit["cadence"] is None
        assert orbit["min_views"] == 0 and orbit["time_range"] == "30d" and orbit["intent"] == "bread tips"
        assert orbit["is_active"] is True and orbit["next_run_at"] is None
        metrics = data["metrics"]
        assert metrics["videos_linked"] > 0 and metrics["credits_used"] == 50
        assert set(metrics) == {
            "credits_used", "execution_time_ms", "videos_linked", "videos_inserted", "videos_updated",
            "meta_ads_linked", "outliers_identified", "language_filtered", "exclude_keywords_filtered",
            "platforms",
        }  # fmt: skip
        assert metrics["platforms"] == {"tiktok": metrics["platforms"]["tiktok"]}
        assert data["started_at"] == data["completed_at"] == "2026-11-21T12:00:30Z"

    async def test_recurring_success_carries_comet_with_a_cron_cadence(
        self,
        create_agent: CreateAgent,
        create_webhook: CreateWebhook,
        team: TeamKey,
        receiver: Receiver,
        clock: ManualClock,
        task_context: TaskContext,
    ) -> None:
        await create_webhook(team, url=receiver.url("/new"), enabled_events=[EVENT])
        await create_agent(team, **SMALL, is_recurring=True, cadence="weekly")
        clock.advance(timedelta(days=7))
        await dispatch_once(task_context)
        first, second = (m["data"] for m in bodies(receiver, "/new"))
        assert first["is_recurring"] is True and "orbit" not in first
        assert first["comet"]["cadence"] == "0 12 * * 6"
        assert second["comet"]["last_run_at"] == "2026-11-28T12:00:30Z"
        assert second["comet"]["next_run_at"] == "2026-12-05T12:00:00Z"
        assert second["run_id"] != first["run_id"]

    @pytest.mark.parametrize("failures", ["tiktok:1.0"], indirect=True)
    async def test_failure_payload(
        self,
        create_agent: CreateAgent,
        create_webhook: CreateWebhook,
        team: TeamKey,
        receiver: Receiver,
    ) -> None:
        await create_webhook(team, url=receiver.url("/new"), enabled_events=[EVENT])
        agent = await create_agent(team, **SMALL)
        (message,) = bodies(receiver, "/new")
        data = message["data"]
        assert data["status"] == "failed" and data["run_id"] == agent["run_id"]
        assert data["error"] == {
            "code": "collection_failed",
            "message": "Every keyword and platform failed to collect",
        }
        assert data["analysis"] is None
        assert data["intent_summary"] == {"matched": 0, "total_evaluated": 0}
        settings = data["content_research_agent"]
        assert settings["id"] == agent["id"] and settings["is_recurring"] is False
        assert settings["active"] is True and "is_active" not in settings
        assert "orbit" not in data and "comet" not in data and "is_recurring" not in data
        assert data["metrics"] == {
            "credits_used": 0, "execution_time_ms": 0, "videos_linked": 0, "videos_inserted": 0,
            "videos_updated": 0, "meta_ads_linked": 0, "outliers_identified": 0, "language_filtered": 0,
            "exclude_keywords_filtered": 0, "youtube_count": 0, "tiktok_count": 0, "instagram_count": 0,
        }  # fmt: skip

    async def test_a_recurring_run_the_balance_cannot_cover_sends_the_failure_form(
        self,
        create_agent: CreateAgent,
        create_webhook: CreateWebhook,
        make_team: MakeTeam,
        receiver: Receiver,
    ) -> None:
        """§4.4: a recurring agent is free to create; its first run, debited by the job, cannot start."""
        poor = await make_team(credits=10)
        await create_webhook(poor, url=receiver.url("/poor"), enabled_events=[EVENT, "comet.run.completed"])
        agent = await create_agent(poor, **SMALL, is_recurring=True)
        messages = bodies(receiver, "/poor")
        assert sorted(m["event"] for m in messages) == ["comet.run.completed", EVENT]
        data = messages[0]["data"]
        assert data["status"] == "failed" and data["run_id"] == agent["run_id"]
        assert data["error"]["code"] == "insufficient_credits"
        assert data["content_research_agent"]["is_recurring"] is True
        assert data["content_research_agent"]["cadence"] == "0 12 * * *"

    async def test_old_and_new_names_subscribed_give_two_messages(
        self,
        create_agent: CreateAgent,
        create_webhook: CreateWebhook,
        team: TeamKey,
        receiver: Receiver,
    ) -> None:
        """§6.2: the legacy orbit/comet names still fire; subscribing to both gives two messages."""
        await create_webhook(
            team,
            url=receiver.url("/both"),
            enabled_events=[EVENT, "orbit.run.completed", "comet.run.completed"],
        )
        await create_webhook(team, url=receiver.url("/legacy"), enabled_events=["comet.run.completed"])
        await create_agent(team, **SMALL)
        both = bodies(receiver, "/both")
        assert sorted(m["event"] for m in both) == [EVENT, "orbit.run.completed"]
        assert both[0]["data"] == both[1]["data"]
        assert bodies(receiver, "/legacy") == []  # a one-shot run is an orbit, not a comet
