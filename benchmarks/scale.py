"""Scale-out on PostgreSQL + Redis (issue 29 item 4): charged reads with one and with two API processes,
and the read path's p99 at the catalog's size.

1. The catalog of benchmarks/big_catalog.py (``--videos``, cached per day) copied into PostgreSQL, with
   the periodic work run once (benchmarks/read_ops.prepare), as a deployment's workers keep it.
2. **Throughput**: ``reelscope api`` processes on that database with the Redis limiter (the scale-out
   shape), one team with ample credits and limits. In the same run, ``GET /`` and the charged digest
   (``/v1/videos/digest?limit=100``, $0.25) are loaded with ``--concurrency`` keep-alive connections
   (benchmarks/loadgen.py, a process of its own per API) for ``--seconds``: first against one API,
   then against two (half the connections each, at once). Aim: two give >= 1.6x the charged requests
   of one. CPU seconds of every process taking part (the APIs, PostgreSQL, Redis, the load generators)
   are recorded, so that what bounds the ratio on a small machine can be read off.
3. **Read path**: the charged digest, hashtags over 90 days, a hashtag's all-time performance, sound
   search, hook search and an agent's videos, each one request at a time on one connection after 3
   unmeasured ones (warm); p50/p99 over ``--warm`` requests. Aim (issue 29): p99 < 50 ms at 10M videos.

With ``--grow N`` the catalog is multiplied N times in PostgreSQL (benchmarks/grow_catalog.py: 10M
videos from the 1M one in minutes, where generating them takes hours here), the hashtag rollup rebuilt in
full and the periodic work run, and only the read path is measured (the throughput runs are about the
processes, not the catalog's size).

Writes benchmarks/results/scale.json and scale.md; with ``--grow N``, scale_<videos>.json and .md.
Run: .venv/bin/python benchmarks/scale.py [--videos 1000000] [--seconds 8] [--concurrency 16] [--warm 40]
     [--grow 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.big_catalog import Catalog, ensure_postgres, ensure_sqlite
from benchmarks.grow_catalog import ensure_grown, rollup_in_full
from benchmarks.loadgen import LoadResult, cpu_seconds, measure, start_api
from benchmarks.meta import machine
from benchmarks.read_ops import prepare, workload_words
from reelscope.auth import service as auth_service
from reelscope.kit.db import create_database
from reelscope.kit.logging import configure_logging

RESULTS = Path(__file__).resolve().parent / "results"
REDIS_URL = "redis://127.0.0.1:6379/15"
AIM_RATIO = 1.6
AIM_P99_MS = 50
DIGEST = "/v1/videos/digest?limit=100"


def _pids_named(*names: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() in names:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


async def _bench_team(url: str) -> str:
    """A team of the benchmark's own: ample credits, limits above any load (the catalog's team has
    the spec's limits, which a throughput run would hit in its first second)."""
    db = create_database(url)
    now = datetime.now(UTC)
    try:
        async with db.transaction() as session:
            name = f"scale-{now:%H%M%S%f}"
            team = await auth_service.create_team(session, name, 10**9, now)
            for feature in ("default", "video_digests", "hashtag_stats"):
                await auth_service.set_limits(
                    session, team, feature, per_minute=10**9, per_hour=10**9, per_day=10**9, at=now
                )
            return (await auth_service.issue_key(session, team, now)).api_key
    finally:
        await db.dispose()


def _load(
    bases: list[str], path: str, headers: dict[str, str], concurrency: int, seconds: float
) -> list[LoadResult]:
    """Every base loaded at once, ``concurrency`` connections shared among them."""
    results: list[LoadResult | None] = [None] * len(bases)

    def one(i: int, base: str) -> None:
        results[i] = measure(base, path, headers, concurrency=concurrency // len(bases), seconds=seconds)

    threads = [threading.Thread(target=one, args=(i, b)) for i, b in enumerate(bases)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [r for r in results if r is not None]


def throughput(url: str, key: str, apis: int, args: argparse.Namespace) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {key}"}
    servers = []
    with tempfile.TemporaryDirectory(prefix="scale-") as data_dir:
        try:
            for i in range(apis):
                servers.append(start_api(url, Path(data_dir) / str(i), REDIS_URL))
            bases = [base for _proc, base in servers]
            out: dict[str, Any] = {"apis": apis}
            for label, path, hdrs in (("health", "/", {}), ("digest", DIGEST, headers)):
                _load(bases, path, hdrs, args.concurrency, 1)  # warm pools and caches
                api_pids = [proc.pid for proc, _base in servers]
                others = _pids_named("postgres", "redis-server")
                before = (cpu_seconds(*api_pids), cpu_seconds(*others))
                started = time.perf_counter()
                results = _load(bases, path, hdrs, args.concurrency, args.seconds)
                wall = time.perf_counter() - started
                used = (cpu_seconds(*api_pids) - before[0], cpu_seconds(*others) - before[1])
                requests = sum(r.requests for r in results)
                errors = sum(r.errors for r in results)
                rps = sum(r.rps for r in results)
                out[label] = {
                    "requests_per_s": round(rps, 1),
                    "requests": requests,
                    "errors": errors,
                    "p99_ms": round(max(r.p99_ms for r in results), 2),
                    "api_cpu_s": round(used[0], 2),
                    "postgres_redis_cpu_s": round(used[1], 2),
                    "wall_s": round(wall, 2),
                    "api_cpu_ms_per_request": round(used[0] / max(requests, 1) * 1000, 3),
                }
                print(f"  {apis} API {label}: {out[label]}", flush=True)
            return out
        finally:
            for proc, _base in servers:
                proc.terminate()
                proc.wait(timeout=30)


def read_path(url: str, catalog: Catalog, extra: dict[str, str], args: argparse.Namespace) -> dict[str, Any]:
    today = datetime.now(UTC).date()
    ids = catalog.facts.ids
    ops = {
        "digest": DIGEST,
        "hashtags_90_days": f"/v1/hashtags?start_date={today - timedelta(days=89)}&end_date={today}",
        "hashtag_performance_all_time": f"/v1/hashtags/{ids['hashtag']}/performance",
        "sound_search": "/v1/sounds/search?q=sound",
        "hook_search": f"/v1/hooks/search?q={extra['common_word']}",
        "agent_videos": f"/v1/agents/{ids['agent']}/videos",
    }
    headers = {"Authorization": f"Bearer {catalog.facts.api_key}"}
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="scale-reads-") as data_dir:
        server, base = start_api(url, Path(data_dir), REDIS_URL)
        try:
            with httpx.Client(base_url=base, headers=headers, timeout=120) as http:
                for name, path in ops.items():
                    for _ in range(3):
                        http.get(path)
                    samples, statuses = [], set()
                    for _ in range(args.warm):
                        started = time.perf_counter()
                        response = http.get(path)
                        samples.append((time.perf_counter() - started) * 1000)
                        statuses.add(response.status_code)
                    ordered = sorted(samples)
                    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
                    out[name] = {
                        "path": path,
                        "p50_ms": round(statistics.median(ordered), 2),
                        "p99_ms": round(p99, 2),
                        "statuses": sorted(statuses),
                        "met": p99 < AIM_P99_MS and statuses == {200},
                    }
                    print(f"  {name}: {out[name]}", flush=True)
        finally:
            server.terminate()
            server.wait(timeout=30)
    return out


def _read_path_table(result: dict[str, Any]) -> list[str]:
    rows = [
        f"| {name} (`{r['path']}`) | {r['p50_ms']} | {r['p99_ms']} | {'yes' if r['met'] else 'no'} |"
        for name, r in result["read_path"].items()
    ]
    return ["| operation | p50 ms | p99 ms | met |", "|---|---:|---:|---|", *rows, ""]


def write_markdown(result: dict[str, Any]) -> None:
    m, one, two = result["machine"], result["throughput"]["one_api"], result["throughput"]["two_apis"]
    lines = [
        "# Scale-out on PostgreSQL + Redis (issue 29 item 4)",
        "",
        f"Commit {m['commit']}, {m['measured_at']}, {m['cpus']} CPUs, load {m['load_average_1m']} at the "
        "start; "
        f"{result['videos']:,} videos (benchmarks/big_catalog.py) in PostgreSQL, the Redis limiter. "
        f"{result['concurrency']} keep-alive connections for {result['seconds']} s per path, one load "
        "generator process per API.",
        "",
        "## Throughput: one API process, then two",
        "",
        "| path | APIs | req/s | p99 ms | API CPU s | PostgreSQL + Redis CPU s | API CPU ms/req |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for run in (one, two):
        for label in ("health", "digest"):
            r = run[label]
            lines.append(
                f"| {label} | {run['apis']} | {r['requests_per_s']} | {r['p99_ms']} | {r['api_cpu_s']} | "
                f"{r['postgres_redis_cpu_s']} | {r['api_cpu_ms_per_request']} |"
            )
    lines += [
        "",
        f"Charged digest, two APIs over one: **{result['digest_ratio']}x** (aim {AIM_RATIO}x). "
        + result["bound"],
        "",
        f"## Read path, one request at a time (aim p99 < {AIM_P99_MS} ms)",
        "",
        *_read_path_table(result),
    ]
    (RESULTS / "scale.md").write_text("\n".join(lines))


def grown(catalog: Catalog, base_dsn: str, args: argparse.Namespace, result: dict[str, Any]) -> None:
    """The read path on the catalog multiplied ``args.grow`` times (benchmarks/grow_catalog.py)."""
    print(f"growing the catalog x{args.grow} …", flush=True)
    dsn, result["grow"] = asyncio.run(ensure_grown(base_dsn, args.grow))
    url = dsn.replace("postgresql://", "postgresql+asyncpg://")
    result["rows"] = asyncio.run(_rows(dsn))
    result["videos"] = result["rows"]["videos"]
    print(f"  rows: {result['rows']}", flush=True)
    print("hashtag rollup in full, periodic work …", flush=True)
    result["precompute"] = {"hashtag.rollup_full_s": asyncio.run(rollup_in_full(url))}
    result["precompute"] |= asyncio.run(prepare(url))
    extra = asyncio.run(workload_words(url))
    result["read_path"] = read_path(url, catalog, extra, args)
    name = f"scale_{result['videos']}"
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(result, indent=2) + "\n")
    write_read_path_markdown(result, RESULTS / f"{name}.md")


async def _rows(dsn: str) -> dict[str, int]:
    import asyncpg

    conn = await asyncpg.connect(dsn)
    try:
        return {
            table: int(await conn.fetchval(f"SELECT count(*) FROM {table}"))
            for table in ("videos", "video_hashtags", "hooks", "hook_library", "creators", "sounds")
        }
    finally:
        await conn.close()


def write_read_path_markdown(result: dict[str, Any], path: Path) -> None:
    m = result["machine"]
    lines = [
        f"# The read path at {result['videos']:,} videos on PostgreSQL (issue 29 item 4)",
        "",
        f"Commit {m['commit']}, {m['measured_at']}, {m['cpus']} CPUs, load {m['load_average_1m']} at the "
        f"start. benchmarks/scale.py `--videos {result['base_videos']} --grow {result['grow_factor']}`: "
        "the catalog of benchmarks/big_catalog.py multiplied in PostgreSQL by benchmarks/grow_catalog.py "
        "(its docstring says how). Rows: "
        + ", ".join(f"{t} {n:,}" for t, n in result["rows"].items())
        + f". Growing it: {result['grow']}. Periodic work after it (s): {result['precompute']}.",
        "",
        f"One request at a time on one connection, after 3 unmeasured (warm), {result['warm']} measured "
        f"(aim p99 < {AIM_P99_MS} ms).",
        "",
        *_read_path_table(result),
    ]
    path.write_text("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--videos", type=int, default=1_000_000)
    parser.add_argument("--seconds", type=float, default=8)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--warm", type=int, default=40)
    parser.add_argument("--grow", type=int, default=1, help="multiply the catalog (PostgreSQL, read path)")
    args = parser.parse_args()
    configure_logging("warning", json=False)
    result: dict[str, Any] = {
        "machine": machine(),
        "videos": args.videos,
        "seconds": args.seconds,
        "concurrency": args.concurrency,
        "warm": args.warm,
        "base_videos": args.videos,
        "grow_factor": args.grow,
    }
    catalog = ensure_sqlite(args.videos)
    dsn = f"postgresql://postgres@127.0.0.1:5432/scale_catalog_{args.videos}"
    asyncio.run(ensure_postgres(catalog, dsn))
    if args.grow > 1:
        grown(catalog, dsn, args, result)
        return
    url = dsn.replace("postgresql://", "postgresql+asyncpg://")
    print("periodic work …", flush=True)
    result["precompute"] = asyncio.run(prepare(url))
    extra = asyncio.run(workload_words(url))
    key = asyncio.run(_bench_team(url))
    result["throughput"] = {
        "one_api": throughput(url, key, 1, args),
        "two_apis": throughput(url, key, 2, args),
    }
    one = result["throughput"]["one_api"]["digest"]
    two = result["throughput"]["two_apis"]["digest"]
    result["digest_ratio"] = (
        round(two["requests_per_s"] / one["requests_per_s"], 2) if one["requests_per_s"] else None
    )
    # what bounds the ratio: CPU seconds per wall second of everything taking part, against the cores
    busy_one = (one["api_cpu_s"] + one["postgres_redis_cpu_s"]) / one["wall_s"]
    busy_two = (two["api_cpu_s"] + two["postgres_redis_cpu_s"]) / two["wall_s"]
    result["cores_busy"] = {"one_api": round(busy_one, 2), "two_apis": round(busy_two, 2)}
    result["bound"] = (
        f"With one API, the APIs, PostgreSQL and Redis kept {busy_one:.2f} of the machine's "
        f"{result['machine']['cpus']} cores busy, with two {busy_two:.2f} (the load generators take the "
        "rest): "
        "a second API process can only add what the first left idle."
    )
    result["read_path"] = read_path(url, catalog, extra, args)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "scale.json").write_text(json.dumps(result, indent=2) + "\n")
    write_markdown(result)


if __name__ == "__main__":
    main()
