"""Genre adjacency of an agent's videos (spec §4.4 ``/affinity``, beta): which genres go together.

A genre is a video's non-generic hashtag (``#sourdough``, from its hashtag list or written in its
caption) or its content category (``food``, from ``hooks.categorize``). Two genres are adjacent when
the same videos carry both (``video_count``) or the same creators post both, maybe in different videos
(``creator_count``). Strength is the Ochiai
coefficient ``both / sqrt(a × b)`` (0 to 1, 1 when the two always come together), over videos and over
creators; a pair's ``strength`` is the larger of the two, ``lift`` how much more often the two share a
video than chance would make them. Every number is a count read from the videos; nothing is inferred.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from reelscope.analysis.hooks import categorize
from reelscope.analysis.text import all_hashtags
from reelscope.analysis.themes import GENERIC_TAGS

# a genre counts when at least this many videos carry it; a pair when it shares this many videos or
# creators
MIN_VIDEOS = 2
MIN_SHARED = 2
# the most genres (by video count) and pairs (by strength) one answer holds (not paged, §8.3)
MAX_GENRES = 40
MAX_PAIRS = 100
EVIDENCE = 5


@dataclass(frozen=True, slots=True)
class GenreVideo:
    id: str
    caption: str | None
    hashtags: Sequence[str]
    creator_id: str | None
    views: int


def genres_of(video: GenreVideo) -> list[str]:
    """The genre keys of one video: ``hashtag:<tag>`` for each non-generic tag, ``category:<name>``."""
    tags = all_hashtags(video.hashtags, video.caption)  # the list and the caption's #tags (issue 32)
    keys = [f"hashtag:{tag}" for tag in tags if tag not in GENERIC_TAGS]
    category = categorize(video.caption, list(tags))
    if category is not None:
        keys.append(f"category:{category}")
    return keys


def _genre(key: str, videos: set[str], creators: set[str], views: int) -> dict[str, Any]:
    kind, name = key.split(":", 1)
    return {
        "key": key,
        "name": "#" + name if kind == "hashtag" else name,
        "kind": kind,
        "video_count": len(videos),
        "creator_count": len(creators),
        "total_views": views,
    }


def _ochiai(both: int, a: int, b: int) -> float:
    return both / math.sqrt(a * b) if a and b else 0.0


def adjacency(videos: Sequence[GenreVideo]) -> dict[str, Any]:
    """``{video_count, genres[], pairs[]}``: the genres carried by at least ``MIN_VIDEOS`` videos (the
    ``MAX_GENRES`` most carried), and each pair of them sharing at least ``MIN_SHARED`` videos or
    creators, strongest first, with the most viewed shared videos as evidence."""
    by_genre: dict[str, set[str]] = defaultdict(set)
    creators_of: dict[str, set[str]] = defaultdict(set)
    views_of: dict[str, int] = defaultdict(int)
    video_views = {v.id: v.views for v in videos}
    for video in videos:
        for key in genres_of(video):
            by_genre[key].add(video.id)
            views_of[key] += video.views
            if video.creator_id:
                creators_of[key].add(video.creator_id)
    kept = sorted(
        (k for k, ids in by_genre.items() if len(ids) >= MIN_VIDEOS),
        key=lambda k: (-len(by_genre[k]), -views_of[k], k),
    )[:MAX_GENRES]
    total = len(videos)
    pairs: list[dict[str, Any]] = []
    for a, b in combinations(sorted(kept), 2):
        shared = by_genre[a] & by_genre[b]
        shared_creators = creators_of[a] & creators_of[b]
        if len(shared) < MIN_SHARED and len(shared_creators) < MIN_SHARED:
            continue
        by_videos = _ochiai(len(shared), len(by_genre[a]), len(by_genre[b]))
        by_creators = _ochiai(len(shared_creators), len(creators_of[a]), len(creators_of[b]))
        evidence = sorted(shared, key=lambda i: (-video_views[i], i))[:EVIDENCE]
        pairs.append(
            {
                "genres": [a, b],
                "strength": round(max(by_videos, by_creators), 4),
                "video_strength": round(by_videos, 4),
                "creator_strength": round(by_creators, 4),
                "lift": round(len(shared) * total / (len(by_genre[a]) * len(by_genre[b])), 4),
                "video_count": len(shared),
                "creator_count": len(shared_creators),
                "evidence_video_ids": evidence,
            }
        )
    pairs.sort(key=lambda p: (-p["strength"], -p["video_count"], -p["creator_count"], p["genres"]))
    return {
        "video_count": total,
        "genres": [_genre(k, by_genre[k], creators_of[k], views_of[k]) for k in kept],
        "pairs": pairs[:MAX_PAIRS],
    }
