"""HTTP tests of /v1/tracking (spec §3, §4.7, §6.3, §8.3; issue 20 items 1-4) over the sandbox connector,
with the manual clock and the dispatcher driving the cycles. On SQLite and PostgreSQL.

Sandbox creators used (seed of the default settings, from 2026-11-21 12:00:30Z):
``theoparent18`` gains 14 followers in the first day (deltas); ``maxcloset3`` posts a video on day 5
that passes 3x their median views (outlier event); ``avabytes0`` changes nothing for a week.
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from reelscope.billing import service as billing_service
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from reelscope.models import Job, LedgerEntry, TrackingSnapshotRow
from reelscope.runtime import Runtime
from reelscope.worker.context import TaskContext
from reelscope.worker.dispatcher import dispatch_once
from reelscope.worker.engine import JobEngine
from reelscope.worker.queue import Message
from tests.conftest import MakeTeam, TeamKey
from tests.kit.test_errors import assert_error
from tests.tracking.conftest import Advance, creator_handle, events, failing, healthy, world

pytestmark = pytest.mark.both_databases

QUIET = creator_handle(0)  # avabytes0
GROWING = creator_handle(18)  # theoparent18
OUTLIER = creator_handle(3)  # maxcloset3


async def track(client: httpx.AsyncClient, team: TeamKey, handle: str, **fields: Any) -> dict[str, Any]:
    body = {"platform": "tiktok", "handle": handle, **fields}
    response = await client.post("/v1/tracking/creators", json=body, headers=team.headers)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


async def get(client: httpx.AsyncClient, team: TeamKey, path: str, **params: Any) -> dict[str, Any]:
    response = await client.get(path, params=params, headers=team.headers)
    assert response.status_code == 200, response.text
    assert response.headers["X-Cost"] == "0.00"  # §4.7: tracking reads are free
    body: dict[str, Any] = response.json()
    return body


async def ledger(runtime: Runtime, team: TeamKey) -> list[tuple[str, int, str | None]]:
    async with runtime.db.transaction(write=False) as session:
        stmt = (
            select(LedgerEntry.kind, LedgerEntry.credits, LedgerEntry.operation)
            .where(LedgerEntry.team_id == team.team_id)
            .order_by(LedgerEntry.created_at, LedgerEntry.id)
        )
        return [
            (kind, credits, operation) for kind, credits, operation in (await session.execute(stmt)).all()
        ]


async def balance(runtime: Runtime, team: TeamKey) -> int:
    async with runtime.db.transaction(write=False) as session:
        return await billing_service.balance(session, team.team_id)


class TestCreate:
    async def test_a_creator_costs_25_credits_and_gets_its_first_cycle_at_once(
        self, client: httpx.AsyncClient, team: TeamKey, jobs: JobEngine, runtime: Runtime
    ) -> None:
        response = await client.post(
            "/v1/tracking/creators", json={"platform": "tiktok", "handle": f"@{QUIET}"}, headers=team.headers
        )
        assert response.status_code == 201, response.text
        assert response.headers["X-Cost"] == "0.25" and response.headers["X-Credits-Used"] == "25"
        created = response.json()["data"]
        assert created["platform_handle"] == QUIET and created["cadence"] == "daily"
        assert created["status"] == "active" and created["next_check_at"] == "2026-11-22T12:00:30Z"
        # the first cycle is a pending job of the new item (§2.6), run once the creation commits
        [pending] = created["pending_jobs"]
        assert pending["type"] == "tracking_report" and pending["webhook_event"] == "tracking.cycle.completed"
        item = (await get(client, team, f"/v1/tracking/creators/{created['id']}"))["data"]
        assert item["cycles_completed"] == 1 and item["finalized"] is True and item["pending_jobs"] == []
        assert item["latest_snapshot"]["followers"] > 0 and item["latest_snapshot"]["posts_analyzed"] == 50
        [event] = await events(runtime, "tracking.cycle.completed")
        assert event["team_id"] == team.team_id
        assert event["tracking_type"] == "creator" and event["tracking_id"] == created["id"]
        assert event["platform"] == "tiktok" and event["platform_handle"] == QUIET
        assert "video_url" not in event
        assert event["report_available"] is True and event["new_posts_count"] == 0
        assert event["dashboard_url"].startswith("http://127.0.0.1:8000/dashboard/")
        # the first snapshot has nothing to compare with: no delta_ field
        assert not [key for key in event["snapshot"] if key.startswith("delta_")]
        assert await ledger(runtime, team) == [
            ("top_up", 1000, None),
            ("charge", -25, "create_tracked_creator"),
        ]

    async def test_a_video_carries_its_url_and_counters(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        jobs: JobEngine,
        runtime: Runtime,
        clock: ManualClock,
        advance: Advance,
    ) -> None:
        [video] = world().creator_posts(Platform.TIKTOK, OUTLIER, clock.now(), 1) or []
        response = await client.post(
            "/v1/tracking/videos",
            json={"platform": "tiktok", "video_id": video.external_id, "cadence": "six_hours"},
            headers=team.headers,
        )
        assert response.status_code == 201, response.text
        assert response.headers["X-Cost"] == "0.25"
        created = response.json()["data"]
        assert created["tracking_type"] == "video" and created["video_url"] == video.url
        assert created["next_check_at"] == "2026-11-21T18:00:30Z"
        [event] = await events(runtime, "tracking.cycle.completed")
        assert event["tracking_type"] == "video" and event["video_url"] == video.url
        assert "platform_handle" not in event
        assert event["snapshot"]["views"] == video.views and event["snapshot"]["title"] == video.description
        await advance(timedelta(hours=6))
        _, later = await events(runtime, "tracking.cycle.completed")
        assert later["snapshot"]["delta_views"] == later["snapshot"]["views"] - video.views > 0
        listed = await get(client, team, "/v1/tracking/videos", search=video.external_id[-6:])
        assert [row["id"] for row in listed["data"]] == [created["id"]]
        assert (await get(client, team, "/v1/tracking/videos", search="%"))["data"] == []

    async def test_refusals_are_not_billed(
        self, client: httpx.AsyncClient, team: TeamKey, make_team: MakeTeam, jobs: JobEngine, runtime: Runtime
    ) -> None:
        await track(client, team, QUIET)
        again = await client.post(
            "/v1/tracking/creators",
            json={"platform": "tiktok", "handle": QUIET.upper()},
            headers=team.headers,
        )
        assert_error(again, 409, "conflict")
        missing = await client.post(
            "/v1/tracking/creators",
            json={"platform": "tiktok", "handle": "nobody_here"},
            headers=team.headers,
        )
        assert_error(missing, 404, "not_found")
        for body in (
            {"platform": "tiktok", "handle": QUIET, "cadence": "hourly"},
            {"platform": "myspace", "handle": QUIET},
            {"platform": "tiktok"},
            {"platform": "tiktok", "handle": QUIET, "extra": 1},
        ):
            response = await client.post("/v1/tracking/creators", json=body, headers=team.headers)
            assert_error(response, 400, "validation_error")
        assert_error(
            await client.post(
                "/v1/tracking/videos", json={"platform": "tiktok", "video_id": "1"}, headers=team.headers
            ),
            404,
            "not_found",
        )
        assert await balance(runtime, team) == 1000 - 25
        poor = await make_team(10)
        response = await client.post(
            "/v1/tracking/creators", json={"platform": "tiktok", "handle": QUIET}, headers=poor.headers
        )
        assert_error(response, 402, "insufficient_credits")


class TestListAndChange:
    async def test_lists_search_and_page(
        self, client: httpx.AsyncClient, team: TeamKey, make_team: MakeTeam, jobs: JobEngine
    ) -> None:
        for index in (0, 1, 2):
            await track(client, team, creator_handle(index))
        page = await get(client, team, "/v1/tracking/creators", limit=2)
        assert len(page["data"]) == 2
        assert page["pagination"] == {
            "page": 1,
            "limit": 2,
            "total": 3,
            "total_pages": 2,
            "has_next_page": True,
            "has_prev_page": False,
        }
        last = await get(client, team, "/v1/tracking/creators", limit=2, page=2)
        assert len(last["data"]) == 1 and last["pagination"]["has_prev_page"] is True
        assert (await get(client, team, "/v1/tracking/creators"))["pagination"]["limit"] == 20  # §8.3 default
        assert (await get(client, team, "/v1/tracking/creators", limit=500))["pagination"]["limit"] == 100
        # a part of the third handle, in capitals: search is by substring, whatever the case
        found = await get(client, team, "/v1/tracking/creators", search=creator_handle(2)[2:].upper())
        assert [row["platform_handle"] for row in found["data"]] == [creator_handle(2)]
        assert (await get(client, team, "/v1/tracking/videos"))["data"] == []
        other = await make_team()
        assert (await get(client, other, "/v1/tracking/creators"))["data"] == []
        bad = await client.get("/v1/tracking/creators", params={"offset": 3}, headers=team.headers)
        assert_error(bad, 400, "validation_error")

    async def test_another_teams_item_and_the_wrong_kind_are_404(
        self, client: httpx.AsyncClient, team: TeamKey, make_team: MakeTeam, jobs: JobEngine
    ) -> None:
        item = await track(client, team, QUIET)
        other = await make_team()
        for method, path in [
            ("GET", f"/v1/tracking/creators/{item['id']}"),
            ("PATCH", f"/v1/tracking/creators/{item['id']}"),
            ("DELETE", f"/v1/tracking/creators/{item['id']}"),
            ("GET", f"/v1/tracking/creators/{item['id']}/report"),
        ]:
            response = await client.request(method, path, json={"status": "paused"}, headers=other.headers)
            assert_error(response, 404, "not_found")
        assert_error(
            await client.get(f"/v1/tracking/videos/{item['id']}", headers=team.headers), 404, "not_found"
        )

    async def test_pause_resume_cadence_and_delete(
        self, client: httpx.AsyncClient, team: TeamKey, jobs: JobEngine, runtime: Runtime, advance: Advance
    ) -> None:
        item = await track(client, team, QUIET)
        path = f"/v1/tracking/creators/{item['id']}"
        assert_error(await client.patch(path, json={}, headers=team.headers), 400, "validation_error")
        assert_error(
            await client.patch(path, json={"status": "gone"}, headers=team.headers), 400, "validation_error"
        )
        paused = await client.patch(path, json={"status": "paused"}, headers=team.headers)
        assert paused.status_code == 200 and paused.headers["X-Cost"] == "0.00"
        assert paused.json()["data"]["status"] == "paused" and paused.json()["data"]["next_check_at"] is None
        await advance(timedelta(days=2))
        assert (await get(client, team, path))["data"]["cycles_completed"] == 1  # no cycle while paused
        resumed = await client.patch(
            path, json={"status": "active", "cadence": "weekly"}, headers=team.headers
        )
        data = resumed.json()["data"]
        assert data["status"] == "active" and data["cadence"] == "weekly"
        assert data["next_check_at"] == "2026-11-30T12:00:30Z"  # a week from the change
        await advance(timedelta(days=7))
        assert (await get(client, team, path))["data"]["cycles_completed"] == 2
        deleted = await client.delete(path, headers=team.headers)
        assert deleted.status_code == 204 and deleted.headers["X-Cost"] == "0.00"
        assert_error(await client.get(path, headers=team.headers), 404, "not_found")
        await advance(timedelta(days=8))  # nothing is left to fire
        assert len(await events(runtime, "tracking.cycle.completed")) == 2


class TestCycles:
    async def test_a_scheduled_cycle_debits_25_and_reports_deltas(
        self, client: httpx.AsyncClient, team: TeamKey, jobs: JobEngine, runtime: Runtime, advance: Advance
    ) -> None:
        item = await track(client, team, GROWING)
        await advance(timedelta(days=1))
        first, second = await events(runtime, "tracking.cycle.completed")
        snapshot = second["snapshot"]
        assert snapshot["followers"] == first["snapshot"]["followers"] + 14
        assert snapshot["delta_followers"] == 14
        # §6.3: zero or unknown numbers are omitted (a TikTok creator has no subscribers); the total
        # follows the posts' views, never below their sum (issue 32 item 5), and its delta agrees
        assert "subscribers" not in snapshot
        grown = snapshot["total_views"] - first["snapshot"]["total_views"]
        assert snapshot.get("delta_total_views", 0) == grown >= 0
        assert await ledger(runtime, team) == [
            ("top_up", 1000, None),
            ("charge", -25, "create_tracked_creator"),
            ("charge", -25, "tracking_cycle"),
        ]
        snapshots = (await get(client, team, f"/v1/tracking/creators/{item['id']}/snapshots"))["data"]
        assert snapshots["count"] == 2
        assert [s["taken_at"] for s in snapshots["snapshots"]] == [
            "2026-11-22T12:00:30Z",
            "2026-11-21T12:00:30Z",
        ]
        assert snapshots["snapshots"][0]["snapshot"]["delta_followers"] == 14

    async def test_a_due_time_is_checked_once(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        jobs: JobEngine,
        runtime: Runtime,
        clock: ManualClock,
        task_context: TaskContext,
    ) -> None:
        item = await track(client, team, QUIET)
        clock.advance(timedelta(days=1, minutes=5))
        await dispatch_once(task_context)
        await dispatch_once(task_context)
        async with runtime.db.transaction(write=False) as session:
            cycle_jobs = (
                (
                    await session.execute(
                        select(Job).where(Job.resource_id == item["id"], Job.task == "tracking.cycle")
                    )
                )
                .scalars()
                .all()
            )
        assert len(cycle_jobs) == 2 and all(job.status == "completed" for job in cycle_jobs)
        # the job of a due time run again (a duplicate message, a restart) changes nothing
        scheduled = next(job for job in cycle_jobs if not job.params.get("first"))
        async with runtime.db.transaction() as session:
            row = await session.get(Job, scheduled.id)
            assert row is not None
            row.status, row.next_attempt_at, row.lease_token = "pending", clock.now(), None
        jobs.send([Message(task=scheduled.task, job_id=scheduled.id)])
        jobs.drain()
        async with runtime.db.transaction(write=False) as session:
            count = (
                await session.execute(select(func.count()).select_from(TrackingSnapshotRow))
            ).scalar_one()
        assert count == 2
        assert [op for _, _, op in await ledger(runtime, team)].count("tracking_cycle") == 1
        assert len(await events(runtime, "tracking.cycle.completed")) == 2

    async def test_three_failed_checks_pause_and_an_update_resumes(
        self, client: httpx.AsyncClient, team: TeamKey, jobs: JobEngine, runtime: Runtime, advance: Advance
    ) -> None:
        item = await track(client, team, QUIET, cadence="six_hours")
        path = f"/v1/tracking/creators/{item['id']}"
        failing(jobs)
        for expected in (1, 2):
            await advance(timedelta(hours=6))
            data = (await get(client, team, path))["data"]
            assert data["status"] == "active" and data["consecutive_failures"] == expected
        await advance(timedelta(hours=6))
        data = (await get(client, team, path))["data"]
        assert data["status"] == "paused" and data["pause_reason"] == "max_failures_reached"
        [paused] = await events(runtime, "tracking.paused")
        assert paused["reason"] == paused["pause_reason"] == "max_failures_reached"
        assert paused["tracking_id"] == item["id"] and paused["platform_handle"] == QUIET
        assert paused["tracking_type"] == "creator" and "/dashboard/" in paused["dashboard_url"]
        await advance(timedelta(hours=6))  # paused: no more checks
        assert (await get(client, team, path))["data"]["consecutive_failures"] == 3
        # failed checks are not billed
        assert [op for _, _, op in await ledger(runtime, team)].count("tracking_cycle") == 0
        healthy(jobs)
        resumed = await client.patch(path, json={"status": "active"}, headers=team.headers)
        data = resumed.json()["data"]
        assert (
            data["status"] == "active" and data["pause_reason"] is None and data["consecutive_failures"] == 0
        )
        await advance(timedelta(hours=6))
        data = (await get(client, team, path))["data"]
        assert data["cycles_completed"] == 2 and data["status"] == "active"
        assert [op for _, _, op in await ledger(runtime, team)].count("tracking_cycle") == 1

    async def test_a_balance_that_cannot_cover_a_cycle_pauses(
        self,
        client: httpx.AsyncClient,
        make_team: MakeTeam,
        jobs: JobEngine,
        runtime: Runtime,
        advance: Advance,
        clock: ManualClock,
    ) -> None:
        team = await make_team(40)
        item = await track(client, team, QUIET)
        path = f"/v1/tracking/creators/{item['id']}"
        await advance(timedelta(days=1))
        data = (await get(client, team, path))["data"]
        assert data["status"] == "paused" and data["pause_reason"] == "insufficient_credits"
        assert data["cycles_completed"] == 1
        [paused] = await events(runtime, "tracking.paused")
        assert paused["reason"] == paused["pause_reason"] == "insufficient_credits"
        assert await balance(runtime, team) == 15  # nothing taken by the refused cycle
        async with runtime.db.transaction() as session:
            await billing_service.add_credits(session, team.team_id, 100, at=clock.now())
        await client.patch(path, json={"status": "active"}, headers=team.headers)
        await advance(timedelta(days=1))
        data = (await get(client, team, path))["data"]
        assert data["status"] == "active" and data["cycles_completed"] == 2
        assert await balance(runtime, team) == 115 - 25


class TestReads:
    async def test_snapshot_and_post_limits(
        self, client: httpx.AsyncClient, team: TeamKey, jobs: JobEngine, advance: Advance
    ) -> None:
        item = await track(client, team, QUIET)
        base = f"/v1/tracking/creators/{item['id']}"
        for _ in range(3):
            await advance(timedelta(days=1))
        assert (await get(client, team, base + "/snapshots"))["data"]["count"] == 4
        assert (await get(client, team, base + "/snapshots", limit=2))["data"]["count"] == 2
        assert (await get(client, team, base + "/snapshots", limit=365))["data"]["count"] == 4
        window = await get(client, team, base + "/snapshots", start_date="2026-11-22", end_date="2026-11-23")
        assert [s["taken_at"][:10] for s in window["data"]["snapshots"]] == ["2026-11-23", "2026-11-22"]
        for params in ({"limit": 366}, {"limit": 0}, {"until": "2026-11-22"}):
            response = await client.get(base + "/snapshots", params=params, headers=team.headers)
            assert_error(response, 400, "validation_error")
        for params in (
            {"start_date": "yesterday"},
            {"end_date": "2026-02-30"},
            {"start_date": "2026-11-23", "end_date": "2026-11-22"},
        ):
            response = await client.get(base + "/snapshots", params=params, headers=team.headers)
            assert_error(response, 400, "invalid_date_range")  # §7
        posts = await get(client, team, base + "/posts")
        assert len(posts["data"]) == 50 and posts["pagination"]["limit"] == 50  # §8.3 default 50
        dates = [post["publish_date"] for post in posts["data"]]
        assert dates == sorted(dates, reverse=True)
        by_views = await get(client, team, base + "/posts", sort="views", limit=200)
        assert by_views["data"][0]["views"] == max(post["views"] for post in posts["data"])
        assert_error(await client.get(base + "/posts", params={"limit": 201}, headers=team.headers), 400,
                     "validation_error")  # fmt: skip
        first = posts["data"][0]
        assert (await get(client, team, base + f"/posts/{first['id']}"))["data"] == first
        assert (await get(client, team, base + f"/posts/{first['video_id']}"))["data"]["id"] == first["id"]
        assert_error(await client.get(base + "/posts/nope", headers=team.headers), 404, "not_found")

    async def test_report_and_posting_cadence(
        self, client: httpx.AsyncClient, team: TeamKey, jobs: JobEngine
    ) -> None:
        item = await track(client, team, QUIET)
        base = f"/v1/tracking/creators/{item['id']}"
        report = (await get(client, team, base + "/report"))["data"]
        assert report["report_available"] is True and report["generated_at"] == "2026-11-21T12:00:30Z"
        assert report["report"]["median_views"] > 0 and len(report["report"]["top_posts"]) == 5
        cadence = (await get(client, team, base + "/posting-cadence"))["data"]
        assert cadence["posts_analyzed"] == 50
        assert sum(cadence["by_weekday"].values()) == 50 and sum(cadence["by_hour"].values()) == 50
        assert cadence["posts_per_week"] > 0 and cadence["median_gap_hours"] > 0


class TestOutliers:
    async def test_a_new_post_over_three_times_the_median_is_announced_once(
        self, client: httpx.AsyncClient, team: TeamKey, jobs: JobEngine, runtime: Runtime, advance: Advance
    ) -> None:
        item = await track(client, team, OUTLIER)
        for _ in range(7):
            await advance(timedelta(days=1))
        [event] = await events(runtime, "tracking.outlier_video.detected")
        assert event["tracking_id"] == item["id"] and event["platform_handle"] == OUTLIER
        [video] = event["outlier_videos"]
        assert video["outlier_ratio"] >= 3
        assert video["views"] == pytest.approx(video["outlier_ratio"] * video["median_views"], rel=1e-3)
        expected = math.log(video["outlier_ratio"]) * math.log(video["median_views"])
        assert video["weighted_score"] == pytest.approx(expected, rel=1e-3)
        assert event["creator_median_views"] == video["median_views"]
        post = await get(
            client, team, f"/v1/tracking/creators/{item['id']}/posts/{video['url'].split('/')[-1]}"
        )
        assert post["data"]["is_outlier"] is True


class TestPostCollection:
    @pytest.mark.parametrize(("depth", "cost", "most"), [("standard", "0.50", 50), ("deep", "1.00", 200),
                                                         ("full", "2.00", 500)])  # fmt: skip
    async def test_depths_are_priced_and_collected(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        jobs: JobEngine,
        clock: ManualClock,
        depth: str,
        cost: str,
        most: int,
    ) -> None:
        handle = creator_handle(2)  # miathrifts2: 128 posts
        available = len(world().creator_posts(Platform.TIKTOK, handle, clock.now(), 500) or [])
        assert available == 128
        item = await track(client, team, handle)
        base = f"/v1/tracking/creators/{item['id']}"
        response = await client.post(base + "/posts/collect", json={"depth": depth}, headers=team.headers)
        assert response.status_code == 202, response.text
        assert response.headers["X-Cost"] == cost
        started = response.json()["data"]
        assert started["depth"] == depth and started["max_videos"] == most
        polled = (await get(client, team, started["poll_url"]))["data"]
        assert polled["status"] == "completed" and polled["videos_collected"] == min(most, available)
        assert polled["new_posts"] == min(most, available) - 50
        total = (await get(client, team, base + "/posts"))["pagination"]["total"]
        assert total == max(50, min(most, available))

    async def test_a_bad_depth_is_a_400_and_a_failed_collection_is_refunded(
        self, client: httpx.AsyncClient, team: TeamKey, jobs: JobEngine, runtime: Runtime, advance: Advance
    ) -> None:
        item = await track(client, team, QUIET)
        base = f"/v1/tracking/creators/{item['id']}"
        bad = await client.post(base + "/posts/collect", json={"depth": "huge"}, headers=team.headers)
        assert_error(bad, 400, "validation_error")
        assert_error(await client.get(base + "/posts/collect/nope", headers=team.headers), 404, "not_found")
        failing(jobs)
        response = await client.post(base + "/posts/collect", json={}, headers=team.headers)
        assert response.status_code == 202 and response.headers["X-Cost"] == "0.50"
        poll = response.json()["data"]["poll_url"]
        assert (await get(client, team, poll))["data"]["status"] == "failed"  # retried later
        for wait in (timedelta(seconds=30), timedelta(minutes=2)):
            await advance(wait)
        polled = (await get(client, team, poll))["data"]
        assert polled["status"] == "failed" and polled["error"]["code"] == "upstream_error"
        assert await balance(runtime, team) == 1000 - 25  # the 50 credits came back
        assert (await ledger(runtime, team))[-1] == ("refund", 50, None)
