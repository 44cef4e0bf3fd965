"""HTTP tests of audience snapshots (spec §2.6, §4.7, §6.3; issue 20 item 5): the $0.50 refresh of a
tracked creator, its poll, the creator's demographics and geography, ``GET /v1/audience/snapshot`` kept
24 hours, ``audience.snapshot.completed``, pending audience jobs, and the refunds."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest

from reelscope.audience import tasks as audience_tasks
from reelscope.collectors.base import Connector
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from reelscope.runtime import Runtime
from reelscope.worker.engine import JobEngine
from tests.conftest import MakeTeam, TeamKey
from tests.kit.test_errors import assert_error
from tests.tracking.conftest import Advance, creator_handle, events, failing, world
from tests.tracking.test_endpoints import balance, get, ledger, track

pytestmark = pytest.mark.both_databases

CREATOR = creator_handle(3)  # maxcloset3: 445k followers, 200+ distinct commenters


async def refresh(client: httpx.AsyncClient, team: TeamKey, item_id: str) -> httpx.Response:
    return await client.post(f"/v1/tracking/creators/{item_id}/audience-refresh", headers=team.headers)


class TestSnapshot:
    async def test_a_refresh_costs_50_and_infers_the_audience(
        self, client: httpx.AsyncClient, team: TeamKey, jobs: JobEngine, runtime: Runtime
    ) -> None:
        item = await track(client, team, CREATOR)
        response = await refresh(client, team, item["id"])
        assert response.status_code == 202, response.text
        assert response.headers["X-Cost"] == "0.50"
        job_id = response.json()["data"]["snapshot_id"]
        assert response.json()["data"]["poll_url"] == f"/v1/audience/snapshot/{job_id}"
        polled = (await get(client, team, f"/v1/tracking/creators/{item['id']}/audience-refresh/{job_id}"))[
            "data"
        ]
        assert polled["status"] == "completed" and polled["expires_at"] is not None
        snapshot = polled["snapshot"]
        assert snapshot["data_source"] == "comments" and snapshot["sample_size"] >= 200
        truth = world().audience_truth(Platform.TIKTOK, CREATOR)
        assert truth is not None
        for country, share in truth.countries.items():
            assert abs(snapshot["geography"]["country"].get(country.upper(), 0) - share) < 0.1
        assert set(snapshot["demographics"]["gender"]) <= {"female", "male", "other"}
        [event] = await events(runtime, "audience.snapshot.completed")
        assert event["snapshot_id"] == job_id and event["handle"] == CREATOR and event["platform"] == "tiktok"
        assert event["sample_size"] == snapshot["sample_size"]
        assert event["confidence_level"] == snapshot["confidence_level"] in {"medium", "high"}
        assert set(event["confidence_per_signal"]) == {"age", "gender", "country", "city", "language"}
        assert event["signal_breakdown"]["comments"] >= event["sample_size"]
        assert event["data_source"] == "comments"
        demographics = await get(client, team, f"/v1/tracking/creators/{item['id']}/audience-demographics")
        data = demographics["data"]
        assert data["snapshot_id"] == job_id and data["demographics"] == snapshot["demographics"]
        assert data["geography"] is None and data["finalized"] is True and data["pending_jobs"] == []
        geography = (await get(client, team, f"/v1/tracking/creators/{item['id']}/audience-geography"))[
            "data"
        ]
        assert geography["geography"] == snapshot["geography"] and geography["demographics"] is None
        assert [op for _, _, op in await ledger(runtime, team)][-1] == "create_creator_audience_refresh"
        assert await balance(runtime, team) == 1000 - 25 - 50

    async def test_the_snapshot_is_kept_24_hours_for_its_team(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        make_team: MakeTeam,
        jobs: JobEngine,
        clock: ManualClock,
    ) -> None:
        item = await track(client, team, CREATOR)
        job_id = (await refresh(client, team, item["id"])).json()["data"]["snapshot_id"]
        path = f"/v1/audience/snapshot/{job_id}"
        assert (await get(client, team, path))["data"]["snapshot"]["sample_size"] > 0
        other = await make_team()
        assert_error(await client.get(path, headers=other.headers), 404, "not_found")
        assert_error(await client.get("/v1/audience/snapshot/nope", headers=team.headers), 404, "not_found")
        clock.advance(timedelta(hours=23, minutes=59))
        assert (await get(client, team, path))["data"]["status"] == "completed"
        clock.advance(timedelta(minutes=2))
        assert_error(await client.get(path, headers=team.headers), 404, "not_found")

    async def test_no_audience_data_is_refunded(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        jobs: JobEngine,
        runtime: Runtime,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        async def nobody(
            _connector: Connector, _platform: Platform, _handle: str
        ) -> tuple[list[Any], int, int]:
            return [], 0, 1000

        monkeypatch.setattr(audience_tasks, "sample", nobody)
        item = await track(client, team, CREATOR)
        response = await refresh(client, team, item["id"])
        assert response.headers["X-Cost"] == "0.50"
        [event] = await events(runtime, "audience.snapshot.completed")
        assert event["data_source"] == "profile_only" and event["confidence_level"] == "low"
        assert event["sample_size"] == 0
        # §6.3: profile_only → the $0.50 charge is refunded
        assert (await ledger(runtime, team))[-1] == ("refund", 50, None)
        assert await balance(runtime, team) == 1000 - 25

    async def test_a_failed_snapshot_is_pending_then_refunded_and_sends_nothing(
        self, client: httpx.AsyncClient, team: TeamKey, jobs: JobEngine, runtime: Runtime, advance: Advance
    ) -> None:
        item = await track(client, team, CREATOR)
        failing(jobs)
        job_id = (await refresh(client, team, item["id"])).json()["data"]["snapshot_id"]
        # §2.6: the item and its audience reads list the pending audience job with its event
        for path in ("", "/audience-demographics", "/audience-geography"):
            data = (await get(client, team, f"/v1/tracking/creators/{item['id']}{path}"))["data"]
            assert data["finalized"] is False
            [pending] = data["pending_jobs"]
            assert pending["type"] == "audience_demographics" and pending["job_id"] == job_id
            assert pending["status"] == "failed" and pending["webhook_event"] == "audience.snapshot.completed"
            assert pending["poll_url"] == f"/v1/audience/snapshot/{job_id}"
        for wait in (timedelta(seconds=30), timedelta(minutes=2)):
            await advance(wait)
        assert await events(runtime, "audience.snapshot.completed") == []
        assert (await ledger(runtime, team))[-1] == ("refund", 50, None)
        assert await balance(runtime, team) == 1000 - 25
        polled = (await get(client, team, f"/v1/audience/snapshot/{job_id}"))["data"]
        assert polled["status"] == "failed" and polled["snapshot"] is None
        # the retry window ends: the job leaves pending_jobs (§2.6)
        await advance(timedelta(hours=2))
        data = (await get(client, team, f"/v1/tracking/creators/{item['id']}/audience-demographics"))["data"]
        assert data["finalized"] is True and data["pending_jobs"] == [] and data["demographics"] is None

    async def test_refresh_of_an_unknown_creator_is_404_and_free(
        self, client: httpx.AsyncClient, team: TeamKey, jobs: JobEngine
    ) -> None:
        assert_error(await refresh(client, team, "nope"), 404, "not_found")
