"""The hashtag rollup rebuilds only the posting days written since the last one (ADR 0016, §2.3).

Whatever a rollup skips, its rows must equal those of a full rebuild from the same catalog: each test
compares the incremental result with ``rollup(full=True)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import delete, select, update

from reelscope.catalog import collection
from reelscope.catalog.repository import CHANGED_FROM
from reelscope.catalog.service import catalog_id
from reelscope.collectors.base import Capability, VideoStats
from reelscope.collectors.routing import Sources
from reelscope.hashtag import repository
from reelscope.hashtag import service as hashtag_service
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from reelscope.models import HashtagDaily, ReadVersion
from reelscope.runtime import Runtime
from tests.catalog_builders import ingest, video


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


async def rollup_rows(runtime: Runtime) -> set[tuple[Any, ...]]:
    async with runtime.db.transaction(write=False) as session:
        rows = (await session.execute(select(HashtagDaily))).scalars().all()
        return {(r.day, r.platform, r.hashtag_id, r.videos, r.views, r.likes, r.comments) for r in rows}


async def version(runtime: Runtime) -> tuple[str, datetime]:
    async with runtime.db.transaction(write=False) as session:
        row = await session.get(ReadVersion, repository.ROLLUP)
        assert row is not None
        return row.version, row.updated_at


async def same_as_a_full_rebuild(runtime: Runtime, clock: ManualClock) -> None:
    incremental = await rollup_rows(runtime)
    await hashtag_service.rollup(runtime.db, clock.now(), full=True)
    assert incremental == await rollup_rows(runtime)


class GrowingStats:
    """A TikTok stats source whose every video has gained 1,000 views since it was last read."""

    name = "growing"
    breaker = None
    capabilities = {Capability.STATS: frozenset({Platform.TIKTOK})}
    platforms = frozenset({Platform.TIKTOK})

    def __init__(self, clock: ManualClock) -> None:
        self.clock = clock
        self.asked: list[str] = []

    async def videos_stats(self, platform: Platform, ids: Sequence[str]) -> list[VideoStats]:
        self.asked.extend(ids)
        now = self.clock.now()
        return [VideoStats(platform, i, now, views=1_000 + int(i[1:]), likes=5) for i in ids]


@pytest.fixture
async def history(runtime: Runtime, clock: ManualClock) -> None:
    """Two months of posts, rolled up once (the first rollup is a full one)."""
    clock.set(at("2026-11-20T12:00:00"))
    start = at("2026-09-20T08:00:00")
    await ingest(
        runtime,
        *(
            video(f"v{n}", start + timedelta(days=n), views=100 + n, likes=n, hashtags=("fyp", f"day{n % 7}"))
            for n in range(60)
        ),
    )
    first = await hashtag_service.rollup(runtime.db, clock.now())
    assert first["from_day"] == "2024-06-01"


@pytest.mark.both_databases
class TestIncrementalRollup:
    async def test_only_the_days_written_since_are_rebuilt(
        self, runtime: Runtime, clock: ManualClock, history: None
    ) -> None:
        # an old video's counters change (a re-ingest) and a new video is posted
        await ingest(
            runtime,
            video("v10", at("2026-09-30T08:00:00"), views=110, likes=999, hashtags=("fyp", "day3"),
                  fetched_at=at("2026-11-20T11:00:00")),
            video("new", at("2026-11-19T09:00:00"), views=5, hashtags=("brandnew",)),
        )  # fmt: skip
        # a row of a day before the earliest one written: an incremental rollup leaves it alone
        async with runtime.db.transaction() as session:
            await session.execute(
                update(HashtagDaily).where(HashtagDaily.day == "2026-09-29").values(comments=-1)
            )
        clock.advance(timedelta(hours=6))
        result = await hashtag_service.rollup(runtime.db, clock.now())
        assert result["from_day"] == "2026-09-30"
        rows = await rollup_rows(runtime)
        assert any(r[0] == "2026-09-29" and r[6] == -1 for r in rows)
        assert any(r[0] == "2026-09-30" and r[5] == 999 for r in rows)
        assert any(r[0] == "2026-11-19" and r[4] == 5 for r in rows)
        async with runtime.db.transaction() as session:  # back to the truth: every video has 1 comment
            await session.execute(
                update(HashtagDaily).where(HashtagDaily.day == "2026-09-29").values(comments=1)
            )
        await same_as_a_full_rebuild(runtime, clock)

    async def test_a_day_written_at_its_first_second_is_rebuilt(
        self, runtime: Runtime, clock: ManualClock, history: None
    ) -> None:
        # stored without fractional seconds on SQLite; the day bound must still take it in
        await ingest(runtime, video("midnight", at("2026-11-18T00:00:00"), views=7, hashtags=("fyp",)))
        result = await hashtag_service.rollup(runtime.db, clock.now())
        assert result["from_day"] == "2026-11-18"
        # with v59, posted at 08:00 that day: two videos, 159 + 7 views
        assert any(r[0] == "2026-11-18" and r[3:5] == (2, 166) for r in await rollup_rows(runtime))
        await same_as_a_full_rebuild(runtime, clock)

    async def test_with_nothing_written_the_version_stays_and_the_time_moves(
        self, runtime: Runtime, clock: ManualClock, history: None
    ) -> None:
        before, first_time = await version(runtime)
        rows = await rollup_rows(runtime)
        clock.advance(timedelta(hours=6))
        result = await hashtag_service.rollup(runtime.db, clock.now())
        assert result == {"rows": 0, "from_day": None, "top_lists": 0}  # the same day: its lists stay
        after, second_time = await version(runtime)
        assert after == before  # cached answers of this version stay valid
        assert second_time == first_time + timedelta(hours=6)  # a start within 6 hours does not roll up
        assert await rollup_rows(runtime) == rows

    async def test_a_stats_refresh_marks_the_days_it_rewrote(
        self, runtime: Runtime, clock: ManualClock, history: None
    ) -> None:
        # two months of posts: more than the refresh window, so most days lie beyond it
        clock.advance(timedelta(hours=2))
        source = GrowingStats(clock)
        refreshed = await collection.refresh_recent_stats(runtime.db, Sources([source], None), clock)  # type: ignore[list-item]
        assert refreshed.refreshed > 0
        assert source.asked and all(int(i[1:]) >= 50 for i in source.asked)  # only the window's videos
        result = await hashtag_service.rollup(runtime.db, clock.now())
        # the refresh re-reads videos posted within the last 8 days (and a bit): those days are rebuilt
        oldest_refreshed = (clock.now() - collection.refresh_window).date()
        assert result["from_day"] is not None
        assert oldest_refreshed <= datetime.fromisoformat(str(result["from_day"])).date()
        assert result["from_day"] < clock.now().date().isoformat()
        await same_as_a_full_rebuild(runtime, clock)

    async def test_a_video_moved_to_another_day_leaves_the_old_day_too(
        self, runtime: Runtime, clock: ManualClock, history: None
    ) -> None:
        # a connector corrects v20's posting time from 2026-10-10 to 2026-10-11
        moved = video("v20", at("2026-10-11T08:00:00"), views=120, likes=20, hashtags=("fyp", "day6"),
                      fetched_at=at("2026-11-20T11:00:00"))  # fmt: skip
        await ingest(runtime, moved)
        result = await hashtag_service.rollup(runtime.db, clock.now())
        assert result["from_day"] == "2026-10-10"
        fyp = catalog_id("hashtag", "fyp")
        days = ("2026-10-10", "2026-10-11")
        fyp_days = {r[0]: r[3] for r in await rollup_rows(runtime) if r[2] == fyp and r[0] in days}
        assert fyp_days == {"2026-10-11": 2}  # v21 and the moved v20; nothing left on the 10th
        await same_as_a_full_rebuild(runtime, clock)


@pytest.mark.both_databases
async def test_writes_made_before_marks_existed_are_rolled_up_in_full(
    runtime: Runtime, clock: ManualClock, history: None
) -> None:
    """An upgrade: the rollup exists, the mark does not, and old days were written meanwhile."""
    async with runtime.db.transaction() as session:
        await session.execute(delete(ReadVersion).where(ReadVersion.name == CHANGED_FROM))
        await session.execute(update(HashtagDaily).where(HashtagDaily.day == "2026-09-25").values(videos=99))
    await ingest(runtime, video("today", at("2026-11-20T08:00:00"), hashtags=("fyp",)))  # the first mark
    result = await hashtag_service.rollup(runtime.db, clock.now())
    assert result["from_day"] == "2024-06-01"
    assert not any(r[3] == 99 for r in await rollup_rows(runtime))
