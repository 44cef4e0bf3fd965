"""Keyword suggestions for an agent (spec §4.4 suggest-keywords), pure: ranks hashtags the catalog holds
by what they did in the last 30 days — volume, week-over-week growth and how often they appear with the
seed terms — never from a fixed word list.

- ``create``: the seed terms the catalog knows, then the terms most used alongside them, by
  ``relevance x ln(1 + volume)``;
- ``refresh``: the given keywords that still have videos, then adjacent terms by the same score, rising
  first, up to the same number;
- ``opportunity``: adjacent terms (not the given ones) that are growing, by ``relevance x growth``.

``exclude_keywords`` are frequent co-occurring terms whose own videos rarely carry a seed term (under
10%): they pull unrelated videos into a search. The quality score (0-100) is
``40 x seed coverage + 30 x min(1, log10(1 + volume) / 4) + 30 x mean relevance`` of the suggestion.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from reelscope.analysis.themes import GENERIC_TAGS

MODES = ("create", "refresh", "opportunity")
MAX_SUGGESTED = 10
MAX_EXCLUDED = 5
# an adjacent term must appear in at least this share of the seed videos to be suggested
MIN_RELEVANCE = 0.05
# a frequent term whose own videos carry a seed term less often than this is an exclusion candidate
EXCLUDE_BELOW = 0.1


@dataclass(frozen=True, slots=True)
class Candidate:
    """A hashtag and its last 30 days in the catalog."""

    key: str
    display: str
    is_seed: bool
    videos_30d: int
    videos_7d: int
    videos_prev_7d: int
    # seed videos carrying this term, out of ``seed_videos``
    co_occurrences: int

    def growth(self) -> float | None:
        if self.videos_prev_7d == 0:
            return None if self.videos_7d == 0 else float(self.videos_7d)
        return (self.videos_7d - self.videos_prev_7d) / self.videos_prev_7d

    def relevance(self, seed_videos: int) -> float:
        if self.is_seed:
            return 1.0
        return self.co_occurrences / seed_videos if seed_videos else 0.0

    def purity(self) -> float:
        """The share of this term's own videos that carry a seed term."""
        return min(1.0, self.co_occurrences / self.videos_30d) if self.videos_30d else 0.0


@dataclass(frozen=True, slots=True)
class Suggestion:
    keywords: list[str]
    exclude_keywords: list[str]
    reasoning: str
    quality_score: int
    candidates: list[dict[str, Any]]


def _fmt_growth(g: float | None) -> str:
    return "new this week" if g is None else f"{g * 100:+.0f}% week over week"


def suggest(
    mode: str,
    seeds: Sequence[str],
    candidates: Sequence[Candidate],
    seed_videos: int,
    *,
    given: Sequence[str] = (),
    excluded: Sequence[str] = (),
) -> Suggestion:
    """``seeds``: the terms asked about (intent words, given keywords), normalized; ``candidates``:
    their hashtags and the hashtags used with them; ``seed_videos``: videos carrying a seed hashtag."""
    blocked = {k.casefold() for k in excluded} | GENERIC_TAGS
    given_keys = [g.casefold() for g in given]
    usable = [c for c in candidates if c.key not in blocked and c.videos_30d > 0]

    def score(c: Candidate) -> float:
        return c.relevance(seed_videos) * math.log1p(c.videos_30d)

    adjacent = [
        c
        for c in usable
        if not c.is_seed and c.relevance(seed_videos) >= MIN_RELEVANCE and c.purity() >= EXCLUDE_BELOW
    ]
    by_key = {c.key: c for c in usable}
    chosen: list[Candidate] = []
    if mode == "opportunity":
        rising = [
            c for c in adjacent if c.key not in given_keys and (c.growth() or 0) > 0 and c.videos_30d >= 3
        ]
        rising.sort(key=lambda c: (-(c.relevance(seed_videos) * (c.growth() or 0)), -c.videos_30d, c.key))
        chosen = rising[:MAX_SUGGESTED]
    elif mode == "refresh":
        kept = [by_key[k] for k in given_keys if k in by_key]
        room = max(len(given_keys), 3) - len(kept)
        fresh = [c for c in adjacent if c.key not in given_keys]
        fresh.sort(key=lambda c: (-((c.growth() or 0) > 0), -score(c), c.key))
        chosen = kept + fresh[: max(room, 0)]
    else:
        seeds_found = sorted((c for c in usable if c.is_seed), key=lambda c: (-c.videos_30d, c.key))
        more = sorted(adjacent, key=lambda c: (-score(c), c.key))
        chosen = (seeds_found + more)[: max(MAX_SUGGESTED // 2, len(seeds_found))]
        if len(chosen) < 5:
            chosen = (seeds_found + more)[:5]

    keywords = [c.display for c in chosen]
    if not keywords and mode != "opportunity":  # the catalog knows none of it: the seeds, said so below
        keywords = list(dict.fromkeys(s for s in seeds if s not in blocked))[:5]
    exclude = sorted(
        (
            c
            for c in candidates
            if not c.is_seed
            and c.key not in blocked
            and c.key not in given_keys
            and c.co_occurrences >= 2
            and c.purity() < EXCLUDE_BELOW
        ),
        key=lambda c: (-c.co_occurrences, c.key),
    )[:MAX_EXCLUDED]

    seeds_known = [s for s in seeds if s in by_key]
    coverage = len(seeds_known) / len(seeds) if seeds else 0.0
    volume = sum(c.videos_30d for c in chosen)
    mean_rel = sum(c.relevance(seed_videos) for c in chosen) / len(chosen) if chosen else 0.0
    quality = round(100 * (0.4 * coverage + 0.3 * min(1.0, math.log10(1 + volume) / 4) + 0.3 * mean_rel))

    lines: list[str] = []
    if not chosen:
        lines.append(
            "The catalog holds no recent videos for these terms"
            + (" that are growing" if mode == "opportunity" else "")
            + "; the suggestion is the terms themselves and cannot be checked yet."
        )
    for c in chosen[:5]:
        part = f"{c.display}: {c.videos_30d} videos in 30 days, {_fmt_growth(c.growth())}"
        if not c.is_seed and seed_videos:
            part += f", with a seed term in {c.relevance(seed_videos) * 100:.0f}% of the seed videos"
        lines.append(part)
    if exclude:
        lines.append(
            "Excluded: "
            + ", ".join(
                f"{c.display} (only {c.purity() * 100:.0f}% of its videos are on topic)" for c in exclude
            )
        )
    return Suggestion(
        keywords=keywords,
        exclude_keywords=[c.display for c in exclude],
        reasoning=". ".join(lines) + ".",
        quality_score=max(0, min(100, quality)),
        candidates=[
            {
                "keyword": c.display,
                "videos_30d": c.videos_30d,
                "growth_7d": None if c.growth() is None else round(c.growth() or 0, 4),
                "relevance": round(c.relevance(seed_videos), 4),
            }
            for c in chosen
        ],
    )
