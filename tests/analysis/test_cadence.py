"""Posting cadence on hand-made publish times: one formula for lookups and tracking."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from reelscope.analysis.cadence import WEEKDAYS, posting_cadence

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)  # a Saturday


class TestCadence:
    def test_per_week_over_the_time_since_the_first_post(self) -> None:
        cadence = posting_cadence([NOW - timedelta(days=d) for d in (14, 7, 0)], NOW)
        assert cadence.posts_per_week == 1.5
        assert cadence.median_gap_hours == 168.0 and cadence.average_gap_hours == 168.0
        assert cadence.first_post_at == NOW - timedelta(days=14) and cadence.last_post_at == NOW

    def test_a_creator_who_stopped_posting_reads_slower(self) -> None:
        """Three posts a week apart that ended two weeks ago: 3 posts in 4 weeks, not 3 in 2."""
        cadence = posting_cadence([NOW - timedelta(days=d) for d in (28, 21, 14)], NOW)
        assert cadence.posts_per_week == 0.75

    def test_weekdays_and_hours_are_utc_and_complete(self) -> None:
        cadence = posting_cadence([NOW, NOW - timedelta(hours=1)], NOW)
        assert list(cadence.by_weekday) == list(WEEKDAYS) and cadence.by_weekday["saturday"] == 2
        assert sum(cadence.by_weekday.values()) == 2
        assert cadence.by_hour[12] == 1 and cadence.by_hour[11] == 1 and len(cadence.by_hour) == 24

    def test_one_post_in_its_first_day_counts_over_a_day(self) -> None:
        cadence = posting_cadence([NOW - timedelta(hours=2)], NOW)
        assert cadence.posts_per_week == 7.0 and cadence.median_gap_hours is None

    def test_no_posts(self) -> None:
        cadence = posting_cadence([], NOW)
        assert cadence.posts_analyzed == 0 and cadence.posts_per_week is None
        assert cadence.first_post_at is None and set(cadence.by_weekday.values()) == {0}
