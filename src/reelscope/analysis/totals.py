"""A profile's totals never below what is shown of it (issue 32 item 5).

A creator profile's ``total_views`` / ``total_likes`` / ``video_count`` come from the platform's
profile (or a sandbox model of it) while the videos come from another read, often later and counted
apart: a viral video can pass its creator's profile total until the profile catches up. An answer
that shows both must not contradict itself, so the total is at least the sum of the parts shown.
"""

from __future__ import annotations

from collections.abc import Iterable


def at_least_sum(reported: int | None, parts: Iterable[int | None]) -> int | None:
    """``reported``, raised to the sum of the known ``parts`` when that is larger; unknown stays
    unknown when no part is known (a total nobody reported is not invented from a sample)."""
    known = [part for part in parts if part is not None and part >= 0]
    if not known:
        return reported
    return max(reported or 0, sum(known))


def at_least_count(reported: int | None, seen: int) -> int | None:
    """A video count at least the number of videos seen (None stays None when none was seen)."""
    if seen <= 0:
        return reported
    return max(reported or 0, seen)
