"""The fast paths on both databases in one run (issue 33 item 7): ``GET /``, the charged digest and the
free balance on 16 connections against ``reelscope api``, on SQLite and on PostgreSQL + Redis.

Aims (benchmarks/read_path.py's): the charged digest's throughput >= 0.5 of ``GET /``'s, the balance's
>= 0.25, each compared with ``GET /`` measured by the same server in the same round. Per path it also
records the server's CPU per request: the API process, and on PostgreSQL the database backends serving
it (Redis's own CPU is not counted). ``--rounds`` rounds of the three paths per database (the box is
shared: the median round's ratios are reported, every round kept in the JSON).

The catalog is benchmarks/big_catalog.py's (``--videos``, 20,000 by default: the three reads are
precomputed or point reads, so their cost does not grow with the catalog; benchmarks/fairness.py
measures them at 1M beside everything else). Results: benchmarks/results/fast_paths.json and .md.
Run: .venv/bin/python benchmarks/fast_paths.py [--videos 20000] [--seconds 5] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.big_catalog import ensure_postgres, ensure_sqlite, upgrade_cached
from benchmarks.fairness import PG_DSN, REDIS_URL, backend_pids
from benchmarks.loadgen import cpu_seconds, measure, start_api
from benchmarks.meta import machine
from reelscope.kit.logging import configure_logging

RESULTS = Path(__file__).resolve().parent / "results"
PATHS = {
    "health": ("/", False),
    "digest": ("/v1/videos/digest?limit=100", True),
    "balance": ("/v1/account/balance", True),
}
AIMS = {"digest": 0.5, "balance": 0.25}


def one_round(base: str, pids: list[int], headers: dict[str, str], seconds: float) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name, (path, keyed) in PATHS.items():
        before = cpu_seconds(*pids)
        run = measure(base, path, headers if keyed else {}, concurrency=16, seconds=seconds)
        spent = cpu_seconds(*pids) - before
        found[name] = run.as_dict() | {
            "server_cpu_ms_per_request": round(spent * 1000 / run.requests, 3) if run.requests else None
        }
    health = found["health"]["requests_per_s"]
    for name in AIMS:
        found[f"{name}_over_health"] = round(found[name]["requests_per_s"] / health, 3) if health else None
    return found


def run_database(url: str, redis_url: str | None, api_key: str, args: argparse.Namespace) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {api_key}"}
    with tempfile.TemporaryDirectory() as data_dir:
        proc, base = start_api(url, Path(data_dir), redis_url)
        try:
            time.sleep(3)  # the read workers import the app
            measure(base, PATHS["digest"][0], headers, concurrency=4, seconds=1)  # pools open, caches warm
            backends = asyncio.run(backend_pids(url)) if url.startswith("postgresql") else []
            rounds = []
            for index in range(args.rounds):
                rounds.append(one_round(base, [proc.pid, *backends], headers, args.seconds))
                ratios = {k: v for k, v in rounds[-1].items() if k.endswith("_over_health")}
                print(f"  round {index + 1}: {json.dumps(ratios)}", flush=True)
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    summary = {
        f"{name}_over_health": statistics.median(r[f"{name}_over_health"] for r in rounds) for name in AIMS
    }
    for name in PATHS:
        summary[f"{name}_cpu_ms"] = statistics.median(r[name]["server_cpu_ms_per_request"] for r in rounds)
        summary[f"{name}_rps"] = statistics.median(r[name]["requests_per_s"] for r in rounds)
    summary["aims_met"] = {name: summary[f"{name}_over_health"] >= aim for name, aim in AIMS.items()}
    return {"summary": summary, "rounds": rounds}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--videos", type=int, default=20_000)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--databases", default="sqlite,postgresql")
    args = parser.parse_args()
    configure_logging("warning", json=False)
    catalog = ensure_sqlite(args.videos)
    upgrade_cached(catalog)
    results: dict[str, Any] = {
        "machine": machine(),
        "catalog": {"videos": args.videos},
        "settings": {"seconds": args.seconds, "rounds": args.rounds, "connections": 16},
    }
    if "sqlite" in args.databases:
        print("sqlite", flush=True)
        results["sqlite"] = run_database(catalog.url, None, catalog.facts.api_key, args)
    if "postgresql" in args.databases:
        print("postgresql + redis", flush=True)
        asyncio.run(ensure_postgres(catalog, PG_DSN))
        url = PG_DSN.replace("postgresql://", "postgresql+asyncpg://")
        results["postgresql_redis"] = run_database(url, REDIS_URL, catalog.facts.api_key, args)
    results["machine_after"] = {"load_average_1m": round(os.getloadavg()[0], 2)}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "fast_paths.json").write_text(json.dumps(results, indent=1) + "\n")
    (RESULTS / "fast_paths.md").write_text(markdown(results))
    print((RESULTS / "fast_paths.md").read_text())


def markdown(results: dict[str, Any]) -> str:
    m = results["machine"]
    lines = [
        "# The fast paths on both databases (issue 33 item 7)",
        "",
        f"Commit {m['commit']}, {m['measured_at']}, Python {m['python']}, {m['cpus']} CPUs, load average "
        f"{m['load_average_1m']} at the start and {results['machine_after']['load_average_1m']} at the end. "
        f"Catalog: {results['catalog']['videos']:,} videos. 16 keep-alive connections for "
        f"{results['settings']['seconds']} s per path, {results['settings']['rounds']} rounds per database "
        "(medians). Run by benchmarks/fast_paths.py.",
        "",
        "| database | `GET /` req/s | digest req/s | digest / `GET /` (aim 0.5) | balance req/s |"
        " balance / `GET /` (aim 0.25) | server CPU ms/request: `/`, digest, balance |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for key, title in (("sqlite", "SQLite"), ("postgresql_redis", "PostgreSQL + Redis")):
        if key not in results:
            continue
        s = results[key]["summary"]
        lines.append(
            f"| {title} | {s['health_rps']} | {s['digest_rps']} | {s['digest_over_health']} | "
            f"{s['balance_rps']} | {s['balance_over_health']} | "
            f"{s['health_cpu_ms']}, {s['digest_cpu_ms']}, {s['balance_cpu_ms']} |"
        )
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
