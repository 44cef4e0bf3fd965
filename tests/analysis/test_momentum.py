"""Momentum on hand-made readings (spec §2.5: new/rising/steady/fading, score 0–1, views_per_hour)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from reelscope.analysis.momentum import FADING, NEW, RISING, STEADY, Reading, assess, seed

T0 = datetime(2026, 11, 21, 7, 0, tzinfo=UTC)


def readings(*views: int, every: timedelta = timedelta(hours=2)) -> list[Reading]:
    return [Reading(at=T0 + every * i, views=v) for i, v in enumerate(views)]


SEEDED = seed(burst_ratio=5.0, exemplar_views=100_000, exemplar_age_hours=10)


class TestSeed:
    def test_seeded_as_new_with_a_score_in_range(self) -> None:
        assert SEEDED.status == NEW
        assert 0 < SEEDED.score <= 1
        assert SEEDED.views_per_hour == 10_000

    def test_a_stronger_burst_seeds_hotter(self) -> None:
        weak = seed(burst_ratio=2.0, exemplar_views=10_000, exemplar_age_hours=10)
        strong = seed(burst_ratio=20.0, exemplar_views=1_000_000, exemplar_age_hours=10)
        assert strong.score > weak.score


class TestAssess:
    def test_no_readings_keeps_the_seed(self) -> None:
        assert assess([], detected_at=T0, now=T0, seeded=SEEDED) == SEEDED

    def test_accelerating_views_are_rising(self) -> None:
        m = assess(readings(0, 20_000, 80_000), detected_at=T0, now=T0 + timedelta(hours=4), seeded=SEEDED)
        assert m.status == RISING
        assert m.views_per_hour == 30_000

    def test_even_pace_is_steady(self) -> None:
        m = assess(
            readings(0, 20_000, 40_000, 60_000), detected_at=T0, now=T0 + timedelta(hours=6), seeded=SEEDED
        )
        assert m.status == STEADY

    def test_slowing_views_are_fading(self) -> None:
        m = assess(readings(0, 40_000, 45_000), detected_at=T0, now=T0 + timedelta(hours=4), seeded=SEEDED)
        assert m.status == FADING

    def test_frozen_views_are_fading_with_zero_speed(self) -> None:
        m = assess(readings(0, 40_000, 40_000), detected_at=T0, now=T0 + timedelta(hours=4), seeded=SEEDED)
        assert m.status == FADING
        assert m.views_per_hour == 0

    def test_score_is_bounded_and_hotter_when_faster(self) -> None:
        slow = assess(readings(0, 1_000, 2_000), detected_at=T0, now=T0, seeded=SEEDED)
        fast = assess(readings(0, 1_000_000, 2_000_000), detected_at=T0, now=T0, seeded=SEEDED)
        for m in (slow, fast):
            assert 0 <= m.score <= 1
        assert fast.score > slow.score

    def test_a_repeated_reading_is_ignored(self) -> None:
        twice = [*readings(0, 20_000, 80_000), Reading(at=T0 + timedelta(hours=4), views=80_000)]
        assert assess(twice, detected_at=T0, now=T0 + timedelta(hours=4), seeded=SEEDED).status == RISING
