"""Catalog ingest (issue 5, ARCHITECTURE §7): an idempotent upsert keyed by the source's identity."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from reelscope.catalog import reads as catalog_reads
from reelscope.catalog import service as catalog_service
from reelscope.catalog.service import IngestResult
from reelscope.collectors.base import VideoRecord
from reelscope.collectors.jsonl import parse_line
from reelscope.collectors.sandbox import World
from reelscope.kit.clock import ManualClock
from reelscope.kit.db import Base
from reelscope.kit.platforms import Platform
from reelscope.models import Creator, Hashtag, Video, VideoHashtag, ViewSnapshot
from reelscope.runtime import Runtime

pytestmark = pytest.mark.both_databases
SEED = 20240601
CATALOG_TABLES = (
    "creators", "sounds", "sound_usage", "videos", "hashtags", "video_hashtags", "view_snapshots",
    "slideshows", "ads", "comments",
)  # fmt: skip


async def dump(runtime: Runtime) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every catalog table, in a stable order."""
    out = {}
    async with runtime.db.transaction(write=False) as session:
        for name in CATALOG_TABLES:
            table = Base.metadata.tables[name]
            rows = (await session.execute(select(table))).all()
            out[name] = sorted(rows, key=repr)
    return out


async def stored_video(runtime: Runtime) -> dict[str, Any]:
    async with runtime.db.transaction(write=False) as session:
        row = (await session.execute(select(Base.metadata.tables["videos"]))).one()
    return dict(row._mapping)


@pytest.fixture
def world() -> World:
    return World(SEED)


@pytest.fixture
def videos(world: World, clock: ManualClock) -> list[VideoRecord]:
    now = clock.now()
    return [v for p in Platform for v in world.videos_between(p, now - timedelta(hours=2), now, now)]


async def ingest(runtime: Runtime, records: list[Any], **kwargs: Any) -> None:
    async with runtime.db.transaction() as session:
        if kwargs:
            await catalog_service.ingest_videos(session, records, **kwargs)
        else:
            await catalog_service.ingest(session, records, records[0].fetched_at)


class TestIdempotence:
    async def test_ingest_twice_gives_the_same_rows(
        self, runtime: Runtime, world: World, clock: ManualClock, videos: list[VideoRecord]
    ) -> None:
        now = clock.now()
        tiktok = [v for v in videos if v.platform is Platform.TIKTOK]
        sound = next(v.sound for v in tiktok if v.sound is not None and not v.sound.is_original)
        commented = max(tiktok, key=lambda v: v.comments)
        assert sound is not None and commented.comments > 0
        records: list[Any] = [
            *videos,
            *world.slideshows(Platform.TIKTOK, "skincare", now - timedelta(days=2), now, now, 10),
            *world.ads("protein", now, 10),
            *(world.comments(Platform.TIKTOK, commented.external_id, now, 30) or []),
            world.sound(Platform.TIKTOK, sound.external_id, now, history_days=5),
            *(v.creator for v in videos[:20] if v.creator is not None),
        ]
        await ingest(runtime, records)
        first = await dump(runtime)
        assert len(first["videos"]) == len(videos)
        assert [name for name in CATALOG_TABLES if not first[name]] == []
        await ingest(runtime, records)
        assert await dump(runtime) == first

    async def test_ids_are_stable_and_one_row_per_video(
        self, runtime: Runtime, videos: list[VideoRecord]
    ) -> None:
        await ingest(runtime, videos)
        async with runtime.db.transaction(write=False) as session:
            before = dict((await session.execute(select(Video.external_id, Video.id))).all())
        await ingest(
            runtime,
            [replace(v, views=v.views + 1, fetched_at=v.fetched_at + timedelta(minutes=5)) for v in videos],
        )
        async with runtime.db.transaction(write=False) as session:
            after = dict((await session.execute(select(Video.external_id, Video.id))).all())
        assert after == before and len(after) == len(videos)


class TestObservations:
    async def test_stats_move_forward_and_each_observation_appends_a_snapshot(
        self, runtime: Runtime, world: World, clock: ManualClock, videos: list[VideoRecord]
    ) -> None:
        early = videos[:50]
        await ingest(runtime, early)
        later_time = clock.advance(timedelta(hours=6))
        later = [world.video(v.platform, v.external_id, later_time) for v in early]
        await ingest(runtime, [v for v in later if v is not None])
        await ingest(runtime, early)  # a stale observation changes no counter
        async with runtime.db.transaction(write=False) as session:
            stored = {
                v.external_id: v for v in (await session.execute(select(Video))).scalars() if v.external_id
            }
            snapshots = (await session.execute(select(ViewSnapshot))).scalars().all()
        for record in later:
            assert record is not None
            row = stored[record.external_id]
            assert (row.views, row.likes, row.fetched_at) == (record.views, record.likes, later_time)
        assert len(snapshots) == 2 * len(early)
        assert any(v.views > e.views for v, e in zip(later, early, strict=True) if v is not None)

    async def test_views_at_7d_is_the_first_observation_a_week_after_posting(
        self, runtime: Runtime, videos: list[VideoRecord]
    ) -> None:
        video = videos[0]
        week = video.published_at + timedelta(days=7, hours=1)
        await ingest(runtime, [video])
        await ingest(runtime, [replace(video, views=900, fetched_at=week)])
        await ingest(runtime, [replace(video, views=950, fetched_at=week + timedelta(days=2))])
        async with runtime.db.transaction(write=False) as session:
            row = (await session.execute(select(Video))).scalar_one()
        assert (row.views, row.views_at_7d) == (950, 900)


class TestFoundAt:
    async def test_found_at_is_the_first_sighting_and_never_moves(
        self, runtime: Runtime, clock: ManualClock, videos: list[VideoRecord]
    ) -> None:
        """§2.3 counts a video only when it was found within a week of posting, so found_at must hold."""
        first_seen = clock.now()
        await ingest(runtime, videos[:10], found_at=first_seen)
        clock.advance(timedelta(days=9))
        await ingest(runtime, [replace(v, fetched_at=clock.now()) for v in videos[:20]], found_at=clock.now())
        async with runtime.db.transaction(write=False) as session:
            found = dict((await session.execute(select(Video.external_id, Video.found_at))).all())
        assert {found[v.external_id] for v in videos[:10]} == {first_seen}
        assert {found[v.external_id] for v in videos[10:20]} == {clock.now()}

    async def test_found_at_defaults_to_the_observation_time(
        self, runtime: Runtime, videos: list[VideoRecord]
    ) -> None:
        await ingest(runtime, videos[:5], found_at=None)
        async with runtime.db.transaction(write=False) as session:
            rows = (await session.execute(select(Video.found_at, Video.fetched_at))).all()
        assert all(found == fetched for found, fetched in rows)


class TestHashtagsAndCreators:
    async def test_hashtags_match_without_hash_and_case_but_keep_their_first_spelling(
        self, runtime: Runtime, videos: list[VideoRecord]
    ) -> None:
        youtube = next(v for v in videos if v.platform is Platform.YOUTUBE)
        tiktok = next(v for v in videos if v.platform is Platform.TIKTOK)
        await ingest(runtime, [replace(youtube, hashtags=("#SourDough", "#bread"))])
        await ingest(runtime, [replace(tiktok, hashtags=("sourdough", "SOURDOUGH"))])
        async with runtime.db.transaction(write=False) as session:
            tags = (await session.execute(select(Hashtag.key, Hashtag.display))).all()
            links = (await session.execute(select(VideoHashtag))).scalars().all()
            shown = (
                await session.execute(select(Video.hashtags).where(Video.external_id == youtube.external_id))
            ).scalar_one()
        assert sorted(tags) == [("bread", "bread"), ("sourdough", "SourDough")]
        assert len(links) == 3
        assert shown == ["#SourDough", "#bread"]  # the video keeps the platform's own form (§2.1)

    async def test_a_source_without_counts_does_not_erase_them(
        self, runtime: Runtime, videos: list[VideoRecord]
    ) -> None:
        video = next(v for v in videos if v.creator is not None)
        assert video.creator is not None
        await ingest(runtime, [video])
        bare = replace(video.creator, followers=None, bio=None, handle="@" + video.creator.handle.upper())
        await ingest(
            runtime, [replace(video, creator=bare, fetched_at=video.fetched_at + timedelta(hours=1))]
        )
        async with runtime.db.transaction(write=False) as session:
            creators = (await session.execute(select(Creator))).scalars().all()
        assert len(creators) == 1
        assert creators[0].followers == video.creator.followers and creators[0].bio == video.creator.bio


class TestPartialRecords:
    """A line of ``reelscope ingest`` may carry only some fields: those it did not send keep their stored
    value, only the sent ones change (issue 31 item 4)."""

    async def test_a_line_with_only_views_changes_only_the_views(
        self, runtime: Runtime, videos: list[VideoRecord]
    ) -> None:
        video = next(v for v in videos if v.description and v.hashtags and v.duration and v.comments)
        await ingest(runtime, [video])
        before = await stored_video(runtime)
        later = video.fetched_at + timedelta(hours=1)
        line = {
            "platform": video.platform.value,
            "external_id": video.external_id,
            "url": video.url,
            "published_at": video.published_at.isoformat(),
            "fetched_at": later.isoformat(),
            "views": video.views + 500,
        }
        partial = parse_line(json.dumps(line), later)
        assert isinstance(partial, VideoRecord) and partial.comments == 0  # the record's default
        await ingest(runtime, [partial])
        after = await stored_video(runtime)
        assert after.pop("views") == video.views + 500 and after.pop("fetched_at") == later
        assert after == {k: v for k, v in before.items() if k not in ("views", "fetched_at")}
        assert (after["description"], after["hashtags"], after["comments"]) == (
            video.description,
            list(video.hashtags),
            video.comments,
        )
        async with runtime.db.transaction(write=False) as session:
            snapshots = (await session.execute(select(ViewSnapshot).order_by(ViewSnapshot.at))).scalars()
            last = list(snapshots)[-1]
        # the observation is a point of the history, with the counters it did not send as stored
        assert (last.views, last.likes, last.comments) == (video.views + 500, video.likes, video.comments)

    async def test_sent_fields_change_even_to_empty(
        self, runtime: Runtime, videos: list[VideoRecord]
    ) -> None:
        video = next(v for v in videos if v.description and v.hashtags)
        await ingest(runtime, [video])
        later = video.fetched_at + timedelta(hours=1)
        line = {
            "platform": video.platform.value,
            "external_id": video.external_id,
            "url": video.url,
            "published_at": video.published_at.isoformat(),
            "fetched_at": later.isoformat(),
            "description": None,
            "hashtags": [],
        }
        await ingest(runtime, [parse_line(json.dumps(line), later)])
        async with runtime.db.transaction(write=False) as session:
            row = (await session.execute(select(Video))).scalar_one()
            snapshots = (await session.execute(select(ViewSnapshot))).scalars().all()
        assert (row.description, row.hashtags, row.views) == (None, [], video.views)
        assert len(snapshots) == 1  # a line without views is no point of their history


class TestReplayedHistory:
    """Records carrying their own observation times replay as the history they are (issue 17)."""

    async def test_observations_in_any_order_and_batch_give_the_same_history(
        self, runtime: Runtime, videos: list[VideoRecord]
    ) -> None:
        video = videos[0]
        days = [video.published_at + timedelta(days=d, hours=2) for d in range(10)]
        seen = [replace(video, views=1000 * (d + 1), fetched_at=at) for d, at in enumerate(days)]
        # the last week first, then the first days in one batch: every observation is a snapshot
        await ingest(runtime, seen[5:][::-1])
        result = IngestResult()
        async with runtime.db.transaction() as session:
            result.add(await catalog_service.ingest(session, seen[:5], days[-1]))
        async with runtime.db.transaction(write=False) as session:
            row = (await session.execute(select(Video))).scalar_one()
            snapshots = (await session.execute(select(ViewSnapshot.at).order_by(ViewSnapshot.at))).scalars()
            then = await catalog_reads.views_as_of(session, [row.id], days[3] + timedelta(hours=1))
            before = await catalog_reads.views_as_of(session, [row.id], video.published_at)
        assert list(snapshots) == days
        assert (row.found_at, row.fetched_at, row.views) == (days[0], days[-1], 10_000)
        assert row.views_at_7d == 8000  # the first observation a week after posting (§2.3)
        assert (result.snapshots, len(result.video_keys), len(result.new_video_keys)) == (5, 1, 0)
        assert then == {row.id: (4000, video.likes)}
        assert before == {row.id: (1000, video.likes)}  # not observed yet: the first observation

    async def test_tags_and_feed_region_are_stored(self, runtime: Runtime, videos: list[VideoRecord]) -> None:
        video = videos[0]
        await ingest(runtime, [replace(video, tags=("Hurricane Nadine",), feed_region="us")])
        await ingest(runtime, [replace(video, fetched_at=video.fetched_at + timedelta(hours=1))])
        async with runtime.db.transaction(write=False) as session:
            row = (await session.execute(select(Video))).scalar_one()
        # a later observation without a region keeps the feed's; tags are the latest observation's
        assert (row.tags, row.feed_region) == ([], "us")
