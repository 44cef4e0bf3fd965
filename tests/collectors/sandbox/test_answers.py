"""The world's answers equal what building every record first gives (ADR 0007: same records, faster).

Searches decide on text before building records, and records share kept sound and creator parts
between calls. Each answer here is compared, order included, with a reference built the
straightforward way: every candidate post as a full record (``records.videos``), filtered, then a
stable sort — what the world did before. Windows are shorter than the connectors' (a day, not 30),
so that the references stay cheap; limits are large, so that ties in views are compared too.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from reelscope.collectors.base import HashtagSort, VideoRecord
from reelscope.collectors.sandbox import World, records
from reelscope.collectors.sandbox import posts as ps
from reelscope.collectors.sandbox import sounds as snd
from reelscope.collectors.sandbox.creators import handles, index_of
from reelscope.collectors.sandbox.vocab import TAG_POOLS, THEMES, TOPICS
from reelscope.collectors.sandbox.world import SEARCH_CAP
from reelscope.kit.platforms import Platform

SEED = 20240601
AT = datetime(2026, 11, 21, 12, 0, 30, tzinfo=UTC)
EARLIER = AT - timedelta(days=200, hours=5, seconds=13)
WHOLE = 100_000  # a limit above any answer's length: the whole ordering is compared


@pytest.fixture(scope="module")
def world() -> World:
    return World(SEED)


def _tag(tag: str) -> str:
    return tag.strip().lstrip("#").lower()


def search_by_building_everything(
    world: World, platform: Platform, keyword: str, since: datetime, at: datetime, limit: int
) -> list[VideoRecord]:
    """``search_videos`` as it was: every candidate a record, keep the mentions, most viewed first."""
    kw = keyword.lower().strip()
    posts = ps.feed(world.seed, platform, since.timestamp(), at.timestamp())
    topics, themes, narrowed = world._matches(kw)
    if narrowed:
        posts = world._candidates(posts, topics, themes)
    else:
        posts = posts.take(np.arange(len(posts))[-SEARCH_CAP:])
    found = [
        v
        for v in records.videos(world.seed, posts, at)
        if kw in (v.description or "").lower()
        or kw in (v.transcript or "").lower()
        or any(kw == _tag(t) for t in v.hashtags)
    ]
    return sorted(found, key=lambda v: v.views, reverse=True)[:limit]


def hashtag_by_building_everything(
    world: World, platform: Platform, tag: str, at: datetime, sort: HashtagSort, limit: int
) -> list[VideoRecord]:
    """``hashtag_videos`` as it was: every post of the window a record, keep the tagged, then sort."""
    key = _tag(tag)
    window = timedelta(days=30 if sort == "top" else 7)
    posts = ps.feed(world.seed, platform, (at - window).timestamp(), at.timestamp())
    topics = {i for i, pool in enumerate(TAG_POOLS) if key in (x.lower() for x in pool)}
    themes = {i for i, th in enumerate(THEMES) if key in (x.lower() for x in th.tags)}
    posts = world._candidates(posts, topics, themes)
    found = [v for v in records.videos(world.seed, posts, at) if any(_tag(t) == key for t in v.hashtags)]
    if sort == "recent":
        return sorted(found, key=lambda v: v.published_at, reverse=True)[:limit]
    return sorted(found, key=lambda v: v.views, reverse=True)[:limit]


class TestSearchVideos:
    @pytest.mark.parametrize(
        ("platform", "keyword", "at"),
        [
            (Platform.TIKTOK, "sourdough", AT),  # a topic's keyword
            (Platform.YOUTUBE, "Skincare", EARLIER),  # case folds; hashtags shown with '#'
            (Platform.INSTAGRAM, THEMES[0].tags[0], AT),  # a trend theme's hashtag
            (Platform.TIKTOK, "#fyp", EARLIER),  # a generic tag, '#' included in the keyword
            (Platform.INSTAGRAM, "s", EARLIER),  # short: nearly every candidate mentions it
            (Platform.YOUTUBE, "zzqxthinloaf", AT),  # narrows nothing and matches nothing
            (Platform.TIKTOK, "save this", AT),  # words of captions and transcripts, not of tags
        ],
    )
    def test_same_videos_in_the_same_order(
        self, world: World, platform: Platform, keyword: str, at: datetime
    ) -> None:
        since = at - timedelta(days=1)
        expected = search_by_building_everything(world, platform, keyword, since, at, WHOLE)
        assert world.search_videos(platform, keyword, since, at, at, WHOLE) == expected
        assert world.search_videos(platform, keyword, since, at, at, 25) == expected[:25]

    def test_a_keyword_that_matches_nothing_finds_nothing(self, world: World) -> None:
        since = AT - timedelta(days=2)
        assert world.search_videos(Platform.TIKTOK, "zzqxthinloaf", since, AT, AT, 50) == []


class TestHashtagVideos:
    @pytest.mark.parametrize(
        ("platform", "tag", "sort", "at"),
        [
            (Platform.TIKTOK, "sourdough", "recent", AT),
            (Platform.YOUTUBE, "#" + TOPICS[6].keywords[0].replace(" ", ""), "recent", EARLIER),
            (Platform.INSTAGRAM, THEMES[0].tags[0].upper(), "top", EARLIER),
            (Platform.TIKTOK, THEMES[3].tags[0], "recent", AT),
        ],
    )
    def test_same_videos_in_the_same_order(
        self, world: World, platform: Platform, tag: str, sort: HashtagSort, at: datetime
    ) -> None:
        expected = hashtag_by_building_everything(world, platform, tag, at, sort, WHOLE)
        assert world.hashtag_videos(platform, tag, at, sort, WHOLE) == expected
        assert world.hashtag_videos(platform, tag, at, sort, 10) == expected[:10]


class TestCreatorPosts:
    @pytest.mark.parametrize("platform", list(Platform))
    def test_each_post_as_built_alone_whatever_was_asked_before(
        self, world: World, platform: Platform
    ) -> None:
        """Sound and creator parts kept between calls never leak from one moment into another."""
        creators = handles(SEED, platform, np.arange(7, 24_000, 7_999))
        for at in (AT, EARLIER, AT):
            for handle in creators:
                found = world.creator_posts(platform, handle, at, 12)
                assert found is not None
                alone = [world.video(platform, v.external_id, at) for v in found]
                assert found == alone
                assert all(v.fetched_at == at and v.creator is not None for v in found)
                assert all(v.creator.fetched_at == at for v in found if v.creator is not None)
                assert all(v.sound.fetched_at == at for v in found if v.sound is not None)


class TestVideosBetween:
    @pytest.mark.parametrize("platform", list(Platform))
    def test_same_records_as_the_batch_built_at_once(self, world: World, platform: Platform) -> None:
        since = EARLIER - timedelta(hours=6)
        posts = ps.feed(SEED, platform, since.timestamp(), EARLIER.timestamp())
        assert world.videos_between(platform, since, AT, EARLIER) == records.videos(SEED, posts, EARLIER)

    @pytest.mark.parametrize("platform", list(Platform))
    def test_a_sound_is_the_sound_asked_for_alone(self, world: World, platform: Platform) -> None:
        videos = world.videos_between(platform, AT - timedelta(hours=3), AT, AT)
        sounds = {v.sound.external_id: v.sound for v in videos if v.sound is not None}
        assert sounds or platform is not Platform.TIKTOK
        for external_id, sound in sounds.items():
            alone = world.sound(platform, external_id, AT)
            assert alone is not None and replace(alone, usage=()) == sound


class TestSoundVideos:
    @pytest.mark.parametrize(
        ("platform", "kind"),
        [(Platform.TIKTOK, snd.ORIGINAL), (Platform.INSTAGRAM, snd.ORIGINAL), (Platform.TIKTOK, snd.THEME)],
    )
    def test_same_videos_in_the_same_order(self, world: World, platform: Platform, kind: int) -> None:
        """The creator's last posts (an original sound) or the last 14 days' videos (a trend theme's
        sound) carrying the sound, most viewed first. Only planted-burst videos carry a theme's sound,
        so the reference builds those, not the whole 14 days."""
        recent = world.videos_between(platform, AT - timedelta(days=1), AT, AT)
        video = next(v for v in recent if v.sound is not None and int(v.sound.external_id) >> 60 == kind)
        assert video.sound is not None and video.creator is not None
        limit = 30
        if kind == snd.ORIGINAL:
            creator = index_of(SEED, platform, video.creator.handle)
            assert creator is not None
            posts = ps.creator_posts(SEED, platform, creator, AT.timestamp(), limit * 4)
        else:
            posts = ps.feed(SEED, platform, (AT - timedelta(days=14)).timestamp(), AT.timestamp())
            posts = posts.take(np.flatnonzero(posts.kind == ps.BURST))
        found = [
            v
            for v in records.videos(SEED, posts, AT)
            if v.sound is not None and v.sound.external_id == video.sound.external_id
        ]
        expected = sorted(found, key=lambda v: v.views, reverse=True)[:limit]
        assert expected and world.sound_videos(platform, video.sound.external_id, AT, limit) == expected
