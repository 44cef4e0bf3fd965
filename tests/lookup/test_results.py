"""The pure rules of lookup results (lookup/results.py) on hand-made records."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from reelscope.collectors.base import CommentRecord, CreatorRecord, VideoRecord
from reelscope.kit.platforms import Platform
from reelscope.lookup import results

NOW = datetime(2026, 11, 21, 12, tzinfo=UTC)


def video(
    n: int, *, days_ago: float, views: int = 1000, tags: tuple[str, ...] = (), creator: str = "a"
) -> VideoRecord:
    return VideoRecord(
        platform=Platform.TIKTOK,
        external_id=str(n),
        url=f"https://example.test/{n}",
        published_at=NOW - timedelta(days=days_ago),
        fetched_at=NOW,
        views=views,
        hashtags=tags,
        creator=CreatorRecord(platform=Platform.TIKTOK, handle=creator),
    )


class TestRisingThemes:
    def test_a_theme_taking_a_larger_share_recently_is_rising(self) -> None:
        recent = [video(i, days_ago=2 + i, tags=("Cooking", "new")) for i in range(4)]
        older = [video(10 + i, days_ago=40 + i, tags=("cooking",)) for i in range(8)]
        found = results.rising_themes(recent + older, NOW)
        rising = {row["theme"]: row for row in found["rising_themes"]}
        assert "new" in rising and rising["new"]["recent_videos"] == 4 and rising["new"]["older_videos"] == 0
        assert "cooking" not in rising  # the same share before and now
        windows = {w["window"]: w["videos"] for w in found["time_windows"]}
        assert windows == {"last_7_days": 4, "days_8_to_30": 0, "days_31_to_90": 8}

    def test_one_recent_video_is_not_a_theme(self) -> None:
        assert results.rising_themes([video(1, days_ago=1, tags=("once",))], NOW)["rising_themes"] == []


class TestActivityTrend:
    def test_a_busy_recent_week_after_quiet_weeks_is_a_resurgence(self) -> None:
        old = [video(i, days_ago=45 + i, creator=f"c{i}") for i in range(3)]
        quiet = [video(10, days_ago=20, creator="q")]
        burst = [video(20 + i, days_ago=0.5 + i * 0.3, creator=f"b{i}") for i in range(8)]
        found = results.activity_trend(old + quiet + burst, NOW)
        assert found["resurgence"]["detected"] is True
        assert found["momentum"]["status"] == "rising"

    def test_diversity_sampling_keeps_three_videos_per_creator(self) -> None:
        same = [video(i, days_ago=1, views=i, creator="one") for i in range(10)]
        kept = results.diversity_sample(same)
        assert sorted(v.views for v in kept) == [7, 8, 9]


class TestPostingCadence:
    def test_posts_per_week_and_the_median_gap(self) -> None:
        posts = [NOW - timedelta(days=d) for d in (14, 7, 0)]
        cadence = results.posting_cadence(posts, NOW)
        assert cadence["posts_per_week"] == 1.5
        assert cadence["median_gap_hours"] == 168.0
        assert cadence["last_posted_at"] == "2026-11-21T12:00:00Z"

    def test_no_posts(self) -> None:
        assert results.posting_cadence([], NOW)["posts_analyzed"] == 0


def comment(n: int, author: str, country: str) -> CommentRecord:
    return CommentRecord(
        platform=Platform.TIKTOK,
        external_id=f"c{n}",
        video_external_id="1",
        author_handle=author,
        text="nice",
        posted_at=NOW,
        fetched_at=NOW,
        country=country,
    )


class TestAudience:
    def test_people_not_comments_with_a_confidence(self) -> None:
        """A fan who comments ten times is one person (analysis/audience.py, as audience snapshots)."""
        sample = [comment(n, "fan", "us") for n in range(10)] + [comment(10, "other", "de")]
        audience = results.audience_out(sample)
        assert audience["sample_size"] == 2
        assert audience["countries"] == [{"code": "DE", "share": 0.5}, {"code": "US", "share": 0.5}]
        assert (
            audience["confidence_level"] == "low" and 0 < audience["confidence_per_signal"]["country"] < 0.1
        )
        assert audience["geography"]["country"] == {"DE": 0.5, "US": 0.5}
        assert audience["signal_breakdown"]["comments"] == 11
        assert audience["data_source"] == "comments"

    def test_no_comments_is_profile_only(self) -> None:
        audience = results.audience_out([])
        assert audience["sample_size"] == 0 and audience["data_source"] == "profile_only"
