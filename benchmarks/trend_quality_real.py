"""Trend detection quality on a real-shaped trending feed (issue 17 item 2, ADR 0027).

The corpus is ``benchmarks/data/real_feed.py``: eight weeks of a US YouTube trending feed (~150 newly
trending videos a day) with hand-written stories of autumn 2024 and the recurring shows and channels
that are not stories. Each video is mapped exactly as ``reelscope ingest --region us`` maps it
(``collectors/ytdlp/mapper.info_to_video``, caption = title + description, hashtags from the text,
uploader tags, the channel as the uploader) and detection runs at the region's 07:00, 13:00 and 19:00
(America/New_York) with the scheduled runs' parameters (``trend/runs.PARAMS``), from the eighth day on
(the first week is the baseline).

- A detected trend IS a story when at least half of its videos (and 3 or more) are that story's.
- recall: stories whose peak day has 5+ videos from a near-zero baseline (at most 1 a day on average
  over the 7 days ending two days before the peak), detected by a run on the peak's local day or the
  day before or after (the aim: >= 0.7);
- not_stories: the share of distinct reported trends (one per lead feature) that are no story (aim <= 0.3).

Run: .venv/bin/python benchmarks/trend_quality_real.py. Writes benchmarks/results/trend_quality_real.json.
"""

from __future__ import annotations

import bisect
import json
import sys
import time
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from meta import machine

sys.path.insert(0, str(Path(__file__).resolve().parent / "data"))

import real_feed

from reelscope.analysis.text import normalize_hashtag
from reelscope.analysis.trends import DetectedTrend, Post, detect
from reelscope.collectors.ytdlp.mapper import info_to_video
from reelscope.trend import detection as trend_detection
from reelscope.trend import runs as trend_runs

RESULTS = Path(__file__).resolve().parent / "results" / "trend_quality_real.json"
AIMS = {"recall_within_a_day_of_peak": 0.7, "not_stories": 0.3}


def posts() -> tuple[list[Post], dict[str, str]]:
    """The corpus as detection sees it, and each story video's story."""
    found: list[Post] = []
    story_of: dict[str, str] = {}
    for info, story in real_feed.labelled():
        record = info_to_video(info, datetime.now(UTC))
        labels = tuple(t.lstrip("#") for t in record.hashtags if t.strip("#"))
        post = Post(
            video_id=record.external_id,
            platform=record.platform.value,
            posted_at=record.published_at,
            views=record.views,
            hashtags=tuple(normalize_hashtag(t) for t in labels),
            hashtag_labels=labels,
            caption=record.description or "",
            tags=record.tags,
            creator_id=record.creator.platform_user_id if record.creator else None,
        )
        found.append(post)
        if story:
            story_of[post.video_id] = story
    found.sort(key=lambda p: p.posted_at)
    return found, story_of


def story_of_trend(trend: DetectedTrend, story_of: dict[str, str]) -> str | None:
    counts = Counter(story_of[v] for v in trend.exemplar_ids if v in story_of)
    if not counts:
        return None
    story, n = counts.most_common(1)[0]
    return story if n >= 3 and n * 2 >= len(trend.exemplar_ids) else None


def eligible(story: real_feed.Story) -> bool:
    if story.days[story.peak] < 5:
        return False
    before = [story.peak - timedelta(days=d) for d in range(2, 9)]
    return sum(story.days.get(d, 0) for d in before) <= 7


def run_times() -> list[datetime]:
    first = real_feed.FIRST_DAY + timedelta(days=8)
    start = datetime.combine(first, datetime.min.time(), real_feed.ZONE)
    end = datetime.combine(real_feed.LAST_DAY + timedelta(days=1), datetime.min.time(), real_feed.ZONE)
    return trend_runs.scheduled_times("America/New_York", start, end)


def main() -> None:
    began = time.monotonic()
    corpus, story_of = posts()
    stamps = [p.posted_at for p in corpus]
    per_day = Counter(p.posted_at.astimezone(real_feed.ZONE).date() for p in corpus)
    reported: dict[str, dict[str, Any]] = {}
    hits: dict[str, list[datetime]] = defaultdict(list)
    for at in run_times():
        lo, hi = trend_detection.window(at)
        window = corpus[bisect.bisect_right(stamps, lo) : bisect.bisect_right(stamps, hi)]
        for trend in detect(window, at, trend_detection.PARAMS):
            story = story_of_trend(trend, story_of)
            if story:
                hits[story].append(at)
            seen = reported.setdefault(
                trend.key,
                {"name": trend.name, "type": trend.trend_type, "first_run": at, "story": None, "runs": 0},
            )
            seen["runs"] += 1
            seen["story"] = seen["story"] or story
    stories: dict[str, Any] = {}
    for story in real_feed.STORIES:
        local_days = {at.astimezone(real_feed.ZONE).date() for at in hits[story.name]}
        near_peak = sorted(
            at
            for at in hits[story.name]
            if abs((at.astimezone(real_feed.ZONE).date() - story.peak).days) <= 1
        )
        stories[story.name] = {
            "peak": story.peak.isoformat(),
            "peak_videos": story.days[story.peak],
            "eligible": eligible(story),
            "detected_within_a_day_of_peak": bool(near_peak),
            "first_detection": min(hits[story.name]).astimezone(real_feed.ZONE).isoformat()
            if hits[story.name]
            else None,
            "days_reported": len(local_days),
        }
    names = [s.name for s in real_feed.STORIES if eligible(s)]
    recalled = [n for n in names if stories[n]["detected_within_a_day_of_peak"]]
    not_stories = [v for v in reported.values() if v["story"] is None]
    report = {
        "benchmark": "trend_quality_real",
        "machine": machine(),
        "corpus": {
            "source": "benchmarks/data/real_feed.py (hand-written, autumn-2024 US trending feed shape)",
            "days": (real_feed.LAST_DAY - real_feed.FIRST_DAY).days + 1,
            "videos": len(corpus),
            "videos_per_day": {
                "min": min(per_day.values()),
                "max": max(per_day.values()),
                "mean": round(len(corpus) / len(per_day), 1),
            },
            "story_videos": len(story_of),
        },
        "runs": len(run_times()),
        "aims": AIMS,
        "recall_within_a_day_of_peak": round(len(recalled) / len(names), 3) if names else None,
        "eligible_stories": len(names),
        "missed": sorted(set(names) - set(recalled)),
        "reported_trends": len(reported),
        "not_stories": round(len(not_stories) / len(reported), 3) if reported else None,
        "not_story_trends": sorted(v["name"] for v in not_stories),
        "story_trend_names": sorted({f"{v['name']} ({v['story']})" for v in reported.values() if v["story"]}),
        "stories": stories,
        "seconds": round(time.monotonic() - began, 1),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2, default=str) + "\n")
    print(
        json.dumps(
            {
                k: report[k]
                for k in (
                    "recall_within_a_day_of_peak",
                    "eligible_stories",
                    "missed",
                    "reported_trends",
                    "not_stories",
                    "not_story_trends",
                    "story_trend_names",
                )
            },
            indent=1,
        )
    )
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
