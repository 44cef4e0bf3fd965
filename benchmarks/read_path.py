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

Metrics (issue 29 item 2): the same catalog served by three more ``reelscope api`` processes, measured
in turn, ``--metrics-rounds`` times each (2), in the same run: Prometheus metrics off
(``REELSCOPE_METRICS=false``), on (the default), and on in multiprocess mode (``REELSCOPE_METRICS_DIR``,
values in memory-mapped files): ``GET /`` and the charged digest on each, the digest's share of
``GET /`` and the API's CPU per request per variant, and a scrape's time. Aim: the digest >= 0.5 of
``GET /`` with metrics on. ``--metrics-only`` runs just this part and writes
benchmarks/results/read_path_metrics.json and .md (the 1M-video record stays as it was).
Aims: p99 < 50 ms for the three at 1M videos; charged digest throughput >= half of ``GET /``.
Writes benchmarks/results/read_path.json and .md.
Run: .venv/bin/python benchmarks/read_path.py [--videos 1000000] [--seconds 8] [--concurrency 16]
     [--metrics-only] [--metrics-rounds 2]
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


# the API processes of the metrics comparison: what each adds to its environment
METRICS_VARIANTS = {
    "metrics_off": {"REELSCOPE_METRICS": "false"},
    "metrics_on": {"REELSCOPE_METRICS": "true"},
    "metrics_on_multiprocess": {"REELSCOPE_METRICS": "true"},  # plus REELSCOPE_METRICS_DIR, per run
}


def metrics_variants(
    database_url: str, headers: dict[str, str], concurrency: int, seconds: float, rounds: int = 2
) -> dict[str, Any]:
    """``GET /`` and the charged digest on an API with metrics off, on, and on in multiprocess mode,
    measured in turn (``rounds`` times, so drift over the run falls on every variant alike)."""
    digest = "/v1/videos/digest?limit=100"
    servers: dict[str, tuple[subprocess.Popen[bytes], str]] = {}
    runs: dict[str, dict[str, list[LoadResult]]] = {
        name: {"health": [], "digest": []} for name in METRICS_VARIANTS
    }
    # the API process's CPU per request (the loop's: these paths never reach a read worker), which the
    # machine's other load disturbs far less than throughput
    cpu_ms: dict[str, dict[str, list[float]]] = {
        name: {"health": [], "digest": []} for name in METRICS_VARIANTS
    }
    scrape_ms: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as scratch:
        try:
            for name, env in METRICS_VARIANTS.items():
                data_dir = Path(scratch) / name
                extra = dict(env)
                if name.endswith("multiprocess"):
                    extra["REELSCOPE_METRICS_DIR"] = str(data_dir / "metrics")
                servers[name] = start_api(database_url, data_dir, env=extra)
                httpx.get(servers[name][1] + digest, headers=headers, timeout=120)  # warm
            for _ in range(rounds):
                for name, (server, base) in servers.items():
                    for path_name, target, auth in (("health", "/", {}), ("digest", digest, headers)):
                        before = cpu_seconds(server.pid)
                        run = measure(base, target, auth, concurrency=concurrency, seconds=seconds)
                        used = cpu_seconds(server.pid) - before
                        runs[name][path_name].append(run)
                        cpu_ms[name][path_name].append(used / max(run.requests, 1) * 1000)
                    print(
                        f"  {name}: / {runs[name]['health'][-1].rps:.0f} req/s "
                        f"{cpu_ms[name]['health'][-1]:.3f} ms CPU, digest {runs[name]['digest'][-1].rps:.0f} "
                        f"req/s {cpu_ms[name]['digest'][-1]:.3f} ms CPU",
                        flush=True,
                    )
            for name, (_server, base) in servers.items():
                if name == "metrics_off":
                    continue
                for _ in range(3):  # the first of the process, then warm ones: the least is kept
                    started = time.perf_counter()
                    response = httpx.get(base + "/metrics", timeout=30)
                    took = round((time.perf_counter() - started) * 1000, 1)
                    assert response.status_code == 200, response.text
                    scrape_ms.setdefault(f"{name}_first", took)
                    scrape_ms[name] = min(scrape_ms.get(name, took), took)
        finally:
            for server, _base in servers.values():
                server.terminate()
                server.wait(timeout=30)
    found: dict[str, Any] = {}
    for name, by_path in runs.items():
        health = sum(r.rps for r in by_path["health"]) / rounds
        charged = sum(r.rps for r in by_path["digest"]) / rounds
        found[name] = {
            "health_rps": round(health, 1),
            "digest_rps": round(charged, 1),
            "digest_over_health": round(charged / health, 3) if health else None,
            "health_p99_ms": max(r.p99_ms for r in by_path["health"]),
            "digest_p99_ms": max(r.p99_ms for r in by_path["digest"]),
            "health_cpu_ms": round(min(cpu_ms[name]["health"]), 4),
            "digest_cpu_ms": round(min(cpu_ms[name]["digest"]), 4),
            "rounds": [
                {"health": h.as_dict(), "digest": d.as_dict()}
                for h, d in zip(by_path["health"], by_path["digest"], strict=True)
            ],
        }
        if name in scrape_ms:
            found[name]["scrape_ms"] = scrape_ms[name]
            found[name]["first_scrape_ms"] = scrape_ms[f"{name}_first"]
    off = found["metrics_off"]
    for name in ("metrics_on", "metrics_on_multiprocess"):
        found[name]["health_rps_over_off"] = round(found[name]["health_rps"] / off["health_rps"], 3)
        found[name]["digest_rps_over_off"] = round(found[name]["digest_rps"] / off["digest_rps"], 3)
        for path_name in ("health", "digest"):
            added = found[name][f"{path_name}_cpu_ms"] - off[f"{path_name}_cpu_ms"]
            found[name][f"{path_name}_cpu_us_added"] = round(added * 1000, 1)
    found["in_process"] = metrics_in_process(database_url, headers)
    found["middleware_alone"] = middleware_costs()
    found["aims"] = {
        "digest_at_least_half_of_health_with_metrics_on": all(
            found[name]["digest_over_health"] >= 0.5 for name in ("metrics_on", "metrics_on_multiprocess")
        )
    }
    return found


async def _asgi_get(app: Any, target: str, headers: dict[str, str]) -> int:
    """One GET straight through the app's ASGI stack (no socket, no server): its status."""
    path, _, query = target.partition("?")
    scope = {
        "type": "http",
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": query.encode(),
        "headers": [(b"host", b"bench"), *((k.lower().encode(), v.encode()) for k, v in headers.items())],
        "client": ("127.0.0.1", 50000),
        "server": ("bench", 80),
    }
    statuses: list[int] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    await app(scope, receive, send)
    return statuses[0]


def metrics_in_process(
    database_url: str, headers: dict[str, str], rounds: int = 16, batch: int = 300
) -> dict[str, Any]:
    """What metrics add to a request's own time, free of the load generator and of the machine's other
    load: batches of sequential requests straight through the ASGI stack of two apps on one database,
    metrics off and on, interleaved (first one, then the other); the least time per request of the
    rounds."""
    from reelscope.config import Settings
    from reelscope.main import create_app
    from reelscope.runtime import build_runtime

    async def run() -> dict[str, Any]:
        apps, runtimes = {}, []
        with tempfile.TemporaryDirectory() as scratch:
            for name, on in (("metrics_off", False), ("metrics_on", True)):
                settings = Settings(
                    data_dir=Path(scratch) / name, database_url=database_url, read_workers=0, metrics=on
                )
                runtime = build_runtime(settings)
                runtimes.append(runtime)
                apps[name] = create_app(runtime=runtime)
            paths = {"health": ("/", {}), "digest": ("/v1/videos/digest?limit=100", headers)}
            best: dict[str, dict[str, float]] = {name: {} for name in apps}
            for app in apps.values():  # warm: the middleware stack, the digest's cache
                for target, auth in paths.values():
                    assert await _asgi_get(app, target, auth) == 200
            for round_number in range(rounds):
                # the app measured second in a round pays for the first's debits (its WAL, the commit
                # queue): every other round goes the other way round
                order = list(apps.items())
                for name, app in order if round_number % 2 == 0 else order[::-1]:
                    for path_name, (target, auth) in paths.items():
                        started = time.perf_counter()
                        for _ in range(batch):
                            await _asgi_get(app, target, auth)
                        us = (time.perf_counter() - started) / batch * 1e6
                        best[name][path_name] = min(best[name].get(path_name, us), us)
            for runtime in runtimes:
                await runtime.close()
        off, on = best["metrics_off"], best["metrics_on"]
        return {
            "rounds": rounds,
            "batch": batch,
            "us_per_request": {name: {k: round(v, 1) for k, v in by.items()} for name, by in best.items()},
            "us_added": {k: round(on[k] - off[k], 1) for k in off},
        }

    return asyncio.run(run())


def middleware_cost(rounds: int = 15, batch: int = 20_000) -> dict[str, float]:
    """The request-counting middleware alone: µs per request around an app that answers at once, and
    around nothing (the least of ``rounds``). In the process's metrics mode: run it under
    ``PROMETHEUS_MULTIPROC_DIR`` for the multiprocess one (``--middleware-cost``)."""
    from reelscope.metrics.middleware import RequestMetrics

    class Route:
        path_format = "/v1/videos/digest"

    async def answer(scope: dict[str, Any], receive: Any, send: Any) -> None:
        scope["route"] = Route
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    async def receive() -> dict[str, Any]:
        return {}

    async def send(_message: dict[str, Any]) -> None:
        return None

    async def run() -> dict[str, float]:
        counted = RequestMetrics(answer)  # type: ignore[arg-type]
        best: dict[str, float] = {}
        for _ in range(rounds):
            for name, app in (("plain", answer), ("counted", counted)):
                started = time.perf_counter()
                for _ in range(batch):
                    await app({"type": "http", "method": "GET", "path": "/v1/videos/digest", "state": {}},
                              receive, send)  # fmt: skip
                us = (time.perf_counter() - started) / batch * 1e6
                best[name] = min(best.get(name, us), us)
        return {
            **{k: round(v, 2) for k, v in best.items()},
            "added_us": round(best["counted"] - best["plain"], 2),
        }

    return asyncio.run(run())


def middleware_costs() -> dict[str, dict[str, float]]:
    """``middleware_cost`` in a fresh process of each mode: values in memory, and in a metrics directory."""
    found = {}
    with tempfile.TemporaryDirectory() as directory:
        for mode, extra in (
            ("single_process", {}),
            ("multiprocess", {"PROMETHEUS_MULTIPROC_DIR": directory}),
        ):
            out = subprocess.run(
                [sys.executable, __file__, "--middleware-cost"],
                env={**os.environ, **extra},
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            found[mode] = json.loads(out.strip().splitlines()[-1])
    return found


def _metrics_markdown(result: dict[str, Any]) -> list[str]:
    found = result["metrics"]
    lines = [
        "## Metrics off and on (issue 29 item 2)",
        "",
        "Three more `reelscope api` processes on the same catalog, each measured "
        f"{len(found['metrics_off']['rounds'])} times in turn (16 connections): throughput averaged "
        "over the rounds, p99 the worst round's; the API process's CPU per request the least of the rounds "
        "(the machine's other load disturbs it far less than throughput).",
        "",
        "| variant | `GET /` req/s | digest req/s | digest / `GET /` | `GET /` vs off | digest vs off | "
        "p99 `/` ms | p99 digest ms | CPU `/` ms | CPU digest ms | CPU added `/` µs | CPU added digest µs | "
        "scrape ms (first) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name in METRICS_VARIANTS:
        v = found[name]
        lines.append(
            f"| {name} | {v['health_rps']} | {v['digest_rps']} | {v['digest_over_health']} | "
            f"{v.get('health_rps_over_off', 1.0)} | {v.get('digest_rps_over_off', 1.0)} | "
            f"{round(v['health_p99_ms'], 2)} | {round(v['digest_p99_ms'], 2)} | {v['health_cpu_ms']} | "
            f"{v['digest_cpu_ms']} | {v.get('health_cpu_us_added', '')} | "
            f"{v.get('digest_cpu_us_added', '')} | "
            + (f"{v['scrape_ms']} ({v['first_scrape_ms']})" if "scrape_ms" in v else "")
            + " |"
        )
    inner = found.get("in_process")
    if inner is not None:
        per = inner["us_per_request"]
        lines += [
            "",
            f"In process (no socket, no load generator; {inner['batch']} sequential requests through the "
            f"ASGI stack, metrics off and on interleaved, each first in every other round, the least of "
            f"{inner['rounds']} rounds): `GET /` "
            f"{per['metrics_off']['health']} → {per['metrics_on']['health']} µs, the charged digest "
            f"{per['metrics_off']['digest']} → {per['metrics_on']['digest']} µs; added "
            f"{inner['us_added']['health']} and {inner['us_added']['digest']} µs.",
        ]
    alone = found.get("middleware_alone")
    if alone is not None:
        one, many = alone["single_process"], alone["multiprocess"]
        lines += [
            "",
            "The request-counting middleware alone (around an app that answers at once, 20,000 requests a "
            f"round, the least of 15): {one['added_us']} µs per request with values in memory, "
            f"{many['added_us']} µs in multiprocess mode (memory-mapped files).",
        ]
    lines += ["", f"Aims: {json.dumps(found['aims'])}", ""]
    return lines


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
    parser.add_argument("--metrics-only", action="store_true", help="only the metrics off/on comparison")
    parser.add_argument("--metrics-rounds", type=int, default=2)
    parser.add_argument("--middleware-cost", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.middleware_cost:  # a child of middleware_costs(): one JSON line
        print(json.dumps(middleware_cost()))
        return
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
    if args.metrics_only:
        _metrics_only(path, built, headers, args)
        return
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

    metrics = metrics_variants(
        f"sqlite+aiosqlite:///{path}", headers, args.concurrency, args.seconds, args.metrics_rounds
    )
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
        "metrics": metrics,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "read_path.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / "read_path.md").write_text(_markdown(result))
    print(json.dumps(result["aims"], indent=2))


def _machine() -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "commit": _commit(),
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def _metrics_only(
    path: Path, built: dict[str, Any], headers: dict[str, str], args: argparse.Namespace
) -> None:
    load_before = round(os.getloadavg()[0], 2)
    metrics = metrics_variants(
        f"sqlite+aiosqlite:///{path}", headers, args.concurrency, args.seconds, args.metrics_rounds
    )
    result = {
        "machine": {**_machine(), "load_average_1m_before": load_before},
        "catalog": {**built, "file": path.name, "size_mb": round(path.stat().st_size / 1e6)},
        "load": {"concurrency": args.concurrency, "seconds": args.seconds},
        "metrics": metrics,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "read_path_metrics.json").write_text(json.dumps(result, indent=2) + "\n")
    m, c = result["machine"], result["catalog"]
    lines = [
        "# Read path with Prometheus metrics off and on (issue 29 item 2)",
        "",
        f"Commit {m['commit']}, {m['measured_at']}, Python {m['python']}, {m['cpus']} CPUs, load "
        f"{m['load_average_1m_before']} at the start. Catalog: {c.get('videos', 'cached')} videos over "
        "90 days "
        f"({c['size_mb']} MB SQLite; the digest is precomputed, so its cost does not grow with the catalog). "
        f"`benchmarks/read_path.py --metrics-only`; {args.seconds} s per load.",
        "",
        *_metrics_markdown(result),
    ]
    (RESULTS / "read_path_metrics.md").write_text("\n".join(lines))
    print(json.dumps(metrics["aims"], indent=2))


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
    if "metrics" in result:
        lines += _metrics_markdown(result)
    return "\n".join(lines)


if __name__ == "__main__":
    main()
