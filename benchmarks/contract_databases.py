"""The request contract's general path on each supported database (issue 13 item 4, beyond SQLite).

A free, authenticated read of a small team resource (``GET /v1/account/balance``: key, rate limit, one
point read of the team) against ``GET /`` (no contract, no database) on the same server in the same run,
for each deployment shape:

* ``sqlite``: the embedded default (a SQLite file, in-memory rate limits);
* ``postgresql``: PostgreSQL through asyncpg, in-memory rate limits;
* ``postgresql_redis``: PostgreSQL and the Redis rate limiter (the scale-out shape).

Each starts ``reelscope api`` on a fresh database with one team (custom limits high enough for the load)
and loads each path from a second process (benchmarks/loadgen.py, keep-alive, ``--concurrency``
connections for ``--seconds``). Reported per path: requests per second, p50/p99, the API process's CPU
per request and, on PostgreSQL, the CPU of its server processes per request (the database runs on the
same two CPUs here). No aim of its own: the SQLite figures are read_path.py's free read, and the others
say what a scale-out deployment pays for the same request.
Writes benchmarks/results/contract_databases.json and .md.
Run: .venv/bin/python benchmarks/contract_databases.py [--seconds 6] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from meta import machine

from benchmarks.loadgen import cpu_seconds, measure, start_api
from reelscope import models  # noqa: F401
from reelscope.auth import service as auth_service
from reelscope.kit.db import create_database
from reelscope.kit.logging import configure_logging
from reelscope.kit.migrate import upgrade_to_head

RESULTS = Path(__file__).resolve().parent / "results"
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
PG_NAME = "reelscope_bench_contract"
REDIS_URL = "redis://127.0.0.1:6379/15"
FEATURES = ("default", "video_digests", "hashtag_stats")


async def _fresh_postgres() -> str:
    admin = await asyncpg.connect(PG_ADMIN)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{PG_NAME}"')
        await admin.execute(f'CREATE DATABASE "{PG_NAME}"')
    finally:
        await admin.close()
    return f"postgresql+asyncpg://postgres@127.0.0.1:5432/{PG_NAME}"


async def _team(url: str) -> str:
    """A team with ample credits and limits, and its key."""
    await asyncio.to_thread(upgrade_to_head, url)
    db = create_database(url)
    now = datetime.now(UTC)
    try:
        async with db.transaction() as session:
            team = await auth_service.create_team(session, "bench", 10**9, now)
            for feature in FEATURES:
                await auth_service.set_limits(
                    session, team, feature, per_minute=10**9, per_hour=10**9, per_day=10**9, at=now
                )
            return (await auth_service.issue_key(session, team, now)).api_key
    finally:
        await db.dispose()


def _postgres_pids() -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() == "postgres":
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def run_shape(name: str, url: str, redis: str | None, seconds: float, concurrency: int) -> dict[str, Any]:
    key = asyncio.run(_team(url))
    paths = {"health": ("/", {}), "free_read": ("/v1/account/balance", {"Authorization": f"Bearer {key}"})}
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as data_dir:
        server, base = start_api(url, Path(data_dir), redis)
        try:
            for label, (path, headers) in paths.items():
                measure(base, path, headers, concurrency=concurrency, seconds=1)  # warm the pools
                database = _postgres_pids() if url.startswith("postgresql") else []
                before, db_before = cpu_seconds(server.pid), cpu_seconds(*database)
                result = measure(base, path, headers, concurrency=concurrency, seconds=seconds)
                used, db_used = cpu_seconds(server.pid) - before, cpu_seconds(*database) - db_before
                n = max(result.requests, 1)
                out[label] = result.as_dict() | {
                    "api_cpu_ms_per_request": round(used / n * 1000, 3),
                    "database_cpu_ms_per_request": round(db_used / n * 1000, 3) if database else None,
                }
                print(f"  {name} {label}: {out[label]}", flush=True)
        finally:
            server.kill()
            server.wait()
    health, free = out["health"]["requests_per_s"], out["free_read"]["requests_per_s"]
    out["free_read_over_health_rps"] = round(free / health, 3) if health else None
    return out


def write_markdown(result: dict[str, Any]) -> None:
    m = result["machine"]
    lines = [
        "# The contract's general path on each database (issue 13 item 4)",
        "",
        f"Commit {m['commit']}, {m['measured_at']}, {m['cpus']} CPUs, load {m['load_average_1m']} at the "
        f"start. {result['concurrency']} keep-alive connections for {result['seconds']} s per path from a "
        "second process against `reelscope api` on a fresh database; PostgreSQL and the load generator "
        "share the machine's CPUs with the API.",
        "",
        "| deployment | path | req/s | p50 ms | p99 ms | API CPU ms/req | PostgreSQL CPU ms/req |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for shape, runs in result["shapes"].items():
        for label in ("health", "free_read"):
            r = runs[label]
            db_cpu = r["database_cpu_ms_per_request"]
            lines.append(
                f"| {shape} | `{r['path']}` | {r['requests_per_s']} | {r['p50_ms']} | {r['p99_ms']} | "
                f"{r['api_cpu_ms_per_request']} | {'' if db_cpu is None else db_cpu} |"
            )
    lines += [
        "",
        "Free read over `GET /` (throughput): "
        + ", ".join(
            f"{shape} {runs['free_read_over_health_rps']}" for shape, runs in result["shapes"].items()
        )
        + ".",
        "",
    ]
    (RESULTS / "contract_databases.md").write_text("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=6)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    configure_logging("warning", json=False)
    result: dict[str, Any] = {"machine": machine(), "seconds": args.seconds, "concurrency": args.concurrency}
    shapes: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        shapes["sqlite"] = run_shape(
            "sqlite", f"sqlite+aiosqlite:///{tmp}/bench.db", None, args.seconds, args.concurrency
        )
    url = asyncio.run(_fresh_postgres())
    shapes["postgresql"] = run_shape("postgresql", url, None, args.seconds, args.concurrency)
    url = asyncio.run(_fresh_postgres())
    shapes["postgresql_redis"] = run_shape("postgresql_redis", url, REDIS_URL, args.seconds, args.concurrency)
    result["shapes"] = shapes
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "contract_databases.json").write_text(json.dumps(result, indent=2) + "\n")
    write_markdown(result)


if __name__ == "__main__":
    main()
