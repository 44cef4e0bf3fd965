"""Cadences: agent cadence validation (§4.4) and wall-clock times across daylight-saving changes (§4.3)."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from reelscope.kit.errors import ValidationFailed
from reelscope.worker.schedules import cadence as cadences

NEW_YORK = ZoneInfo("America/New_York")
ANCHOR = datetime(2026, 11, 21, 14, 23, 5, tzinfo=UTC)  # a Saturday


class TestAgentCadence:
    @pytest.mark.parametrize(
        ("value", "cron"),
        [("daily", "23 14 * * *"), ("weekly", "23 14 * * 6"), ("monthly", "23 14 21 * *")],
    )
    def test_shortcuts_become_the_cron_expression_shown_to_clients(self, value: str, cron: str) -> None:
        # §6.3: the webhook's cadence is "a cron expression even if a shortcut was chosen"
        assert cadences.agent_cadence(value, anchor=ANCHOR) == cron

    def test_monthly_on_the_31st_still_fires_every_month(self) -> None:
        assert (
            cadences.agent_cadence("monthly", anchor=datetime(2026, 1, 31, 6, 0, tzinfo=UTC)) == "0 6 28 * *"
        )

    @pytest.mark.parametrize(
        "cron", ["0 9 * * *", "30 8 * * 1-5", "0 0 1,15 * *", "15 3 * * 0", "0 12 1 */3 *", "  0   9 * * *  "]
    )
    def test_a_cron_firing_at_most_once_a_day_is_accepted(self, cron: str) -> None:
        assert cadences.agent_cadence(cron, anchor=ANCHOR) == " ".join(cron.split())

    @pytest.mark.parametrize(
        "cron", ["0 */12 * * *", "*/5 * * * *", "0 0,23 * * *", "0 9-10 * * 1", "30 * * * *", "* 9 * * *"]
    )
    def test_a_cron_firing_more_than_once_a_day_is_a_400(self, cron: str) -> None:
        with pytest.raises(ValidationFailed) as raised:
            cadences.agent_cadence(cron, anchor=ANCHOR)
        assert raised.value.status == 400 and raised.value.code == "validation_error"
        assert raised.value.message == [
            "cadence must fire at most once per day (a cron expression firing more often)"
        ]

    @pytest.mark.parametrize(
        "value", ["hourly", "", "0 9 * *", "0 0 9 * * *", "61 0 * * *", "a b c d e", "0 0 30 2 *", "@daily"]
    )
    def test_anything_else_is_a_400_naming_the_field(self, value: str) -> None:
        with pytest.raises(ValidationFailed) as raised:
            cadences.agent_cadence(value, anchor=ANCHOR)
        assert isinstance(raised.value.message, list) and raised.value.message[0].startswith("cadence ")


class TestLocalTimes:
    def test_new_york_seven_am_is_noon_utc_in_winter_and_eleven_in_summer(self) -> None:
        seven = cadences.local_times(["07:00"])
        winter = cadences.local_times(["07:00"]).next_after(datetime(2026, 3, 7, 0, 0, tzinfo=UTC), NEW_YORK)
        assert winter == datetime(2026, 3, 7, 12, 0, tzinfo=UTC)
        # Sunday 8 March 2026: clocks go forward at 02:00; 07:00 EDT is 11:00Z
        assert seven.next_after(winter, NEW_YORK) == datetime(2026, 3, 8, 11, 0, tzinfo=UTC)
        # Sunday 1 November 2026: clocks go back at 02:00; 07:00 EST is 12:00Z
        assert seven.next_after(datetime(2026, 10, 31, 11, 0, tzinfo=UTC), NEW_YORK) == datetime(
            2026, 11, 1, 12, 0, tzinfo=UTC
        )

    def test_three_runs_a_day_in_order(self) -> None:
        runs = cadences.local_times(["19:00", "07:00", "13:00"])
        assert runs.spec == "local:07:00,13:00,19:00"
        moment = datetime(2026, 11, 21, 13, 0, tzinfo=UTC)  # 08:00 in New York
        fired = []
        for _ in range(4):
            moment = runs.next_after(moment, NEW_YORK)  # type: ignore[assignment]
            fired.append(moment.astimezone(NEW_YORK).strftime("%d %H:%M"))
        assert fired == ["21 13:00", "21 19:00", "22 07:00", "22 13:00"]

    def test_a_time_skipped_by_spring_forward_fires_once_an_hour_later_on_the_wall_clock(self) -> None:
        fired = cadences.local_times(["02:30"]).next_after(datetime(2026, 3, 8, 5, 0, tzinfo=UTC), NEW_YORK)
        assert fired == datetime(2026, 3, 8, 7, 30, tzinfo=UTC)  # 03:30 EDT

    def test_a_time_repeated_by_fall_back_fires_once(self) -> None:
        run = cadences.local_times(["01:30"])
        first = run.next_after(datetime(2026, 11, 1, 4, 0, tzinfo=UTC), NEW_YORK)
        assert first == datetime(2026, 11, 1, 5, 30, tzinfo=UTC)  # 01:30 EDT
        assert run.next_after(first, NEW_YORK) == datetime(2026, 11, 2, 6, 30, tzinfo=UTC)  # skips 01:30 EST

    @pytest.mark.parametrize(
        "spec", ["local:7am", "local:", "interval:30", "interval:x", "weekly", "cron:* * * *"]
    )
    def test_malformed_cadences_are_refused(self, spec: str) -> None:
        with pytest.raises(ValidationFailed):
            cadences.parse(spec)

    def test_an_unknown_time_zone_is_refused(self) -> None:
        with pytest.raises(ValidationFailed) as raised:
            cadences.zone("America/Gotham")
        assert raised.value.message == ["timezone 'America/Gotham' is not an IANA time zone"]
