"""Audience inference accuracy against the sandbox's audience truth (issue 20 item 5).

For creators of each platform, samples commenters exactly as the audience job does
(``audience.tasks.sample``: the latest 30 posts, the most commented first, up to 100 comments each,
until 1,000 distinct commenters), infers the audience (``analysis.audience.infer``) and compares every
share of age bracket, gender, country and language with ``World.audience_truth``. City is not compared:
the sandbox's commenters carry no city (confidence 0).

Aim: every share within 5 points for creators with 200+ sampled commenters; confidence ``low`` when the
sample is small. Run: .venv/bin/python benchmarks/audience_accuracy.py [--creators 60].
Writes benchmarks/results/audience_accuracy.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from meta import machine

from reelscope.analysis.audience import infer
from reelscope.audience.tasks import sample
from reelscope.collectors.sandbox import SandboxConnector
from reelscope.collectors.sandbox.creators import handle_of
from reelscope.collectors.sandbox.world import World
from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform

AT = datetime(2026, 11, 21, 12, 0, 30, tzinfo=UTC)
OUT = Path(__file__).parent / "results" / "audience_accuracy.json"
SIGNALS = {"age": "age_brackets", "gender": "genders", "country": "countries", "language": "languages"}


def errors(inferred: dict[str, dict[str, float]], truth: Any) -> dict[str, float]:
    """The largest absolute error, in points, over every value of each signal."""
    out = {}
    for signal, attribute in SIGNALS.items():
        expected: dict[str, float] = getattr(truth, attribute)
        got = {k.lower(): v for k, v in inferred[signal].items()}
        keys = {k.lower() for k in expected} | set(got)
        truth_lower = {k.lower(): v for k, v in expected.items()}
        out[signal] = max(abs(got.get(k, 0.0) - truth_lower.get(k, 0.0)) for k in keys) * 100
    return out


async def main(creators: int) -> dict[str, Any]:
    seed = Settings().sandbox_seed
    world = World(seed)
    connector = SandboxConnector(ManualClock(AT), seed=seed)
    rows = []
    started = time.perf_counter()
    for platform in Platform:
        for index in range(creators):
            handle = handle_of(seed, platform, index)
            people, read, _ = await sample(connector, platform, handle)
            audience = infer(people, comments_read=read)
            truth = world.audience_truth(platform, handle)
            parts = {
                "age": audience.age, "gender": audience.gender,
                "country": audience.country, "language": audience.language,
            }  # fmt: skip
            worst = errors(parts, truth) if audience.sample_size else None
            rows.append(
                {
                    "platform": platform.value,
                    "handle": handle,
                    "sample_size": audience.sample_size,
                    "confidence_level": audience.confidence_level,
                    "max_error_points": worst,
                }
            )
    big = [r for r in rows if r["sample_size"] >= 200]
    small = [r for r in rows if 0 < r["sample_size"] < 100]
    summary: dict[str, Any] = {
        "creators": len(rows),
        "with_200_plus_commenters": len(big),
        "profile_only": sum(1 for r in rows if r["sample_size"] == 0),
        "seconds": round(time.perf_counter() - started, 1),
    }
    for signal in SIGNALS:
        values = [r["max_error_points"][signal] for r in big]
        if values:
            summary[f"{signal}_max_error_points_200_plus"] = {
                "median": round(statistics.median(values), 2),
                "p90": round(sorted(values)[int(0.9 * (len(values) - 1))], 2),
                "max": round(max(values), 2),
                "share_within_5_points": round(sum(v <= 5 for v in values) / len(values), 3),
            }
    summary["small_samples_low_confidence"] = (
        f"{sum(1 for r in small if r['confidence_level'] == 'low')}/{len(small)}"
    )
    return {"machine": machine(), "summary": summary, "rows": rows}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--creators", type=int, default=60, help="creators per platform")
    args = parser.parse_args()
    result = asyncio.run(main(args.creators))
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["summary"], indent=2))
