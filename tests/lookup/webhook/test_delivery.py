"""``satellite.lookup.completed`` through a real HTTPS receiver (spec §6.1, §6.3, §3): the exact payload
on success and on failure, one message per batch creator, none for a cached repeat."""

from __future__ import annotations

import httpx

from reelscope.kit.platforms import Platform
from tests.conftest import TeamKey
from tests.lookup.conftest import HandleOf
from tests.webhook.conftest import CreateWebhook
from tests.webhook.receiver import Receiver

PAYLOAD_KEYS = {
    "run_id",
    "team_id",
    "user_id",
    "status",
    "type",
    "platform",
    "started_at",
    "completed_at",
    "metrics",
    "request",
    "results",
    "error",
}


class TestPayload:
    async def test_a_completed_creator_lookup_sends_its_result(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        handle: HandleOf,
        create_webhook: CreateWebhook,
        receiver: Receiver,
    ) -> None:
        await create_webhook(team, url=receiver.url("/lookups"))
        params = {"max_videos": "7", "trend_analysis": "true"}
        started = (
            await client.get(f"/v1/satellite/creator/tiktok/{handle()}", params=params, headers=team.headers)
        ).json()["data"]
        [delivery] = receiver.at("/lookups")
        assert delivery.headers["service-event-type"] == "satellite.lookup.completed"
        body = delivery.json()
        assert body["event"] == "satellite.lookup.completed"
        data = body["data"]
        assert set(data) == PAYLOAD_KEYS
        assert data["run_id"] == started["run_id"]
        assert data["team_id"] == team.team_id
        assert len(data["user_id"]) == 36  # the key's user (a UUID)
        assert data["status"] == "success"
        assert data["type"] == "creator_lookup"
        assert data["platform"] == "tiktok"
        assert data["metrics"] == 0  # §6.3 "currently always 0"
        assert data["error"] is None
        assert data["request"]["max_videos"] == 7 and data["request"]["trend_analysis"] is True
        assert data["request"]["include_videos"] is True
        status = (await client.get(started["poll_url"], headers=team.headers)).json()["data"]
        assert data["results"] == status["result"]
        assert len(data["results"]["videos"]) == 7 and "trend_analysis" in data["results"]
        assert data["started_at"].endswith("Z") and data["completed_at"].endswith("Z")

    async def test_a_failed_lookup_sends_the_error_and_no_results(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        create_webhook: CreateWebhook,
        receiver: Receiver,
    ) -> None:
        await create_webhook(team, url=receiver.url("/lookups"))
        await client.get("/v1/satellite/creator/instagram/nobody_at_all", headers=team.headers)
        [delivery] = receiver.at("/lookups")
        data = delivery.json()["data"]
        assert set(data) == PAYLOAD_KEYS
        assert data["status"] == "failed" and data["platform"] == "instagram"
        assert data["error"]["code"] == "not_found" and data["error"]["message"]
        assert data["results"] is None

    async def test_a_cached_repeat_sends_nothing(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        handle: HandleOf,
        create_webhook: CreateWebhook,
        receiver: Receiver,
    ) -> None:
        await create_webhook(team, url=receiver.url("/lookups"))
        await client.get(f"/v1/satellite/creator/tiktok/{handle()}", headers=team.headers)
        again = await client.get(f"/v1/satellite/creator/tiktok/{handle()}", headers=team.headers)
        assert again.json()["data"]["cached"] is True
        assert len(receiver.at("/lookups")) == 1

    async def test_a_batch_sends_one_message_per_creator(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        handle: HandleOf,
        create_webhook: CreateWebhook,
        receiver: Receiver,
    ) -> None:
        await create_webhook(team, url=receiver.url("/lookups"))
        handles = [handle(Platform.YOUTUBE, index) for index in (1, 2, 3)]
        response = await client.post(
            "/v1/satellite/creators/batch",
            json={"platform": "youtube", "handles": handles},
            headers=team.headers,
        )
        assert response.status_code == 202, response.text
        deliveries = receiver.at("/lookups")
        assert sorted(d.json()["data"]["results"]["profile"]["handle"] for d in deliveries) == sorted(handles)
        assert {d.json()["data"]["type"] for d in deliveries} == {"creator_lookup"}

    async def test_a_video_outlier_sends_its_result(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        handle: HandleOf,
        create_webhook: CreateWebhook,
        receiver: Receiver,
    ) -> None:
        await create_webhook(team, url=receiver.url("/lookups"))
        started = (await client.get(f"/v1/satellite/creator/tiktok/{handle()}", headers=team.headers)).json()
        video_id = receiver.at("/lookups")[0].json()["data"]["results"]["videos"][0]["external_id"]
        job = (
            await client.post(
                "/v1/satellite/video-outlier",
                json={"platform": "tiktok", "video_id": video_id},
                headers=team.headers,
            )
        ).json()["data"]
        assert started["data"]["run_id"] != job["run_id"]
        data = receiver.at("/lookups")[1].json()["data"]
        assert set(data) == PAYLOAD_KEYS
        assert data["type"] == "video_outlier" and data["run_id"] == job["job_id"]
        assert data["results"]["video"]["external_id"] == video_id
        assert data["request"] == {"video_id": video_id, "outlier_threshold": 3.0}
