"""HTTP tests of the hashtag statistics (spec §4.2, §2.3, §7, §8; issue 6).

The hand-made catalog puts one video on each side of every counting rule: posted on the first and the
last day of the range and just outside it, found 8 days after posting (never counted) and exactly 7,
views that keep growing after day 7 (frozen), and one tag in four case forms.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from reelscope.hashtag import service as hashtag_service
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from reelscope.models import Hashtag, Video, VideoHashtag
from reelscope.runtime import Runtime
from reelscope.worker import registry
from tests.catalog_builders import collect_sandbox, ingest, video
from tests.conftest import TeamKey
from tests.kit.test_errors import assert_error

RANGE = {"start_date": "2026-11-01", "end_date": "2026-11-10"}


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


async def rollup(runtime: Runtime, clock: ManualClock) -> None:
    await hashtag_service.rollup(runtime.db, clock.now())


@pytest.fixture
async def catalog(runtime: Runtime, clock: ManualClock) -> None:
    day = timedelta(days=1)
    await ingest(
        runtime,
        video("start0", at("2026-11-01T00:00:00"), views=100, likes=10, comments=2, hashtags=("Fyp", "food")),
        video("end1", at("2026-11-10T23:59:59"), views=200, likes=20, comments=4, hashtags=("#FYP",)),
        video("before", at("2026-10-31T23:59:59"), views=1_000, hashtags=("fyp",)),
        video("after", at("2026-11-11T00:00:00"), views=1_000, hashtags=("fYp",)),
        video("week", at("2026-11-05T12:00:00"), views=300, likes=30, comments=6, hashtags=("fyp",),
              fetched_at=at("2026-11-12T12:00:00")),
        video("late", at("2026-11-05T12:00:00"), views=5_000, hashtags=("fyp", "lateonly"),
              fetched_at=at("2026-11-13T12:00:01")),
        video("yt", at("2026-11-04T08:00:00"), platform=Platform.YOUTUBE, views=50_000, hashtags=("#food",)),
    )  # fmt: skip
    # views keep changing after day 7: the value a week after posting (500) is what counts
    posted = at("2026-11-03T10:00:00")
    await ingest(runtime, video("frozen", posted, views=100, likes=40, comments=8, hashtags=("fyp",),
                                fetched_at=posted + 3 * day))  # fmt: skip
    await ingest(runtime, video("frozen", posted, views=500, likes=40, comments=8, hashtags=("fyp",),
                                fetched_at=posted + 7 * day + timedelta(hours=1)))  # fmt: skip
    await ingest(runtime, video("frozen", posted, views=9_000, likes=40, comments=8, hashtags=("fyp",),
                                fetched_at=posted + 15 * day))  # fmt: skip
    await rollup(runtime, clock)


async def top(client: httpx.AsyncClient, team: TeamKey, path: str = "/v1/hashtags", **params: Any) -> Any:
    response = await client.get(path, params={**RANGE, **params}, headers=team.headers)
    assert response.status_code == 200, response.text
    assert response.headers["X-Cost"] == "0.05"
    return response.json()["data"]


async def performance(client: httpx.AsyncClient, team: TeamKey, tag: str, **params: Any) -> httpx.Response:
    return await client.get(f"/v1/hashtags/{tag}/performance", params=params, headers=team.headers)


class TestCounting:
    @pytest.mark.both_databases
    async def test_the_rules_of_2_3(self, client: httpx.AsyncClient, team: TeamKey, catalog: None) -> None:
        rows = {r["hashtag"].lower(): r for r in await top(client, team)}
        # start0, end1, week (found exactly 7 days after), frozen; not before/after the dates, not late
        assert rows["fyp"]["count"] == 4
        assert rows["fyp"]["total_views"] == 100 + 200 + 300 + 500
        assert rows["food"] == {"hashtag": "food", "count": 2, "total_views": 100 + 50_000}
        assert "lateonly" not in rows
        assert set(rows["fyp"]) == {"hashtag", "count", "total_views"}

    async def test_a_tag_in_several_case_forms_is_one_tag(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None
    ) -> None:
        everything = await top(client, team, start_date="2026-10-01", end_date="2026-11-21")
        fyp = [r for r in everything if r["hashtag"].lower() == "fyp"]
        assert len(fyp) == 1 and fyp[0]["count"] == 6  # Fyp, #FYP, fyp, fYp

    async def test_each_boundary_day_is_included(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None
    ) -> None:
        first = await top(client, team, start_date="2026-11-01", end_date="2026-11-01")
        last = await top(client, team, start_date="2026-11-10", end_date="2026-11-10")
        outside = await top(client, team, start_date="2026-10-31", end_date="2026-10-31")
        assert {r["hashtag"].lower(): r["count"] for r in first} == {"fyp": 1, "food": 1}
        assert {r["hashtag"].lower(): r["total_views"] for r in last} == {"fyp": 200}
        assert {r["hashtag"].lower(): r["total_views"] for r in outside} == {"fyp": 1_000}

    async def test_a_platform_list_counts_only_its_platform(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None
    ) -> None:
        youtube = await top(client, team, "/v1/youtube/hashtags")
        assert youtube == [{"hashtag": "food", "count": 1, "total_views": 50_000}]
        tiktok = {r["hashtag"].lower(): r["count"] for r in await top(client, team, "/v1/tiktok/hashtags")}
        assert tiktok == {"fyp": 4, "food": 1}
        assert await top(client, team, "/v1/instagram/hashtags") == []

    async def test_nothing_before_2024_06_01(
        self, client: httpx.AsyncClient, team: TeamKey, runtime: Runtime, clock: ManualClock
    ) -> None:
        await ingest(
            runtime,
            video("may", at("2024-05-31T12:00:00"), views=10, hashtags=("vintage",)),
            video("june", at("2024-06-01T00:00:00"), views=20, hashtags=("vintage",)),
        )
        await rollup(runtime, clock)
        assert await top(client, team, start_date="2024-05-01", end_date="2024-05-31") == []  # still charged
        spanning = await top(client, team, start_date="2024-05-15", end_date="2024-06-10")
        assert spanning == [{"hashtag": "vintage", "count": 1, "total_views": 20}]
        body = (await performance(client, team, "vintage")).json()["data"]
        assert body["video_count"] == 1
        early = await performance(client, team, "vintage", start_date="2024-05-01", end_date="2024-05-31")
        assert_error(early, 404, "not_found")

    async def test_stats_change_only_when_the_rollup_runs(
        self, client: httpx.AsyncClient, team: TeamKey, runtime: Runtime, clock: ManualClock, catalog: None
    ) -> None:
        await ingest(runtime, video("new", at("2026-11-02T00:00:00"), views=7, hashtags=("fyp",)))
        rows = {r["hashtag"].lower(): r["count"] for r in await top(client, team)}
        assert rows["fyp"] == 4  # §2.3: stats refresh every 6 hours, not per request
        await rollup(runtime, clock)
        rows = {r["hashtag"].lower(): r["count"] for r in await top(client, team)}
        assert rows["fyp"] == 5

    def test_the_rollup_is_a_job_every_6_hours(self) -> None:
        job = registry.get("hashtag.rollup")
        assert job.periodic is not None
        fires = [h for h in range(24) if job.periodic(datetime(2026, 11, 21, h, 7))]
        assert fires == [0, 6, 12, 18]


class TestTopListParameters:
    async def test_order_by_and_sort(self, client: httpx.AsyncClient, team: TeamKey, catalog: None) -> None:
        by_count = [r["hashtag"].lower() for r in await top(client, team)]
        by_views = [r["hashtag"].lower() for r in await top(client, team, order_by="views")]
        assert by_count == ["fyp", "food"] and by_views == ["food", "fyp"]
        assert [r["hashtag"].lower() for r in await top(client, team, sort="asc")] == ["food", "fyp"]
        ascending = await top(client, team, order_by="views", sort="asc")
        assert [r["hashtag"].lower() for r in ascending] == ["fyp", "food"]

    async def test_limit_and_page(
        self, client: httpx.AsyncClient, team: TeamKey, runtime: Runtime, clock: ManualClock
    ) -> None:
        tags = tuple(f"tag{i:03d}" for i in range(120))
        await ingest(runtime, video("many", at("2026-11-02T00:00:00"), hashtags=tags))
        await rollup(runtime, clock)
        assert len(await top(client, team)) == 50
        assert len(await top(client, team, limit=3)) == 3
        clamped = await top(client, team, limit=500)
        assert len(clamped) == 100
        # §4.2: accepted but not paged — page 2 repeats page 1, and is charged
        before = (await client.get("/v1/account/balance", headers=team.headers)).json()["data"]
        assert await top(client, team, page=2) == await top(client, team, page=1)
        after = (await client.get("/v1/account/balance", headers=team.headers)).json()["data"]
        assert before != after
        # a tag outside the top 100 still has its performance
        assert clamped[-1]["hashtag"] == "tag099"
        assert (await performance(client, team, "TAG119", **RANGE)).json()["data"]["video_count"] == 1

    async def test_an_empty_list_is_charged(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        assert await top(client, team) == []

    @pytest.mark.parametrize(
        ("params", "names"),
        [
            ({"end_date": "2026-11-10"}, "start_date"),
            ({"start_date": "2026-11-01"}, "end_date"),
            ({}, "start_date and end_date"),
        ],
    )
    async def test_a_missing_date_is_named(
        self, client: httpx.AsyncClient, team: TeamKey, params: dict[str, str], names: str
    ) -> None:
        response = await client.get("/v1/hashtags", params=params, headers=team.headers)
        body = assert_error(response, 400, "invalid_date_range")
        assert body["message"].startswith(names + " ")  # type: ignore[union-attr]

    @pytest.mark.parametrize(
        ("start", "end"),
        [
            ("2026/11/01", "2026-11-10"),
            ("2026-11-1", "2026-11-10"),
            ("yesterday", "2026-11-10"),
            ("2026-11-01", "2026-11-10T00:00:00"),
            ("2026-02-30", "2026-03-10"),  # impossible day: the spec's 500 is a defect; ours is a 400
            ("2026-11-01", "2026-13-01"),
            ("2026-11-10", "2026-11-01"),  # start after end
            ("2026-08-01", "2026-10-31"),  # 91 days apart
        ],
    )
    async def test_a_bad_range_is_invalid_date_range(
        self, client: httpx.AsyncClient, team: TeamKey, start: str, end: str
    ) -> None:
        for path in ("/v1/hashtags", "/v1/tiktok/hashtags"):
            response = await client.get(
                path, params={"start_date": start, "end_date": end}, headers=team.headers
            )
            assert_error(response, 400, "invalid_date_range")

    async def test_90_days_apart_is_allowed(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        assert await top(client, team, start_date="2026-08-02", end_date="2026-10-31") == []

    @pytest.mark.parametrize(
        ("params", "name"),
        [
            ({"limit": "0"}, "limit"),
            ({"limit": "x"}, "limit"),
            ({"page": "0"}, "page"),
            ({"order_by": "likes"}, "order_by"),
            ({"sort": "up"}, "sort"),
            ({"platform": "tiktok"}, "platform"),
            ({"offset": "0"}, "offset"),
        ],
    )
    async def test_other_bad_parameters_are_validation_errors(
        self, client: httpx.AsyncClient, team: TeamKey, params: dict[str, str], name: str
    ) -> None:
        response = await client.get("/v1/hashtags", params={**RANGE, **params}, headers=team.headers)
        body = assert_error(response, 400, "validation_error")
        assert isinstance(body["message"], list) and body["message"][0].startswith(name)
        assert response.headers["X-RateLimit-Limit"] == "50"  # §8.1: bad-input 400s count

    async def test_an_unknown_platform_is_404(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        response = await client.get("/v1/myspace/hashtags", params=RANGE, headers=team.headers)
        assert_error(response, 404, "not_found")


class TestPerformance:
    @pytest.mark.both_databases
    async def test_the_object_and_its_agreement_with_the_top_list(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None
    ) -> None:
        response = await performance(client, team, "fyp", **RANGE)
        assert response.status_code == 200 and response.headers["X-Cost"] == "0.05"
        data = response.json()["data"]
        assert data == {
            "hashtag": data["hashtag"],
            "video_count": 4,
            "total_views": 1_100,
            "avg_views": 275.0,
            "total_likes": 10 + 20 + 30 + 40,
            "avg_likes": 25.0,
            "total_comments": 2 + 4 + 6 + 8,
            "avg_comments": 5.0,
        }
        assert data["hashtag"].lower() == "fyp"
        listed = {r["hashtag"].lower(): r for r in await top(client, team)}
        assert data["video_count"] == listed["fyp"]["count"]
        assert data["total_views"] == listed["fyp"]["total_views"]

    async def test_case_insensitive_and_an_encoded_hash(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None
    ) -> None:
        counts = set()
        for tag in ("fyp", "FYP", "Fyp", "%23fyp", "%23FyP"):
            response = await performance(client, team, tag, **RANGE)
            assert response.status_code == 200, (tag, response.text)
            counts.add(response.json()["data"]["video_count"])
        assert counts == {4}

    async def test_all_platforms_combined(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None
    ) -> None:
        data = (await performance(client, team, "food", **RANGE)).json()["data"]
        assert data["video_count"] == 2 and data["total_views"] == 50_100
        assert data["avg_views"] == 25_050.0

    async def test_date_semantics(self, client: httpx.AsyncClient, team: TeamKey, catalog: None) -> None:
        async def count(**params: str) -> int:
            response = await performance(client, team, "fyp", **params)
            assert response.status_code == 200, response.text
            return int(response.json()["data"]["video_count"])

        assert await count() == 6  # all time: every counted video (not "late")
        assert await count(start_date="2026-11-05") == 3  # that day to today: week, end1, after
        assert await count(end_date="2026-11-04") == 3  # everything up to that day: before, start0, frozen
        assert await count(**RANGE) == 4

    @pytest.mark.parametrize(
        "params",
        [
            {"start_date": "2026-08-01", "end_date": "2026-10-31"},
            {"start_date": "2026-02-30"},
            {"end_date": "21-11-2026"},
            {"start_date": "2026-11-10", "end_date": "2026-11-01"},
        ],
    )
    async def test_bad_dates(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None, params: dict[str, str]
    ) -> None:
        assert_error(await performance(client, team, "fyp", **params), 400, "invalid_date_range")

    async def test_only_start_may_span_more_than_90_days(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None
    ) -> None:
        response = await performance(client, team, "fyp", start_date="2026-01-01")
        assert response.status_code == 200 and response.json()["data"]["video_count"] == 6

    @pytest.mark.parametrize(
        ("tag", "params"),
        [
            ("nosuchtag", {}),
            ("lateonly", {}),  # used only by a video found 8 days after posting
            ("fyp", {"start_date": "2026-11-20", "end_date": "2026-11-21"}),
        ],
    )
    async def test_404_when_no_counted_video_used_the_tag(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None, tag: str, params: dict[str, str]
    ) -> None:
        assert_error(await performance(client, team, tag, **params), 404, "not_found")

    async def test_unsupported_parameters(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None
    ) -> None:
        for params in ({"platform": "tiktok"}, {"limit": "5"}):
            assert_error(await performance(client, team, "fyp", **params), 400, "validation_error")


class TestSandboxCatalog:
    @pytest.mark.both_databases
    async def test_counts_equal_the_rules_applied_to_the_catalog(
        self, client: httpx.AsyncClient, team: TeamKey, runtime: Runtime, clock: ManualClock
    ) -> None:
        # TikTok's videos alone: the counting rules are the same for each platform (§2.3), a third the work
        await collect_sandbox(runtime, clock, days=3, tiktok_only=True)
        await rollup(runtime, clock)
        async with runtime.db.transaction(write=False) as session:
            stmt = (
                select(Hashtag.key, Video.platform, Video.published_at, Video.found_at, Video.views,
                       Video.views_at_7d)
                .join(VideoHashtag, VideoHashtag.hashtag_id == Hashtag.id)
                .join(Video, Video.id == VideoHashtag.video_id)
            )  # fmt: skip
            rows = (await session.execute(stmt)).all()
        start, end = (clock.now() - timedelta(days=2)).date(), clock.now().date()
        counts: Counter[str] = Counter()
        views: Counter[str] = Counter()
        tiktok: Counter[str] = Counter()
        for key, platform, published, found, current, frozen in rows:
            if start <= published.date() <= end and found - published <= timedelta(days=7):
                counts[key] += 1
                views[key] += frozen if frozen is not None else current
                tiktok[key] += platform == "tiktok"
        expected = sorted(counts, key=lambda k: (-counts[k], -views[k], k))[:100]
        params = {"start_date": start.isoformat(), "end_date": end.isoformat(), "limit": 100}
        listed = await top(client, team, **params)
        assert len(listed) == 100
        assert [(r["hashtag"].lower(), r["count"], r["total_views"]) for r in listed] == [
            (k, counts[k], views[k]) for k in expected
        ]
        per_platform = await top(client, team, "/v1/tiktok/hashtags", **params)
        assert all(tiktok[r["hashtag"].lower()] == r["count"] for r in per_platform)
        key = expected[0]
        data = (await performance(client, team, key, start_date=params["start_date"])).json()["data"]
        assert (data["video_count"], data["total_views"]) == (counts[key], views[key])
