"""Top lists the rollup answers ahead of the question (ADR 0060): the last 7, 30 and 90 days.

A kept list must be byte for byte what ``top_body`` aggregates for the same question under the same
rollup version, for every scope, order, direction and limit; it is read only under the version it was
built from; any other range is still aggregated.
"""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta

import orjson
import pytest
from sqlalchemy import func, select, update

from reelscope.collectors.base import VideoRecord
from reelscope.hashtag import repository
from reelscope.hashtag import service as hashtag_service
from reelscope.hashtag.service import TopQuestion
from reelscope.kit.caches import ReadCaches
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from reelscope.models import HashtagTopList, ReadVersion
from reelscope.runtime import Runtime
from tests.catalog_builders import ingest, video

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
TODAY = NOW.date()
# spellings that sort differently by bytes and by a locale's collation, and two of one key
TAGS = ["fyp", "Dance", "dance", "café", "cafe", "_x", "x_", "x1", "ab", "a_b", "Zeta", "ÉTÉ", "été2"]
TAGS += [f"tag{n}" for n in range(25)]
SCOPES = [None, *(p.value for p in Platform)]
ORDERS = [(order_by, descending) for order_by in ("count", "views") for descending in (True, False)]
LIMITS = [1, 3, 50, 100]


def window(days: int, today: date = TODAY) -> tuple[date, date]:
    return today - timedelta(days=days - 1), today


async def aggregated(runtime: Runtime, q: TopQuestion) -> bytes:
    """What a request aggregates from the rollup, rendered as §4.2 says."""
    async with runtime.db.transaction(write=False) as session:
        rows = await repository.top(
            session, q.first.isoformat(), q.last.isoformat(), q.platform, q.order_by, q.descending, q.limit
        )
    data = [{"hashtag": r.display, "count": int(r.count), "total_views": int(r.total_views)} for r in rows]
    return orjson.dumps({"data": data})


async def current_version(runtime: Runtime) -> str:
    async with runtime.db.transaction(write=False) as session:
        row = await session.get(ReadVersion, repository.ROLLUP)
        assert row is not None
        return row.version


async def kept_versions(runtime: Runtime) -> set[str]:
    async with runtime.db.transaction(write=False) as session:
        return set((await session.execute(select(HashtagTopList.version).distinct())).scalars())


def random_videos(seed: int, count: int, prefix: str) -> list[VideoRecord]:
    """Posts over the last 100 days with few distinct view counts, so equal counts and views are common
    and the order between them rests on the tag key."""
    rng = random.Random(seed)
    return [
        video(
            f"{prefix}{n}",
            NOW - timedelta(days=rng.uniform(0, 100)),
            platform=rng.choice(list(Platform)),
            views=rng.choice([100, 200, 300]),
            hashtags=tuple(rng.sample(TAGS, rng.randint(1, 3))),
        )
        for n in range(count)
    ]


@pytest.fixture
async def catalog(runtime: Runtime, clock: ManualClock) -> None:
    clock.set(NOW)
    await ingest(runtime, *random_videos(7, 500, "v"))
    await hashtag_service.rollup(runtime.db, clock.now())


@pytest.mark.both_databases
class TestKeptTopLists:
    async def test_every_kept_question_is_what_the_aggregate_answers(
        self, runtime: Runtime, catalog: None
    ) -> None:
        version = await current_version(runtime)
        for days in (7, 30, 90):
            first, last = window(days)
            for platform in SCOPES:
                for order_by, descending in ORDERS:
                    kept = await repository.kept_top_list(
                        runtime.db.fast,
                        version,
                        first.isoformat(),
                        last.isoformat(),
                        platform or "all",
                        order_by,
                        "desc" if descending else "asc",
                    )
                    assert kept is not None, (days, platform, order_by, descending)
                    for limit in LIMITS:
                        q = TopQuestion(first, last, platform, order_by, descending, limit)
                        served = await hashtag_service.top_body(runtime.db, ReadCaches(), q)
                        assert served == await aggregated(runtime, q), (
                            days,
                            platform,
                            order_by,
                            descending,
                            limit,
                        )
                    assert kept.encode() == await aggregated(runtime, q)

    async def test_ties_are_exercised(self, runtime: Runtime, catalog: None) -> None:
        q = TopQuestion(*window(90), None, "count", True, 100)
        rows = orjson.loads(await hashtag_service.top_body(runtime.db, ReadCaches(), q))["data"]
        pairs = [(r["count"], r["total_views"]) for r in rows]
        assert len(set(pairs)) < len(pairs)  # the catalog is random enough to need the key as tie-break

    async def test_a_kept_window_is_read_not_aggregated(self, runtime: Runtime, catalog: None) -> None:
        first, last = window(30)
        marker = [{"hashtag": f"kept{n}", "count": 9 - n, "total_views": 1} for n in range(5)]
        async with runtime.db.transaction() as session:
            await session.execute(
                update(HashtagTopList)
                .where(
                    HashtagTopList.first_day == first.isoformat(),
                    HashtagTopList.scope == "tiktok",
                    HashtagTopList.order_by == "views",
                    HashtagTopList.sort == "asc",
                )
                .values(body=orjson.dumps({"data": marker}).decode())
            )
        full = TopQuestion(first, last, "tiktok", "views", False, 100)
        assert orjson.loads(await hashtag_service.top_body(runtime.db, ReadCaches(), full)) == {
            "data": marker
        }
        two = TopQuestion(first, last, "tiktok", "views", False, 2)
        assert await hashtag_service.top_body(runtime.db, ReadCaches(), two) == orjson.dumps(
            {"data": marker[:2]}
        )

    async def test_other_ranges_are_aggregated(self, runtime: Runtime, catalog: None) -> None:
        for first, last in [(TODAY - timedelta(days=40), TODAY - timedelta(days=3)), window(14), window(91)]:
            for order_by, descending in ORDERS:
                q = TopQuestion(first, last, "youtube", order_by, descending, 20)
                kept = await repository.kept_top_list(
                    runtime.db.fast, await current_version(runtime), first.isoformat(), last.isoformat(),
                    "youtube", order_by, "desc" if descending else "asc",
                )  # fmt: skip
                assert kept is None
                served = await hashtag_service.top_body(runtime.db, ReadCaches(), q)
                assert served == await aggregated(runtime, q)
                assert orjson.loads(served)["data"]


@pytest.mark.both_databases
class TestVersions:
    async def test_a_new_rollup_replaces_the_kept_lists(
        self, runtime: Runtime, clock: ManualClock, catalog: None
    ) -> None:
        caches = ReadCaches()
        q = TopQuestion(*window(7), None, "count", True, 100)
        before = await hashtag_service.top_body(runtime.db, caches, q)
        old = await current_version(runtime)
        await ingest(runtime, *random_videos(8, 200, "w"))
        clock.advance(timedelta(hours=1))  # the same day: the same windows, a new version
        await hashtag_service.rollup(runtime.db, clock.now())
        assert await current_version(runtime) != old
        assert await kept_versions(runtime) == {await current_version(runtime)}
        after = await hashtag_service.top_body(runtime.db, caches, q)
        assert after != before
        assert after == await aggregated(runtime, q)

    async def test_no_list_of_another_version_is_served(self, runtime: Runtime, catalog: None) -> None:
        first, last = window(90)
        async with runtime.db.transaction() as session:
            # lists of the current rollup that disagree with it, then a version that has no lists
            await session.execute(update(HashtagTopList).values(body='{"data":[{"stale":true}]}'))
            await session.execute(
                update(ReadVersion).where(ReadVersion.name == repository.ROLLUP).values(version="moved")
            )
        for order_by, descending in ORDERS:
            q = TopQuestion(first, last, None, order_by, descending, 100)
            served = await hashtag_service.top_body(runtime.db, ReadCaches(), q)
            assert b"stale" not in served
            assert served == await aggregated(runtime, q)

    async def test_a_rollup_with_nothing_new_keeps_the_windows_of_a_new_day(
        self, runtime: Runtime, clock: ManualClock, catalog: None
    ) -> None:
        version = await current_version(runtime)
        clock.advance(timedelta(days=1))
        result = await hashtag_service.rollup(runtime.db, clock.now())
        assert result["from_day"] is None and result["top_lists"] == 3 * len(SCOPES) * len(ORDERS)
        assert await current_version(runtime) == version
        tomorrow = TODAY + timedelta(days=1)
        for days in (7, 30, 90):
            q = TopQuestion(*window(days, tomorrow), "instagram", "views", True, 10)
            assert await hashtag_service.top_body(runtime.db, ReadCaches(), q) == await aggregated(runtime, q)
        async with runtime.db.transaction(write=False) as session:
            last_days = set((await session.execute(select(HashtagTopList.last_day).distinct())).scalars())
            assert last_days == {TODAY.isoformat(), tomorrow.isoformat()}
            assert (await session.execute(select(func.count()).select_from(HashtagTopList))).scalar_one() == (
                2 * 3 * len(SCOPES) * len(ORDERS)
            )
        # and a second rollup of that day builds nothing again
        clock.advance(timedelta(hours=6))
        assert (await hashtag_service.rollup(runtime.db, clock.now()))["top_lists"] == 0
