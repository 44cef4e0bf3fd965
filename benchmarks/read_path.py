"""The read path at scale (issue 6): digests and hashtag statistics over a 1,000,000-video catalog.

1. Build (once, cached under $TMPDIR/reelscope-bench/) a SQLite catalog of ``--videos`` videos posted
   over the last 90 days on three platforms, with creators, sounds, 20,000 hashtags (Zipf-distributed,
   0-5 per video), ``found_at`` within hours of posting (3 % found 8-10 days later, never counted) and
   ``views_at_7d`` on videos older than a week. Rows are generated with numpy and written with
   sqlite3's executemany into the Alembic schema; the cache is per UTC day (the digest covers the
   last 48 hours of the real clock).
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
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.loadgen import LoadResult, cpu_seconds, measure, start_api

from reelscope import models  # noqa: F401
from reelscope.auth import service as auth_service
from reelscope.catalog import repository as catalog_repository
from reelscope.digest import service as digest_service
from reelscope.hashtag import service as hashtag_service
from reelscope.kit.db import create_database
from reelscope.kit.logging import configure_logging
from reelscope.kit.migrate import upgrade_to_head

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
BENCH_DIR = Path(tempfile.gettempdir()) / "reelscope-bench"
PLATFORMS = ("youtube", "tiktok", "instagram")
TAGS = 20_000
CREATORS = 100_000
SOUNDS = 30_000
DAYS = 90
CHUNK = 100_000
# bump when the generated catalog changes shape, so an old cached file is not reused
GENERATOR = "v1"


def _uuids(rng: np.random.Generator, n: int) -> list[str]:
    raw = rng.integers(0, 2**63, size=(n, 2), dtype=np.int64)
    out = []
    for hi, lo in raw.tolist():
        h = f"{hi:016x}{lo:016x}"
        out.append(f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}")
    return out


def _stamps(seconds: np.ndarray) -> list[str]:
    """Unix seconds → SQLite's UtcDateTime text ("YYYY-MM-DD HH:MM:SS.ffffff")."""
    text = np.datetime_as_string((seconds * 1e6).astype("int64").astype("datetime64[us]"), unit="us")
    return [s.replace("T", " ") for s in text.tolist()]


def build_catalog(path: Path, videos: int, now: datetime) -> dict[str, Any]:
    url = f"sqlite+aiosqlite:///{path}"
    upgrade_to_head(url)
    rng = np.random.default_rng(20240601)
    started = time.perf_counter()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute("PRAGMA cache_size=-400000")
    stamp_now = _stamps(np.array([now.timestamp()]))[0]
    creator_ids = _uuids(rng, CREATORS)
    creator_platform = rng.integers(0, 3, CREATORS)
    conn.executemany(
        "INSERT INTO creators (id, platform, handle, handle_key, first_seen_at, updated_at)"
        " VALUES (?,?,?,?,?,?)",
        [
            (cid, PLATFORMS[p], f"maker{i}", f"maker{i}", stamp_now, stamp_now)
            for i, (cid, p) in enumerate(zip(creator_ids, creator_platform.tolist(), strict=True))
        ],
    )
    sound_ids = _uuids(rng, SOUNDS)
    conn.executemany(
        "INSERT INTO sounds (id, platform, external_id, title, duration, cover_url, is_original, usage_count,"
        " owner_handle, owner_nickname, is_commerce_music, first_seen_at, updated_at)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [
            (sid, PLATFORMS[i % 3], f"s{i}", f"Sound {i}", None if i % 3 == 0 else 15 + i % 45,
             f"covers/{i}.jpg", i % 2 == 0, None if i % 3 == 0 else i * 7, f"artist{i}", f"Artist {i}",
             i % 5 == 0, stamp_now, stamp_now)
            for i, sid in enumerate(sound_ids)
        ],
    )  # fmt: skip
    tag_ids = _uuids(rng, TAGS)
    conn.executemany(
        "INSERT INTO hashtags (id, key, display) VALUES (?,?,?)",
        [(tid, f"tag{i}", f"Tag{i}") for i, tid in enumerate(tag_ids)],
    )
    # Zipf-like tag popularity: a few tags are on many videos, most on few
    weights = 1.0 / np.arange(1, TAGS + 1) ** 1.1
    weights /= weights.sum()
    now_s = now.timestamp()
    links_total = 0
    for start in range(0, videos, CHUNK):
        n = min(CHUNK, videos - start)
        ids = _uuids(rng, n)
        plat = rng.integers(0, 3, n)
        published = now_s - rng.random(n) * DAYS * 86_400
        delay = rng.exponential(6 * 3_600, n)
        late = rng.random(n) < 0.03
        delay[late] = 8 * 86_400 + rng.random(int(late.sum())) * 2 * 86_400
        found = np.minimum(published + delay, now_s)
        views = (rng.pareto(1.2, n) * 2_000).astype(np.int64) + 10
        frozen_known = (now_s - published) >= 7 * 86_400
        likes = views // 20
        comments = views // 200
        counts = rng.integers(0, 6, n)
        tags = rng.choice(TAGS, size=int(counts.sum()), p=weights)
        creators = rng.integers(0, CREATORS, n)
        sounds = rng.integers(-SOUNDS // 2, SOUNDS, n)
        pub_text, found_text = _stamps(published), _stamps(found)
        rows = []
        links = []
        offset = 0
        for i in range(n):
            p = PLATFORMS[plat[i]]
            k = int(counts[i])
            mine = sorted(set(tags[offset : offset + k].tolist()))
            offset += k
            shown = [("#" if p == "youtube" else "") + f"Tag{t}" for t in mine]
            v = int(views[i])
            s = int(sounds[i])
            rows.append(
                (ids[i], p, f"{start + i}", f"https://example.test/{p}/{start + i}", f"caption {start + i}",
                 pub_text[i], found_text[i], stamp_now, v, int(likes[i]), int(comments[i]),
                 v // 100 if p == "tiktok" else None, None, v if frozen_known[i] else None,
                 orjson.dumps(shown).decode(), f"https://img.test/{start + i}.jpg", 30, None,
                 sound_ids[s] if s >= 0 else None, "US", "platform", False, False, False,
                 creator_ids[int(creators[i])], None if p == "youtube" else "US", "en")
            )  # fmt: skip
            links.extend((ids[i], tag_ids[t]) for t in mine)
        conn.executemany(
            "INSERT INTO videos (id, platform, external_id, url, description, published_at, found_at,"
            " fetched_at, views, likes, comments, shares, bookmarks, views_at_7d, hashtags, thumbnail_url,"
            " duration, transcript, sound_id, upload_region, upload_region_source, is_duet, is_stitch,"
            " is_eligible_for_commission, creator_id, region, language)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            rows,
        )
        links.sort()
        conn.executemany("INSERT INTO video_hashtags (video_id, hashtag_id) VALUES (?,?)", links)
        links_total += len(links)
        conn.commit()
        print(f"  {start + n:,} videos", flush=True)
    conn.execute("ANALYZE")
    conn.commit()
    conn.close()
    return {
        "videos": videos,
        "video_hashtags": links_total,
        "hashtags": TAGS,
        "days": DAYS,
        "build_s": round(time.perf_counter() - started, 1),
    }


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
            "tag": "tag0",  # the most used tag (Zipf rank 1)
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
        built = {"cached": False, **build_catalog(partial, args.videos, now)}
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
