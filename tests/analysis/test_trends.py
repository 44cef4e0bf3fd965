"""Trend detection on hand-made series (ARCHITECTURE §8; spec §4.3 production rules)."""

from __future__ import annotations

import itertools
import math
import random
from collections import defaultdict
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from reelscope.analysis.trends import (
    DetectionParams,
    FeatureWindows,
    Post,
    detect,
    discoveries,
    features_of,
    find_bursts,
    match_known,
    promote,
    rate_change_chance,
    series_key,
    story_discoveries,
    tarone_tested,
    trends_at,
)

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
_ids = itertools.count()


def post(
    hours_ago: float,
    *,
    tags: tuple[str, ...] = (),
    caption: str = "",
    views: int = 1000,
    platform: str = "tiktok",
    sound: str | None = None,
) -> Post:
    return Post(
        video_id=f"v{next(_ids)}",
        platform=platform,
        posted_at=NOW - timedelta(hours=hours_ago),
        views=views,
        hashtags=tuple(t.lower() for t in tags),
        hashtag_labels=tags,
        sound_id=sound,
        sound_title=f"Sound {sound}" if sound else None,
        caption=caption,
    )


def background(days: int = 8, per_day: int = 40) -> list[Post]:
    """Steady niche chatter: the same tags every day, nothing bursting."""
    posts = []
    for day in range(days):
        for i in range(per_day):
            tag = ("fitness", "recipe", "gaming", "travel")[i % 4]
            posts.append(
                post(day * 24 + (i % 24) + 0.5, tags=(tag, "fyp"), caption=f"my daily {tag} routine today")
            )
    return posts


def long_tail(days: int = 8, per_day: int = 150, tags: int = 300) -> list[Post]:
    """A feed of ~150 videos a day, as a national trending feed has, each with two of ``tags`` rare
    tags, each tag used about once a day: a run tests some 300 features, none of them bursting."""
    posts = []
    for i in range(days * per_day):
        first, second = (i * 37) % tags, (i * 101 + 7) % tags
        names = (f"tail{first}", f"tail{second}") if first != second else (f"tail{first}",)
        posts.append(post((i + 0.5) * 24 / per_day, tags=names))
    return posts


def burst(
    tag: str, count: int, *, hours: float = 20, views: int = 50_000, platform: str = "tiktok"
) -> list[Post]:
    return [
        post(
            hours * (i + 1) / (count + 1),
            tags=(tag, "fyp"),
            caption=f"my {tag.lower()} routine",
            views=views,
            platform=platform,
        )
        for i in range(count)
    ]


class TestBursts:
    def test_steady_tags_do_not_burst(self) -> None:
        assert detect(background(), NOW) == []

    def test_a_new_tag_with_views_bursts(self) -> None:
        trends = detect([*background(), *burst("GlassSkin", 30)], NOW)
        assert len(trends) == 1
        trend = trends[0]
        assert trend.name == "#GlassSkin"
        assert trend.trend_type == "hashtag"
        assert trend.count_recent == 30
        assert trend.median_views == 50_000
        assert trend.per_platform == {"tiktok": 30}

    def test_too_few_videos_is_not_a_trend(self) -> None:
        # ~40 videos a day: the minimum count is 4 (ADR 0027); the old fixed minimum was 8
        assert detect([*background(), *burst("GlassSkin", 3)], NOW) == []

    def test_a_tag_at_its_usual_pace_is_not_a_burst(self) -> None:
        usual = [post(h, tags=("glassskin",), views=50_000) for h in range(1, 24 * 8, 6)]
        assert detect([*background(), *usual], NOW) == []

    def test_posts_after_now_are_ignored(self) -> None:
        future = [post(-5, tags=("later",), views=10**6) for _ in range(40)]
        assert detect([*background(), *future], NOW) == []


class TestUntagged:
    def test_a_phrase_only_burst_is_judged_like_a_tagged_one(self) -> None:
        # one test for every kind of feature (ADR 0051): 8 videos of a phrase over a baseline of one a
        # day in a feed of ~40 a day is a breakout with or without a tag (7 was, before the day before
        # the recent window left the baseline: 6 days of it, p 0.0019 over 6 tests)
        usual = [post(24 * d + 30, caption="the velvet groove thing", views=3_000) for d in range(7)]
        weak = [post(i / 2 + 0.1, caption="the velvet groove thing", views=30_000) for i in range(8)]
        assert [t.trend_type for t in detect([*background(), *usual, *weak], NOW)] == ["phrase"]
        # its usual pace is not
        steady = [post(i * 3 + 0.1, caption="the velvet groove thing", views=3_000) for i in range(1)]
        assert detect([*background(), *usual, *steady], NOW) == []


class TestGrouping:
    def test_hashtag_phrase_and_sound_of_one_burst_are_one_trend(self) -> None:
        wave = [
            post(
                i / 2 + 0.1,
                tags=("glowup",),
                caption="the five second glow up challenge",
                sound="s1",
                views=80_000,
            )
            for i in range(25)
        ]
        trends = detect([*background(), *wave], NOW)
        assert len(trends) == 1
        keys = trends[0].feature_keys
        assert "hashtag:glowup" in keys
        assert "sound:s1" in keys
        assert any(k.startswith("phrase:") for k in keys)
        assert trends[0].name == "#glowup"  # a hashtag names the trend when there is one

    def test_unrelated_bursts_are_separate_trends_ranked_by_strength(self) -> None:
        big = burst("Mega", 60, views=200_000)
        small = [post(i / 2 + 0.2, tags=("mini",), caption="mini golf time", views=20_000) for i in range(15)]
        trends = detect([*background(), *big, *small], NOW)
        assert [t.name for t in trends] == ["#Mega", "#mini"]

    def test_a_generic_burst_word_does_not_bridge_two_stories(self) -> None:
        # every video of both waves says "thing", new this day: it bursts over 50 videos, holding each
        # wave whole, but it is what two stories share, not one story
        waves = [
            post(i / 2 + 0.1, tags=(tag,), caption=f"doing the {tag} thing", views=50_000)
            for tag, count in (("glassskin", 20), ("koala", 30))
            for i in range(count)
        ]
        trends = detect([*background(), *waves], NOW)
        assert sorted((t.name, t.count_recent) for t in trends) == [("#glassskin", 20), ("#koala", 30)]
        assert not any("phrase:thing" in t.feature_keys for t in trends)

    def test_a_wider_word_of_one_story_joins_it(self) -> None:
        # "landfall" is written on the story's 12 videos and 8 more: one story, told wider
        story = [
            post(i + 0.5, tags=("StormAva",), caption="storm ava landfall", views=40_000) for i in range(12)
        ]
        wider = [post(i + 0.7, caption="landfall footage", views=40_000) for i in range(8)]
        [trend] = detect([*background(), *story, *wider], NOW)
        assert {"hashtag:stormava", "phrase:landfall"} <= trend.feature_keys
        assert trend.count_recent == 20

    def test_exemplars_are_by_views_descending(self) -> None:
        wave = [post(i + 0.5, tags=("wave",), views=1000 * (i + 1) ** 2) for i in range(12)]
        trend = detect([*background(), *wave], NOW)[0]
        views = {p.video_id: p.views for p in wave}
        ranked = [views[v] for v in trend.exemplar_ids]
        assert ranked == sorted(ranked, reverse=True)

    def test_velocity_bands(self) -> None:
        breaking = [post(0.2 + i * 0.3, tags=("now",), views=9000) for i in range(20)]
        fading = [post(13 + i * 0.5, tags=("then",), views=9000) for i in range(18)] + [
            post(2, tags=("then",), views=9000) for _ in range(2)
        ]
        trends = {t.name: t for t in detect([*background(), *breaking, *fading], NOW)}
        assert trends["#now"].velocity_band == "breaking"
        assert trends["#then"].velocity_band == "fading"


class TestDedupeAndPromotion:
    def test_re_detection_matches_the_known_trend(self) -> None:
        first = detect([*background(), *burst("GlassSkin", 30)], NOW)[0]
        later = detect([*background(), *burst("GlassSkin", 45)], NOW + timedelta(hours=6))[0]
        assert match_known(later, {"t-1": first.feature_keys, "t-2": frozenset({"hashtag:other"})}) == "t-1"
        assert match_known(later, {"t-2": frozenset({"hashtag:other"})}) is None

    def test_a_generic_word_shared_with_a_known_trend_is_not_a_sighting_of_it(self) -> None:
        # yesterday's koala wave and today's wombat wave both say "doing the ... thing": different stories
        def wave(tag: str) -> list[Post]:
            return [post(i / 2 + 0.1, tags=(tag,), caption=f"doing the {tag} thing") for i in range(20)]

        [koala] = detect([*background(), *wave("koala")], NOW)
        [wombat] = detect([*background(), *wave("wombat")], NOW)
        assert "phrase:thing" in koala.feature_keys & wombat.feature_keys
        assert match_known(wombat, {"t-1": koala.feature_keys}) is None

    def test_promoted_only_when_seen_in_two_countries(self) -> None:
        us = detect([*background(), *burst("GlassSkin", 30)], NOW)
        gb = detect([*background(), *burst("glassskin", 20)], NOW)
        au = detect([*background(), *burst("Koala", 20)], NOW)
        promotions = promote({"us": us, "gb": gb, "au": au})
        assert len(promotions) == 1
        assert promotions[0].origin_regions == ("gb", "us")
        assert 0 < promotions[0].confidence <= 1

    def test_confidence_grows_with_breadth(self) -> None:
        seen = {r: detect([*background(), *burst("Wave", 25)], NOW) for r in ("us", "gb", "au")}
        three = promote(seen)[0].confidence
        two = promote({"us": seen["us"], "gb": seen["gb"]})[0].confidence
        assert three > two


class TestUploaderTags:
    """yt-dlp ``tags`` are features of their own, named as written, never hashtags (ADR 0026)."""

    def test_a_burst_of_an_uploader_tag_is_a_tag_trend(self) -> None:
        story = [
            replace(post(i * 2 + 0.5, caption=f"live update {i}", views=40_000), tags=("Hurricane  Nadine",))
            for i in range(9)
        ]
        story[-1] = replace(story[-1], tags=("hurricane nadine", "Florida"))
        [trend] = detect([*background(), *story], NOW)
        # named as first written, spaces collapsed; one key whatever the case and spacing
        assert (trend.name, trend.trend_type, trend.count_recent) == ("Hurricane Nadine", "tag", 9)
        assert "tag:hurricane nadine" in trend.feature_keys
        assert all(not k.startswith("hashtag:") for k in trend.feature_keys)

    def test_a_tag_trend_counts_as_labelled_evidence(self) -> None:
        # the same 10-video burst that a caption phrase alone cannot carry (TestUntagged)
        usual = [replace(post(24 * d + 30, views=3_000), tags=("velvet",)) for d in range(7)]
        weak = [
            replace(post(i / 2 + 0.1, caption="the velvet groove thing", views=30_000), tags=("velvet",))
            for i in range(10)
        ]
        assert detect([*background(), *usual, *weak], NOW) != []

    def test_a_hashtag_names_the_trend_before_a_tag(self) -> None:
        story = [
            replace(post(i + 0.5, tags=("NadineUpdate",), views=40_000), tags=("Hurricane Nadine",))
            for i in range(9)
        ]
        [trend] = detect([*background(), *story], NOW)
        assert (trend.name, trend.trend_type) == ("#NadineUpdate", "hashtag")
        assert {"hashtag:nadineupdate", "tag:hurricane nadine"} <= trend.feature_keys


class TestDensity:
    """Thresholds relative to the region's volume and each feature's own baseline (ADR 0027)."""

    def test_a_small_story_breaks_out_in_a_small_feed(self) -> None:
        story = [
            replace(post(i * 3 + 0.5, caption=f"landfall update {i}", views=40_000), tags=("Storm Ava",))
            for i in range(5)
        ]
        [trend] = detect([*background(per_day=150), *story], NOW)
        assert (trend.name, trend.count_recent) == ("Storm Ava", 5)

    def test_one_uploaders_series_is_not_a_trend(self) -> None:
        episodes = [
            replace(post(i + 0.5, tags=("LateShow",), views=90_000), creator_id="late-show-channel")
            for i in range(12)
        ]
        assert detect([*background(), *episodes], NOW) == []
        # the same tag from as many uploaders is a story
        assert detect([*background(), *[replace(p, creator_id=None) for p in episodes]], NOW) != []

    def test_a_baseline_shorter_than_the_window_is_scaled_to_what_it_covers(self) -> None:
        # two days of history: 3 a day of #news, then 9 in the last day is a day like the others x3,
        # not 21x the weekly pace
        history = [post(24 + h * 8 + 1, tags=("news",), views=5_000) for h in range(6)]
        today = [post(h * 2 + 0.5, tags=("news",), views=5_000) for h in range(9)]
        recent_background = [p for p in background(days=3) if p.posted_at > NOW - timedelta(hours=72)]
        bursts = find_bursts([*recent_background, *history, *today], NOW, DetectionParams())
        news = [b for b in bursts if b.feature.key == "hashtag:news"]
        assert news == [] or news[0].expected > 2.5

    def test_names_read_as_written(self) -> None:
        wave = [
            post(i + 0.5, tags=("hurricanemilton",), caption="Hurricane Milton makes landfall", views=9_000)
            for i in range(6)
        ]
        wave = [replace(p, tags=("Hurricane Milton",)) if i % 2 else p for i, p in enumerate(wave)]
        wave = [replace(p, hashtags=("hurricanemilton",), hashtag_labels=("hurricanemilton",)) for p in wave]
        [trend] = detect([*background(), *wave], NOW)
        assert trend.name == "Hurricane Milton"  # the tag's spelling of the hashtag's words
        phrase_only = [
            post(i / 3 + 0.2, caption="Taylor Swift surprise set tonight", views=9_000) for i in range(20)
        ]
        [trend] = detect([*background(), *phrase_only], NOW)
        assert trend.trend_type == "phrase"
        assert trend.name == "Taylor Swift"  # the phrase that reads as a name, spelled as written

    def test_a_weekly_fixture_is_not_a_trend(self) -> None:
        # NFL highlights from five channels every Sunday: this Sunday is like last Sunday
        def sunday(days_ago: int, week: int) -> list[Post]:
            return [
                replace(
                    post(days_ago * 24 + 2 + i / 3, views=200_000), tags=("NFL", f"Week {week}"), creator_id=c
                )
                for i, c in enumerate(("nfl", "espn", "cbs", "fox", "prime") * 2)
            ]

        assert detect([*background(), *sunday(7, 4), *sunday(0, 5)], NOW) == []
        # without last week's games the same Sunday would read as a breakout
        assert detect([*background(), *sunday(0, 5)], NOW) != []


class TestChance:
    """The rate test of each feature and the correction across a run's features (ADR 0051)."""

    def test_a_silent_week_makes_a_few_uses_unlikely(self) -> None:
        # 5 uses among a day's 150 videos after none among the week's 1,050; one use before is likelier
        share = 150 / 1200
        assert rate_change_chance(5, 0, share) < 1e-4 < rate_change_chance(5, 1, share) < 1e-3
        assert rate_change_chance(2, 21, share) == 1.0  # under its usual rate: nothing unusual

    def test_the_test_is_the_binomial_tail_of_the_total(self) -> None:
        # given 12 uses in all, 6 or more in a window holding a quarter of the videos
        tail = sum(math.comb(12, k) * 0.25**k * 0.75 ** (12 - k) for k in range(6, 13))
        assert rate_change_chance(6, 6, 0.25) == pytest.approx(tail, rel=1e-9)

    def test_benjamini_hochberg_rejects_up_to_the_last_p_value_under_its_line(self) -> None:
        # at q = 0.05 over 100 tests the line is 0.0005·rank: the third is over it, the fourth under
        assert discoveries([0.0001, 0.0009, 0.0016, 0.0019, 0.5], 100, 0.05) == 4
        assert discoveries([0.001, 0.002], 100, 0.05) == 0

    def test_the_line_rises_with_stories_not_with_their_words(self) -> None:
        # five words of one story (overlapping videos) and a tail tag on videos of its own, 100 tests
        # at q = 0.01: counted as features the line at rank 6 is 6e-4 and lets the tail tag in; counted
        # as stories it is 2e-4 (two stories), and the tail tag's 3e-4 stays out
        story = [frozenset(f"s{i}" for i in range(k, k + 20)) for k in range(5)]
        tail = frozenset({"t1", "t2", "t3", "t4", "t5"})
        chances = [1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 3e-4]
        assert discoveries(chances, 100, 0.01) == 6
        assert story_discoveries(chances, [*story, tail], 100, 0.01, 0.35) == 5
        # two stories told apart are two: the second one's tests raise the line by one (2e-4 at its
        # second test), and the tail tag, a third, would need 3e-4
        other = [frozenset(f"o{i}" for i in range(k, k + 10)) for k in range(2)]
        chances = [1e-9, 1e-8, 1e-7, 1e-4, 1.5e-4, 3.5e-4]
        assert discoveries(chances, 100, 0.01) == 6
        assert story_discoveries(chances, [*story[:3], *other, tail], 100, 0.01, 0.35) == 5
        assert story_discoveries([*chances[:5], 2.9e-4], [*story[:3], *other, tail], 100, 0.01, 0.35) == 6

    def test_a_big_story_does_not_carry_a_tail_tag_in(self) -> None:
        # a story written in sixteen words, each on its own share of 40 videos, and a tail tag's
        # chance day (6 uploaders after one use last week): only the story is reported (at 1.9e-4
        # the tag is under the line of the story's sixteen features, over the line of one story)
        rng = random.Random(5)
        words = "seven layers toner glass skin routine viral korean serum dewy cleanser mist essence spf"
        words += " night morning"
        story = [post(i * 0.5 + 0.2, caption=" ".join(rng.sample(words.split(), 6))) for i in range(40)]
        tail = [post(h, tags=("pickyeater",)) for h in (96, 1, 4, 7, 10, 13, 16)]
        trends = detect([*long_tail(), *story, *tail], NOW)
        assert [t.count_recent for t in trends] == [40]
        assert not any("pickyeater" in key for t in trends for key in t.feature_keys)

    def test_copies_of_one_test_are_one_test(self) -> None:
        # "sag", "awards", "sag awards" and the name on the same five videos are one test: one
        # burst each, one trend
        feed = long_tail(per_day=40, tags=300)
        story = [post(2 + 3 * i, caption="the SAG Awards backstage") for i in range(5)]
        [trend] = detect([*feed, *story], NOW)
        assert {"phrase:sag", "phrase:awards", "phrase:sag awards", "entity:sag awards"} <= trend.feature_keys
        assert len({b.chance for b in trend.bursts}) == 1

    def test_a_story_that_began_the_day_before_is_not_its_own_baseline(self) -> None:
        # a thin feed (40 videos a day): 2 videos of the story the evening before, 5 today. The day
        # before the recent window is in neither window (ADR 0051, session 12); counted in the
        # baseline, its 2 videos made today's 5 a 8e-4 chance, over the line
        feed = long_tail(per_day=40, tags=300)
        before = [post(30 + 3 * i, caption="SAG Awards backstage") for i in range(2)]
        today = [post(2 + 3 * i, caption="SAG Awards backstage") for i in range(5)]
        [trend] = detect([*feed, *before, *today], NOW)
        assert (trend.name, trend.count_recent) == ("SAG Awards", 5)
        assert trend.bursts[0].baseline_uses == 0
        assert detect([*feed, *before, *today], NOW, replace(DetectionParams(), gap=timedelta(0))) == []

    def test_features_that_cannot_reach_significance_are_not_counted_as_tests(self) -> None:
        # 1,000 features used once in all (least p-value 1/8 each) and 3 used 10 times: only the 3 count
        least = sorted([math.log(1 / 8)] * 1000 + [10 * math.log(1 / 8)] * 3)
        limit = tarone_tested(least, 0.05)
        assert sum(1 for x in least if x <= limit) == 3

    def test_a_big_baseline_rising_modestly_is_not_a_trend(self) -> None:
        # 60 a day for a week, 120 today: no chance explains it, but twice the usual pace is no breakout
        usual = [post(24 + i * 168 / 420, tags=("football",), views=5_000) for i in range(420)]
        today = [post(i * 24 / 120, tags=("football",), views=5_000) for i in range(120)]
        assert detect([*long_tail(), *usual, *today], NOW) == []

    def test_a_rare_tag_at_the_minimum_among_many_tags_is_not_a_trend(self) -> None:
        # a tail tag used 3 times last week reaches 5 today from 5 uploaders: among ~300 tags tested,
        # one such day is expected somewhere
        last_week = [post(24 + d * 48 + 5, tags=("pickyeater",)) for d in range(3)]
        today = [post(i * 4 + 1, tags=("pickyeater",)) for i in range(5)]
        assert detect([*long_tail(), *last_week, *today], NOW) == []

    @pytest.mark.parametrize("count", [7, 9, 17])
    def test_a_story_rising_from_near_zero_on_a_small_feed_is_a_trend(self, count: int) -> None:
        # one stray use last week, then a day of the story from as many news channels (6 was enough
        # with 7 days of baseline: 6 days leave it at p 6.3e-5 over 188 tests, the line at 5.3e-5)
        stray = [post(24 * 4, tags=("Storm Ava",))]
        story = [post(i * 20 / count + 0.5, tags=("Storm Ava",), views=40_000) for i in range(count)]
        [trend] = detect([*long_tail(), *stray, *story], NOW)
        assert (trend.name, trend.count_recent) == ("#Storm Ava", count)


def counted_by_hand(posts: list[Post], now: datetime, params: DetectionParams) -> dict[str, object]:
    """What a run at ``now`` counts per feature, straight from its definition (every post looked at)."""
    recent_start = now - params.recent
    baseline_start = recent_start - params.baseline
    week_start, week_end = recent_start - timedelta(days=7), now - timedelta(days=7)
    videos: dict[str, set[str]] = defaultdict(set)
    creators: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    views: dict[str, int] = defaultdict(int)
    baseline: dict[str, int] = defaultdict(int)
    baseline_views: dict[str, int] = defaultdict(int)
    week: dict[str, int] = defaultdict(int)
    for item in posts:
        keys = [f.key for f in features_of(item, params)]
        if recent_start < item.posted_at <= now:
            for key in keys:
                videos[key].add(item.video_id)
                creators[key][item.creator_id or item.video_id] += 1
                views[key] += item.views
        elif baseline_start < item.posted_at <= recent_start - params.gap:  # the guard day: neither
            in_week = week_start < item.posted_at <= week_end
            for key in keys:
                for counted in {key, series_key(key)}:
                    baseline[counted] += 1
                    week[counted] += in_week
                baseline_views[key] += item.views
    return {
        "videos": dict(videos),
        "creators": {k: dict(v) for k, v in creators.items()},
        "views": dict(views),
        "baseline": baseline,
        "baseline_views": baseline_views,
        "week": week,
    }


def nonzero(counts: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in counts.items() if v}


class TestFeatureWindows:
    """A sequence of runs moves its posts through the windows instead of recounting them: every run
    must count exactly what a run looking at every post would (the scheduled runs and the history)."""

    @pytest.mark.parametrize("seed", [1, 2, 3])
    def test_counts_follow_the_runs_as_they_move_forward(self, seed: int) -> None:
        rng = random.Random(seed)
        params = DetectionParams()
        start = NOW - timedelta(days=20)
        words = ["glass skin", "week 5", "week 6", "storm ava", "fyp", "recipe", "ep 12"]
        posts = [
            Post(
                video_id=f"s{seed}-{i}",
                platform=rng.choice(["tiktok", "youtube"]),
                posted_at=start + timedelta(minutes=rng.randrange(20 * 24 * 60)),
                views=rng.choice([0, 10, 1000, 50_000]),
                hashtags=tuple(rng.sample(["glassskin", "fyp", "week5", "recipe"], rng.randrange(3))),
                caption=" ".join(rng.sample(words, 2)),
                tags=tuple(rng.sample(["Week 7", "Storm Ava", "vlog"], rng.randrange(2))),
                creator_id=rng.choice([None, "c1", "c2", "c3"]),
            )
            for i in range(1500)
        ]
        windows = FeatureWindows(params)
        now, since = start, None
        # gaps of nothing (two runs at one time), hours, and more than the whole window
        for gap in [0, 3, 0, 6, 6, 12, 30, 2, 5, 240, 1, 7, 19, 24]:
            now += timedelta(hours=gap)
            fresh = [p for p in posts if p.posted_at <= now and (since is None or p.posted_at > since)]
            rng.shuffle(fresh)
            windows.add(fresh)
            windows.advance(now)
            since = now
            expected = counted_by_hand(posts, now, params)
            assert windows.recent_videos == expected["videos"]
            floor = params.min_count
            assert windows.candidates == {k for k, v in windows.recent_videos.items() if len(v) >= floor}
            assert windows.recent_creators == expected["creators"]
            assert windows.recent_views == expected["views"]
            assert windows.baseline_count == nonzero(expected["baseline"])  # type: ignore[arg-type]
            assert windows.baseline_views == nonzero(expected["baseline_views"])  # type: ignore[arg-type]
            assert windows.week_ago_count == nonzero(expected["week"])  # type: ignore[arg-type]
            in_window = [p for p in posts if now - params.recent - params.baseline < p.posted_at <= now]
            assert len(windows) == len(in_window)
            assert trends_at(windows) == detect(in_window, now, params, windows.features)
