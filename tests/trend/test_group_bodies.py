"""Day groups kept rendered under their version (ADR 0062): the bytes of ``GET /v1/trends`` are those of
the rendering per request it replaced, and every write that changes what a group shows is in the next
read: a later run of the day, a later day's run that rewords a trend an earlier group shows, the
momentum loop's reassessment."""

from __future__ import annotations

import dataclasses
from datetime import UTC, date, datetime, timedelta
from typing import Any

import httpx
import orjson
import pytest
from sqlalchemy import select

from reelscope.kit.clock import iso
from reelscope.models.trends import Trend, TrendGroup, TrendRanking
from reelscope.runtime import Runtime
from reelscope.trend import momentum
from reelscope.trend import service as trend_service
from tests.conftest import TeamKey
from tests.trend.conftest import RunTrends, detected, snapshots

pytestmark = pytest.mark.both_databases

DAY = datetime(2026, 11, 18, 12, 0, tzinfo=UTC)


async def rendered_per_request(
    runtime: Runtime, region: str, first: date, last: date, *, limit: int, top: int
) -> bytes:
    """The body as the code before ADR 0062 made it on every request, from the rows as the ORM reads
    them: each group of the window, newest first, with its rows ``ranking <= limit``."""
    async with runtime.db.transaction(write=False) as session:
        groups = (
            await session.scalars(
                select(TrendGroup)
                .where(TrendGroup.region == region, TrendGroup.local_date.between(first, last))
                .order_by(TrendGroup.local_date.desc())
            )
        ).all()
        out = []
        for group in groups:
            rows = (
                await session.execute(
                    select(TrendRanking, Trend)
                    .join(Trend, Trend.id == TrendRanking.trend_id)
                    .where(TrendRanking.group_id == group.id, TrendRanking.ranking <= limit)
                    .order_by(TrendRanking.ranking)
                )
            ).all()
            trends = []
            for row, trend in rows:
                item: dict[str, Any] = {
                    "id": row.id,
                    "trend_id": trend.id,
                    "trend_group_id": group.id,
                    "ranking": row.ranking,
                    "detected_at": iso(row.detected_at),
                    "last_seen_at": iso(row.last_seen_at),
                    "origin_region_codes": row.origin_region_codes,
                    "global_confidence": row.global_confidence,
                    "momentum": {
                        "status": row.momentum_status,
                        "score": row.momentum_score,
                        "views_per_hour": row.momentum_views_per_hour,
                        "updated_at": iso(row.momentum_updated_at),
                    },
                    "trend": {
                        "id": trend.id,
                        "name": trend.name,
                        "description": trend.description,
                        "trend_type": trend.trend_type,
                    },
                }
                if top > 0:
                    item["top_exemplars"] = row.exemplars[:top]
                trends.append(item)
            out.append(
                {
                    "id": group.id,
                    "title": group.title,
                    "region": group.region,
                    "local_date": group.local_date.isoformat(),
                    "trends": trends,
                }
            )
    return orjson.dumps({"data": out})


async def merge(runtime: Runtime, region: str, at: datetime, found: list[Any]) -> None:
    async with runtime.db.transaction() as session:
        region_row = await trend_service.region_or_400(session, region)
        await trend_service.merge_run(session, region_row, at, found, snapshots(found, at))


def window(first: date, last: date, **params: Any) -> dict[str, Any]:
    return {"region": "us", "start_date": first.isoformat(), "end_date": last.isoformat(), **params}


class TestBytes:
    @pytest.mark.parametrize(("limit", "top"), [(50, 5), (2, 0), (100, 20), (1, 1)])
    async def test_a_window_is_the_bytes_rendered_per_request(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        run_trends: RunTrends,
        runtime: Runtime,
        limit: int,
        top: int,
    ) -> None:
        for day in range(3):
            at = DAY + timedelta(days=day)
            await run_trends("us", at, ("GlassSkin", 30 + day), ("Koala", 60), ("Matcha", 45 - day))
            await run_trends("us", at + timedelta(hours=6), ("GlassSkin", 40), ("Sourdough", 35))
        first, last = DAY.date(), DAY.date() + timedelta(days=2)
        expected = await rendered_per_request(runtime, "us", first, last, limit=limit, top=top)
        params = window(first, last, limit=limit, top_exemplars=top)
        for _ in range(2):  # rendered, then kept
            response = await client.get("/v1/trends", params=params, headers=team.headers)
            assert response.content == expected
        assert len(response.json()["data"]) == 3


class TestFresh:
    async def test_a_later_run_of_the_day_is_in_the_next_read(
        self, client: httpx.AsyncClient, team: TeamKey, regions: None, runtime: Runtime
    ) -> None:
        """A run that adds a row to the day's group, its trend already there keeping its words."""
        params = window(DAY.date(), DAY.date())
        earlier = detected(DAY, ("GlassSkin", 30))
        await merge(runtime, "us", DAY, earlier)
        before = (await client.get("/v1/trends", params=params, headers=team.headers)).json()["data"]
        later = [
            dataclasses.replace(found, description=earlier[0].description)
            if found.key == earlier[0].key
            else found
            for found in detected(DAY + timedelta(hours=6), ("GlassSkin", 40), ("Koala", 60))
        ]
        await merge(runtime, "us", DAY + timedelta(hours=6), later)
        after = await client.get("/v1/trends", params=params, headers=team.headers)
        assert len(after.json()["data"][0]["trends"]) == len(before[0]["trends"]) + 1
        expected = await rendered_per_request(runtime, "us", DAY.date(), DAY.date(), limit=50, top=5)
        assert after.content == expected

    async def test_a_trend_reworded_by_a_later_day_reads_so_in_the_earlier_group(
        self, client: httpx.AsyncClient, team: TeamKey, regions: None, runtime: Runtime
    ) -> None:
        """A group's rows show their trend's description, which a later day's run of the region may
        change (ADR 0038): the earlier group is rendered again, not served as kept."""
        await merge(runtime, "us", DAY, detected(DAY, ("GlassSkin", 30)))
        first, last = DAY.date(), DAY.date() + timedelta(days=1)
        earlier = (await client.get("/v1/trends", params=window(first, last), headers=team.headers)).json()
        (group,) = earlier["data"]
        trend = group["trends"][0]["trend"]
        later = DAY + timedelta(days=1)
        reworded = [
            dataclasses.replace(found, description="Reworded by the next day's run")
            for found in detected(later, ("GlassSkin", 50))
        ]
        await merge(runtime, "us", later, reworded)
        now = await client.get("/v1/trends", params=window(first, last), headers=team.headers)
        newer, same_day = now.json()["data"]
        assert same_day["id"] == group["id"] and newer["trends"][0]["trend"]["id"] == trend["id"]
        assert same_day["trends"][0]["trend"]["description"] == "Reworded by the next day's run"
        assert now.content == await rendered_per_request(runtime, "us", first, last, limit=50, top=5)

    async def test_a_momentum_reassessment_is_in_the_next_read(
        self, client: httpx.AsyncClient, team: TeamKey, run_trends: RunTrends, runtime: Runtime
    ) -> None:
        params = window(DAY.date(), DAY.date())
        await run_trends("us", DAY, ("GlassSkin", 30), ("Koala", 60))
        before = (await client.get("/v1/trends", params=params, headers=team.headers)).json()["data"]
        assert {r["momentum"]["updated_at"] for r in before[0]["trends"]} == {iso(DAY)}
        later = DAY + timedelta(hours=2)
        async with runtime.db.transaction() as session:
            assert await momentum.replay(session, "us", later) == 2
        after = await client.get("/v1/trends", params=params, headers=team.headers)
        assert {r["momentum"]["updated_at"] for r in after.json()["data"][0]["trends"]} == {iso(later)}
        assert after.content == await rendered_per_request(
            runtime, "us", DAY.date(), DAY.date(), limit=50, top=5
        )
