"""Trend detection quality against the sandbox world's planted bursts (issue 8).

Generates the sandbox's videos for the evaluated days plus the detector's 8-day lookback, runs each
region's detection at its 07:00, 13:00 and 19:00 local times (exactly what the scheduled runs do, minus
the database), and compares what it finds with ``ground_truth``:

- precision: detected trends (one per region and lead feature) that match a planted burst of that
  region active around the run (``global``: a burst of any country);
- recall: planted bursts of the region that become visible in the evaluated span and are detected by
  some run before they end;
- delay: hours from a burst's start to its first detection, and the share detected at the first run
  after they become visible (at least 8 burst videos posted, the detector's minimum count).

A detected trend matches a burst when they share a hashtag, a caption phrase or the sound title.
Views are those at the end of the span (the sandbox is generated once), which slightly flatters the
"views ratio" of early runs; documented in the results.

Run: .venv/bin/python benchmarks/trend_quality.py [--days 14]. Writes benchmarks/results/trend_quality.json.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import statistics
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from meta import machine

from reelscope.analysis.text import normalize_hashtag
from reelscope.analysis.trends import DetectedTrend, Post
from reelscope.catalog.reads import CountryPost
from reelscope.collectors.sandbox import SandboxConnector
from reelscope.collectors.sandbox.trends import PlantedTrend, ground_truth
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from reelscope.models.trends import TrendRegion
from reelscope.trend import detection as trend_detection
from reelscope.trend import runs as trend_runs
from reelscope.trend.regions import DEFAULT_REGIONS, GLOBAL

RESULTS = Path(__file__).resolve().parent / "results" / "trend_quality.json"
SEED = 20240601
END = datetime(2026, 11, 21, 0, 0, tzinfo=UTC)
GRACE = timedelta(hours=24)  # a burst still counts as active this long after its end


async def generate(start: datetime, end: datetime) -> list[CountryPost]:
    connector = SandboxConnector(ManualClock(end), seed=SEED)
    posts: list[CountryPost] = []
    for plat in Platform:
        for record in await connector.discovery_feed(plat, None, start, end):
            labels = tuple(t.lstrip("#") for t in record.hashtags if t.strip("#"))
            sound = record.sound
            country = (record.creator.country if record.creator else None) or record.upload_region
            posts.append(
                CountryPost(
                    country=country.lower() if country else None,
                    post=Post(
                        video_id=f"{plat.value}:{record.external_id}",
                        platform=plat.value,
                        posted_at=record.published_at,
                        views=record.views,
                        hashtags=tuple(normalize_hashtag(t) for t in labels),
                        hashtag_labels=labels,
                        sound_id=f"{plat.value}:{sound.external_id}" if sound else None,
                        sound_title=sound.title if sound else None,
                        sound_is_original=sound.is_original if sound else False,
                        caption=record.description or "",
                        creator_id=record.creator.handle if record.creator else None,
                    ),
                )
            )
    posts.sort(key=lambda p: p.post.posted_at)
    return posts


def burst_keys(burst: PlantedTrend) -> set[str]:
    keys = {f"hashtag:{normalize_hashtag(t)}" for t in burst.hashtags}
    keys |= {f"phrase:{p.lower()}" for p in burst.phrases}
    return keys


def matches(trend: DetectedTrend, burst: PlantedTrend) -> bool:
    if trend.feature_keys & burst_keys(burst):
        return True
    return any(b.feature.kind == "sound" and b.feature.label == burst.sound_title for b in trend.bursts)


def visible_at(burst: PlantedTrend, posts: list[CountryPost], region: str) -> datetime | None:
    """When the 8th video of the burst's hashtags was posted in the region (the detector's minimum)."""
    tag = normalize_hashtag(burst.hashtags[0])
    seen = 0
    for item in posts:
        if item.post.posted_at < burst.start:
            continue
        if (region == GLOBAL or item.country == region) and tag in item.post.hashtags:
            seen += 1
            if seen == 8:
                return item.post.posted_at
    return None


def evaluate(region: TrendRegion, posts: list[CountryPost], start: datetime, end: datetime) -> dict[str, Any]:
    times = [t for t in trend_runs.backfill_times(region.timezone, end, (end - start).days + 1) if t >= start]
    stamps = [p.post.posted_at for p in posts]
    truth = ground_truth(SEED, region.code, start - timedelta(days=6), end)
    detections: dict[str, tuple[DetectedTrend, datetime, bool]] = {}
    first_hit: dict[tuple[str, str], datetime] = {}
    # the windows move from run to run, as a sequence of scheduled runs keeps them
    populations = trend_detection.Populations([region.code])
    read_until: datetime | None = None
    for at in times:
        lo, hi = trend_detection.window(at)
        since = lo if read_until is None else max(lo, read_until)
        populations.add(posts[bisect.bisect_right(stamps, since) : bisect.bisect_right(stamps, hi)])
        read_until = hi
        detection = trend_detection.detect_region(region.code, populations, at)
        found = [*detection.trends, *(p.trend for p in detection.promotions)]
        for trend in found:
            active = [b for b in truth if b.start - GRACE <= at <= b.end + GRACE]
            hit = [b for b in active if matches(trend, b)]
            for b in hit:
                first_hit.setdefault((b.trend_key, b.region), at)
            previous = detections.get(trend.key)
            detections[trend.key] = (trend, at, bool(hit) or (previous[2] if previous else False))
    # recall over bursts that become visible inside the span and end before it does
    expected = [b for b in truth if start <= b.start and b.end + GRACE <= end]
    recalled = [b for b in expected if (b.trend_key, b.region) in first_hit]
    delays, at_first_run = [], 0
    for b in recalled:
        hit_at = first_hit[(b.trend_key, b.region)]
        delays.append((hit_at - b.start).total_seconds() / 3600)
        visible = visible_at(b, posts, region.code)
        first_run = next((t for t in times if visible and t >= visible), None)
        if first_run is not None and hit_at <= first_run:
            at_first_run += 1
    correct = sum(1 for _, _, ok in detections.values() if ok)
    return {
        "runs": len(times),
        "detected_trends": len(detections),
        "precision": round(correct / len(detections), 3) if detections else None,
        "planted_bursts": len(expected),
        "recall": round(len(recalled) / len(expected), 3) if expected else None,
        "median_delay_hours": round(statistics.median(delays), 1) if delays else None,
        "detected_at_first_run_after_visible": round(at_first_run / len(recalled), 3) if recalled else None,
        "false_positives": sorted(t.name for t, _, ok in detections.values() if not ok)[:20],
        "missed": sorted(
            {f"{b.name} ({b.region}, {b.start:%m-%d %H}h)" for b in expected if b not in recalled}
        ),
    }


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--days", type=int, default=14)
    args = parser.parse_args()
    start = END - timedelta(days=args.days)
    began = time.monotonic()
    posts = await generate(start - trend_detection.PARAMS.recent - trend_detection.PARAMS.baseline, END)
    generated = time.monotonic() - began
    results: dict[str, Any] = {}
    for seed in DEFAULT_REGIONS:
        region = TrendRegion(**seed._asdict())
        t0 = time.monotonic()
        results[seed.code] = evaluate(region, posts, start, END)
        results[seed.code]["seconds"] = round(time.monotonic() - t0, 1)
        print(
            seed.code,
            json.dumps({k: v for k, v in results[seed.code].items() if k not in ("false_positives",)}),
        )
    report = {
        "benchmark": "trend_quality",
        "machine": machine(),
        "span": {"start": start.isoformat(), "end": END.isoformat(), "days": args.days, "seed": SEED},
        "videos_generated": len(posts),
        "generation_seconds": round(generated, 1),
        "aims": {"precision": 0.8, "recall": 0.8, "detected_at_first_run_after_visible": "most"},
        "note": "views are the sandbox's values at the end of the span for every video",
        "regions": results,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    asyncio.run(main())
