"""The clients already in use (issue 28): what a published command-line client of the hosted service
sends when it is pointed at Reelscope, request by request, each answered with the spec's status, price
and shape. The requests are the client's own, fields and spellings included; where the spec is silent
the decisions are ADR 0043's. On SQLite and on PostgreSQL.

The client's commands that failed before (issue 28's table) come first in each class, then the ones
that worked, which must keep working.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest

from reelscope.collectors.sandbox.creators import handle_of
from reelscope.collectors.sandbox.posts import shortcode
from reelscope.collectors.sandbox.world import World
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from reelscope.runtime import Runtime
from tests.conftest import TeamKey
from tests.kit.test_errors import assert_error
from tests.webhook.receiver import Receiver

pytestmark = pytest.mark.both_databases

SUNSET = "Mon, 03 Aug 2026 00:00:00 GMT"
FREE, AGENT_RUN, LOOKUP, TRACKING = "0.00", "0.50", "0.50", "0.25"


def cost(response: httpx.Response) -> str:
    return response.headers["X-Cost"]


def deprecated(response: httpx.Response) -> bool:
    return response.headers.get("Deprecation") == "true" and response.headers.get("Sunset") == SUNSET


def ok(response: httpx.Response, status: int, price: str) -> Any:
    """The body of a response of ``status`` charged ``price``."""
    assert response.status_code == status, response.text
    assert cost(response) == price, (response.request.url, cost(response))
    return response.json() if status != 204 else None


class TestLegacyAgents:
    """`orbit …` and `comet …` commands: §4.5's paths mirror every agent read and write."""

    async def test_the_orbit_commands(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        create = await client.post(
            "/v1/orbit",
            json={
                "name": "bread",
                "keywords": ["sourdough"],
                "platforms": ["tiktok", "youtube"],
                "min_views": 10_000,
                "time_period": "this_week",
                "enable_meta_ads": True,
                "exclude_keywords": ["gluten free"],
                "exclude_keywords_strict": True,
                "intent": "home bakers",
            },
            headers=team.headers,
        )
        queued = ok(create, 202, AGENT_RUN)["data"]
        assert deprecated(create) and queued["status"] == "queued"
        orbit = f"/v1/orbit/{queued['id']}"
        agent = ok(await client.get(f"/v1/agents/{queued['id']}", headers=team.headers), 200, FREE)["data"]
        assert agent["meta_ads_enabled"] is True and agent["min_views"] == 0  # §9: scope ignored
        listed = ok(
            await client.get("/v1/orbit", params={"page": 1, "limit": 20}, headers=team.headers), 200, FREE
        )
        assert [a["id"] for a in listed["data"]["agents"]] == [queued["id"]]
        got = ok(
            await client.get(orbit, params={"order_by": "likes", "sort": "asc"}, headers=team.headers),
            200,
            FREE,
        )["data"]
        assert got["status"] == "completed" and got["finalized"] is True and got["results"]["total"] > 0
        # the sub-resources, with the query each command sends, answer as the agent path does
        reads: list[tuple[str, dict[str, Any]]] = [
            ("/videos", {"min_views": 0, "platforms": "tiktok,youtube", "order_by": "views", "sort": "desc",
                         "page": 1, "limit": 10}),
            ("/slideshows", {"start_date": "2026-01-01", "end_date": "2026-12-31", "page": 1, "limit": 10}),
            ("/ads", {"order_by": "page_like_count", "sort": "desc", "page": 1, "limit": 10}),
            ("/creators/outliers", {"order_by": "weighted_score", "sort": "desc", "platform": "tiktok",
                                    "page": 1, "limit": 10}),
            ("/sounds", {"page": 1, "limit": 20}),
            ("/trends", {"page": 1, "limit": 20}),
            ("/trends/latest", {}),
            ("/analysis", {"page": 1, "limit": 20}),
            ("/analysis/latest", {}),
        ]  # fmt: skip
        for sub, params in reads:
            legacy = await client.get(orbit + sub, params=params, headers=team.headers)
            current = await client.get(f"/v1/agents/{queued['id']}{sub}", params=params, headers=team.headers)
            assert ok(legacy, 200, FREE) == ok(current, 200, FREE), sub
            assert deprecated(legacy) and not deprecated(current), sub
        sounds = (await client.get(orbit + "/sounds", headers=team.headers)).json()
        assert sounds["data"] and set(sounds["pagination"]) >= {"page", "total", "has_next_page"}
        analyses = (await client.get(orbit + "/analysis", headers=team.headers)).json()
        assert analyses["data"][0]["analysis_data"]["overview"]

    async def test_the_comet_commands(
        self, client: httpx.AsyncClient, team: TeamKey, clock: ManualClock
    ) -> None:
        create = await client.post(
            "/v1/comet",
            json={
                "name": "knives",
                "keywords": ["knife sharpening"],
                "platforms": ["youtube"],
                "cadence": "daily",
                "min_views": 50_000,
                "time_range": "this_month",
                "exclude_keywords": ["sword"],
                "exclude_keywords_strict": True,
                "intent": "kitchen gear",
            },
            headers=team.headers,
        )
        comet_id = ok(create, 202, FREE)["data"]["id"]
        comet = f"/v1/comet/{comet_id}"
        listed = await client.get("/v1/comet", params={"include_inactive": "true"}, headers=team.headers)
        assert [a["id"] for a in ok(listed, 200, FREE)["data"]["agents"]] == [comet_id]
        assert ok(await client.get(comet, headers=team.headers), 200, FREE)["data"]["is_recurring"] is True
        for sub in ("/videos", "/slideshows", "/ads", "/creators/outliers", "/sounds", "/trends",
                    "/trends/latest", "/analysis", "/analysis/latest"):  # fmt: skip
            response = await client.get(comet + sub, headers=team.headers)
            ok(response, 200, FREE)
            assert deprecated(response), sub
        # `comet update`: only the changed fields, the legacy scope among them (§9: ignored)
        update = await client.put(
            comet,
            json={"name": "blades", "min_views": 1000, "time_range": "this_week", "is_active": False},
            headers=team.headers,
        )
        updated = ok(update, 200, FREE)["data"]
        assert deprecated(update)
        assert updated["name"] == "blades" and updated["is_active"] is False and updated["min_views"] == 0
        assert updated["keywords"] == ["knife sharpening"] and updated["next_run_at"] is None
        # `comet delete`: as DELETE /v1/agents/{id}; the agent is gone under every prefix
        deleted = await client.delete(comet, headers=team.headers)
        ok(deleted, 204, FREE)
        assert deprecated(deleted)
        for path in (comet, f"/v1/agents/{comet_id}", f"{comet}/videos"):
            assert_error(await client.get(path, headers=team.headers), 404, "not_found")

    async def test_old_create_fields_that_cannot_be_honoured_are_refused_free(
        self, client: httpx.AsyncClient, team: TeamKey
    ) -> None:
        body = {"name": "x", "keywords": ["tea"], "platforms": ["tiktok"], "cadence": "daily"}
        # created paused, a comet would still run (and bill) its first run now
        paused = await client.post("/v1/comet", json={**body, "is_active": False}, headers=team.headers)
        assert_error(paused, 400, "validation_error")
        both = {**body, "enable_meta_ads": True, "meta_ads_enabled": False}
        assert_error(await client.post("/v1/comet", json=both, headers=team.headers), 400, "validation_error")


class TestSatellite:
    """`satellite creator | batch | video-outlier`."""

    async def test_creator_lookup_with_include_and_cross_links(
        self, client: httpx.AsyncClient, team: TeamKey, runtime: Runtime
    ) -> None:
        handle = handle_of(runtime.settings.sandbox_seed, Platform.TIKTOK, 123)
        path = f"/v1/satellite/creator/tiktok/{handle}"
        params = {
            "include": "videos,outliers",
            "cross_links": "true",
            "max_videos": 10,
            "outlier_threshold": 2.5,
        }
        started = ok(await client.get(path, params=params, headers=team.headers), 200, LOOKUP)["data"]
        assert started["request"] == {
            "username": handle,
            "max_videos": 10,
            "include_videos": True,
            "include_outliers": True,
            "outlier_threshold": 2.5,
            "include_cross_platform": True,
            "include_audience": False,
            "trend_analysis": False,
        }
        # §2.6: the finished lookup's status is finalized, nothing pending
        status = ok(await client.get(started["poll_url"], headers=team.headers), 200, FREE)["data"]
        assert (
            status["status"] == "completed" and status["finalized"] is True and status["pending_jobs"] == []
        )
        assert status["result"]["videos"] and "cross_platform" in status["result"]
        # the same lookup in Reelscope's flags is the same lookup: the cached run, free
        flags = {"include_videos": "true", "include_outliers": "true", "include_cross_platform": "true",
                 "max_videos": 10, "outlier_threshold": 2.5}  # fmt: skip
        again = ok(await client.get(path, params=flags, headers=team.headers), 200, FREE)["data"]
        assert again["cached"] is True and again["run_id"] == started["run_id"]
        only_videos = await client.get(path, params={"include": "videos"}, headers=team.headers)
        assert ok(only_videos, 200, LOOKUP)["data"]["request"]["include_outliers"] is False
        for refused in ({"include": "videos,audio"}, {"include": "videos", "include_videos": "false"}):
            response = await client.get(path, params=refused, headers=team.headers)
            assert_error(response, 400, "validation_error")

    async def test_batch_of_creators_of_several_platforms(
        self, client: httpx.AsyncClient, team: TeamKey, runtime: Runtime
    ) -> None:
        seed = runtime.settings.sandbox_seed
        creators = [
            {"platform": "tiktok", "username": handle_of(seed, Platform.TIKTOK, 7)},
            {"platform": "youtube", "username": "@" + handle_of(seed, Platform.YOUTUBE, 8)},
        ]
        body = {
            "creators": creators,
            "include": "videos,outliers",
            "cross_links": False,
            "max_videos": 5,
            "outlier_threshold": 2.0,
        }
        response = await client.post("/v1/satellite/creators/batch", json=body, headers=team.headers)
        batch = ok(response, 202, "1.00")["data"]  # $0.50 a creator
        assert batch["platform"] is None and batch["total"] == 2
        assert [(c["platform"], c["handle"]) for c in batch["creators"]] == [
            ("tiktok", creators[0]["username"]),
            ("youtube", creators[1]["username"][1:]),
        ]
        read = await client.get(f"/v1/satellite/creators/batch/{batch['batch_id']}", headers=team.headers)
        done = ok(read, 200, FREE)["data"]
        assert done["status"] == "completed" and done["finalized"] is True and done["platform"] is None
        assert {c["lookup"]["request"]["max_videos"] for c in done["creators"]} == {5}
        one_platform = {"platform": "tiktok", "handles": [handle_of(seed, Platform.TIKTOK, 9)]}
        single = await client.post("/v1/satellite/creators/batch", json=one_platform, headers=team.headers)
        assert ok(single, 202, LOOKUP)["data"]["platform"] == "tiktok"

    async def test_video_outlier_by_url(
        self, client: httpx.AsyncClient, team: TeamKey, world: World, clock: ManualClock
    ) -> None:
        seed_handle = handle_of(world.seed, Platform.TIKTOK, 123)
        [video] = world.creator_posts(Platform.TIKTOK, seed_handle, clock.now(), 1) or []
        body = {"url": video.url, "platform": "tiktok"}
        started = ok(
            await client.post("/v1/satellite/video-outlier", json=body, headers=team.headers), 202, LOOKUP
        )
        assert started["data"]["target"] == video.external_id
        status = ok(await client.get(started["data"]["poll_url"], headers=team.headers), 200, FREE)["data"]
        assert status["status"] == "completed" and status["finalized"] is True
        assert status["result"]["video"]["external_id"] == video.external_id

    @pytest.mark.parametrize(
        "url",
        [
            "https://www.youtube.com/shorts/{yt}",
            "https://youtube.com/watch?v={yt}&t=4",
            "https://youtu.be/{yt}",
            "https://www.instagram.com/reel/{ig_code}/",
            "https://www.instagram.com/p/{ig_code}/?igsh=abc",
        ],
    )
    async def test_each_link_form_names_its_video(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        world: World,
        clock: ManualClock,
        url: str,
    ) -> None:
        youtube = world.creator_posts(
            Platform.YOUTUBE, handle_of(world.seed, Platform.YOUTUBE, 5), clock.now(), 1
        )
        instagram = world.creator_posts(
            Platform.INSTAGRAM, handle_of(world.seed, Platform.INSTAGRAM, 5), clock.now(), 1
        )
        assert youtube and instagram
        link = url.format(yt=youtube[0].external_id, ig_code=shortcode(int(instagram[0].external_id)))
        expected = youtube[0] if "you" in link else instagram[0]
        response = await client.post("/v1/satellite/video-outlier", json={"url": link}, headers=team.headers)
        started = ok(response, 202, LOOKUP)["data"]
        assert (started["platform"], started["target"]) == (expected.platform.value, expected.external_id)

    async def test_what_names_no_video_is_refused_free(
        self, client: httpx.AsyncClient, team: TeamKey, clock: ManualClock
    ) -> None:
        cases = [
            ({"url": "https://vm.tiktok.com/ZMabc123/", "platform": "tiktok"}, "url: "),
            ({"url": "https://example.com/watch?v=dQw4w9WgXcQ"}, "url: "),
            ({"url": "https://www.instagram.com/natgeo/"}, "url: "),
            (
                {"platform": "tiktok", "video_id": "https://www.tiktok.com/@a/video/7301234567890123456"},
                "video_id: ",
            ),
            ({"platform": "youtube", "video_id": "not a video"}, "video_id: "),
        ]
        for body, field in cases:
            clock.advance(timedelta(minutes=1))  # §8.1: 5 a minute, and a 400 counts
            response = await client.post("/v1/satellite/video-outlier", json=body, headers=team.headers)
            error = assert_error(response, 400, "invalid_parameter")
            assert str(error["message"]).startswith(field), body
        contradicting = {"url": "https://youtu.be/dQw4w9WgXcQ", "platform": "tiktok"}
        clock.advance(timedelta(minutes=1))
        response = await client.post("/v1/satellite/video-outlier", json=contradicting, headers=team.headers)
        assert_error(response, 400, "validation_error")
        balance = ok(await client.get("/v1/account/balance", headers=team.headers), 200, FREE)
        assert balance["data"]["credits_remaining"] == 1000


class TestTracking:
    """`tracking creators add` and `tracking videos add`."""

    async def test_track_a_video_by_url(
        self, client: httpx.AsyncClient, team: TeamKey, world: World, clock: ManualClock
    ) -> None:
        handle = handle_of(world.seed, Platform.TIKTOK, 11)
        creator = ok(
            await client.post("/v1/tracking/creators", json={"platform": "tiktok", "handle": handle},
                              headers=team.headers),
            201,
            TRACKING,
        )["data"]  # fmt: skip
        [video] = world.creator_posts(Platform.TIKTOK, handle, clock.now(), 1) or []
        body = {
            "url": video.url,
            "platform": "tiktok",
            "tracking_account_id": creator["id"],
            "scrape_cadence": "twelve_hours",
        }
        tracked = ok(await client.post("/v1/tracking/videos", json=body, headers=team.headers), 201, TRACKING)
        assert (
            tracked["data"]["video_id"] == video.external_id and tracked["data"]["cadence"] == "twelve_hours"
        )
        stranger = {**body, "tracking_account_id": "no-such-creator"}
        assert_error(
            await client.post("/v1/tracking/videos", json=stranger, headers=team.headers), 404, "not_found"
        )

    async def test_track_a_creator_by_profile_url_or_handle(
        self, client: httpx.AsyncClient, team: TeamKey, world: World
    ) -> None:
        first, second = (handle_of(world.seed, Platform.TIKTOK, index) for index in (12, 13))
        by_url = {
            "url": f"https://www.tiktok.com/@{first}",
            "platform": "tiktok",
            "scrape_cadence": "weekly",
            "collection_depth": "standard",
        }
        tracked = ok(
            await client.post("/v1/tracking/creators", json=by_url, headers=team.headers), 201, TRACKING
        )
        assert tracked["data"]["platform_handle"] == first and tracked["data"]["cadence"] == "weekly"
        by_handle = {"handle": second, "platform": "tiktok", "scrape_cadence": "daily"}
        ok(await client.post("/v1/tracking/creators", json=by_handle, headers=team.headers), 201, TRACKING)
        # `tracking creators posts | snapshots`, in the client's words
        item = f"/v1/tracking/creators/{tracked['data']['id']}"
        by_views = await client.get(
            item + "/posts", params={"sort": "views_desc", "limit": 50}, headers=team.headers
        )
        views = [post["views"] for post in ok(by_views, 200, FREE)["data"]]
        assert views and views == sorted(views, reverse=True)
        oldest = await client.get(item + "/posts", params={"sort": "publish_date_asc"}, headers=team.headers)
        assert_error(oldest, 400, "validation_error")  # not offered: refused, not served in another order
        snapshots = await client.get(
            item + "/snapshots", params={"start_date": "2026-11-01", "end_date": "2026-11-30", "limit": 30},
            headers=team.headers,
        )  # fmt: skip
        assert ok(snapshots, 200, FREE)["data"]["count"] == 1
        # `tracking creators update`
        patch = await client.patch(
            f"/v1/tracking/creators/{tracked['data']['id']}",
            json={"status": "paused", "scrape_cadence": "monthly"},
            headers=team.headers,
        )
        assert ok(patch, 200, FREE)["data"]["cadence"] == "monthly"
        # a deeper first collection would cost more than tracking's $0.25: refused, free
        deep = {**by_url, "url": f"https://www.tiktok.com/@{handle_of(world.seed, Platform.TIKTOK, 14)}",
                "collection_depth": "deep"}  # fmt: skip
        assert_error(await client.post("/v1/tracking/creators", json=deep, headers=team.headers), 400,
                     "validation_error")  # fmt: skip
        video_link = {"url": "https://www.tiktok.com/@someone/video/7301234567890123456"}
        assert_error(await client.post("/v1/tracking/creators", json=video_link, headers=team.headers), 400,
                     "invalid_parameter")  # fmt: skip

    async def test_an_audience_read_always_carries_its_sample_size(
        self, client: httpx.AsyncClient, team: TeamKey, world: World
    ) -> None:
        body = {"platform": "tiktok", "handle": handle_of(world.seed, Platform.TIKTOK, 3)}
        item = ok(await client.post("/v1/tracking/creators", json=body, headers=team.headers), 201, TRACKING)
        path = f"/v1/tracking/creators/{item['data']['id']}"
        before = ok(await client.get(path + "/audience-demographics", headers=team.headers), 200, FREE)[
            "data"
        ]
        assert before["snapshot_id"] is None and before["sample_size"] == 0
        assert before["confidence_level"] == "low" and set(before["confidence_per_signal"].values()) == {0.0}
        ok(await client.post(path + "/audience-refresh", headers=team.headers), 202, "0.50")
        for part in ("/audience-demographics", "/audience-geography"):
            after = ok(await client.get(path + part, headers=team.headers), 200, FREE)["data"]
            assert after["sample_size"] > 0 and after["confidence_level"] in ("low", "medium", "high"), part


class TestWebhooks:
    """`webhooks create | list | get | update | delete | deliveries | test`."""

    async def test_crud_deliveries_and_the_test_event(
        self, client: httpx.AsyncClient, team: TeamKey, receiver: Receiver
    ) -> None:
        body = {"url": receiver.url("/hook"), "enabled_events": ["orbit.run.completed"], "description": "cli"}
        hook = ok(await client.post("/v1/webhooks", json=body, headers=team.headers), 201, FREE)
        path = f"/v1/webhooks/{hook['id']}"
        assert [h["id"] for h in ok(await client.get("/v1/webhooks", headers=team.headers), 200, FREE)] == [
            hook["id"]
        ]
        assert ok(await client.get(path, headers=team.headers), 200, FREE)["url"] == body["url"]
        patched = await client.patch(path, json={"description": "renamed"}, headers=team.headers)
        assert ok(patched, 200, FREE)["description"] == "renamed"
        # `webhooks test`: `event_type`, or nothing for the default
        named = await client.post(
            path + "/test", json={"event_type": "tracking.paused"}, headers=team.headers
        )
        assert ok(named, 202, FREE)["event_type"] == "tracking.paused"
        default = await client.post(path + "/test", json={}, headers=team.headers)
        assert ok(default, 202, FREE)["event_type"] == "orbit.run.completed"
        log = ok(
            await client.get(path + "/deliveries", params={"limit": 10}, headers=team.headers), 200, FREE
        )
        assert {d["event_type"] for d in log["deliveries"]} == {"tracking.paused", "orbit.run.completed"}
        ok(await client.delete(path, headers=team.headers), 204, FREE)


class TestReads:
    """`digests`, `trends`, `trends digest`, `sounds`: charged reads that worked and must keep working."""

    async def test_charged_reads(
        self, client: httpx.AsyncClient, team: TeamKey, clock: ManualClock, regions: None
    ) -> None:
        reads = [
            ("/v1/videos/digest", {"limit": 10}, "0.25"),
            ("/v1/tiktok/videos/digest", {"limit": 10}, "0.25"),
            ("/v1/trends", {"region": "global", "limit": 10}, "0.25"),
            ("/v1/trends/digest", {"region": "us"}, "0.25"),
            ("/v1/sounds/trending", {"limit": 10}, "0.25"),
        ]
        for path, params, price in reads:
            clock.advance(timedelta(seconds=1))
            body = ok(await client.get(path, params=params, headers=team.headers), 200, price)
            assert isinstance(body["data"], list), path
