"""Creator outliers on hand-made view counts (spec §6.3: ratio = views / median,
weighted_score = ln(ratio) × ln(median))."""

from __future__ import annotations

import math

import pytest

from reelscope.analysis.outliers import find_outliers, median_views, outlier_ratio, score, weighted_score


class TestMedian:
    def test_the_median_not_the_mean(self) -> None:
        assert median_views([100, 200, 300, 10_000_000]) == 250.0

    def test_unknown_views_are_left_out(self) -> None:
        assert median_views([None, 100, None, 300]) == 200.0

    def test_no_known_views_no_norm(self) -> None:
        assert median_views([None, None]) is None
        assert median_views([]) is None


class TestScores:
    def test_ratio_and_weighted_score_follow_the_spec(self) -> None:
        found = score("v", 1_000_000, 100_000.0)
        assert found is not None
        assert found.outlier_ratio == 10.0
        assert found.weighted_score == pytest.approx(math.log(10) * math.log(100_000))

    def test_a_bigger_creator_weighs_more_for_the_same_ratio(self) -> None:
        assert weighted_score(10.0, 100_000.0) > weighted_score(10.0, 50.0)

    def test_below_the_median_scores_negative(self) -> None:
        assert weighted_score(0.5, 1_000.0) < 0

    def test_a_zero_median_gives_no_ratio(self) -> None:
        assert outlier_ratio(500, 0.0) is None
        assert score("v", 500, 0.0) is None


class TestFindOutliers:
    def test_only_videos_over_three_times_the_median_highest_first(self) -> None:
        videos = [("a", 100), ("b", 100), ("c", 100), ("d", 300), ("e", 1_000), ("f", 299)]
        found = find_outliers(videos)
        # median of 100,100,100,299,300,1000 = 199.5: only e (5.01x) is over 3x
        assert [outlier.video_id for outlier in found] == ["e"]
        assert found[0].median_views == 199.5

    def test_exactly_three_times_is_not_over(self) -> None:
        """§6.3: "over 3 times their median views" — strictly greater."""
        videos = [("a", 100), ("b", 100), ("c", 100), ("d", 100), ("e", 300), ("f", 301)]  # median 100
        assert [o.video_id for o in find_outliers(videos)] == ["f"]

    def test_the_threshold_can_be_lowered(self) -> None:
        videos = [("a", 100), ("b", 100), ("c", 150), ("d", 400)]  # median 125: c 1.2x, d 3.2x
        assert [o.video_id for o in find_outliers(videos, threshold=1.1)] == ["d", "c"]
        assert [o.video_id for o in find_outliers(videos, threshold=1.2)] == ["d"]  # 1.2x is not over 1.2

    def test_no_views_no_outliers(self) -> None:
        assert find_outliers([("a", None)]) == []
