"""Agent analysis quality on labelled sandbox videos (issue 16): theme purity against the sandbox's
known topic of each video.

Takes every video the sandbox posts in a span on one platform (its truth: each post's topic, or the
planted burst theme it belongs to), restricted to a sample of niches so a run-sized set of videos
mixes several topics, clusters them with ``analysis.themes`` and reports:

- purity: the share of clustered videos whose theme's majority label is their own label;
- coverage: the share of videos placed in some theme (the rest are ``excluded_videos``);
- themes against labels present;
- language: ``analysis.intelligence`` on each video's caption and transcript against the language the
  sandbox wrote it in (accuracy over the videos it names a language for, and that share).

Run: .venv/bin/python benchmarks/agent_analysis.py. Writes benchmarks/results/agent_analysis.json.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from meta import machine

from reelscope.analysis.intelligence import analyse
from reelscope.analysis.themes import Doc, cluster
from reelscope.collectors.sandbox import posts as ps
from reelscope.collectors.sandbox import records
from reelscope.collectors.sandbox.vocab import TOPICS
from reelscope.kit.platforms import Platform

SEED = 7
OUT = Path(__file__).parent / "results" / "agent_analysis.json"


def labelled(
    platform: Platform, since: datetime, until: datetime, topics: set[int], cap: int
) -> list[tuple[Doc, str]]:
    posts = ps.feed(SEED, platform, since.timestamp(), until.timestamp())
    topic = records.topics_of(SEED, posts)
    keep = np.flatnonzero(np.isin(topic, list(topics)))[-cap:]
    posts = posts.take(keep)
    topic = records.topics_of(SEED, posts)
    found = records.videos(SEED, posts, until)
    assert len(found) == len(posts)
    out = []
    for i, v in enumerate(found):
        burst = posts.burst[i]
        label = f"burst:{burst.theme.name}" if burst is not None else TOPICS[int(topic[i])].name
        doc = Doc(
            id=v.external_id,
            text=" ".join(x for x in (v.description, v.transcript) if x),
            hashtags=v.hashtags,
            sound_id=v.sound.external_id if v.sound else None,
            views=v.views,
            likes=v.likes,
            comments=v.comments,
            shares=v.shares,
            published_at=v.published_at,
            duration=v.duration,
            platform=v.platform.value,
        )
        out.append((doc, label))
    return out


def evaluate(items: list[tuple[Doc, str]]) -> dict[str, Any]:
    label_of = {d.id: label for d, label in items}
    started = time.perf_counter()
    themes, _ = cluster([d for d, _ in items])
    elapsed = time.perf_counter() - started
    clustered = sum(len(t.members) for t in themes)
    majority = sum(Counter(label_of[d.id] for d in t.members).most_common(1)[0][1] for t in themes)
    return {
        "videos": len(items),
        "labels": len(set(label_of.values())),
        "themes": len(themes),
        "purity": round(majority / clustered, 4) if clustered else None,
        "coverage": round(clustered / len(items), 4) if items else None,
        "seconds": round(elapsed, 3),
    }


def main() -> None:
    until = datetime(2026, 11, 20, tzinfo=UTC)
    since = until - timedelta(days=30)
    cases = []
    # run-sized mixes of 3 to 6 topics on each platform
    for platform in Platform:
        for topics in ({0, 1, 2}, {3, 4, 5, 6}, {0, 3, 7, 10, 13, 16}):
            topics = {t for t in topics if t < len(TOPICS)}
            items = labelled(platform, since, until, topics, 600)
            cases.append({"platform": platform.value, "topics": sorted(topics), **evaluate(items)})
    lang_right = lang_named = lang_total = 0
    per_language: dict[str, list[int]] = {}
    for platform in Platform:
        posts = ps.feed(SEED, platform, since.timestamp(), until.timestamp())
        for v in records.videos(SEED, posts.take(np.arange(len(posts))[-1500:]), until):
            found = analyse(caption=v.description, transcript=v.transcript, hashtags=v.hashtags)
            lang_total += 1
            detected = found["language_detected"] if found else None
            counts = per_language.setdefault(v.language or "?", [0, 0, 0])
            counts[2] += 1
            if detected is not None:
                lang_named += 1
                counts[1] += 1
                if detected == v.language:
                    lang_right += 1
                    counts[0] += 1
    clustered = sum(c["videos"] * (c["coverage"] or 0) for c in cases)
    purity = sum(c["videos"] * (c["coverage"] or 0) * (c["purity"] or 0) for c in cases) / clustered
    result = {
        "benchmark": "agent_analysis",
        "machine": machine(),
        "seed": SEED,
        "aim": {"theme_purity": 0.8, "language_accuracy": 0.95},
        "language_accuracy": round(lang_right / lang_named, 4) if lang_named else None,
        "language_coverage": round(lang_named / lang_total, 4) if lang_total else None,
        "language_videos": lang_total,
        "language_by_truth": {
            k: {"accuracy": round(r / n, 4) if n else None, "named": n, "videos": t}
            for k, (r, n, t) in sorted(per_language.items())
        },
        "theme_purity": round(purity, 4),
        "coverage": round(clustered / sum(c["videos"] for c in cases), 4),
        "cases": cases,
    }
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "machine"}, indent=2))


if __name__ == "__main__":
    main()
