"""Numbers that must never contradict each other (issue 32 items 5 and 6), over the sandbox world and
small real-shaped records: a creator's totals at least what is shown of them, cumulative usage histories
that never fall, outlier flags that agree with their ratios and the §6.3 threshold, hashtags written in
captions read by affinity and similar creators, hook search rows distinct. Pure (no database), each
test well under a second, but for the hook search test, which collects a few hours of the sandbox's
TikTok videos into SQLite (about a second).
"""

from __future__ import annotations

import itertools
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from reelscope.analysis import hooks as hook_words
from reelscope.analysis import outliers, totals
from reelscope.analysis.affinity import GenreVideo, genres_of
from reelscope.analysis.similar import CreatorPosts, similar
from reelscope.analysis.themes import Doc
from reelscope.collectors.sandbox import sounds
from reelscope.collectors.sandbox.creators import handle_of
from reelscope.collectors.sandbox.vocab import THEMES
from reelscope.collectors.sandbox.world import World
from reelscope.hook import service as hook_service
from reelscope.hook.schemas import SearchQuery
from reelscope.hook.service import _type_figures
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from reelscope.lookup.results import creator_result
from reelscope.models import Hook, TrackedPost
from reelscope.runtime import Runtime
from reelscope.tracking.service import post_out
from tests.catalog_builders import collect_sandbox

SEED = 20240601
AT = datetime(2026, 6, 1, 12, tzinfo=UTC)


# --- a creator's totals ≥ the sum (so the max) of what is shown of them --------------------------------


@pytest.mark.parametrize("index", [18, 101, 2_345, 17_000])
def test_a_sandbox_creator_lookup_never_shows_a_total_below_its_posts(index: int) -> None:
    world = World(SEED)
    handle = handle_of(SEED, Platform.TIKTOK, index)
    profile = world.creator(Platform.TIKTOK, handle, AT)
    posts = world.creator_posts(Platform.TIKTOK, handle, AT, 60)
    assert profile is not None and posts
    result = creator_result(
        profile, posts, now=AT, max_videos=60, include_videos=True, include_outliers=True,
        outlier_threshold=outliers.OUTLIER_AT, trend_analysis=False,
    )  # fmt: skip
    shown = result["profile"]
    views = [video["views"] for video in result["videos"]]
    assert shown["total_views"] >= sum(views) >= max(views)
    assert shown["total_likes"] >= sum(video["number_of_likes"] for video in result["videos"])
    assert shown["video_count"] >= len(result["videos"])


def test_a_reported_total_above_the_posts_is_kept_and_an_unknown_one_is_not_invented() -> None:
    assert totals.at_least_sum(10_000, [10, 20]) == 10_000  # the profile knows more than the sample
    assert totals.at_least_sum(100, [80, 70, None]) == 150  # a viral post passed a stale total
    assert totals.at_least_sum(None, [None]) is None
    assert totals.at_least_count(3, 5) == 5 and totals.at_least_count(None, 0) is None


# --- usage histories never fall where the source is cumulative ----------------------------------------


@pytest.mark.parametrize(
    "kind, indexes", [(sounds.THEME, range(len(THEMES))), (sounds.LICENSED, range(0, 600, 40))]
)
def test_sandbox_usage_histories_never_fall(kind: int, indexes: range) -> None:
    for idx in indexes:
        record = sounds.sound_record(SEED, Platform.TIKTOK, kind, idx, AT, history_days=90)
        counts = [point.usage_count for point in record.usage]
        assert all(a <= b for a, b in itertools.pairwise(counts)), (kind, idx)
        assert counts[-1] == record.usage_count  # the last point is today's figure


def test_a_theme_sound_first_seen_yesterday_has_not_lost_usage_today() -> None:
    # the case: a sound seen one day, read again the next; with bursts counted over a 56-day
    # window the count dropped when a burst left it
    for idx in range(len(THEMES)):
        for day in range(0, 200, 7):
            t = (AT - timedelta(days=day)).timestamp()
            yesterday = sounds.usage_count(SEED, Platform.TIKTOK, sounds.THEME, idx, t - 86_400)
            assert sounds.usage_count(SEED, Platform.TIKTOK, sounds.THEME, idx, t) >= yesterday


# --- outlier flags agree with ratios and the threshold ------------------------------------------------


def _post(views: int, ratio: float | None, *, announced: bool) -> TrackedPost:
    return TrackedPost(
        id="p", external_id="v", url="https://example.test/v", title=None, thumbnail_url=None, duration=None,
        hashtags=[], published_at=AT, views=views, likes=0, comments=0, shares=None, bookmarks=None,
        outlier_ratio=ratio, outlier_announced_at=AT if announced else None, first_seen_at=AT, updated_at=AT,
    )  # fmt: skip


@pytest.mark.parametrize(
    "ratio, announced, expected",
    [
        (23_154.0, False, True),
        (3.0, False, False),
        (3.0001, False, True),
        (None, False, False),
        (2.0, True, False),
    ],
)
def test_a_tracked_posts_flag_is_its_ratio_over_three(
    ratio: float | None, announced: bool, expected: bool
) -> None:
    # §6.3 "over 3 times their median": a baseline post (never announced) at 23,154x is an outlier
    out = post_out(_post(1_000, ratio, announced=announced))
    assert out.is_outlier is expected
    assert out.is_outlier == (out.outlier_ratio is not None and out.outlier_ratio > outliers.OUTLIER_AT)


def test_found_outliers_are_exactly_the_videos_flagged_by_their_ratio() -> None:
    world = World(SEED)
    for index in (18, 101, 2_345):
        posts = world.creator_posts(Platform.TIKTOK, handle_of(SEED, Platform.TIKTOK, index), AT, 60) or []
        pairs = [(post.external_id, post.views) for post in posts]
        median = outliers.median_views(views for _, views in pairs)
        assert median is not None
        flagged = {vid for vid, views in pairs if outliers.is_outlier(outliers.outlier_ratio(views, median))}
        assert {o.video_id for o in outliers.find_outliers(pairs)} == flagged


def test_a_hook_types_strong_hits_and_median_score_agree_with_the_outlier_rule() -> None:
    # exactly 3x is not a strong hit (§6.3 "over"); hooks without a norm (None) count towards nothing
    figures = {
        f["hook_type"]: f
        for f in _type_figures([("question", 1.5, 3.0), ("question", 2.5, 4.0), ("question", None, None)])
    }
    assert figures["question"]["hook_count"] == 3
    assert figures["question"]["strong_hit_rate"] == 0.5
    assert figures["question"]["median_weighted_score"] == 2.0


def test_a_creator_alone_in_the_catalog_has_no_norm_to_score_against() -> None:
    # one or two videos: each is (near) its own median, every score ~0; the sandbox's one-day catalog
    # has almost only such creators, which made every hook type's median_weighted_score 0
    assert outliers.creator_norm([5_000]) is None
    assert outliers.creator_norm([5_000, None, 7]) is None
    assert outliers.creator_norm([10, 1_000, 30]) == 30.0


# --- hashtags written in captions (issue 32 item 6) ---------------------------------------------------


def test_affinity_reads_hashtags_written_in_the_caption() -> None:
    listed = GenreVideo(id="a", caption="sourdough day", hashtags=["#Sourdough"], creator_id="c", views=1)
    written = GenreVideo(
        id="b", caption="crumb shot #Sourdough #levain", hashtags=[], creator_id="c", views=1
    )
    assert "hashtag:sourdough" in genres_of(listed)
    assert {"hashtag:sourdough", "hashtag:levain"} <= set(genres_of(written))
    assert genres_of(written).count("hashtag:sourdough") == 1


def _doc(video_id: str, text: str, hashtags: tuple[str, ...] = ()) -> Doc:
    return Doc(
        id=video_id, text=text, hashtags=hashtags, sound_id=None, views=100, likes=1, comments=0,
        shares=None, published_at=AT, duration=None, platform="tiktok",
    )  # fmt: skip


def _creator(creator_id: str, tier: str, *docs: Doc) -> CreatorPosts:
    return CreatorPosts(creator_id, creator_id, "tiktok", 5_000, tier, 0, docs)


def test_similar_creators_match_on_caption_hashtags_and_never_pad_with_tier_alone() -> None:
    target = _creator("t", "nano", _doc("1", "my bake today", ("sourdough",)))
    # the same tag, written in the caption only (no stored list), as some sources give it
    writer = _creator("w", "nano", _doc("2", "crumb shot #sourdough"))
    same_tier_only = _creator("n", "nano", _doc("3", "engine swap", ("cars",)))
    found = similar("t", [target, writer, same_tier_only])
    assert [c["creator_id"] for c in found] == ["w"]
    assert found[0]["shared"]["hashtags"] == ["sourdough"]


# --- search results are distinct (issue 32 item 5: hooks/search listed five identical rows) -----------


async def test_hook_search_lists_each_hook_once_with_its_videos_as_usage(
    runtime: Runtime, clock: ManualClock
) -> None:
    # the sandbox writes captions from templates, so many videos open with the same words
    await collect_sandbox(runtime, clock, days=0.25, tiktok_only=True)
    await hook_service.refresh(runtime.db, clock.now())
    async with runtime.db.transaction(write=False) as session:
        videos_of = Counter((await session.execute(select(Hook.text_key))).scalars().all())
    shared = [key for key, n in videos_of.most_common(3) if n > 1]
    assert shared, "the sandbox gave no hook used twice"
    # whole hooks (exact, then the hooks holding them) and a word of the most used one (every tier)
    queries = [*shared, max(shared[0].split(), key=len)]
    for q in queries:
        rows, page = [], 1
        while True:
            async with runtime.db.transaction(write=False) as session:
                found = await hook_service.search(session, SearchQuery(q=q, limit=100, page=page))
            rows.extend(found.data)
            if not found.pagination.has_next_page:
                break
            page += 1
        keys = [hook_words.normalize(row.hook_text) for row in rows]
        assert len(keys) == len(set(keys)), q  # one row per hook, across pages
        assert len(rows) == found.pagination.total, q
        assert all(row.usage_count == videos_of[key] for row, key in zip(rows, keys, strict=True)), q
        words = [w for w in hook_words.normalize(q).split() if len(w) >= 3]
        expected = {key for key in videos_of if set(words) <= set(key.split())}
        assert set(keys) == expected, q  # and no hook holding the words is left out
