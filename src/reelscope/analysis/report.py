"""The AI analysis of one agent run (spec §4.4, §6.3 ``analysis_data``), computed locally: themes from
``analysis.themes``, then the run-level sections, each read from the videos. Pure and deterministic.

Trend status across batches (§4.5 trends): a theme absent from the previous batch is ``new``; else its
video count against the previous batch's: ≥ 1.25x ``rising``, ≤ 0.8x ``fading``, between ``steady``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reelscope.analysis.text import normalize_hashtag
from reelscope.analysis.themes import (
    GENERIC_TAGS,
    Doc,
    PastTheme,
    Theme,
    cluster,
    compact,
    display_term,
    duration_band,
    engagement_rate,
    explain,
    match_keys,
    median,
)

RISING, FADING = 1.25, 0.8
EVIDENCE = 10  # evidence video ids per theme, the most viewed first


@dataclass(frozen=True, slots=True)
class Baseline:
    """The agent's own norms over every video it has linked."""

    median_views: float | None
    median_engagement: float | None
    video_count: int


def baseline_of(docs: Sequence[Doc]) -> Baseline:
    rates = [r for d in docs if (r := engagement_rate(d)) is not None]
    return Baseline(median([d.views for d in docs]), median(rates), len(docs))


def trend_status(count: int, previous: int | None) -> str:
    if previous is None or previous == 0:
        return "new"
    ratio = count / previous
    if ratio >= RISING:
        return "rising"
    if ratio <= FADING:
        return "fading"
    return "steady"


@dataclass(slots=True)
class Report:
    analysis_data: dict[str, Any]
    themes: list[Theme]
    statuses: dict[str, str]
    video_count: int

    def theme_objects(self) -> list[dict[str, Any]]:
        return [theme_object(t) for t in self.themes]


def theme_object(theme: Theme) -> dict[str, Any]:
    """The §6.3 theme: stable_key, name, why_it_works, tactics, confidence, video_count, evidence ids."""
    return {
        "stable_key": theme.stable_key,
        "name": theme.name,
        "why_it_works": theme.why_it_works,
        "tactics": theme.tactics,
        "confidence": theme.confidence,
        "video_count": len(theme.members),
        "evidence_video_ids": [d.id for d in theme.members[:EVIDENCE]],
    }


def build(
    docs: Sequence[Doc],
    baseline: Baseline,
    earlier: Sequence[PastTheme],
    previous_counts: Mapping[str, int],
    *,
    min_size: int = 3,
) -> Report:
    """The report of a run's videos. ``earlier`` is the agent's earlier themes, newest first;
    ``previous_counts`` the previous batch's video count per key."""
    ranked = sorted(docs, key=lambda d: (-d.views, d.id))
    themes, excluded = cluster(ranked, min_size=min_size)
    match_keys(themes, earlier)
    for theme in themes:
        explain(theme, baseline.median_views, baseline.median_engagement)
    statuses = {t.stable_key: trend_status(len(t.members), previous_counts.get(t.stable_key)) for t in themes}
    theme_of = {d.id: t.stable_key for t in themes for d in t.members}
    data = {
        "key_highlight": _key_highlight(themes, baseline),
        "overview": _overview(ranked, themes, excluded, baseline, statuses),
        "themes": [theme_object(t) for t in themes],
        "viral_tactics": _viral_tactics(ranked, baseline),
        "timing_analysis": _timing(ranked),
        "connecting_thread": _connecting_thread(themes, len(ranked)),
        "top_10_breakdown": _top_10(ranked, baseline, theme_of),
        "excluded_videos": [{"video_id": vid, "reason": why} for vid, why in sorted(excluded.items())],
    }
    return Report(analysis_data=data, themes=themes, statuses=statuses, video_count=len(ranked))


def _key_highlight(themes: Sequence[Theme], baseline: Baseline) -> str | None:
    if not themes:
        return None
    best = max(themes, key=lambda t: (t.views_lift or 0.0, len(t.members), t.stable_key))
    lift, views = best.views_lift, best.median_views
    if lift is None:
        return f"{best.name}: {len(best.members)} videos, median {compact(views)} views."
    return (
        f"{best.name} leads: {len(best.members)} videos at a median {compact(views)} views, "
        f"{lift}x the agent's median of {compact(baseline.median_views or 0)}."
    )


def _overview(
    docs: Sequence[Doc],
    themes: Sequence[Theme],
    excluded: Mapping[str, str],
    baseline: Baseline,
    statuses: Mapping[str, str],
) -> str:
    platforms = Counter(d.platform for d in docs)
    parts = [
        f"{len(docs)} videos analysed ("
        + ", ".join(f"{p} {c}" for p, c in sorted(platforms.items()))
        + f"), grouped into {len(themes)} themes; {len(excluded)} fit no theme."
    ]
    counts = Counter(statuses.values())
    if themes:
        parts.append(
            ", ".join(f"{counts[s]} {s}" for s in ("new", "rising", "steady", "fading") if counts[s]) + "."
        )
    if baseline.median_views is not None:
        parts.append(
            f"The agent's baseline is a median of {compact(baseline.median_views)} views over "
            f"{baseline.video_count} linked videos."
        )
    return " ".join(parts)


def _lift(values: Sequence[float], base: float | None) -> float | None:
    mid = median(values)
    return None if mid is None or not base else round(mid / base, 3)


def _viral_tactics(docs: Sequence[Doc], baseline: Baseline) -> list[dict[str, Any]]:
    """Features (hashtag, sound, duration band) shared by at least 3 videos whose median views beat the
    agent's baseline, best lift first."""
    groups: dict[tuple[str, str], list[float]] = {}
    for d in docs:
        for tag in {normalize_hashtag(t) for t in d.hashtags} - GENERIC_TAGS - {""}:
            groups.setdefault(("hashtag", "#" + tag), []).append(d.views)
        if d.sound_id:
            groups.setdefault(("sound", d.sound_id), []).append(d.views)
        band = duration_band(d.duration)
        if band:
            groups.setdefault(("duration", band), []).append(d.views)
    found: list[tuple[float, int, str, str]] = []
    for (kind, value), views in groups.items():
        lift = _lift(views, baseline.median_views)
        if len(views) >= 3 and lift is not None and lift > 1:
            found.append((lift, len(views), kind, value))
    found.sort(key=lambda t: (-t[0], -t[1], t[2], t[3]))
    return [{"type": k, "value": v, "video_count": n, "views_lift": lift} for lift, n, k, v in found[:10]]


def _timing(docs: Sequence[Doc]) -> dict[str, Any]:
    by_hour: dict[int, list[float]] = {}
    by_day: dict[int, list[float]] = {}
    for d in docs:
        by_hour.setdefault(d.published_at.hour, []).append(d.views)
        by_day.setdefault(d.published_at.weekday(), []).append(d.views)
    days = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
    # "best" only among slots with at least 3 videos, so one lucky post does not decide it
    solid_hours = [(median(v) or 0.0, -h) for h, v in by_hour.items() if len(v) >= 3]
    solid_days = [(median(v) or 0.0, -w) for w, v in by_day.items() if len(v) >= 3]
    return {
        "timezone": "UTC",
        "by_hour": [
            {"hour_utc": h, "video_count": len(v), "median_views": median(v)}
            for h, v in sorted(by_hour.items())
        ],
        "by_weekday": [
            {"weekday": days[w], "video_count": len(v), "median_views": median(v)}
            for w, v in sorted(by_day.items())
        ],
        "best_hour_utc": -max(solid_hours)[1] if solid_hours else None,
        "best_weekday": days[-max(solid_days)[1]] if solid_days else None,
    }


def _connecting_thread(themes: Sequence[Theme], total: int) -> dict[str, Any] | None:
    """Terms found in the top terms of more than one theme: what the themes have in common."""
    if len(themes) < 2:
        return None
    seen: Counter[str] = Counter()
    for t in themes:
        seen.update({display_term(term) for term in t.terms})
    shared = sorted((term for term, c in seen.items() if c >= 2), key=lambda term: (-seen[term], term))
    return {
        "shared_terms": shared[:10],
        "themes_sharing": {term: seen[term] for term in shared[:10]},
        "theme_count": len(themes),
        "video_count": total,
    }


def _top_10(docs: Sequence[Doc], baseline: Baseline, theme_of: Mapping[str, str]) -> dict[str, Any]:
    videos = []
    for rank, d in enumerate(docs[:10], start=1):
        rate = engagement_rate(d)
        videos.append(
            {
                "rank": rank,
                "video_id": d.id,
                "platform": d.platform,
                "views": d.views,
                "views_vs_baseline": round(d.views / baseline.median_views, 3)
                if baseline.median_views
                else None,
                "engagement_rate": None if rate is None else round(rate, 5),
                "published_at": d.published_at.isoformat().replace("+00:00", "Z"),
                "duration": d.duration,
                "theme_stable_key": theme_of.get(d.id),
            }
        )
    return {"videos": videos, "baseline_median_views": baseline.median_views}
