"""Creator outliers (spec §4.4, §4.7, §6.3): how far a video sits above its creator's norm.

One definition for agents, satellite lookups and tracking:

- the creator's norm is the median of the views of their videos at hand (not the mean: one viral video
  would drag a mean far above what the creator usually gets);
- ``outlier_ratio = views / creator median``;
- ``weighted_score = ln(outlier_ratio) × ln(median_views)``, so a 10× hit for a creator whose median is
  100,000 weighs more than a 10× hit for one whose median is 50.

A video is an outlier when its ratio is strictly over a threshold; tracking alerts use 3× (§6.3
``tracking.outlier_video.detected``: "over 3 times their median views", so exactly 3× is not one).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

OUTLIER_AT = 3.0
# a norm needs a few videos: with one, every video is its own median (ratio 1, score 0), and a catalog
# holding one or two videos of most creators scored every hook 0 (issue 32 item 5)
MIN_NORM_VIDEOS = 3


@dataclass(frozen=True)
class Outlier:
    video_id: str
    views: int
    median_views: float
    outlier_ratio: float
    weighted_score: float


def median_views(views: Iterable[int | None]) -> float | None:
    """The median of the known view counts; None when none is known (no norm to compare against)."""
    known = [count for count in views if count is not None and count >= 0]
    return float(statistics.median(known)) if known else None


def creator_norm(views: Iterable[int | None]) -> float | None:
    """The median views of a creator with at least ``MIN_NORM_VIDEOS`` known counts; None with fewer
    (too few videos to say what the creator usually gets, so no ratio is scored against them)."""
    known = [count for count in views if count is not None and count >= 0]
    return median_views(known) if len(known) >= MIN_NORM_VIDEOS else None


def is_outlier(ratio: float | None, threshold: float = OUTLIER_AT) -> bool:
    """The one test of an outlier: a known ratio strictly over ``threshold`` (§6.3 "over 3 times"), so
    a flag never disagrees with the ratio shown beside it."""
    return ratio is not None and ratio > threshold


def outlier_ratio(views: int, median: float) -> float | None:
    """views / median; None when the median is 0 (every ratio would be infinite, none meaningful)."""
    if median <= 0:
        return None
    return views / median


def weighted_score(ratio: float, median: float) -> float:
    """ln(ratio) × ln(median). Negative below the median; 0 at the median or for a median of 1 view."""
    if ratio <= 0 or median <= 0:
        return 0.0
    return math.log(ratio) * math.log(median)


def score(video_id: str, views: int, median: float) -> Outlier | None:
    """One video against a known median; None when the median gives no ratio."""
    ratio = outlier_ratio(views, median)
    if ratio is None:
        return None
    return Outlier(video_id, views, median, ratio, weighted_score(ratio, median))


def find_outliers(
    videos: Sequence[tuple[str, int | None]], *, threshold: float = OUTLIER_AT
) -> list[Outlier]:
    """The videos of one creator, as ``(video_id, views)``, whose ratio to the creator's median is over
    ``threshold`` (strictly: §6.3 "over 3 times"), the highest ratio first. Videos with unknown views count
    towards nothing."""
    median = median_views(views for _, views in videos)
    if median is None:
        return []
    found = [
        outlier
        for video_id, views in videos
        if views is not None
        and (outlier := score(video_id, views, median)) is not None
        and is_outlier(outlier.outlier_ratio, threshold)
    ]
    return sorted(found, key=lambda outlier: (-outlier.outlier_ratio, outlier.video_id))
