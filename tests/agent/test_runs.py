"""Agent runs through HTTP and the job engine (spec §2.6, §3, §4.4, §8.2): states, collection, filters,
billing of one-shot, recurring and failed runs, and a recurring agent driven by its schedule on the
manual clock."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from reelscope.models import AgentVideo, Video
from reelscope.runtime import Runtime
from reelscope.worker.context import TaskContext
from reelscope.worker.dispatcher import dispatch_once
from reelscope.worker.engine import JobEngine
from tests.agent.conftest import CreateAgent, Get
from tests.conftest import MakeTeam, TeamKey

pytestmark = pytest.mark.both_databases

SMALL = {"keywords": ["sourdough"], "platforms": ["tiktok"]}


async def credits(client: httpx.AsyncClient, team: TeamKey) -> int:
    response = await client.get("/v1/account/balance", headers=team.headers)
    value: int = response.json()["data"]["credits_remaining"]
    return value


class TestStates:
    @pytest.mark.parametrize("queue_backend", ["sqlite"], indirect=True)
    async def test_pending_then_completed_then_finalized_after_the_analysis(
        self, create_agent: CreateAgent, get: Get, team: TeamKey, jobs: JobEngine
    ) -> None:
        """§3: completed while the AI analysis still runs has finalized false; §2.6 pending_jobs lists it."""
        agent = await create_agent(team, **SMALL)
        path = f"/v1/agents/{agent['id']}"
        pending = await get(team, path)
        assert pending["status"] == "pending" and pending["finalized"] is False
        run = await get(team, f"{path}/runs/{agent['run_id']}")
        assert run["status"] == "pending" and run["started_at"] is None

        assert jobs.run_next()  # the collection job
        collected = await get(team, path)
        assert collected["status"] == "completed"
        assert collected["finalized"] is False
        (analysis,) = collected["pending_jobs"]
        assert analysis["type"] == "viral_analysis" and analysis["status"] == "pending"
        assert analysis["poll_url"] == path
        assert analysis["result_path"] == "/data/analysis_data"
        assert analysis["webhook_event"] == "content_research_agent.run.completed"
        assert analysis["job_id"] and analysis["retry_after_seconds"] == 15

        while jobs.run_next():  # the analysis, then the webhook pump
            pass
        done = await get(team, path)
        assert done["status"] == "completed" and done["finalized"] is True
        assert done["pending_jobs"] == [] and done["analysis_data"]["themes"]
        run = await get(team, f"{path}/runs/{agent['run_id']}")
        assert run["finalized"] is True and run["pending_jobs"] == []
        assert run["started_at"] == run["completed_at"] == "2026-11-21T12:00:30Z"
        assert await get(team, path) == done  # once finalized, the response does not change

    @pytest.mark.parametrize("queue_backend", ["sqlite"], indirect=True)
    async def test_a_run_whose_job_gave_up_reads_failed(
        self, create_agent: CreateAgent, get: Get, team: TeamKey, clock: ManualClock
    ) -> None:
        """§3: a collection job that never ran (or failed for good) past its retry window is a failed run."""
        agent = await create_agent(team, **SMALL)
        path = f"/v1/agents/{agent['id']}"
        clock.advance(timedelta(hours=2, seconds=1))  # the job's retry window (2 h) is over
        run = await get(team, f"{path}/runs/{agent['run_id']}")
        assert run["status"] == "failed" and run["finalized"] is True
        assert (await get(team, path))["status"] == "failed"

    async def test_one_shot_run_links_what_it_collected(
        self, client: httpx.AsyncClient, create_agent: CreateAgent, get: Get, team: TeamKey, runtime: Runtime
    ) -> None:
        agent = await create_agent(team, keywords=["sourdough"], platforms=["tiktok", "instagram"])
        path = f"/v1/agents/{agent['id']}"
        run = await get(team, f"{path}/runs/{agent['run_id']}")
        assert run["status"] == "completed" and run["finalized"] is True
        metrics = run["metrics"]
        assert metrics["videos_linked"] > 0
        assert metrics["videos_inserted"] == metrics["videos_linked"]
        assert set(metrics["platforms"]) == {"tiktok", "instagram"}
        assert [t["status"] for t in run["targets"]] == ["completed"] * 4  # videos and carousels, 2 platforms
        videos = await get(team, f"{path}/videos", limit=100)
        assert videos["total"] == metrics["videos_linked"]
        assert {v["type"] for v in videos["videos"]} <= {"tiktok", "instagram"}
        assert all(v["intelligence_status"] == "disabled" for v in videos["videos"])
        slides = await get(team, f"{path}/slideshows")
        assert slides["total"] == metrics["slideshows_found"] > 0
        assert (await get(team, f"{path}/ads"))["total"] == 0  # no ads without meta_ads_enabled
        assert all(t["kind"] != "ads" for t in run["targets"])
        assert await credits(client, team) == 950  # the create charge stands
        # the default language filter keeps English (and unknown) videos only
        async with runtime.db.read() as session:
            languages = set(
                await session.scalars(
                    select(Video.language)
                    .join(AgentVideo, AgentVideo.video_id == Video.id)
                    .where(AgentVideo.agent_id == agent["id"])
                )
            )
        assert languages <= {"en", None}
        assert metrics["language_filtered"] > 0

    async def test_exclude_keywords_and_no_language_filter(
        self, create_agent: CreateAgent, get: Get, team: TeamKey
    ) -> None:
        agent = await create_agent(team, **SMALL, exclude_keywords=["#bread"], language=None)
        path = f"/v1/agents/{agent['id']}"
        run = await get(team, f"{path}/runs/{agent['run_id']}")
        assert run["metrics"]["exclude_keywords_filtered"] > 0
        assert run["metrics"]["language_filtered"] == 0
        for video in (await get(team, f"{path}/videos", limit=100))["videos"]:
            text = " ".join([video["description"] or "", video["transcript_raw"] or "", *video["hashtags"]])
            assert "bread" not in text.lower()

    async def test_meta_ads_and_data_intelligence(
        self, client: httpx.AsyncClient, create_agent: CreateAgent, get: Get, team: TeamKey
    ) -> None:
        agent = await create_agent(team, **SMALL, meta_ads_enabled=True, data_intelligence_enabled=True)
        path = f"/v1/agents/{agent['id']}"
        run = await get(team, f"{path}/runs/{agent['run_id']}")
        ads = await get(team, f"{path}/ads", limit=100)
        assert ads["total"] == run["metrics"]["meta_ads_linked"] > 0
        assert {a["keyword"] for a in ads["ads"]} == {"sourdough"}
        videos = (await get(team, f"{path}/videos"))["videos"]
        # §2.6: pending → ready once the run's analysis job ran (the immediate queue ran it)
        assert {v["intelligence_status"] for v in videos} == {"ready"}
        first = videos[0]["intelligence"]
        assert first["language_detected"] and first["hook_text"] and first["keywords"]
        assert first["has_face_visible"] is None and first["camera_perspective"] is None  # no frames
        slides = (await get(team, f"{path}/slideshows"))["slideshows"]
        assert slides and {s["intelligence_status"] for s in slides} <= {"ready", "skipped"}
        ready = [s["intelligence"] for s in slides if s["intelligence_status"] == "ready"]
        assert ready and all("camera_perspective" not in i and "visual_format" not in i for i in ready)
        assert await credits(client, team) == 850
        # §2.6: `disabled` whenever intelligence is off, also once it was switched off
        await client.put(path, json={"data_intelligence_enabled": False}, headers=team.headers)
        videos = (await get(team, f"{path}/videos"))["videos"]
        slides = (await get(team, f"{path}/slideshows"))["slideshows"]
        assert {v["intelligence_status"] for v in videos + slides} == {"disabled"}


@pytest.fixture
def failures(request: pytest.FixtureRequest) -> str:
    """Sources whose sandbox calls all fail (REELSCOPE_SANDBOX_FAILURES), e.g. ``tiktok:1.0``."""
    return str(getattr(request, "param", ""))


@pytest.fixture
def settings(data_dir: Path, database_url: str, redis_url: str | None, failures: str) -> Settings:
    return Settings(
        data_dir=data_dir, database_url=database_url, redis_url=redis_url, sandbox_failures=failures
    )


class TestFailures:
    @pytest.mark.parametrize("failures", ["youtube:1.0"], indirect=True)
    async def test_some_targets_failing_is_a_usable_partial_failure(
        self, client: httpx.AsyncClient, create_agent: CreateAgent, get: Get, team: TeamKey
    ) -> None:
        agent = await create_agent(team, keywords=["sourdough"], platforms=["tiktok", "youtube"])
        path = f"/v1/agents/{agent['id']}"
        run = await get(team, f"{path}/runs/{agent['run_id']}")
        assert run["status"] == "partial_failure" and run["finalized"] is True
        failed = [t for t in run["targets"] if t["status"] == "failed"]
        assert [(t["source"], t["kind"]) for t in failed] == [("youtube", "videos")]
        assert "injected" in failed[0]["error"]
        assert run["metrics"]["targets_failed"] == 1 and run["refunded"] is False
        videos = await get(team, f"{path}/videos", limit=100)
        assert videos["total"] > 0 and {v["type"] for v in videos["videos"]} == {"tiktok"}
        assert (await get(team, path))["status"] == "partial_failure"
        assert await credits(client, team) == 950

    @pytest.mark.parametrize("failures", ["tiktok:1.0"], indirect=True)
    async def test_every_target_failing_fails_the_run_and_refunds_it(
        self, client: httpx.AsyncClient, create_agent: CreateAgent, get: Get, team: TeamKey
    ) -> None:
        agent = await create_agent(team, **SMALL, data_intelligence_enabled=True)
        path = f"/v1/agents/{agent['id']}"
        run = await get(team, f"{path}/runs/{agent['run_id']}")
        assert run["status"] == "failed"
        assert run["error"]["code"] == "collection_failed"
        assert run["refunded"] is True and run["charged_credits"] == 150
        assert run["finalized"] is True and run["pending_jobs"] == []  # no analysis for a failed run
        assert await credits(client, team) == 1000
        agent_now = await get(team, path)
        assert agent_now["status"] == "failed" and agent_now["finalized"] is True
        assert (await get(team, f"{path}/videos"))["total"] == 0


class TestRecurring:
    async def test_three_scheduled_runs_debit_from_the_job_until_the_balance_cannot_cover_one(
        self,
        client: httpx.AsyncClient,
        create_agent: CreateAgent,
        get: Get,
        make_team: MakeTeam,
        clock: ManualClock,
        task_context: TaskContext,
    ) -> None:
        """§4.4: recurring is free to create and $0.50 per run, debited by the run's job; a run the
        balance cannot cover does not start and the run list says why."""
        team = await make_team(credits=120)
        # the configuration stays as sent, so the second run's window overlaps the first one's: with the
        # autopilot on, a thin run widens the window and added keywords link more (test_autopilot.py)
        agent = await create_agent(team, **SMALL, is_recurring=True, cadence="daily", autopilot=False)
        path = f"/v1/agents/{agent['id']}"
        assert agent["cadence"] == "0 12 * * *"
        first = await get(team, f"{path}/runs/{agent['run_id']}")
        assert (
            first["status"] == "completed" and first["charged_credits"] == 50 and first["trigger"] == "create"
        )
        assert await credits(client, team) == 70

        clock.advance(timedelta(days=1))
        report = await dispatch_once(task_context)
        assert report.fired == 1
        runs = (await get(team, f"{path}/runs"))["runs"]
        assert len(runs) == 2
        second = runs[0]
        assert second["trigger"] == "schedule" and second["scheduled_for"] == "2026-11-22T12:00:00Z"
        assert second["status"] == "completed" and second["charged_credits"] == 50
        assert second["metrics"]["videos_updated"] > 0  # the windows overlap: seen videos are updated
        assert second["metrics"]["videos_linked"] < first["metrics"]["videos_linked"]
        assert await credits(client, team) == 20
        assert (await get(team, path))["next_run_at"] == "2026-11-23T12:00:00Z"

        assert (await dispatch_once(task_context)).fired == 0  # nothing due yet
        clock.advance(timedelta(days=1))
        assert (await dispatch_once(task_context)).fired == 1
        runs = (await get(team, f"{path}/runs"))["runs"]
        third = runs[0]
        assert third["status"] == "failed" and third["started_at"] is None
        assert third["error"]["code"] == "insufficient_credits"
        assert third["charged_credits"] == 0 and third["finalized"] is True
        assert await credits(client, team) == 20
        listed = await get(team, f"{path}/runs", limit=2)
        assert listed["count"] == 2 and [r["id"] for r in listed["runs"]] == [third["id"], second["id"]]
        assert (await get(team, path))["status"] == "failed"

    async def test_a_paused_or_deleted_agent_does_not_run(
        self,
        client: httpx.AsyncClient,
        create_agent: CreateAgent,
        get: Get,
        team: TeamKey,
        clock: ManualClock,
        task_context: TaskContext,
    ) -> None:
        agent = await create_agent(team, **SMALL, is_recurring=True, data_intelligence_enabled=True)
        path = f"/v1/agents/{agent['id']}"
        assert await credits(client, team) == 850  # the first run: $0.50 + $1.00, from the job
        await client.put(path, json={"is_active": False}, headers=team.headers)
        clock.advance(timedelta(days=1))
        assert (await dispatch_once(task_context)).fired == 0
        await client.put(path, json={"is_active": True}, headers=team.headers)
        clock.advance(timedelta(days=1))
        assert (await dispatch_once(task_context)).fired == 1
        assert await credits(client, team) == 700
        await client.delete(path, headers=team.headers)
        clock.advance(timedelta(days=1))
        assert (await dispatch_once(task_context)).fired == 0
        assert await credits(client, team) == 700
