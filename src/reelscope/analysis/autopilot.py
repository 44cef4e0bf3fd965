"""What the autopilot changes in a recurring agent (spec §4.4 "Autopilot rules", §8.3), pure: plain
records in, changes out; no database, no clock, no settings (ADR 0032).

After each run it reads the run's most-viewed videos and decides, in this order:

- **reword**: a keyword the autopilot added earlier (never one the user set) whose searches found
  nothing this run is replaced by the best unused term;
- **add**: the hashtags used most on the run's best videos (at least ``MIN_SUPPORT`` of them and
  ``MIN_SHARE`` of them, generic tags and anything holding an exclude term left out) are added, at most
  ``ADDS_PER_RUN`` a run, never past ``MAX_KEYWORDS`` in all;
- **widen**: a thin run (fewer than ``THIN_RUN`` videos kept) widens the collection window the service
  sets (``time_range``, §4.4 "system-managed") one step: 30 → 60 → 90 days.

A confirmed breaking story (``for_event``) adds its keywords as short-lived ones, in the same limit.

What no change can do, whatever the input (``apply`` enforces it, the property tests check it): remove
a pinned keyword or touch the exclude terms; take the keywords past 15; touch anything that sets the
price of a run (Data Intelligence, ads, platforms, cadence: they are not even in ``Config``); start a
run (a change only edits the configuration the next scheduled run reads).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from reelscope.analysis.themes import GENERIC_TAGS

# §8.3 "Agent keywords with autopilot: up to 15 in all"
MAX_KEYWORDS = 15
# the run's most-viewed videos whose hashtags are read
BEST_VIDEOS = 30
# a term is a candidate when at least this many of those videos carry it, and this share of them
MIN_SUPPORT = 3
MIN_SHARE = 0.15
# new terms (added or reworded) per run: the configuration moves a little at a time
ADDS_PER_RUN = 2
# fewer videos kept than this is a thin run
THIN_RUN = 20
# the collection window steps (days); the service starts every agent at the first (§4.4 "30d")
TIME_RANGES = (30, 60, 90)

Kind = Literal[
    "add_keywords", "reword_keyword", "widen_collection", "add_timely_keywords", "expire_timely_keywords"
]


@dataclass(frozen=True)
class Config:
    """The part of an agent's configuration the autopilot may read or change."""

    keywords: tuple[str, ...]
    pinned_keywords: tuple[str, ...]
    exclude_keywords: tuple[str, ...]
    time_range_days: int = TIME_RANGES[0]
    # short-lived keywords (breaking stories) now among ``keywords``
    timely_keywords: tuple[str, ...] = ()


@dataclass(frozen=True)
class RunVideo:
    views: int
    hashtags: tuple[str, ...]


@dataclass(frozen=True)
class RunFacts:
    """What one run found: the videos it kept, and per keyword (any case) the items its searches that
    answered returned, before deduplication and filters (a keyword whose searches all failed is absent)."""

    videos: tuple[RunVideo, ...]
    found_by_keyword: Mapping[str, int]


@dataclass(frozen=True)
class Change:
    kind: Kind
    add: tuple[str, ...] = ()
    remove: tuple[str, ...] = ()
    # widen_collection: the window before and after (days)
    time_range_from: int | None = None
    time_range_to: int | None = None
    reason: str = ""
    evidence: Mapping[str, object] = field(default_factory=dict)


def key(term: str) -> str:
    """The comparison key of a keyword or tag: no ``#``, no spaces, case-folded ("Home Workout" is
    #homeworkout)."""
    return "".join(term.lstrip("#").split()).casefold()


def _blocked_by_exclude(term: str, exclude_keywords: Sequence[str]) -> bool:
    """A term holding an exclude term would only find videos the run's filter drops (§4.4)."""
    folded = key(term)
    return any(key(ex) and key(ex) in folded for ex in exclude_keywords)


@dataclass(frozen=True)
class Candidate:
    term: str
    videos: int
    views: int


def candidates(config: Config, facts: RunFacts, *, rejected: Collection[str] = ()) -> list[Candidate]:
    """Terms used most on the run's best videos, best first, none the agent has, excludes or was told
    not to use (``rejected``: keywords of dismissed or reverted changes)."""
    best = sorted(facts.videos, key=lambda v: -v.views)[:BEST_VIDEOS]
    if not best:
        return []
    taken = {key(k) for k in config.keywords} | {key(r) for r in rejected}
    support: Counter[str] = Counter()
    views: Counter[str] = Counter()
    display: dict[str, str] = {}
    for video in best:
        for tag in {key(t): t.lstrip("#") for t in video.hashtags if key(t)}.items():
            support[tag[0]] += 1
            views[tag[0]] += video.views
            display.setdefault(tag[0], tag[1])
    needed = max(MIN_SUPPORT, MIN_SHARE * len(best))
    found = [
        Candidate(display[k], n, views[k])
        for k, n in support.items()
        if n >= needed
        and k not in taken
        and k not in GENERIC_TAGS
        and not _blocked_by_exclude(k, config.exclude_keywords)
    ]
    found.sort(key=lambda c: (-c.videos, -c.views, key(c.term)))
    return found


def after_run(config: Config, facts: RunFacts, *, rejected: Collection[str] = ()) -> list[Change]:
    """The changes after one run, in the order they apply."""
    pool = candidates(config, facts, rejected=rejected)
    changes: list[Change] = []
    budget = ADDS_PER_RUN
    current = config
    pinned = {key(k) for k in config.pinned_keywords}
    timely = {key(k) for k in config.timely_keywords}
    for keyword in config.keywords:
        if budget == 0 or not pool:
            break
        if key(keyword) in pinned or key(keyword) in timely:
            continue
        # a keyword whose searches all failed (absent here) says nothing about its wording
        found = next((n for k, n in facts.found_by_keyword.items() if key(k) == key(keyword)), None)
        if found is None or found > 0:
            continue
        better = pool.pop(0)
        change = Change(
            "reword_keyword",
            add=(better.term,),
            remove=(keyword,),
            reason=f"'{keyword}' found nothing this run; '{better.term}' is on {better.videos} of the "
            f"run's {min(len(facts.videos), BEST_VIDEOS)} most-viewed videos",
            evidence={"replaced_found": 0, "videos": better.videos, "views": better.views},
        )
        changes.append(change)
        current = apply(current, change)
        budget -= 1
    room = MAX_KEYWORDS - len(current.keywords)
    fresh = pool[: max(0, min(budget, room))]
    if fresh:
        best_n = min(len(facts.videos), BEST_VIDEOS)
        change = Change(
            "add_keywords",
            add=tuple(c.term for c in fresh),
            reason="; ".join(
                f"'{c.term}' is on {c.videos} of the run's {best_n} most-viewed videos" for c in fresh
            ),
            evidence={"terms": [{"term": c.term, "videos": c.videos, "views": c.views} for c in fresh]},
        )
        changes.append(change)
        current = apply(current, change)
    if len(facts.videos) < THIN_RUN and current.time_range_days < TIME_RANGES[-1]:
        wider = next(days for days in TIME_RANGES if days > current.time_range_days)
        change = Change(
            "widen_collection",
            time_range_from=current.time_range_days,
            time_range_to=wider,
            reason=f"a thin run: {len(facts.videos)} videos kept (under {THIN_RUN}); searching the last "
            f"{wider} days instead of {current.time_range_days}",
            evidence={"videos_kept": len(facts.videos)},
        )
        changes.append(change)
    return changes


def for_event(
    config: Config, keywords: Sequence[str], *, title: str, rejected: Collection[str] = ()
) -> Change | None:
    """Short-lived keywords for a confirmed breaking story: those the agent lacks, may use and has room
    for (§4.4 "adds short-lived keywords for breaking stories", within the 15)."""
    taken = {key(k) for k in config.keywords} | {key(r) for r in rejected}
    wanted: list[str] = []
    for keyword in keywords:
        k = key(keyword)
        if not k or k in taken or k in GENERIC_TAGS or _blocked_by_exclude(keyword, config.exclude_keywords):
            continue
        taken.add(k)
        wanted.append(keyword.lstrip("#"))
    room = MAX_KEYWORDS - len(config.keywords)
    if not wanted or room <= 0:
        return None
    return Change(
        "add_timely_keywords",
        add=tuple(wanted[:room]),
        reason=f"breaking story: {title}",
        evidence={"skipped_for_room": wanted[room:]},
    )


def expiring(config: Config, keywords: Sequence[str]) -> Change | None:
    """Short-lived keywords whose story ended leave (a keyword the user pinned since stays)."""
    pinned = {key(k) for k in config.pinned_keywords}
    present = {key(k): k for k in config.keywords}
    gone = tuple(present[key(k)] for k in keywords if key(k) in present and key(k) not in pinned)
    if not gone:
        return None
    return Change("expire_timely_keywords", remove=gone, reason="the breaking story ended")


def apply(config: Config, change: Change) -> Config:
    """``config`` with ``change`` made, within the rules: pinned keywords and exclude terms stay, the
    keywords stay within ``MAX_KEYWORDS`` (a list the user made longer is never cut), and the window
    moves only along ``TIME_RANGES``."""
    pinned = {key(k) for k in config.pinned_keywords}
    removing = {key(k) for k in change.remove} - pinned
    kept = [k for k in config.keywords if key(k) not in removing]
    present = {key(k) for k in kept}
    room = max(0, MAX_KEYWORDS - len(kept))
    added: list[str] = []
    for term in change.add:
        k = key(term)
        if len(added) >= room or not k or k in present:
            continue
        present.add(k)
        added.append(term.lstrip("#"))
    timely = [t for t in config.timely_keywords if key(t) not in removing]
    if change.kind == "add_timely_keywords":
        timely += added
    window = config.time_range_days
    if change.time_range_to is not None and change.time_range_to in TIME_RANGES:
        window = change.time_range_to
    return replace(
        config,
        keywords=tuple(kept + added),
        timely_keywords=tuple(timely),
        time_range_days=window,
    )


def undo(change: Change) -> Change:
    """The change that takes ``change`` back (its additions leave, its removals return, the window
    returns): what reverting a proposal does."""
    return Change(
        change.kind if change.kind != "add_timely_keywords" else "expire_timely_keywords",
        add=change.remove,
        remove=change.add,
        time_range_from=change.time_range_to,
        time_range_to=change.time_range_from,
        reason="reverted",
    )
