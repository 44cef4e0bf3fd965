"""An agent's read-time lists (spec §4.4, §4.5, §8.3), all free: each filter and order, pagination without
repeats, the analytics rows, checked against the run's own data."""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

import httpx
import pytest
import pytest_asyncio

from reelscope.worker.engine import JobEngine
from tests.agent import shared
from tests.agent.conftest import Get, creator
from tests.conftest import TeamKey

# every test here only reads one finished run of one agent, made once per database (tests/agent/shared.py)
pytestmark = [pytest.mark.both_databases, shared.MODULE_LOOP]
backend, clock, settings, runtime = shared.backend, shared.clock, shared.settings, shared.runtime
jobs, client, team = shared.jobs, shared.client, shared.team

BROAD = {
    "keywords": ["sourdough", "running"],
    "platforms": ["tiktok", "youtube", "instagram"],
    "meta_ads_enabled": True,
    "language": None,
}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def agent(client: httpx.AsyncClient, jobs: JobEngine, team: TeamKey) -> dict[str, Any]:
    return await creator(client)(team, **BROAD)


async def every(get: Get, team: TeamKey, path: str, key: str, **params: Any) -> list[dict[str, Any]]:
    """Follow pages until an empty one (§8.3)."""
    items: list[dict[str, Any]] = []
    page = 1
    while True:
        data = await get(team, path, page=page, **params)
        if not data[key]:
            return items
        items += data[key]
        page += 1


def published(item: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(item["publish_date"])


class TestVideos:
    async def test_pages_cover_the_list_once_in_the_default_order(
        self, get: Get, team: TeamKey, agent: dict[str, Any]
    ) -> None:
        path = f"/v1/agents/{agent['id']}/videos"
        first = await get(team, path, limit=40)
        assert (first["limit"], first["offset"], first["page"]) == (40, 0, 1)
        walked = await every(get, team, path, "videos", limit=40)
        assert len(walked) == first["total"] > 80
        assert len({v["id"] for v in walked}) == len(walked)  # no repeats across pages
        dates = [published(v) for v in walked]
        assert dates == sorted(dates, reverse=True)  # publish_date desc by default
        ignored = await get(team, path, limit=40, offset=40)
        assert [v["id"] for v in ignored["videos"]] == [v["id"] for v in first["videos"]]
        assert (await get(team, path, limit=1000))["limit"] == 100

    async def test_filters(self, get: Get, team: TeamKey, agent: dict[str, Any]) -> None:
        path = f"/v1/agents/{agent['id']}/videos"
        everything = await every(get, team, path, "videos", limit=100)
        threshold = sorted(v["views"] for v in everything)[len(everything) // 2]
        big = await every(get, team, path, "videos", limit=100, min_views=threshold)
        assert {v["id"] for v in big} == {v["id"] for v in everything if v["views"] >= threshold}
        for platforms in (["youtube"], ["tiktok", "instagram"]):
            expected = {v["id"] for v in everything if v["type"] in platforms}
            repeated = await every(get, team, path, "videos", limit=100, platforms=platforms)
            joined = await every(get, team, path, "videos", limit=100, platforms=",".join(platforms))
            assert {v["id"] for v in repeated} == {v["id"] for v in joined} == expected
        days = sorted({v["publish_date"][:10] for v in everything})
        start, end = days[len(days) // 3], days[2 * len(days) // 3]
        windowed = await every(get, team, path, "videos", limit=100, start_date=start, end_date=end)
        assert {v["id"] for v in windowed} == {
            v["id"] for v in everything if start <= v["publish_date"][:10] <= end
        }
        # no intent and no Data Intelligence: nothing is judged, so the filter selects nothing (§2.6)
        assert (await get(team, path, intent_match="true"))["total"] == 0

    @pytest.mark.parametrize(("order_by", "key"), [("views", "views"), ("publish_date", "publish_date")])
    async def test_orders(
        self, get: Get, team: TeamKey, agent: dict[str, Any], order_by: str, key: str
    ) -> None:
        path = f"/v1/agents/{agent['id']}/videos"
        for sort in ("asc", "desc"):
            items = await every(get, team, path, "videos", limit=100, order_by=order_by, sort=sort)
            values = [v[key] for v in items]
            assert values == sorted(values, reverse=sort == "desc")
        linked = await every(get, team, path, "videos", limit=100, order_by="created_at")
        assert len(linked) == len(items)

    async def test_bad_parameters_are_400(
        self, client: httpx.AsyncClient, team: TeamKey, agent: dict[str, Any]
    ) -> None:
        path = f"/v1/agents/{agent['id']}/videos"
        for params in (
            {"order_by": "likes"},
            {"sort": "up"},
            {"platforms": "myspace"},
            {"start_date": "yesterday"},
            {"start_date": "2026-11-20", "end_date": "2026-11-01"},
            {"min_views": -1},
            {"limit": 0},
            {"cursor": "x"},
        ):
            response = await client.get(path, params=params, headers=team.headers)
            assert response.status_code == 400, params
            assert response.json()["code"] == "validation_error"


class TestOtherLists:
    async def test_slideshows(self, get: Get, team: TeamKey, agent: dict[str, Any]) -> None:
        path = f"/v1/agents/{agent['id']}/slideshows"
        items = await every(get, team, path, "slideshows", limit=10, order_by="views", sort="asc")
        assert items and [s["views"] for s in items] == sorted(s["views"] for s in items)
        assert {s["type"] for s in items} <= {"tiktok", "instagram"}  # carousels: no YouTube
        assert {s["intelligence_status"] for s in items} == {"disabled"}
        assert len({s["id"] for s in items}) == len(items)
        only = await every(get, team, path, "slideshows", limit=100, platforms="instagram")
        assert {s["type"] for s in only} <= {"instagram"}

    async def test_ads(self, get: Get, team: TeamKey, agent: dict[str, Any]) -> None:
        path = f"/v1/agents/{agent['id']}/ads"
        by_likes = await every(get, team, path, "ads", limit=7, order_by="page_like_count")
        likes = [a["page_like_count"] or 0 for a in by_likes]
        assert by_likes and likes == sorted(likes, reverse=True)
        assert {a["keyword"] for a in by_likes} <= {"sourdough", "running"}
        assert len(await every(get, team, path, "ads", limit=7, sort="asc")) == len(by_likes)

    async def test_creator_outliers(self, get: Get, team: TeamKey, agent: dict[str, Any]) -> None:
        path = f"/v1/agents/{agent['id']}/creators/outliers"
        creators = await every(get, team, path, "creators", limit=100)
        assert creators
        ratios = [c["outlier_ratio"] for c in creators]
        assert ratios == sorted(ratios, reverse=True) and min(ratios) >= 3
        for c in creators:
            assert c["top_video"]["views"] / c["median_views"] == pytest.approx(c["outlier_ratio"], rel=1e-3)
            expected = math.log(c["outlier_ratio"]) * math.log(c["median_views"])
            assert c["weighted_score"] == pytest.approx(expected, rel=1e-3)
        for order_by in ("avg_views", "follower_count", "weighted_score"):
            ordered = await every(get, team, path, "creators", limit=100, order_by=order_by, sort="asc")
            values = [c[order_by] or 0 for c in ordered]
            assert values == sorted(values)
        tiktok = await every(get, team, path, "creators", limit=100, platform="tiktok")
        assert {c["platform"] for c in tiktok} <= {"tiktok"}
        assert len(tiktok) == sum(c["platform"] == "tiktok" for c in creators)

    async def test_sounds(self, get: Get, team: TeamKey, agent: dict[str, Any]) -> None:
        path = f"/v1/agents/{agent['id']}/sounds"
        page = await get(team, path, limit=5)
        pagination = page["pagination"]
        assert pagination["page"] == 1 and pagination["limit"] == 5 and pagination["total"] > 5
        assert pagination["has_next_page"] is True and pagination["has_prev_page"] is False
        rows = page["data"]
        assert {"id", "title", "platform", "lifecycle", "growth_7d", "videos_7d"} <= set(rows[0])
        assert {r["lifecycle"] for r in rows} <= {"emerging", "rising", "stable", "declining"}
        rising = [r["rising_score"] for r in rows]
        assert rising == sorted(rising, reverse=True)
        growth = (await get(team, path, sort="growth_7d", limit=100))["data"]
        values = [g["growth_7d"] if g["growth_7d"] is not None else -1 for g in growth]
        assert values == sorted(values, reverse=True)

    async def test_hashtags(self, get: Get, team: TeamKey, agent: dict[str, Any]) -> None:
        path = f"/v1/agents/{agent['id']}/hashtags"
        first = await get(team, path, limit=3)
        assert first["pagination"]["has_next_page"] is True
        top = first["data"][0]
        assert {"hashtag", "video_count", "total_views", "avg_views", "growth_7d", "top_creators"} <= set(top)
        assert top["avg_views"] == pytest.approx(top["total_views"] / top["video_count"], rel=1e-3)
        assert 1 <= len(top["top_creators"]) <= 3
        counts = [h["video_count"] for h in first["data"]]
        assert counts == sorted(counts, reverse=True)
        last_page = first["pagination"]["total_pages"]
        last = await get(team, path, limit=3, page=last_page)
        assert last["pagination"]["has_next_page"] is False and last["data"]

    async def test_benchmarks(self, get: Get, team: TeamKey, agent: dict[str, Any]) -> None:
        data = await get(team, f"/v1/agents/{agent['id']}/benchmarks")
        assert [t["tier"] for t in data["tiers"]] == ["nano", "micro", "mid", "macro"]
        assert sum(t["video_count"] for t in data["tiers"]) <= data["video_count"]
        assert any(t["median_views"] > 0 for t in data["tiers"])
