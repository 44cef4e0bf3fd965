"""The sandbox world (issue 5, ARCHITECTURE §7): deterministic, realistic, and shaped like spec §2.1/§2.2."""

from __future__ import annotations

import statistics
from collections import Counter
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from reelscope.collectors.base import VideoRecord
from reelscope.collectors.sandbox import World, records
from reelscope.collectors.sandbox import posts as ps
from reelscope.collectors.sandbox.creators import CREATORS_PER_PLATFORM, skeleton, tier
from reelscope.collectors.sandbox.vocab import HOOKS, NICHES
from reelscope.kit.platforms import Platform

SEED = 20240601
AT = datetime(2026, 11, 21, 12, 0, 30, tzinfo=UTC)
TARGET_MEDIAN = {Platform.TIKTOK: 39_000, Platform.INSTAGRAM: 3_800, Platform.YOUTUBE: 1_000}


@pytest.fixture(scope="module")
def world() -> World:
    return World(SEED)


@pytest.fixture(scope="module")
def last_48h(world: World) -> dict[Platform, list[VideoRecord]]:
    return {p: world.videos_between(p, AT - timedelta(hours=48), AT, AT) for p in Platform}


@pytest.fixture(scope="module")
def frozen(world: World) -> dict[Platform, list[VideoRecord]]:
    """Three days of videos posted 10 to 13 days ago: their views are frozen."""
    return {
        p: world.videos_between(p, AT - timedelta(days=13), AT - timedelta(days=10), AT) for p in Platform
    }


def _is_doubled(description: str) -> bool:
    half = (len(description) - 1) // 2
    return description[half] == "\n" and description[:half] == description[half + 1 :]


class TestDeterminism:
    def test_same_seed_and_time_give_identical_records(self, world: World) -> None:
        since = AT - timedelta(hours=3)
        again = World(SEED)
        for platform in Platform:
            assert world.videos_between(platform, since, AT, AT) == again.videos_between(
                platform, since, AT, AT
            )

    def test_another_seed_gives_other_records(self, world: World) -> None:
        since = AT - timedelta(hours=3)
        mine = world.videos_between(Platform.TIKTOK, since, AT, AT)
        theirs = World(SEED + 1).videos_between(Platform.TIKTOK, since, AT, AT)
        assert {v.external_id for v in mine}.isdisjoint({v.external_id for v in theirs})
        assert [v.views for v in mine[:50]] != [v.views for v in theirs[:50]]

    def test_a_window_is_the_union_of_its_halves(self, world: World) -> None:
        """Lazy generation: slicing time differently never changes what exists."""
        start, mid = AT - timedelta(hours=6), AT - timedelta(hours=2, minutes=17)
        whole = world.videos_between(Platform.INSTAGRAM, start, AT, AT)
        halves = world.videos_between(Platform.INSTAGRAM, start, mid, AT) + world.videos_between(
            Platform.INSTAGRAM, mid, AT, AT
        )
        assert sorted(v.external_id for v in whole) == sorted(v.external_id for v in halves)

    @pytest.mark.parametrize("platform", list(Platform))
    def test_every_id_resolves_to_the_same_video(self, world: World, platform: Platform) -> None:
        videos = world.videos_between(platform, AT - timedelta(days=2), AT, AT)
        for video in videos[:: max(1, len(videos) // 40)]:
            assert world.video(platform, video.external_id, AT) == video
            stats = world.video_stats(platform, video.external_id, AT)
            assert stats is not None and (stats.views, stats.likes) == (video.views, video.likes)

    def test_unknown_ids_and_handles_are_absent(self, world: World) -> None:
        assert world.video(Platform.TIKTOK, "7432109876543210987", AT) is None
        assert world.video(Platform.YOUTUBE, "Zt3kQ9vLm0A", AT) is None
        assert world.creator(Platform.TIKTOK, "crumblab", AT) is None
        assert world.creator(Platform.TIKTOK, "miabakes999999", AT) is None

    def test_nothing_from_the_future(self, world: World) -> None:
        before = AT - timedelta(hours=1)
        videos = world.videos_between(Platform.TIKTOK, AT - timedelta(hours=2), AT, before)
        assert videos and all(v.published_at < before for v in videos)
        later = world.videos_between(Platform.TIKTOK, before, AT, AT)[0]
        assert world.video(Platform.TIKTOK, later.external_id, before) is None


class TestPopulation:
    @pytest.mark.parametrize("platform", list(Platform))
    def test_creators_niches_and_power_law_tiers(self, platform: Platform) -> None:
        sk = skeleton(SEED, platform)
        assert len(sk.followers) == CREATORS_PER_PLATFORM >= 20_000
        assert len(set(sk.niche.tolist())) == len(NICHES) >= 12
        tiers = Counter(tier(f) for f in sk.followers.tolist())
        # a power law: each tier up is several times rarer, and all four exist
        assert tiers["nano"] > 3 * tiers["micro"] > 0
        assert tiers["micro"] > 3 * tiers["mid"] > 0
        assert tiers["mid"] > 3 * tiers["macro"] > 0

    @pytest.mark.parametrize("platform", list(Platform))
    def test_at_least_5000_videos_in_the_last_48_hours(
        self, last_48h: dict[Platform, list[VideoRecord]], platform: Platform
    ) -> None:
        assert len(last_48h[platform]) >= 5_000

    def test_creator_profile_is_consistent(
        self, world: World, last_48h: dict[Platform, list[VideoRecord]]
    ) -> None:
        video = last_48h[Platform.TIKTOK][0]
        assert video.creator is not None
        profile = world.creator(Platform.TIKTOK, video.creator.handle, AT)
        assert profile == video.creator
        assert profile.followers is not None and profile.followers >= 600
        assert profile.video_count is not None and profile.video_count >= 1
        posts = world.creator_posts(Platform.TIKTOK, video.creator.handle, AT, 10)
        assert posts is not None and video.external_id in {p.external_id for p in posts}
        assert [p.published_at for p in posts] == sorted((p.published_at for p in posts), reverse=True)


class TestViews:
    @pytest.mark.parametrize("platform", list(Platform))
    def test_frozen_median_within_25_percent_of_target(
        self, frozen: dict[Platform, list[VideoRecord]], platform: Platform
    ) -> None:
        views = [v.views for v in frozen[platform]]
        assert len(views) > 5_000
        median = statistics.median(views)
        assert 0.75 * TARGET_MEDIAN[platform] <= median <= 1.25 * TARGET_MEDIAN[platform]
        # long right tail: the top 1% is far above the median
        top = sorted(views)[int(len(views) * 0.99)]
        assert top > 20 * median

    def test_views_grow_then_freeze_after_a_week(self, world: World) -> None:
        posted = world.videos_between(
            Platform.TIKTOK, AT - timedelta(days=9), AT - timedelta(days=8, hours=23), AT
        )
        video = max(posted, key=lambda v: v.views)
        start = video.published_at
        series = []
        for hours in (1, 6, 24, 48, 96, 167):
            stats = world.video_stats(Platform.TIKTOK, video.external_id, start + timedelta(hours=hours))
            assert stats is not None
            series.append(stats)
        assert [s.views for s in series] == sorted(s.views for s in series)
        assert series[0].views < series[-1].views
        frozen = [
            world.video_stats(Platform.TIKTOK, video.external_id, start + timedelta(days=d))
            for d in (7, 8, 30)
        ]
        assert len({(s.views, s.likes, s.comments, s.shares) for s in frozen if s is not None}) == 1

    @pytest.mark.parametrize("platform", list(Platform))
    def test_counters_are_consistent(
        self, last_48h: dict[Platform, list[VideoRecord]], platform: Platform
    ) -> None:
        for v in last_48h[platform]:
            assert 0 <= v.comments <= v.likes <= v.views or (v.likes == 0 and v.comments <= v.views)
            if v.shares is not None:
                assert v.shares <= v.views and v.bookmarks is not None and v.bookmarks <= v.views

    def test_burst_videos_beat_the_baseline(self, world: World) -> None:
        truth = world.ground_truth("us", AT - timedelta(days=14), AT - timedelta(days=8))
        burst = truth[0]
        videos = world.videos_between(Platform.TIKTOK, burst.start, burst.end, AT, region="us")
        tag = burst.hashtags[0].lower()
        tagged = [v.views for v in videos if tag in (h.lower() for h in v.hashtags)]
        others = [v.views for v in videos if tag not in (h.lower() for h in v.hashtags)]
        assert statistics.median(tagged) > 1.5 * statistics.median(others)


class TestBelievability:
    """Issue 17 item 5: a newcomer's first digest should not read as generated."""

    @pytest.mark.parametrize("platform", list(Platform))
    def test_the_48_hour_top_100_is_in_the_millions(
        self, last_48h: dict[Platform, list[VideoRecord]], platform: Platform
    ) -> None:
        top = sorted((v.views for v in last_48h[platform]), reverse=True)[:100]
        assert top[-1] >= 1_000_000
        assert top[0] >= 10_000_000  # the best of two days reach tens of millions

    @pytest.mark.parametrize("platform", list(Platform))
    def test_hashtag_usage_follows_a_power_law(
        self, last_48h: dict[Platform, list[VideoRecord]], platform: Platform
    ) -> None:
        usage = Counter(t.lstrip("#").lower() for v in last_48h[platform] for t in v.hashtags)
        counts = np.array(sorted(usage.values(), reverse=True), dtype=np.float64)
        counts = counts[counts >= 3]  # below that, ranks are ties of a handful of uses
        rank = np.log(np.arange(1, len(counts) + 1))
        slope, intercept = np.polyfit(rank, np.log(counts), 1)
        residual = np.log(counts) - (slope * rank + intercept)
        r_squared = 1 - (residual**2).sum() / ((np.log(counts) - np.log(counts).mean()) ** 2).sum()
        assert -1.6 < slope < -0.6  # a Zipf-like fall, not a plateau
        assert r_squared > 0.9  # and a straight line on log-log axes
        assert counts[0] > 50 * np.median(counts)

    def test_several_caption_and_transcript_forms_per_language_and_topic(self) -> None:
        posts = ps.feed(SEED, Platform.TIKTOK, (AT - timedelta(hours=48)).timestamp(), AT.timestamp())
        videos = records.videos(SEED, posts, AT)
        topic = records.topics_of(SEED, posts).tolist()
        caption_form, transcript_form = (f.tolist() for f in records.text_forms(SEED, posts))
        posted: Counter[tuple[str | None, int]] = Counter()
        captions: dict[tuple[str | None, int], set[int]] = {}
        spoken: dict[tuple[str | None, int], set[int]] = {}
        bodies: dict[tuple[str | None, int], set[str]] = {}
        for i, video in enumerate(videos):
            key = (video.language, topic[i])
            posted[key] += 1
            captions.setdefault(key, set()).add(caption_form[i])
            after_hook = (video.description or "").split("\n", 1)[-1]
            bodies.setdefault(key, set()).add(" ".join(w for w in after_hook.split() if w[0] != "#"))
            if video.transcript is not None:
                spoken.setdefault(key, set()).add(transcript_form[i])
        common = [key for key, n in posted.items() if n >= 20]
        assert {language for language, _ in common} >= {"en", "es", "pt", "de"}
        for key in common:
            assert len(captions[key]) >= 5 and len(spoken[key]) >= 4
            assert len(bodies[key]) >= 10  # the forms are filled differently, not one sentence per form
        assert all(len(templates) >= 6 for templates in HOOKS.values())


class TestPerPlatformFields:
    """Spec §2.1/§2.2 and the connectors reference §0.2."""

    def test_youtube(self, last_48h: dict[Platform, list[VideoRecord]]) -> None:
        videos = last_48h[Platform.YOUTUBE]
        assert sum(v.likes == 0 for v in videos) / len(videos) > 0.25  # "0 often means not reported"
        assert all(v.shares is None and v.bookmarks is None for v in videos)
        assert all(t.startswith("#") for v in videos for t in v.hashtags)
        assert all(v.region is None for v in videos)
        assert all(
            v.is_duet is None and v.is_stitch is None and v.is_eligible_for_commission is None for v in videos
        )
        sounds = [v.sound for v in videos if v.sound is not None]
        assert sounds and all(s.duration is None and s.usage_count is None for s in sounds)
        assert all(v.url == f"https://www.youtube.com/shorts/{v.external_id}" for v in videos)
        assert all((v.upload_region_source or "inferred").startswith("inferred") for v in videos)

    def test_tiktok(self, last_48h: dict[Platform, list[VideoRecord]]) -> None:
        videos = last_48h[Platform.TIKTOK]
        with_shares = [v for v in videos if v.shares is not None]
        assert len(with_shares) / len(videos) > 0.9 and any(v.shares for v in with_shares)
        assert any(v.shares is None for v in videos)  # "sometimes null"
        assert all(isinstance(v.is_duet, bool) and isinstance(v.is_stitch, bool) for v in videos)
        assert any(v.is_duet for v in videos) and any(v.is_eligible_for_commission for v in videos)
        assert all(not t.startswith("#") for v in videos for t in v.hashtags)
        assert sum(v.sound is not None for v in videos) / len(videos) > 0.9
        assert all(v.upload_region is not None for v in videos)
        assert all(int(v.external_id) > 2**53 for v in videos)  # ids beyond a float's precision (§0.2)

    def test_instagram(self, last_48h: dict[Platform, list[VideoRecord]]) -> None:
        videos = last_48h[Platform.INSTAGRAM]
        n = len(videos)
        assert sum(v.duration is None for v in videos) / n > 0.7
        assert sum(v.sound is None for v in videos) / n > 0.7
        assert sum(v.upload_region is None for v in videos) / n > 0.7
        assert all(v.shares is None and v.bookmarks is None and v.is_duet is None for v in videos)
        # §2.1: the caption may appear twice, joined by a line break (captions have line breaks of their own)
        doubled = [v for v in videos if v.description and _is_doubled(v.description)]
        assert 0.05 < len(doubled) / n < 0.3
        assert all(v.external_id.isdigit() for v in videos)

    def test_captions_hooks_transcripts_and_languages(
        self, last_48h: dict[Platform, list[VideoRecord]]
    ) -> None:
        videos = last_48h[Platform.TIKTOK]
        assert all(
            v.description and any(f"#{t}" in v.description for t in v.hashtags) for v in videos if v.hashtags
        )
        assert sum(v.transcript is not None for v in videos) / len(videos) > 0.6
        languages = Counter(v.language for v in videos)
        assert languages.most_common(1)[0][0] == "en" and languages["en"] / len(videos) > 0.55
        assert {"es", "pt", "de", "fr"} <= set(languages)

    def test_sounds_original_and_licensed_with_growing_usage(
        self, world: World, last_48h: dict[Platform, list[VideoRecord]]
    ) -> None:
        sounds = [v.sound for v in last_48h[Platform.TIKTOK] if v.sound is not None]
        assert any(s.is_original for s in sounds) and any(not s.is_original for s in sounds)
        licensed = max((s for s in sounds if not s.is_original), key=lambda s: s.usage_count or 0)
        history = world.sound(Platform.TIKTOK, licensed.external_id, AT, history_days=30)
        assert history is not None and len(history.usage) == 30
        counts = [p.usage_count for p in history.usage]
        assert counts == sorted(counts) and counts[0] < counts[-1]
        users = world.sound_videos(Platform.TIKTOK, licensed.external_id, AT, 20)
        assert users and all(
            v.sound is not None and v.sound.external_id == licensed.external_id for v in users
        )


class TestPlantedTrends:
    def test_schedule_covers_us_gb_au_and_spreads_across_countries(self, world: World) -> None:
        truth = world.ground_truth(None, AT - timedelta(days=60), AT)
        regions = Counter(t.region for t in truth)
        assert regions["us"] and regions["gb"] and regions["au"]
        assert any(len(t.regions) >= 2 for t in truth)
        assert all(t.start < t.peak < t.end for t in truth)
        assert {t.region for t in world.ground_truth("gb", AT - timedelta(days=60), AT)} == {"gb"}

    def test_a_burst_hashtag_rises_in_its_country_during_the_burst(self, world: World) -> None:
        """Ground truth is visible in the data: the burst's tag is far more common in that country
        during the burst than in the same country the week before."""
        burst = world.ground_truth("us", AT - timedelta(days=14), AT - timedelta(days=7))[0]
        tag = burst.hashtags[0].lower()

        def share(since: datetime, until: datetime) -> float:
            videos = world.videos_between(Platform.TIKTOK, since, until, AT, region="us")
            return sum(tag in (h.lower() for h in v.hashtags) for v in videos) / max(1, len(videos))

        during = share(
            burst.start + (burst.peak - burst.start) / 2, burst.peak + (burst.end - burst.peak) / 2
        )
        before = share(burst.start - timedelta(days=7), burst.start - timedelta(days=6))
        assert during > 0.02 and during > 10 * before
        tagged = world.hashtag_videos(Platform.TIKTOK, f"#{tag.upper()}", burst.end, "recent", 20)
        assert len(tagged) == 20 and all(tag in (h.lower() for h in v.hashtags) for v in tagged)
        assert [v.published_at for v in tagged] == sorted((v.published_at for v in tagged), reverse=True)

    def test_news_precedes_some_bursts(self, world: World) -> None:
        truth = world.ground_truth(None, AT - timedelta(days=30), AT)
        preceded = 0
        for burst in truth:
            news = world.news([burst.hashtags[0]], burst.start - timedelta(days=3), burst.start, AT)
            preceded += any(n.published_at < burst.start for n in news)
        assert 0 < preceded < len(truth)


class TestAdsSlideshowsComments:
    def test_ads_for_keywords(self, world: World) -> None:
        ads = world.ads("protein", AT, 50)
        assert ads and all(any("protein" in b for b in a.bodies) for a in ads)
        assert all(a.start_date <= AT for a in ads)
        assert world.ads("protein", AT, 50) == ads

    def test_slideshows_on_tiktok_and_instagram_only(self, world: World) -> None:
        since = AT - timedelta(days=3)
        for platform in (Platform.TIKTOK, Platform.INSTAGRAM):
            found = world.slideshows(platform, "skincare", since, AT, AT, 20)
            assert found and all(len(s.panels) >= 3 and s.image_count == len(s.panels) for s in found)
        assert world.slideshows(Platform.YOUTUBE, "skincare", since, AT, AT, 20) == []

    def test_comment_authors_follow_the_creator_audience(
        self, world: World, last_48h: dict[Platform, list[VideoRecord]]
    ) -> None:
        popular = sorted(last_48h[Platform.TIKTOK], key=lambda v: v.comments, reverse=True)[:8]
        handle = popular[0].creator.handle if popular[0].creator else ""
        truth = world.audience_truth(Platform.TIKTOK, handle)
        assert truth is not None and abs(sum(truth.countries.values()) - 1) < 1e-9
        comments = []
        for video in popular:
            if video.creator and video.creator.handle == handle:
                comments += world.comments(Platform.TIKTOK, video.external_id, AT, 500) or []
        assert len(comments) >= 200
        top_country = max(truth.countries, key=lambda c: truth.countries[c])
        observed = sum(c.country == top_country.upper() for c in comments) / len(comments)
        assert abs(observed - truth.countries[top_country]) < 0.1
        assert {c.author_age_bracket for c in comments} <= set(truth.age_brackets)
        assert all(c.posted_at <= AT for c in comments)
