"""Trend detection measured on real trending feeds and on the sandbox, in one run (issue 32 item 2).

Real feeds: the development set of ``shared/data/real-feeds`` (README.md there): two YouTube trending
feeds of 2017-18 (US and India, 80 days, titles only; US and France, 15 days, with tags and
descriptions) and 32 ground-truth news stories (``stories.json``: a regular expression over titles, the
country and the source dates). The files are read where they are, never copied here. Each line is
mapped as ``reelscope ingest FILE --region CC`` maps it (``collectors.jsonl.parse_line``: yt-dlp info to
a video record, caption = title + description, hashtags from the text, uploader tags, the channel as
the uploader); a video trending on several days is one video, at its publish time. Each country's runs
are the scheduled ones (07:00, 13:00, 19:00 in its own zone) over the replayed days, with the windows
kept from run to run as a ``RunSequence`` keeps them (``trend.detection``), and a trend keeps its
identity across runs as ``trend.service.merge_run`` keeps it (``match_known``, within 3 days).

Per feed and country, as the README scores:

- ``stories_found``: stories (those without a ``control`` note) matched by a trend reported by a run
  whose local day is within a day of the story's dates (shifted to the replay's), where a trend matches
  when its name or description matches the story's expression or two or more of its top 5 exemplars'
  titles do;
- ``no_story``: the share of reported trends (distinct trend ids) that never match a story;
- ``median_lead_hours``: from a story's first video (the earliest video whose title matches, posted from
  two days before the story's first date) to the first run reporting it.

Sandbox: ``trend_quality.evaluate`` (planted bursts: precision and recall per region) over ``--days``
days. Aims (issue 32): stories found >= 0.8 in every development country, no_story <= 0.3, sandbox
precision and recall >= 0.9 in every region.

Run: .venv/bin/python benchmarks/trend_quality_feeds.py [--days 7] [--no-sandbox].
Writes benchmarks/results/trend_quality_feeds.{json,md}.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import re
import statistics
import time
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import trend_quality
from meta import machine

from reelscope.analysis.text import normalize_hashtag
from reelscope.analysis.trends import DetectedTrend, Post, match_known
from reelscope.catalog.reads import CountryPost
from reelscope.collectors.base import VideoRecord
from reelscope.collectors.jsonl import BadLine, parse_line
from reelscope.models.trends import TrendRegion
from reelscope.trend import detection as trend_detection
from reelscope.trend import runs as trend_runs
from reelscope.trend.regions import DEFAULT_REGIONS
from reelscope.trend.service import IDENTITY_MEMORY

RESULTS = Path(__file__).resolve().parent / "results" / "trend_quality_feeds"
AIMS = {"stories_found": 0.8, "no_story": 0.3, "sandbox_precision": 0.9, "sandbox_recall": 0.9}
FEEDS = ("kaggle_us_in_2017_18", "kaggle_us_fr_2017")
ZONES = {"us": "America/New_York", "in": "Asia/Kolkata", "fr": "Europe/Paris"}
TOP_EXEMPLARS = 5


def feeds_dir() -> Path:
    """``REELSCOPE_REAL_FEEDS``, else ``shared/data/real-feeds`` beside the checkout or its parent."""
    if os.environ.get("REELSCOPE_REAL_FEEDS"):
        return Path(os.environ["REELSCOPE_REAL_FEEDS"])
    here = Path(__file__).resolve().parent.parent
    for base in (here.parent, here.parent.parent):
        if (base / "shared" / "data" / "real-feeds" / "stories.json").is_file():
            return base / "shared" / "data" / "real-feeds"
    raise SystemExit("real feeds not found: set REELSCOPE_REAL_FEEDS to the real-feeds directory")


@dataclass
class Feed:
    """One country of one feed file: its videos as detection sees them, and their titles."""

    name: str
    country: str
    posts: list[Post] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)
    shift: timedelta = timedelta(0)  # replay date − source date
    first_day: date | None = None
    last_day: date | None = None


def load(directory: Path, name: str) -> dict[str, Feed]:
    """The feed file's countries, each video once (its first line), mapped as ``reelscope ingest``."""
    feeds: dict[str, Feed] = {}
    with gzip.open(directory / f"{name}.jsonl.gz", "rb") as lines:
        for line in lines:
            obj = json.loads(line)
            country = obj["_replay_country"].lower()
            feed = feeds.setdefault(country, Feed(name, country))
            replay = date.fromisoformat(obj["_replay"]["replay_day"])
            feed.shift = replay - date.fromisoformat(obj["_replay"]["trending_day"])
            feed.first_day = min(feed.first_day or replay, replay)
            feed.last_day = max(feed.last_day or replay, replay)
            if obj["id"] in feed.titles:
                continue
            try:
                record = parse_line(line, datetime.fromtimestamp(obj["epoch"], UTC), region=country)
            except BadLine:
                continue
            assert isinstance(record, VideoRecord)
            labels = tuple(t.lstrip("#") for t in record.hashtags if t.strip("#"))
            feed.titles[record.external_id] = obj.get("title") or ""
            feed.posts.append(
                Post(
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
            )
    for feed in feeds.values():
        feed.posts.sort(key=lambda p: p.posted_at)
    return feeds


@dataclass(eq=False)
class Story:
    name: str
    pattern: re.Pattern[str]
    first: date  # replay dates
    last: date

    def matches(self, trend: DetectedTrend, titles: dict[str, str]) -> bool:
        if self.pattern.search(trend.name) or self.pattern.search(trend.description):
            return True
        top = trend.exemplar_ids[:TOP_EXEMPLARS]
        return sum(1 for v in top if self.pattern.search(titles.get(v, ""))) >= 2


def stories_of(directory: Path, feed: Feed, *, any_corpus: bool = False) -> list[Story]:
    """The feed's stories (its corpus's, without a ``control`` note); with ``any_corpus`` every story
    of its country, whichever corpus lists it (the AMA happened in the US whichever feed shows it)."""
    found = []
    for item in json.loads((directory / "stories.json").read_text()):
        if item["country"].lower() != feed.country:
            continue
        if not any_corpus and (item["corpus"] != feed.name or "control" in item):
            continue
        found.append(
            Story(
                item["name"],
                re.compile(item["re"], re.IGNORECASE),
                date.fromisoformat(item["start"]) + feed.shift,
                date.fromisoformat(item["end"]) + feed.shift,
            )
        )
    return found


@dataclass
class Reported:
    """A trend as a client sees it across runs: one id, the runs that reported it."""

    name: str
    features: set[str]
    last_seen: datetime
    first_run: datetime
    counted: str
    runs: int = 0
    stories: set[str] = field(default_factory=set)


def evaluate_feed(directory: Path, feed: Feed) -> dict[str, Any]:
    zone = ZoneInfo(ZONES[feed.country])
    region = TrendRegion(code=feed.country, name=feed.country, timezone=ZONES[feed.country])
    assert feed.first_day is not None and feed.last_day is not None
    start = datetime.combine(feed.first_day + timedelta(days=1), datetime.min.time(), zone)
    end = datetime.combine(feed.last_day + timedelta(days=1), datetime.min.time(), zone)
    times = trend_runs.scheduled_times(region.timezone, start, end)
    stories = stories_of(directory, feed)
    # a trend matching no story: none of the country's stories, whichever corpus lists them
    every_story = stories_of(directory, feed, any_corpus=True)
    own = {s.name for s in stories}
    stamps = [p.posted_at for p in feed.posts]
    populations = trend_detection.Populations([region.code])
    reported: dict[int, Reported] = {}
    first_hit: dict[str, datetime] = {}
    read = 0
    began = time.monotonic()
    for at in times:
        # the posts up to the run (a sequence of runs reads each once)
        upto = read
        while upto < len(stamps) and stamps[upto] <= at:
            upto += 1
        populations.add(CountryPost(country=feed.country, post=p) for p in feed.posts[read:upto])
        read = upto
        day = at.astimezone(zone).date()
        live = [s for s in every_story if s.first - timedelta(days=1) <= day <= s.last + timedelta(days=1)]
        known = {i: frozenset(r.features) for i, r in reported.items() if r.last_seen >= at - IDENTITY_MEMORY}
        for trend in trend_detection.detect_region(region.code, populations, at).trends:
            ident = match_known(trend, {str(i): k for i, k in known.items()})
            if ident is None:
                key = len(reported)
                lead = trend.bursts[0]
                counted = (
                    f"{lead.feature.key}: {lead.recent_count} vs {lead.expected:.1f} expected "
                    f"({lead.baseline_uses} of {lead.baseline_videos}), p {lead.chance:.0e}"
                )
                reported[key] = Reported(trend.name, set(trend.feature_keys), at, at, counted)
            else:
                key = int(ident)
                reported[key].features |= trend.feature_keys
            item = reported[key]
            item.last_seen = at
            item.runs += 1
            for story in live:
                if story.matches(trend, feed.titles):
                    item.stories.add(story.name)
                    if story.name in own:
                        first_hit.setdefault(story.name, at)
    leads = {}
    for story in stories:
        if story.name not in first_hit:
            continue
        since = datetime.combine(story.first - timedelta(days=2), datetime.min.time(), zone)
        firsts = [
            p.posted_at
            for p in feed.posts
            if p.posted_at >= since and story.pattern.search(feed.titles.get(p.video_id, ""))
        ]
        if firsts:
            leads[story.name] = round((first_hit[story.name] - min(firsts)).total_seconds() / 3600, 1)
    no_story = [r for r in reported.values() if not r.stories]
    days = max(1, (feed.last_day - feed.first_day).days + 1)
    return {
        "videos": len(feed.posts),
        "videos_per_day": round(sum(1 for p in feed.posts if p.posted_at >= start) / days, 1),
        "runs": len(times),
        "stories": len(stories),
        "stories_found": round(len(first_hit) / len(stories), 3) if stories else None,
        "found": sorted(first_hit),
        "missed": sorted({s.name for s in stories} - set(first_hit)),
        "reported_trends": len(reported),
        "no_story": round(len(no_story) / len(reported), 3) if reported else None,
        "median_lead_hours": statistics.median(leads.values()) if leads else None,
        "lead_hours": leads,
        "story_trends": sorted(
            f"{r.name} ({', '.join(sorted(r.stories))})" for r in reported.values() if r.stories
        ),
        "no_story_trends": sorted(f"{r.name} [{r.runs} runs; {r.counted}]" for r in no_story),
        "seconds": round(time.monotonic() - began, 1),
    }


async def sandbox(days: int) -> dict[str, Any]:
    end = trend_quality.END
    start = end - timedelta(days=days)
    began = time.monotonic()
    posts = await trend_quality.generate(
        start - trend_detection.PARAMS.recent - trend_detection.PARAMS.baseline, end
    )
    out: dict[str, Any] = {
        "days": days,
        "videos": len(posts),
        "generation_seconds": round(time.monotonic() - began, 1),
    }
    for seed in DEFAULT_REGIONS:
        t0 = time.monotonic()
        result = trend_quality.evaluate(TrendRegion(**seed._asdict()), posts, start, end)
        result["seconds"] = round(time.monotonic() - t0, 1)
        out[seed.code] = result
        print("sandbox", seed.code, json.dumps({k: v for k, v in result.items() if k != "false_positives"}))
    return out


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "# Trend detection on real feeds and the sandbox (issue 32)",
        "",
        f"Commit {report['machine']['commit']}, measured {report['machine']['measured_at']} "
        f"(load {report['machine']['load_average_1m']}), {report['seconds']} s in all. "
        "Aims: stories found >= 0.8, trends matching no story <= 0.3, sandbox precision and recall >= 0.9.",
        "",
        "| feed | country | videos/day | stories found | reported trends | no story | median lead (h) |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, r in report["feeds"].items():
        feed, country = key.rsplit("/", 1)
        found = f"{len(r['found'])}/{r['stories']} = {r['stories_found']}"
        lines.append(
            f"| {feed} | {country.upper()} | {r['videos_per_day']} | {found} | {r['reported_trends']} | "
            f"{r['no_story']} | {r['median_lead_hours']} |"
        )
    lines += [
        "",
        "Missed stories: "
        + "; ".join(
            f"{k.rsplit('/', 1)[1].upper()} {', '.join(r['missed'])}"
            for k, r in report["feeds"].items()
            if r["missed"]
        )
        or "none",
        "",
    ]
    if report.get("sandbox"):
        sb = report["sandbox"]
        lines += [
            f"Sandbox, {sb['days']} days ({sb['videos']} videos):",
            "",
            "| region | precision | recall | trends | planted | median delay (h) |",
            "|---|---|---|---|---|---|",
        ]
        for seed in DEFAULT_REGIONS:
            r = sb[seed.code]
            lines.append(
                f"| {seed.code} | {r['precision']} | {r['recall']} | {r['detected_trends']} | "
                f"{r['planted_bursts']} | {r['median_delay_hours']} |"
            )
    return "\n".join(lines) + "\n"


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--days", type=int, default=7, help="sandbox days evaluated")
    parser.add_argument("--no-sandbox", action="store_true")
    parser.add_argument("--only", help="one feed/country, e.g. kaggle_us_fr_2017/fr")
    args = parser.parse_args()
    began = time.monotonic()
    directory = feeds_dir()
    results: dict[str, Any] = {}
    for name in FEEDS:
        for country, feed in sorted(load(directory, name).items()):
            key = f"{name}/{country}"
            if args.only and key != args.only:
                continue
            results[key] = evaluate_feed(directory, feed)
            shown = ("stories_found", "missed", "reported_trends", "no_story", "median_lead_hours", "seconds")
            print(key, json.dumps({k: results[key][k] for k in shown}))
    report: dict[str, Any] = {
        "benchmark": "trend_quality_feeds",
        "machine": machine(),
        "aims": AIMS,
        "feeds": results,
        "sandbox": None if args.no_sandbox else await sandbox(args.days),
    }
    report["seconds"] = round(time.monotonic() - began, 1)
    if args.only:
        return
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.with_suffix(".json").write_text(json.dumps(report, indent=2, default=str) + "\n")
    RESULTS.with_suffix(".md").write_text(markdown(report))
    print(f"wrote {RESULTS}.json and .md")


if __name__ == "__main__":
    asyncio.run(main())
