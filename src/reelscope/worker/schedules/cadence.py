"""Cadences: when a schedule fires next (spec §4.3, §4.4; ARCHITECTURE §5).

A schedule's ``cadence`` column holds one of:

- ``cron:<5-field expression>`` — evaluated in the schedule's time zone (agents use UTC);
- ``local:<HH:MM>,<HH:MM>,…`` — wall-clock times in the schedule's IANA zone, e.g. a region's trend runs
  at 07:00, 13:00 and 19:00 local time (§4.3), correct across daylight-saving changes;
- ``interval:<seconds>`` — every N seconds from the previous firing (tracking cycles);
- ``once`` — fire at ``next_run_at`` and stop (retry times).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from croniter import CroniterBadCronError, CroniterBadDateError, CroniterNotAlphaError, croniter

from reelscope.kit.errors import ValidationFailed

ONE_DAY = timedelta(days=1)
# consecutive firings whose gaps are checked, from a fixed start so validation does not depend on the day
# it runs; the minute and hour fields are the same every day, so two firings on one day show up at once
_GAP_CHECK_FIRINGS = 64
_GAP_CHECK_START = datetime(2026, 1, 1, tzinfo=UTC)


class InvalidCadence(ValidationFailed):
    """400 validation_error naming the field (§4.4: "invalid gives 400")."""

    def __init__(self, reason: str, *, field: str = "cadence") -> None:
        super().__init__(f"{field} {reason}")


@dataclass(frozen=True)
class Cadence:
    kind: Literal["cron", "local", "interval", "once"]
    cron: str | None = None
    times: tuple[time, ...] = ()
    seconds: int | None = None

    @property
    def spec(self) -> str:
        if self.kind == "cron":
            return f"cron:{self.cron}"
        if self.kind == "local":
            return "local:" + ",".join(t.strftime("%H:%M") for t in self.times)
        if self.kind == "interval":
            return f"interval:{self.seconds}"
        return "once"

    def next_after(self, after: datetime, zone: ZoneInfo) -> datetime | None:
        """The first firing strictly after ``after`` (UTC); None for ``once`` (it has fired)."""
        if self.kind == "cron":
            assert self.cron is not None
            fired: datetime = croniter(self.cron, after.astimezone(zone)).get_next(datetime)
            return fired.astimezone(UTC)
        if self.kind == "local":
            return _next_local(self.times, zone, after)
        if self.kind == "interval":
            assert self.seconds is not None
            return after + timedelta(seconds=self.seconds)
        return None


def parse(spec: str) -> Cadence:
    """A stored cadence string (module docstring) → Cadence; InvalidCadence if malformed."""
    kind, _, value = spec.partition(":")
    if kind == "cron":
        return Cadence(kind="cron", cron=_valid_cron(value))
    if kind == "local":
        return local_times(value.split(","))
    if kind == "interval":
        if not value.isdigit() or int(value) < 60:
            raise InvalidCadence("interval must be a whole number of seconds, at least 60")
        return Cadence(kind="interval", seconds=int(value))
    if spec == "once":
        return Cadence(kind="once")
    raise InvalidCadence(f"{spec!r} is not a cadence")


def local_times(values: list[str]) -> Cadence:
    """Wall-clock ``HH:MM`` times (e.g. ["07:00", "13:00", "19:00"]), at most once per minute each."""
    parsed = set()
    for value in values:
        try:
            parsed.add(time.fromisoformat(value.strip()).replace(second=0, microsecond=0))
        except ValueError:
            raise InvalidCadence(f"time {value!r} is not HH:MM") from None
    if not parsed:
        raise InvalidCadence("needs at least one local time")
    return Cadence(kind="local", times=tuple(sorted(parsed)))


def zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidCadence(f"{name!r} is not an IANA time zone", field="timezone") from None


def agent_cadence(value: str, *, anchor: datetime) -> str:
    """An agent's cadence (§4.4): ``daily``, ``weekly``, ``monthly`` or a cron firing at most once a day.

    Returns the cron expression to store and show (the run webhook carries "a cron expression even if
    a shortcut was chosen", §6.3). Shortcuts fire at the minute and hour of ``anchor`` (UTC, usually the
    creation time) so agents spread over the day; monthly uses day ``min(anchor.day, 28)`` so it fires
    every month. Anything else gives 400 ``validation_error``.
    """
    anchor = anchor.astimezone(UTC)
    if value == "daily":
        return f"{anchor.minute} {anchor.hour} * * *"
    if value == "weekly":
        # cron counts Sunday as 0; Python's isoweekday counts it as 7
        return f"{anchor.minute} {anchor.hour} * * {anchor.isoweekday() % 7}"
    if value == "monthly":
        return f"{anchor.minute} {anchor.hour} {min(anchor.day, 28)} * *"
    expression = _valid_cron(value)
    if _min_gap(expression) < ONE_DAY:
        raise InvalidCadence("must fire at most once per day (a cron expression firing more often)")
    return expression


def _valid_cron(value: str) -> str:
    expression = " ".join(value.split())
    if len(expression.split(" ")) != 5:
        raise InvalidCadence("must be daily, weekly, monthly or a 5-field cron expression")
    try:
        if not croniter.is_valid(expression):
            raise InvalidCadence(f"{value!r} is not a valid cron expression")
        croniter(expression, _GAP_CHECK_START).get_next(datetime)
    except (CroniterBadCronError, CroniterBadDateError, CroniterNotAlphaError):
        raise InvalidCadence(f"{value!r} never fires") from None
    return expression


def _min_gap(expression: str) -> timedelta:
    """The smallest gap between consecutive firings (UTC, no daylight-saving shifts) over a window."""
    it = croniter(expression, _GAP_CHECK_START)
    previous: datetime = it.get_next(datetime)
    smallest = timedelta.max
    for _ in range(_GAP_CHECK_FIRINGS):
        try:
            current: datetime = it.get_next(datetime)
        except CroniterBadDateError:
            break
        smallest = min(smallest, current - previous)
        if smallest < ONE_DAY:
            break
        previous = current
    return smallest


def _next_local(times: tuple[time, ...], zone: ZoneInfo, after: datetime) -> datetime:
    """The first local wall-clock time strictly after ``after``.

    Built per local date with zoneinfo, so 07:00 in New York is 12:00Z in winter and 11:00Z in summer.
    A time skipped by a spring-forward change fires at the same instant an hour later on the wall clock;
    a time repeated by a fall-back change fires once, at its first occurrence.
    """
    day: date = after.astimezone(zone).date()
    for offset in range(3):
        for wall in times:
            candidate = datetime.combine(day + timedelta(days=offset), wall, tzinfo=zone).astimezone(UTC)
            if candidate > after:
                return candidate
    raise AssertionError("a daily wall-clock time always fires within three local days")
