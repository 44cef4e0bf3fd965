"""HTTP tests of the trend family (spec §2.4, §2.5, §4.3, §8)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from reelscope.analysis.trends import promote
from reelscope.kit.clock import ManualClock
from tests.conftest import TeamKey
from tests.kit.test_errors import assert_error
from tests.trend.conftest import RunTrends, detected


class TestRegions:
    async def test_default_regions_free(
        self, client: httpx.AsyncClient, team: TeamKey, regions: None
    ) -> None:
        response = await client.get("/v1/trends/regions", headers=team.headers)
        assert response.status_code == 200
        assert response.headers["X-Cost"] == "0.00"
        data = response.json()["data"]
        assert data[0] == {"code": "global", "name": "Global", "timezone": "America/New_York"}
        assert {r["code"] for r in data} >= {"global", "us", "gb", "au"}

    async def test_unknown_region_lists_the_available_ones(
        self, client: httpx.AsyncClient, team: TeamKey, regions: None
    ) -> None:
        for path in ("/v1/trends", "/v1/trends/digest", "/v1/trends/emerging"):
            body = assert_error(
                await client.get(path, params={"region": "mars"}, headers=team.headers), 400, "unknown_region"
            )
            for code in ("global", "us", "gb", "au"):
                assert code in str(body["message"])


class TestList:
    async def test_shape_of_a_group_and_its_rows(
        self, client: httpx.AsyncClient, team: TeamKey, run_trends: RunTrends, clock: ManualClock
    ) -> None:
        await run_trends("us", clock.now() - timedelta(hours=1), ("GlassSkin", 30))
        response = await client.get("/v1/trends", params={"region": "us"}, headers=team.headers)
        assert response.status_code == 200
        assert response.headers["X-Cost"] == "0.25"
        groups = response.json()["data"]
        assert len(groups) == 1
        group = groups[0]
        assert set(group) == {"id", "title", "region", "local_date", "trends"}
        assert group["region"] == "us"
        row = group["trends"][0]
        assert set(row) >= {
            "id",
            "trend_id",
            "trend_group_id",
            "ranking",
            "detected_at",
            "last_seen_at",
            "origin_region_codes",
            "global_confidence",
            "momentum",
            "trend",
            "top_exemplars",
        }
        assert row["ranking"] == 1
        assert row["trend_group_id"] == group["id"]
        assert row["origin_region_codes"] is None and row["global_confidence"] is None
        assert set(row["momentum"]) == {"status", "score", "views_per_hour", "updated_at"}
        assert row["momentum"]["status"] == "new"
        assert 0 <= row["momentum"]["score"] <= 1
        assert row["trend"]["name"] == "#GlassSkin"
        assert set(row["trend"]) == {"id", "name", "description", "trend_type"}
        views = [e["views"] for e in row["top_exemplars"]]
        assert len(views) == 5 and views == sorted(views, reverse=True)

    async def test_top_exemplars_zero_omits_them(
        self, client: httpx.AsyncClient, team: TeamKey, run_trends: RunTrends, clock: ManualClock
    ) -> None:
        await run_trends("us", clock.now(), ("GlassSkin", 30))
        response = await client.get(
            "/v1/trends", params={"region": "us", "top_exemplars": 0}, headers=team.headers
        )
        assert "top_exemplars" not in response.json()["data"][0]["trends"][0]
        response = await client.get(
            "/v1/trends", params={"region": "us", "top_exemplars": 20}, headers=team.headers
        )
        assert len(response.json()["data"][0]["trends"][0]["top_exemplars"]) == 20

    @pytest.mark.parametrize(
        "params",
        [{"top_exemplars": 21}, {"top_exemplars": -1}, {"limit": 0}, {"limit": "many"}, {"offset": 10}],
    )
    async def test_bad_parameters_are_400_and_free(
        self, client: httpx.AsyncClient, team: TeamKey, regions: None, params: dict[str, object]
    ) -> None:
        assert_error(
            await client.get("/v1/trends", params=params, headers=team.headers), 400, "validation_error"
        )

    @pytest.mark.parametrize("path", ["/v1/trends", "/v1/trends/digest", "/v1/trends/emerging"])
    async def test_an_unknown_parameter_is_400_naming_it_and_free(
        self, client: httpx.AsyncClient, team: TeamKey, regions: None, path: str
    ) -> None:
        # the trend query models reject what they do not define, as digests and hashtags do (§7)
        response = await client.get(path, params={"regoin": "us"}, headers=team.headers)
        body = assert_error(response, 400, "validation_error")
        assert body["message"] == ["regoin is not a supported parameter"]
        assert response.headers["X-Credits-Used"] == "0"

    async def test_limit_above_100_clamps(
        self, client: httpx.AsyncClient, team: TeamKey, regions: None
    ) -> None:
        assert (
            await client.get("/v1/trends", params={"limit": 500}, headers=team.headers)
        ).status_code == 200

    async def test_unparseable_or_reversed_dates(
        self, client: httpx.AsyncClient, team: TeamKey, regions: None
    ) -> None:
        for params in ({"start_date": "yesterday"}, {"start_date": "2026-11-21", "end_date": "2026-11-20"}):
            assert_error(
                await client.get("/v1/trends", params=params, headers=team.headers), 400, "invalid_date_range"
            )

    @pytest.mark.parametrize(
        "params",
        [
            {"end_date": "9999-12-31"},
            {"start_date": "0001-01-01T00:00:00+14:00"},
        ],
    )
    async def test_dates_beyond_the_calendar_in_utc_are_400_not_500(
        self, client: httpx.AsyncClient, team: TeamKey, regions: None, params: dict[str, str]
    ) -> None:
        response = await client.get("/v1/trends", params=params, headers=team.headers)
        assert_error(response, 400, "invalid_date_range")
        assert response.headers["X-Credits-Used"] == "0"

    async def test_window_selects_local_days(
        self, client: httpx.AsyncClient, team: TeamKey, run_trends: RunTrends, clock: ManualClock
    ) -> None:
        now = clock.now()
        await run_trends("us", now - timedelta(days=3), ("OldWave", 30))
        await run_trends("us", now, ("NewWave", 30))
        default = (await client.get("/v1/trends", params={"region": "us"}, headers=team.headers)).json()[
            "data"
        ]
        assert [g["trends"][0]["trend"]["name"] for g in default] == ["#NewWave"]
        wide = await client.get(
            "/v1/trends",
            params={
                "region": "us",
                "start_date": (now - timedelta(days=4)).isoformat(),
                "end_date": now.isoformat(),
            },
            headers=team.headers,
        )
        names = [g["trends"][0]["trend"]["name"] for g in wide.json()["data"]]
        assert names == ["#NewWave", "#OldWave"]  # newest day first

    async def test_empty_is_still_charged(
        self, client: httpx.AsyncClient, team: TeamKey, regions: None
    ) -> None:
        response = await client.get("/v1/trends", headers=team.headers)
        assert response.json() == {"data": []}
        assert response.headers["X-Credits-Used"] == "25"


class TestDateOnlyWindow:
    async def test_a_bare_date_is_the_regions_own_day_both_ends_included(
        self, client: httpx.AsyncClient, team: TeamKey, run_trends: RunTrends
    ) -> None:
        # 19:00 New York on the 19th (00:00 UTC on the 20th) and 07:00 New York on the 20th
        await run_trends("us", datetime(2026, 11, 20, 0, 0, tzinfo=UTC), ("Evening", 30))
        await run_trends("us", datetime(2026, 11, 20, 12, 0, tzinfo=UTC), ("Morning", 30))
        one_day = await client.get(
            "/v1/trends",
            params={"region": "us", "start_date": "2026-11-20", "end_date": "2026-11-20"},
            headers=team.headers,
        )
        assert [g["local_date"] for g in one_day.json()["data"]] == ["2026-11-20"]
        both = await client.get(
            "/v1/trends",
            params={"region": "us", "start_date": "2026-11-19", "end_date": "2026-11-20"},
            headers=team.headers,
        )
        assert [g["local_date"] for g in both.json()["data"]] == ["2026-11-20", "2026-11-19"]


class TestMerge:
    async def test_three_runs_of_a_day_make_one_group_without_duplicates(
        self, client: httpx.AsyncClient, team: TeamKey, run_trends: RunTrends
    ) -> None:
        # 07:00, 13:00, 19:00 New York on 2026-11-20 (UTC-5)
        day = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
        await run_trends("us", day, ("GlassSkin", 30))
        await run_trends("us", day + timedelta(hours=6), ("GlassSkin", 40), ("Koala", 60))
        await run_trends("us", day + timedelta(hours=12), ("GlassSkin", 50))
        response = await client.get(
            "/v1/trends",
            params={"region": "us", "start_date": "2026-11-20T12:00:00Z", "end_date": "2026-11-21T00:30:00Z"},
            headers=team.headers,
        )
        groups = response.json()["data"]
        assert len(groups) == 1 and groups[0]["local_date"] == "2026-11-20"
        rows = groups[0]["trends"]
        assert sorted(r["trend"]["name"] for r in rows) == ["#GlassSkin", "#Koala"]
        assert sorted(r["ranking"] for r in rows) == [1, 2]
        glass = next(r for r in rows if r["trend"]["name"] == "#GlassSkin")
        assert glass["detected_at"] == "2026-11-20T12:00:00Z"
        assert glass["last_seen_at"] == "2026-11-21T00:00:00Z"

    async def test_a_run_after_local_midnight_opens_a_new_group_keeping_the_trend_id(
        self, client: httpx.AsyncClient, team: TeamKey, run_trends: RunTrends
    ) -> None:
        # 19:00 New York on the 20th is 00:00 UTC on the 21st; 07:00 the next morning is another local day
        await run_trends("us", datetime(2026, 11, 21, 0, 0, tzinfo=UTC), ("GlassSkin", 30))
        await run_trends("us", datetime(2026, 11, 21, 12, 0, tzinfo=UTC), ("GlassSkin", 30))
        response = await client.get(
            "/v1/trends",
            params={"region": "us", "start_date": "2026-11-20T00:00:00Z", "end_date": "2026-11-21T13:00:00Z"},
            headers=team.headers,
        )
        groups = response.json()["data"]
        assert [g["local_date"] for g in groups] == ["2026-11-21", "2026-11-20"]
        ids = {g["trends"][0]["trend_id"] for g in groups}
        assert len(ids) == 1
        assert groups[0]["id"] != groups[1]["id"]


class TestGlobalPromotion:
    async def test_promoted_rows_carry_origins_and_confidence(
        self, client: httpx.AsyncClient, team: TeamKey, run_trends: RunTrends, clock: ManualClock
    ) -> None:
        now = clock.now()
        promotions = promote({"us": detected(now, ("Wave", 30)), "gb": detected(now, ("wave", 25))})
        await run_trends("global", now, ("NativeOne", 40), promotions=promotions)
        rows = (await client.get("/v1/trends", headers=team.headers)).json()["data"][0]["trends"]
        by_name = {r["trend"]["name"]: r for r in rows}
        promoted = by_name["#Wave"]
        assert promoted["origin_region_codes"] == ["gb", "us"]
        assert 0 < promoted["global_confidence"] <= 1
        native = by_name["#NativeOne"]
        assert native["origin_region_codes"] is None and native["global_confidence"] is None


class TestDigest:
    async def test_today_in_the_regions_own_timezone(
        self, client: httpx.AsyncClient, team: TeamKey, run_trends: RunTrends, clock: ManualClock
    ) -> None:
        # 2026-11-21 12:00:30 UTC is already the 21st in Sydney (UTC+11) and in London
        clock.set(datetime(2026, 11, 21, 14, 0, tzinfo=UTC))  # 01:00 on the 22nd in Sydney
        await run_trends("au", datetime(2026, 11, 21, 8, 0, tzinfo=UTC), ("Koala", 30))  # 19:00 on the 21st
        digest = (await client.get("/v1/trends/digest", params={"region": "au"}, headers=team.headers)).json()
        assert digest == {"data": []}
        await run_trends(
            "au", datetime(2026, 11, 21, 13, 30, tzinfo=UTC), ("Wombat", 30)
        )  # 00:30 on the 22nd
        digest = (await client.get("/v1/trends/digest", params={"region": "au"}, headers=team.headers)).json()
        assert [g["local_date"] for g in digest["data"]] == ["2026-11-22"]
        assert digest["data"][0]["trends"][0]["trend"]["name"] == "#Wombat"


class TestEmerging:
    async def test_shape_order_and_filter(
        self, client: httpx.AsyncClient, team: TeamKey, run_trends: RunTrends, clock: ManualClock
    ) -> None:
        await run_trends("gb", clock.now(), ("Small", 12), ("Huge", 80))
        response = await client.get("/v1/trends/emerging", params={"region": "gb"}, headers=team.headers)
        assert response.status_code == 200
        assert response.headers["X-Credits-Used"] == "25"
        body = response.json()
        assert set(body) == {"region", "generated_at", "data"}
        assert body["region"] == "gb"
        rows = body["data"]
        assert {r["status"] for r in rows} <= {"new", "rising"}
        scores = [r["momentum_score"] for r in rows]
        assert scores == sorted(scores, reverse=True)
        assert set(rows[0]) >= {
            "id",
            "trend_id",
            "ranking",
            "region",
            "status",
            "momentum_score",
            "views_per_hour",
            "detected_at",
            "last_seen_at",
            "exemplar_count",
            "top_exemplars",
            "trend",
        }

    async def test_offset_is_400(self, client: httpx.AsyncClient, team: TeamKey, regions: None) -> None:
        """§8.3: the emerging list is not paged."""
        response = await client.get("/v1/trends/emerging", params={"offset": 5}, headers=team.headers)
        assert_error(response, 400, "validation_error")

    async def test_limit_above_50_is_400(
        self, client: httpx.AsyncClient, team: TeamKey, regions: None
    ) -> None:
        response = await client.get("/v1/trends/emerging", params={"limit": 51}, headers=team.headers)
        assert_error(response, 400, "validation_error")
        ok = await client.get("/v1/trends/emerging", params={"limit": 50}, headers=team.headers)
        assert ok.status_code == 200


@pytest.mark.both_databases
class TestRowsOfAWindow:
    async def test_each_group_shows_its_top_rows_by_ranking(
        self, client: httpx.AsyncClient, team: TeamKey, run_trends: RunTrends
    ) -> None:
        day = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
        await run_trends("us", day, ("GlassSkin", 30), ("Koala", 60), ("Matcha", 45))
        params = {"region": "us", "start_date": "2026-11-20", "end_date": "2026-11-20"}
        every = (await client.get("/v1/trends", params=params, headers=team.headers)).json()["data"][0][
            "trends"
        ]
        assert [r["ranking"] for r in every] == [1, 2, 3]
        top = await client.get("/v1/trends", params={**params, "limit": 2}, headers=team.headers)
        assert top.json()["data"][0]["trends"] == every[:2]

    async def test_exemplars_follow_a_later_run_of_the_day(
        self, client: httpx.AsyncClient, team: TeamKey, run_trends: RunTrends
    ) -> None:
        # a process keeps each row's exemplars for the row's last run and momentum pass (ADR 0038)
        day = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
        params = {"region": "us", "start_date": "2026-11-20", "end_date": "2026-11-20", "top_exemplars": 2}

        async def exemplars() -> list[str]:
            response = await client.get("/v1/trends", params=params, headers=team.headers)
            return [e["video_id"] for e in response.json()["data"][0]["trends"][0]["top_exemplars"]]

        await run_trends("us", day, ("GlassSkin", 30))
        first = await exemplars()
        assert len(first) == 2 and await exemplars() == first
        await run_trends("us", day + timedelta(hours=6), ("GlassSkin", 40))
        later = await exemplars()
        assert len(later) == 2 and set(later).isdisjoint(first)
