"""Fairness under load (issue 33 items 3 and 7): one team hammering an expensive GET must not starve
another team's requests.

On the 1M-video catalog of benchmarks/big_catalog.py (SQLite, and the same rows in PostgreSQL with the
Redis limiter), against a ``reelscope api`` process with its default read workers (ADR 0040):

1. **Server CPU per request of every GET operation** (benchmarks/read_ops.py's list, its parameters):
   one keep-alive connection for ``--cpu-seconds`` (at least 3 requests), CPU of the API process, its
   read workers and, on PostgreSQL, the database's backends serving it, over the requests. Recorded as
   a table; the ``--top`` most expensive operations are the ones hammered in step 3.
2. **The fast paths in the same run** (item 7, benchmarks/read_path.py's aims): ``GET /``, the charged
   digest and the free balance on 16 connections: the digest >= 0.5 of ``GET /``'s throughput, the
   balance >= 0.25.
3. **Fairness**: team B measures ``GET /`` and its own ``GET /v1/account/balance``, one connection each
   (two in all), alone: the baseline, taken before and after the runs. Then for each expensive
   operation, team A (which owns the catalog's agents, lookups and tracked items) sends it on 8
   connections while B measures the same again. Aims: B's p99 < 50 ms and B's throughput >= 0.5 of
   the baseline, on both paths. The API's ``loop.held`` warnings (kit/loop_watch.py) during each run are
   counted.

``--on-loop`` repeats step 3 with ``REELSCOPE_READ_WORKERS=0`` (every endpoint on the event loop, as
before ADR 0040), for comparison. Both teams have limits high enough not to be rate limited.

The machine is shared while other work runs: every figure is compared with its baseline from the same
run, and the load average is recorded. Results: benchmarks/results/fairness.json and fairness.md.
Run (catalog built and cached on first use, ~15 min at 1M):
    .venv/bin/python benchmarks/fairness.py [--videos 1000000] [--databases sqlite,postgresql]
        [--seconds 6] [--top 10] [--on-loop] [--ops a,b] [--only a,b]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import orjson
from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.big_catalog import Catalog, ensure_postgres, ensure_sqlite, upgrade_cached
from benchmarks.loadgen import LoadResult, children, cpu_seconds, measure, start_api
from benchmarks.meta import machine
from benchmarks.read_ops import operations, prepare, workload_words
from reelscope.auth import service as auth_service
from reelscope.billing import service as billing_service
from reelscope.kit.db import create_database
from reelscope.kit.logging import configure_logging
from reelscope.models import Team
from reelscope.rate_limit.features import FEATURE_LIMITS

RESULTS = Path(__file__).resolve().parent / "results"
PG_DSN = "postgresql://postgres@127.0.0.1:5432/loop_catalog_1m"
REDIS_URL = "redis://127.0.0.1:6379/6"
HAMMER_CONNECTIONS = 8
AIM_P99_MS = 50
AIM_SHARE = 0.5
# operations not hammered: they start paid work (§4.7 lookups: a job per request) or are not the API's
NOT_HAMMERED = ("lookup_creator_cached", "lookup_sound_cached", "lookup_hashtag_cached", "docs", "openapi")


@dataclass
class Server:
    """A running ``reelscope api`` and what it takes to read its CPU and its warnings."""

    proc: Any
    base: str
    log: Path
    backends: list[int]

    def check_alive(self) -> None:
        if self.proc.poll() is not None:
            tail = self.log.read_bytes()[-3000:].decode(errors="replace")
            raise RuntimeError(f"the API exited with {self.proc.returncode}; its log ends:\n{tail}")

    def pids(self) -> list[int]:
        return [self.proc.pid, *children(self.proc.pid), *self.backends]

    def warnings_since(self, offset: int) -> tuple[int, list[dict[str, Any]]]:
        """``loop.held`` warnings logged after byte ``offset``; the new offset."""
        with self.log.open("rb") as file:
            file.seek(offset)
            lines = file.read().splitlines()
            end = file.tell()
        held = []
        for line in lines:
            try:
                entry = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if entry.get("event") == "loop.held":
                held.append(entry)
        return end, held


async def make_teams(url: str, owner_id: str) -> dict[str, str]:
    """Team A is the catalog's owner; team B a new one. Both get ample credits and limits no run reaches."""
    db = create_database(url)
    now = datetime.now(UTC)
    try:
        async with db.transaction() as session:
            owner = await session.get(Team, owner_id)
            assert owner is not None, "the catalog's owning team"
            await billing_service.add_credits(session, owner.id, 10**12, reference="fairness", at=now)
            other = await auth_service.create_team(session, f"fairness-{int(time.time())}", 10**12, now)
            issued = await auth_service.issue_key(session, other, now)
            for team in (owner, other):
                for feature in FEATURE_LIMITS:
                    await auth_service.set_limits(
                        session, team, feature, per_minute=10**9, per_hour=10**9, per_day=10**9, at=now
                    )
        return {"b": issued.api_key}
    finally:
        await db.dispose()


async def backend_pids(url: str) -> list[int]:
    """The PostgreSQL backends serving the database (the API's pool and its workers')."""
    db = create_database(url)
    try:
        async with db.transaction(write=False) as session:
            rows = await session.execute(
                text(
                    "SELECT pid FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
            )
            return [int(pid) for pid in rows.scalars()]
    finally:
        await db.dispose()


# how long a measurement waits for the requests still under way when its time is up (a read that takes
# minutes at 1M is reported as such, not lost)
WAIT_S = 900


def cpu_table(
    server: Server, ops: dict[str, str], headers: dict[str, str], seconds: float
) -> list[dict[str, Any]]:
    rows = []
    for name, path in ops.items():
        try:
            measure(
                server.base, path, headers, concurrency=1, seconds=min(1.0, seconds), wait_s=WAIT_S
            )  # warm
            pids = server.pids()
            before = {pid: cpu_seconds(pid) for pid in pids}
            run = measure(server.base, path, headers, concurrency=1, seconds=seconds, wait_s=WAIT_S)
            if run.requests < 3:
                run = measure(server.base, path, headers, concurrency=1, seconds=seconds * 3, wait_s=WAIT_S)
        except TimeoutError:
            rows.append({"operation": name, "path": path, "requests": 0, "cpu_ms_per_request": None})
            print(f"  cpu {name}: no answer within {WAIT_S} s", flush=True)
            continue
        # per process: a PostgreSQL backend that left meanwhile (a pool giving back a connection) reads
        # as 0 and counts nothing, where a sum over all took its whole CPU time away, once giving a
        # negative figure; a process that came meanwhile (a read worker replaced) counts all of its own
        used = sum(max(0.0, cpu_seconds(pid) - before[pid]) for pid in pids) + sum(
            cpu_seconds(pid) for pid in server.pids() if pid not in before
        )
        rows.append(
            {
                "operation": name,
                "path": path,
                "requests": run.requests,
                "cpu_ms_per_request": round(used / max(run.requests, 1) * 1000, 3),
                "p50_ms": round(run.p50_ms, 2),
                "statuses": {str(k): v for k, v in run.statuses.items()},
            }
        )
        print(f"  cpu {name}: {rows[-1]['cpu_ms_per_request']} ms ({run.requests} requests)", flush=True)
    # most expensive first; one that never answered first of all
    return sorted(rows, key=lambda r: -(r["cpu_ms_per_request"] if r["requests"] else float("inf")))


def most_expensive(table: list[dict[str, Any]], top: int) -> list[dict[str, Any]]:
    """The ``top`` most expensive operations that answered, one variant per route (its path without the
    query string), leaving out those that start paid work."""
    chosen: list[dict[str, Any]] = []
    routes: set[str] = set()
    for row in table:
        route = row["path"].split("?", 1)[0]
        if row["operation"] in NOT_HAMMERED or not row["requests"] or route in routes:
            continue
        chosen.append(row)
        routes.add(route)
    return chosen[:top]


def fast_paths(server: Server, headers: dict[str, str], seconds: float) -> dict[str, Any]:
    runs = {
        "health": measure(server.base, "/", {}, concurrency=16, seconds=seconds),
        "digest": measure(
            server.base, "/v1/videos/digest?limit=100", headers, concurrency=16, seconds=seconds
        ),
        "balance": measure(server.base, "/v1/account/balance", headers, concurrency=16, seconds=seconds),
    }
    health = runs["health"].rps
    result: dict[str, Any] = {name: run.as_dict() for name, run in runs.items()}
    result["digest_over_health"] = round(runs["digest"].rps / health, 3) if health else None
    result["balance_over_health"] = round(runs["balance"].rps / health, 3) if health else None
    result["aims_met"] = {
        "digest_at_least_half": runs["digest"].rps >= 0.5 * health,
        "balance_at_least_a_quarter": runs["balance"].rps >= 0.25 * health,
    }
    print(f"  fast paths: {json.dumps({k: v for k, v in result.items() if 'over' in k})}", flush=True)
    return result


def team_b(server: Server, headers_b: dict[str, str], seconds: float) -> dict[str, LoadResult]:
    """Team B's two connections: ``GET /`` and its balance, at once."""
    with ThreadPoolExecutor(2) as pool:
        health = pool.submit(measure, server.base, "/", {}, concurrency=1, seconds=seconds, wait_s=WAIT_S)
        balance = pool.submit(
            measure,
            server.base,
            "/v1/account/balance",
            headers_b,
            concurrency=1,
            seconds=seconds,
            wait_s=WAIT_S,
        )
        return {"health": health.result(), "balance": balance.result()}


def hammered(
    server: Server, path: str, headers_a: dict[str, str], headers_b: dict[str, str], seconds: float
) -> tuple[LoadResult, dict[str, LoadResult], float]:
    """Team A on ``path`` (8 connections) while team B measures; A starts a second early and stops
    when B has, dropping what is still unanswered. The server finishes those requests anyway: one more
    of A's, which queues behind them, is awaited before the next run (the seconds it took returned)."""
    with ThreadPoolExecutor(1) as pool:
        hammer = pool.submit(
            measure,
            server.base,
            path,
            headers_a,
            concurrency=HAMMER_CONNECTIONS,
            seconds=seconds + 1.5,
            cutoff=True,
        )
        time.sleep(1.0)  # the hammer's connections are open and busy before B starts
        measured = team_b(server, headers_b, seconds)
        load = hammer.result()
    started = time.perf_counter()
    httpx.get(server.base + path, headers=headers_a, timeout=WAIT_S)
    return load, measured, time.perf_counter() - started


def fairness_runs(
    server: Server,
    expensive: list[dict[str, Any]],
    headers_a: dict[str, str],
    headers_b: dict[str, str],
    seconds: float,
) -> dict[str, Any]:
    offset, _ = server.warnings_since(0)
    before = team_b(server, headers_b, seconds)
    runs = []
    for row in expensive:
        server.check_alive()
        hammer, measured, drained_s = hammered(server, row["path"], headers_a, headers_b, seconds)
        offset, held = server.warnings_since(offset)
        runs.append(
            {
                "operation": row["operation"],
                "path": row["path"],
                "cpu_ms_per_request": row["cpu_ms_per_request"],
                "hammer": hammer.as_dict(),
                "drained_after_s": round(drained_s, 2),
                "b": {name: run.as_dict() for name, run in measured.items()},
                "loop_held_warnings": len(held),
                "loop_held_max_ms": max((entry.get("held_ms", 0) for entry in held), default=0),
                "loop_held": [{k: e.get(k) for k in ("route", "where", "held_ms")} for e in held[:5]],
            }
        )
        b = measured
        print(
            f"  {row['operation']}: A {hammer.rps:.1f} req/s; B / {b['health'].rps:.0f} req/s p99"
            f" {b['health'].p99_ms:.1f} ms, balance {b['balance'].rps:.0f} req/s"
            f" p99 {b['balance'].p99_ms:.1f} ms;"
            f" loop held {len(held)}x",
            flush=True,
        )
    after = team_b(server, headers_b, seconds)
    baseline = {
        name: {
            "before": before[name].as_dict(),
            "after": after[name].as_dict(),
            "requests_per_s": round((before[name].rps + after[name].rps) / 2, 1),
        }
        for name in ("health", "balance")
    }
    for run in runs:
        run["aims"] = {}
        for name in ("health", "balance"):
            b = run["b"][name]
            share = (
                b["requests_per_s"] / baseline[name]["requests_per_s"]
                if baseline[name]["requests_per_s"]
                else 0
            )
            b["share_of_baseline"] = round(share, 3)
            run["aims"][f"{name}_p99_under_{AIM_P99_MS}ms"] = b["p99_ms"] < AIM_P99_MS
            run["aims"][f"{name}_at_least_half_of_baseline"] = share >= AIM_SHARE
        run["aims_met"] = all(run["aims"].values())
    return {"baseline": baseline, "runs": runs}


def run_database(
    name: str, url: str, catalog: Catalog, redis_url: str | None, args: argparse.Namespace
) -> dict[str, Any]:
    print(f"{name}: preparing", flush=True)
    precompute = asyncio.run(prepare(url))
    keys = asyncio.run(make_teams(url, catalog.facts.team_id))
    headers_a = {"Authorization": f"Bearer {catalog.facts.api_key}"}
    headers_b = {"Authorization": f"Bearer {keys['b']}"}
    # percent-encoded as a client sends them (the load generator writes the request line as given)
    ops = {
        name: httpx.URL("http://x" + path).raw_path.decode()
        for name, path in operations(catalog, asyncio.run(workload_words(url))).items()
        if name != "dashboard" and (not args.ops or name in args.ops.split(","))
    }
    result: dict[str, Any] = {"precompute_s": precompute}
    with tempfile.TemporaryDirectory() as data_dir:
        log = Path(data_dir) / "api.log"
        log.touch()

        def start(env: dict[str, str]) -> Server:
            proc, base = start_api(url, Path(data_dir), redis_url, env=env, log_file=log)
            backends = asyncio.run(backend_pids(url)) if url.startswith("postgresql") else []
            return Server(proc=proc, base=base, log=log, backends=backends)

        server = start({})
        try:
            time.sleep(5)  # the read workers import the app
            if url.startswith("postgresql"):
                measure(
                    server.base, ops["sounds_trending"], headers_a, concurrency=4, seconds=2
                )  # pools open
                server.backends = asyncio.run(backend_pids(url))
            result["read_workers"] = os.environ.get("REELSCOPE_READ_WORKERS", "default")
            table = cpu_table(server, ops, headers_a, args.cpu_seconds)
            result["cpu_per_request"] = table
            result["fast_paths"] = fast_paths(server, headers_a, args.seconds)
            if args.only:
                chosen = args.only.split(",")
                expensive = [row for row in table if row["operation"] in chosen]
            else:
                expensive = most_expensive(table, args.top)
            result["fairness"] = fairness_runs(server, expensive, headers_a, headers_b, args.seconds)
        finally:
            server.proc.terminate()
            server.proc.wait(timeout=60)
        if args.on_loop:
            server = start({"REELSCOPE_READ_WORKERS": "0"})
            try:
                result["fairness_on_loop"] = fairness_runs(
                    server, expensive, headers_a, headers_b, args.seconds
                )
            finally:
                server.proc.terminate()
                server.proc.wait(timeout=60)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--videos", type=int, default=1_000_000)
    parser.add_argument("--databases", default="sqlite,postgresql")
    parser.add_argument("--seconds", type=float, default=6)
    parser.add_argument("--cpu-seconds", type=float, default=2)
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--on-loop", action="store_true")
    parser.add_argument("--ops", default="", help="comma-separated operations to measure (default: all)")
    parser.add_argument("--only", default="", help="comma-separated operations to hammer instead of the top")
    args = parser.parse_args()
    configure_logging("warning", json=False)
    catalog = ensure_sqlite(args.videos)
    upgrade_cached(catalog)
    started = machine()
    results: dict[str, Any] = {
        "machine": started,
        "catalog": {"videos": args.videos, "file": catalog.path.name},
    }
    results["settings"] = {
        "seconds": args.seconds,
        "cpu_seconds": args.cpu_seconds,
        "top": args.top,
        "hammer_connections": HAMMER_CONNECTIONS,
    }
    databases = args.databases.split(",")
    if "sqlite" in databases:
        results["sqlite"] = run_database("sqlite", catalog.url, catalog, None, args)
    if "postgresql" in databases:
        asyncio.run(ensure_postgres(catalog, PG_DSN))
        url = PG_DSN.replace("postgresql://", "postgresql+asyncpg://")
        results["postgresql_redis"] = run_database("postgresql", url, catalog, REDIS_URL, args)
    results["machine_after"] = {"load_average_1m": round(os.getloadavg()[0], 2)}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "fairness.json").write_text(json.dumps(results, indent=1) + "\n")
    (RESULTS / "fairness.md").write_text(markdown(results))
    print((RESULTS / "fairness.md").read_text())


def markdown(results: dict[str, Any]) -> str:
    m = results["machine"]
    lines = [
        "# Fairness under load (issue 33 items 3 and 7)",
        "",
        f"Commit {m['commit']}, {m['measured_at']}, Python {m['python']}, {m['cpus']} CPUs, load average "
        f"{m['load_average_1m']} at the start and {results['machine_after']['load_average_1m']} at the end. "
        f"Catalog: {results['catalog']['videos']:,} videos (benchmarks/big_catalog.py). Each run: "
        f"{results['settings']['seconds']} s; team A on {HAMMER_CONNECTIONS} connections, team B on 2 "
        "(`GET /` and its balance, one each). Run by benchmarks/fairness.py.",
        "",
    ]
    for key, title in (("sqlite", "SQLite"), ("postgresql_redis", "PostgreSQL + Redis")):
        if key not in results:
            continue
        r = results[key]
        lines += [f"## {title}", "", f"Read workers: {r.get('read_workers')}.", ""]
        fp = r["fast_paths"]
        lines += [
            f"Fast paths (16 connections): `GET /` {fp['health']['requests_per_s']} req/s; charged digest "
            f"{fp['digest']['requests_per_s']} req/s ({fp['digest_over_health']} of `GET /`, aim 0.5); free "
            f"balance {fp['balance']['requests_per_s']} req/s ({fp['balance_over_health']}, aim 0.25).",
            "",
        ]
        lines += _fairness_table(r["fairness"], "with read workers (default)")
        if "fairness_on_loop" in r:
            lines += _fairness_table(
                r["fairness_on_loop"], "every endpoint on the loop (REELSCOPE_READ_WORKERS=0)"
            )
        lines += [
            "Server CPU per request of every GET (API process + read workers"
            + (" + PostgreSQL backends" if key != "sqlite" else "")
            + "), most expensive first:",
            "",
            "| operation | ms CPU/request | p50 ms | requests | statuses |",
            "|---|---:|---:|---:|---|",
        ]
        for row in r["cpu_per_request"]:
            if not row["requests"]:
                lines.append(f"| {row['operation']} | no answer within {WAIT_S} s | | 0 | |")
                continue
            lines.append(
                f"| {row['operation']} | {row['cpu_ms_per_request']} | {row['p50_ms']} | {row['requests']} | "
                f"{row['statuses']} |"
            )
        lines.append("")
    return "\n".join(lines)


def _fairness_table(fairness: dict[str, Any], label: str) -> list[str]:
    base = fairness["baseline"]
    lines = [
        f"Fairness, {label}. Team B alone: `GET /` {base['health']['requests_per_s']} req/s, balance "
        f"{base['balance']['requests_per_s']} req/s (mean of before and after).",
        "",
        "| A hammers | A req/s | B `/` req/s (share) | B `/` p99 ms | B balance req/s (share) |"
        " B balance p99 ms | loop held (max ms) | aims |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for run in fairness["runs"]:
        h, b = run["b"]["health"], run["b"]["balance"]
        lines.append(
            f"| {run['operation']} | {run['hammer']['requests_per_s']} | {h['requests_per_s']} "
            f"({h['share_of_baseline']}) | {h['p99_ms']} | {b['requests_per_s']} "
            f"({b['share_of_baseline']}) | "
            f"{b['p99_ms']} | {run['loop_held_warnings']} ({run['loop_held_max_ms']}) | "
            f"{'met' if run['aims_met'] else 'missed'} |"
        )
    lines.append("")
    return lines


if __name__ == "__main__":
    main()
