"""The read path at scale (issue 6): digests and hashtag statistics over a 1,000,000-video catalog.

1. Build (once, cached under $TMPDIR/reelscope-bench/) a SQLite catalog of ``--videos`` videos posted
   over the last 90 days on three platforms, with creators, sounds, 20,000 hashtags (Zipf-distributed,
   0-5 per video), ``found_at`` within hours of posting (3 % found 8-10 days later, never counted) and
   ``views_at_7d`` on videos older than a week: ``benchmarks/big_catalog.build_videos`` without the
   hooks (benchmarks/read_ops.py's catalog adds them and what teams own). The cache is per UTC day (the
   digest covers the last 48 hours of the real clock).
2. Roll the hashtag stats up and build the digests (timed: that is the periodic work).
3. Start ``reelscope api`` on a free port, a team with ample credits and custom limits high enough
   for the load, then load each path from a second process (benchmarks/loadgen.py, keep-alive,
   ``--concurrency`` connections for ``--seconds``): ``GET /`` (the baseline), the charged digest
   ``/v1/videos/digest?limit=100``, ``/v1/hashtags`` over 90 days and
   ``/v1/hashtags/{tag}/performance`` all-time (the most used tag), then ``GET /`` again.
   The first (cold) request of each read path is timed on its own.

Also measured: ``/v1/account/balance`` (an authenticated free read: the contract alone) and the three
paths at 4 connections (below saturation).
Aims: p99 < 50 ms for the three at 1M videos; charged digest throughput >= half of ``GET /``.
Writes benchmarks/results/read_path.json and .md.
Run: .venv/bin/python benchmarks/read_path.py [--videos 1000000] [--seconds 8] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.big_catalog import DAYS, build_videos, hashtag_names
from benchmarks.loadgen import LoadResult, cpu_seconds, measure, start_api

from reelscope import models  # noqa: F401
from reelscope.auth import service as auth_service
from reelscope.catalog import repository as catalog_repository
from reelscope.digest import service as digest_service
from reelscope.hashtag import service as hashtag_service
from reelscope.kit.db import create_database
from reelscope.kit.logging import configure_logging

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
BENCH_DIR = Path(tempfile.gettempdir()) / "reelscope-bench"
# bump when the generated catalog changes shape, so an old cached file is not reused
GENERATOR = "v2"


async def prepare(path: Path, now: datetime) -> dict[str, Any]:
    """Roll up, build the digests, create the load team; returns timings and the API key."""
    db = create_database(f"sqlite+aiosqlite:///{path}")
    try:
        started = time.perf_counter()
        rollup = await hashtag_service.rollup(db, now, full=True)
        rollup_s = time.perf_counter() - started
        # what the 6-hourly rollup does once collection and stats refreshes wrote the last 9 days
        async with db.transaction() as session:
            await catalog_repository.note_videos_changed(session, now - timedelta(days=9), now)
        started = time.perf_counter()
        incremental = await hashtag_service.rollup(db, now)
        incremental_s = time.perf_counter() - started
        started = time.perf_counter()
        await digest_service.refresh(db, now)
        digest_s = time.perf_counter() - started
        async with db.transaction() as session:
            team = await auth_service.create_team(session, f"bench-{int(time.time())}", 10**12, now)
            for feature in ("video_digests", "hashtag_stats", "default"):
                await auth_service.set_limits(
                    session, team, feature, per_minute=10**9, per_hour=10**9, per_day=10**9, at=now
                )
            issued = await auth_service.issue_key(session, team, now)
        return {
            "rollup_s": round(rollup_s, 2),
            "rollup_rows": rollup["rows"],
            "rollup_incremental_s": round(incremental_s, 2),
            "rollup_incremental_rows": incremental["rows"],
            "rollup_incremental_from_day": incremental["from_day"],
            "digest_refresh_s": round(digest_s, 3),
            "api_key": issued.api_key,
            "tag": hashtag_names()[0].lower(),  # the most used tag (Zipf rank 1)
        }
    finally:
        await db.engine.dispose()


def cold(base: str, path: str, headers: dict[str, str]) -> dict[str, Any]:
    started = time.perf_counter()
    response = httpx.get(base + path, headers=headers, timeout=120)
    return {
        "path": path,
        "status": response.status_code,
        "ms": round((time.perf_counter() - started) * 1000, 1),
        "x_cost": response.headers.get("x-cost"),
        "items": len(response.json()["data"]) if response.status_code == 200 else None,
    }


def _commit() -> str:
    try:
        return subprocess.check_output(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True).strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--videos", type=int, default=1_000_000)
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args()
    configure_logging("warning", json=False)

    now = datetime.now(UTC).replace(microsecond=0)
    BENCH_DIR.mkdir(parents=True, exist_ok=True)
    path = BENCH_DIR / f"read_path-{GENERATOR}-{args.videos}-{now:%Y%m%d}.db"
    built: dict[str, Any] = {"cached": True, "videos": args.videos, "days": DAYS}
    if args.rebuild or not path.exists():
        for stale in BENCH_DIR.glob(f"read_path-{GENERATOR}-{args.videos}-*.db*"):
            stale.unlink()
        print(f"building {path} ({args.videos:,} videos, {DAYS} days)…", flush=True)
        partial = path.with_suffix(".building")  # renamed when complete, so a killed build is not reused
        partial.unlink(missing_ok=True)
        built = {"cached": False, **build_videos(partial, args.videos, now, hooks=False)}
        partial.rename(path)
    prepared = asyncio.run(prepare(path, now))
    print(
        f"rollup {prepared['rollup_s']} s (incremental, 9 days: {prepared['rollup_incremental_s']} s),"
        f" digests {prepared['digest_refresh_s']} s",
        flush=True,
    )

    headers = {"Authorization": f"Bearer {prepared['api_key']}"}
    today = datetime.now(UTC).date()
    paths = {
        "digest": "/v1/videos/digest?limit=100",
        "hashtags_90_days": f"/v1/hashtags?start_date={today - timedelta(days=90)}&end_date={today}",
        "performance_all_time": f"/v1/hashtags/{prepared['tag']}/performance",
    }
    with tempfile.TemporaryDirectory() as data_dir:
        server, base = start_api(f"sqlite+aiosqlite:///{path}", Path(data_dir))
        try:
            colds = {name: cold(base, p, headers) for name, p in paths.items()}
            runs: dict[str, LoadResult] = {}
            cpu_ms: dict[str, float] = {}

            def load(name: str, target: str, auth: dict[str, str], concurrency: int, seconds: float) -> None:
                before = cpu_seconds(server.pid)
                runs[name] = measure(base, target, auth, concurrency=concurrency, seconds=seconds)
                used = cpu_seconds(server.pid) - before
                cpu_ms[name] = round(used / max(runs[name].requests, 1) * 1000, 3)
                print(f"  {name}: {runs[name].as_dict()} server CPU {cpu_ms[name]} ms/request", flush=True)

            load("health_before", "/", {}, args.concurrency, args.seconds)
            for name, p in paths.items():
                load(name, p, headers, args.concurrency, args.seconds)
            # the contract alone: an authenticated free read (auth, rate limit, one balance query)
            load("contract_free_read", "/v1/account/balance", headers, args.concurrency, args.seconds)
            # below saturation: a request that does not queue behind 15 others
            for name, p in paths.items():
                load(f"{name}_c4", p, headers, 4, args.seconds / 2)
            load("health_after", "/", {}, args.concurrency, args.seconds)
        finally:
            server.terminate()
            server.wait(timeout=30)

    health_rps = (runs["health_before"].rps + runs["health_after"].rps) / 2
    aims = {
        "p99_under_50ms": {name: runs[name].p99_ms < 50 for name in paths},
        "digest_rps_at_least_half_of_health": runs["digest"].rps >= health_rps / 2,
        "digest_rps_over_health_rps": round(runs["digest"].rps / health_rps, 3),
        # issue 13: a free read of a small team resource through a plain endpoint
        "free_read_cpu_at_most_0_6_ms": cpu_ms["contract_free_read"] <= 0.6,
        "free_read_rps_at_least_a_quarter_of_health": runs["contract_free_read"].rps >= health_rps / 4,
        "free_read_rps_over_health_rps": round(runs["contract_free_read"].rps / health_rps, 3),
    }
    result = {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "load_average_1m": round(os.getloadavg()[0], 2),
            "commit": _commit(),
            "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        },
        "catalog": {**built, "file": path.name, "size_mb": round(path.stat().st_size / 1e6)},
        "precompute": {k: v for k, v in prepared.items() if k != "api_key"},
        "load": {"concurrency": args.concurrency, "seconds": args.seconds},
        "cold_first_request": colds,
        "runs": {
            name: {**r.as_dict(), "server_cpu_ms_per_request": cpu_ms[name]} for name, r in runs.items()
        },
        "aims": aims,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "read_path.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / "read_path.md").write_text(_markdown(result))
    print(json.dumps(result["aims"], indent=2))


def _markdown(result: dict[str, Any]) -> str:
    m, c = result["machine"], result["catalog"]
    lines = [
        "# Read path benchmark (issue 6)",
        "",
        f"Commit {m['commit']}, {m['measured_at']}, Python {m['python']}, {m['cpus']} CPUs, "
        f"load {m['load_average_1m']}. Catalog: {c.get('videos', 'cached')} videos over 90 days "
        f"({c['size_mb']} MB SQLite). Load: {result['load']['concurrency']} keep-alive connections "
        f"for {result['load']['seconds']} s per path from a second process against `reelscope api`.",
        "",
        "| run | path | req/s | p50 ms | p99 ms | server CPU ms/req | statuses |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for name, run in result["runs"].items():
        lines.append(
            f"| {name} | `{run['path']}` | {run['requests_per_s']} | {run['p50_ms']} | {run['p99_ms']} | "
            f"{run['server_cpu_ms_per_request']} | {run['statuses']} |"
        )
    lines += ["", "Cold first request (before any cache): "]
    lines += [f"- {k}: {v['ms']} ms ({v['status']})" for k, v in result["cold_first_request"].items()]
    p = result["precompute"]
    lines += [
        "",
        f"Precompute: hashtag rollup {p['rollup_s']} s in full ({p['rollup_rows']} rows), "
        f"{p['rollup_incremental_s']} s for the days from {p['rollup_incremental_from_day']} "
        f"({p['rollup_incremental_rows']} rows: what the 6-hourly rollup rewrites, ADR 0016), "
        f"digest refresh {p['digest_refresh_s']} s.",
        "",
        f"Aims: {json.dumps(result['aims'])}",
        "",
        "What dominates, and what was tried: docs/decisions/0011-precomputed-read-path.md and "
        "docs/decisions/0014-contract-hot-path-without-the-orm.md.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
