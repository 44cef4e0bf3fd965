"""The regions a fresh database starts with (§2.4). More are added as rows, without code."""

from __future__ import annotations

from typing import NamedTuple


class RegionSeed(NamedTuple):
    code: str
    name: str
    timezone: str
    is_country: bool
    position: int


GLOBAL = "global"

DEFAULT_REGIONS: tuple[RegionSeed, ...] = (
    RegionSeed(GLOBAL, "Global", "America/New_York", False, 0),
    RegionSeed("us", "United States", "America/New_York", True, 1),
    RegionSeed("gb", "United Kingdom", "Europe/London", True, 2),
    RegionSeed("au", "Australia", "Australia/Sydney", True, 3),
)

# each region runs at these local hours (§4.3)
RUN_HOURS = (7, 13, 19)
