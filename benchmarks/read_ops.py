"""Every GET operation of the API at 1,000,000 videos (issue 33 item 4): single client, warm and cold.

The catalog is benchmarks/big_catalog.py's (built once a day and cached): 1M videos, their hooks, sounds,
hashtags, trends, and a team owning agents, lookups, tracked creators and videos, webhooks. On SQLite
and on PostgreSQL (the same rows copied), a ``reelscope api`` process serves it; this process calls each
operation over HTTP, one request at a time on one keep-alive connection:

- **warm**: 3 unmeasured requests, then ``--warm`` measured ones (the same request: a serving process's
  caches and the OS page cache hold what it reads);
- **cold**: ``--cold`` times, the database's files evicted from the OS page cache first
  (``posix_fadvise(DONTNEED)``, as benchmarks/hooks_search.py does), then one request. PostgreSQL keeps
  its own shared buffers (128 MB), which only a restart empties; the API process keeps its in-process
  caches (kit/caches.py), as a serving process does.

Before measuring, the periodic work the code has is run once and timed (the hashtag rollup, digests,
hooks, and whatever precomputed tables the code keeps), as ``reelscope serve`` does at start.
Aims (issue 33): p99 < 50 ms warm and < 250 ms cold, every operation, both databases.
Results go to benchmarks/results/read_ops.json under ``--label`` (``before`` for the code of main before
issue 33, ``after`` for this code), keeping the other labels, and to read_ops.md.
Run: .venv/bin/python benchmarks/read_ops.py [--videos N] [--label after] [--databases sqlite,postgresql]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.big_catalog import Catalog, ensure_postgres, ensure_sqlite, upgrade_cached
from benchmarks.loadgen import cpu_seconds, start_api
from benchmarks.meta import machine
from reelscope.kit.db import create_database
from reelscope.kit.logging import configure_logging

RESULTS = Path(__file__).resolve().parent / "results"
AIM_WARM_MS = 50
AIM_COLD_MS = 250
PG_DSN = "postgresql://postgres@127.0.0.1:5432/reads_catalog_1m"
# an operation slower than this is sampled less (5 warm, 1 cold): its figures only say by how much it misses
SLOW_MS = 1000
# a request still unanswered after this long counts as this long, with status "timeout"
TIMEOUT_S = 60


def operations(catalog: Catalog, extra: dict[str, str]) -> dict[str, str]:
    """Every GET operation with the parameters a client sends most (and the heavy variants of those
    that aggregate), by name → path with query."""
    ids = catalog.facts.ids
    today = datetime.now(UTC).date()
    agent, plain, recurring = ids["agent"], ids["agent_plain"], ids["agent_recurring"]
    creator, video = ids["tracked_creator"], ids["tracked_video"]
    top_creator = ids["top_creator"]
    ops = {
        "health": "/",
        "openapi": "/openapi.json",
        "docs": "/docs",
        "balance": "/v1/account/balance",
        "digest": "/v1/videos/digest?limit=100",
        "digest_platform": "/v1/tiktok/videos/digest?limit=100",
        "hashtags_7_days": f"/v1/hashtags?start_date={today - timedelta(days=6)}&end_date={today}",
        "hashtags_90_days": f"/v1/hashtags?start_date={today - timedelta(days=89)}&end_date={today}",
        "hashtags_platform": f"/v1/tiktok/hashtags?start_date={today - timedelta(days=29)}&end_date={today}",
        "hashtag_performance": f"/v1/hashtags/{ids['hashtag']}/performance",
        "trend_regions": "/v1/trends/regions",
        "trends": "/v1/trends?region=us",
        "trends_30_days": f"/v1/trends?region=us&start_date={today - timedelta(days=29)}&end_date={today}",
        "trends_90_days_widest": (
            f"/v1/trends?region=us&start_date={today - timedelta(days=89)}&end_date={today}"
            "&limit=100&top_exemplars=20"
        ),
        "trends_digest": "/v1/trends/digest?region=global",
        "trends_emerging": "/v1/trends/emerging?region=us&limit=50",
        "webhooks": "/v1/webhooks",
        "webhook": f"/v1/webhooks/{ids['webhook']}",
        "webhook_deliveries": f"/v1/webhooks/{ids['webhook']}/deliveries",
        "sound_search_common": "/v1/sounds/search?q=sound",
        "sound_search_artist": "/v1/sounds/search?q=artist1234",
        "sound_search_short": "/v1/sounds/search?q=s1",
        "sounds_trending": "/v1/sounds/trending",
        "sounds_trending_video_count": "/v1/sounds/trending?sort=video_count&platform=tiktok",
        "sounds_trending_page_50": "/v1/sounds/trending?page=50&sort=usage_count",
        "sounds_breakout": "/v1/sounds/breakout",
        "sounds_breakout_low": "/v1/sounds/breakout?min_recent=1&min_baseline=1&platform=instagram",
        "sounds_by_creator": f"/v1/sounds/by-creator/{top_creator['platform']}/{top_creator['handle']}",
        "sound": f"/v1/sounds/{ids['top_sound']}",
        "sound_usage_history": f"/v1/sounds/{ids['top_sound']}/usage-history?days=365",
        "sound_videos": f"/v1/sounds/{ids['top_sound']}/videos",
        "sound_videos_page_100": f"/v1/sounds/{ids['top_sound']}/videos?page=100&limit=100",
        "lookup_creator_cached": f"/v1/satellite/creator/tiktok/{ids['creator_handle']}",
        "lookup_creator_status": f"/v1/satellite/creator/status/{ids['creator_job']}",
        "lookup_sound_cached": f"/v1/satellite/sounds/tiktok/{ids['sound_music_id']}",
        "lookup_sound_status": f"/v1/satellite/sounds/status/{ids['sound_job']}",
        "lookup_hashtag_cached": f"/v1/satellite/hashtags/tiktok/{ids['lookup_hashtag']}",
        "lookup_hashtag_status": f"/v1/satellite/hashtags/status/{ids['hashtag_job']}",
        "lookup_batch": f"/v1/satellite/creators/batch/{ids['batch']}",
        "video_outlier_status": f"/v1/satellite/video-outlier/status/{ids['outlier_job']}",
        "lookup_runs": "/v1/satellite/runs",
        "lookup_runs_deep": "/v1/satellite/runs?offset=900&limit=100",
        "lookup_run": f"/v1/satellite/runs/{ids['lookup_run']}",
        "lookup_run_videos": f"/v1/satellite/runs/{ids['lookup_run']}/videos",
        "tracked_creators": "/v1/tracking/creators",
        "tracked_creator": f"/v1/tracking/creators/{creator}",
        "tracked_report": f"/v1/tracking/creators/{creator}/report",
        "tracked_snapshots": f"/v1/tracking/creators/{creator}/snapshots?limit=365",
        "tracked_posts": f"/v1/tracking/creators/{creator}/posts",
        "tracked_collection": f"/v1/tracking/creators/{creator}/posts/collect/{ids['collection']}",
        "tracked_post": f"/v1/tracking/creators/{creator}/posts/{ids['tracked_post']}",
        "tracked_cadence": f"/v1/tracking/creators/{creator}/posting-cadence",
        "tracked_videos": "/v1/tracking/videos",
        "tracked_video": f"/v1/tracking/videos/{video}",
        "audience_refresh": f"/v1/tracking/creators/{creator}/audience-refresh/{ids['audience_job']}",
        "audience_demographics": f"/v1/tracking/creators/{creator}/audience-demographics",
        "audience_geography": f"/v1/tracking/creators/{creator}/audience-geography",
        "audience_snapshot": f"/v1/audience/snapshot/{ids['audience_job']}",
        "agents": "/v1/agents",
        "agent": f"/v1/agents/{agent}",
        "agent_videos": f"/v1/agents/{agent}/videos",
        "agent_videos_views": f"/v1/agents/{agent}/videos?order_by=views&min_views=10000",
        "agent_videos_views_page_50": f"/v1/agents/{agent}/videos?order_by=views&page=50",
        "agent_slideshows": f"/v1/agents/{plain}/slideshows",
        "agent_ads": f"/v1/agents/{plain}/ads",
        "agent_outliers": f"/v1/agents/{agent}/creators/outliers",
        "agent_sounds": f"/v1/agents/{agent}/sounds",
        "agent_hashtags": f"/v1/agents/{agent}/hashtags",
        "agent_benchmarks": f"/v1/agents/{agent}/benchmarks",
        "agent_affinity": f"/v1/agents/{agent}/affinity",
        "agent_similar": f"/v1/agents/{agent}/creators/{ids['agent_creator']}/similar",
        "agent_analysis_latest": f"/v1/agents/{recurring}/analysis/latest",
        "agent_analysis": f"/v1/agents/{recurring}/analysis",
        "agent_trends_latest": f"/v1/agents/{recurring}/trends/latest",
        "agent_trends": f"/v1/agents/{recurring}/trends",
        "agent_hooks": f"/v1/agents/{agent}/hooks",
        "agent_runs": f"/v1/agents/{recurring}/runs",
        "agent_run": f"/v1/agents/{agent}/runs/{ids['agent_run']}",
        "agent_activity": f"/v1/agents/{recurring}/activity",
        "agent_events": f"/v1/agents/{recurring}/events",
        "agent_proposals": f"/v1/agents/{recurring}/proposals",
        "hook_types": "/v1/hooks/types",
        "hook_types_by_count": "/v1/hooks/types?sort=hook_count",
        "hook_categories": "/v1/hooks/categories",
        "hooks_trending": "/v1/hooks/trending",
        "hooks_trending_30_tiktok": "/v1/hooks/trending?window=30&platform=tiktok&page=5",
        "hooks_trending_min_views": "/v1/hooks/trending?min_views=50000",
        "hooks_search_common": f"/v1/hooks/search?q={extra['common_word']}",
        "hooks_search_phrase": f"/v1/hooks/search?q={extra['phrase']}",
        "hooks_library": "/v1/hooks/library",
        "hooks_library_best": "/v1/hooks/library?sort=weighted_score",
        "hooks_library_tiktok": "/v1/hooks/library?platform=tiktok&page=3",
        "hooks_library_es_views": "/v1/hooks/library?language=es&min_views=1000",
    }
    for legacy in ("orbit", "comet"):
        ops |= {
            f"{legacy}_list": f"/v1/{legacy}",
            f"{legacy}_list_alias": f"/v1/{legacy}/list",
            f"{legacy}": f"/v1/{legacy}/{agent}",
            f"{legacy}_by_followers": f"/v1/{legacy}/{agent}?order_by=author.followers",
            f"{legacy}_videos": f"/v1/{legacy}/{agent}/videos",
            f"{legacy}_slideshows": f"/v1/{legacy}/{plain}/slideshows",
            f"{legacy}_ads": f"/v1/{legacy}/{plain}/ads",
            f"{legacy}_outliers": f"/v1/{legacy}/{agent}/creators/outliers",
            f"{legacy}_trends_latest": f"/v1/{legacy}/{recurring}/trends/latest",
            f"{legacy}_trends": f"/v1/{legacy}/{recurring}/trends",
            f"{legacy}_analysis_latest": f"/v1/{legacy}/{recurring}/analysis/latest",
        }
    if extra.get("dashboard"):
        ops["dashboard"] = extra["dashboard"]
    return ops


# --- periodic work ---------------------------------------------------------------------------------------


async def prepare(url: str) -> dict[str, float]:
    """Every refresh of precomputed rows the code has, once, timed (as ``serve`` runs them at start)."""
    import importlib

    now = datetime.now(UTC)
    db = create_database(url)
    timings: dict[str, float] = {}
    # (module, function, keyword arguments): a function this code lacks is skipped
    refreshes: list[tuple[str, str, dict[str, Any]]] = [
        ("reelscope.hashtag.service", "rollup", {}),
        ("reelscope.digest.service", "refresh", {}),
        ("reelscope.hook.service", "refresh", {}),
        ("reelscope.sound.service", "refresh", {}),
    ]
    try:
        # what every agent's next run keeps of its analytics (the code's refresh_analytics)
        started = time.perf_counter()
        await _agents_analytics(db, now)
        timings["agent.refresh_analytics_s"] = round(time.perf_counter() - started, 2)
        started = time.perf_counter()
        if await _agents_similar(db, now):
            timings["agent.similar_s"] = round(time.perf_counter() - started, 2)
        for module_name, function, kwargs in refreshes:
            refresh: Callable[..., Any] | None = getattr(importlib.import_module(module_name), function, None)
            if refresh is None:
                continue
            name = f"{module_name.split('.')[1]}.{function}_s"
            started = time.perf_counter()
            await refresh(db, now, **kwargs)
            timings[name] = round(time.perf_counter() - started, 2)
            print(f"  {name}: {timings[name]}", flush=True)
    finally:
        await db.dispose()
    return timings


async def _agents_analytics(db: Any, now: datetime) -> None:
    from sqlalchemy import select

    from reelscope.agent.run import service as run_service
    from reelscope.models import Agent

    async with db.transaction() as session:
        for agent in (await session.scalars(select(Agent))).all():
            await run_service.refresh_analytics(session, agent, [], now)


async def _agents_similar(db: Any, now: datetime) -> bool:
    """Every agent's creators prepared and kept, as the ``agent.similar`` job does after a run stores its
    links (ADR 0056); False when the code has no such job."""
    from sqlalchemy import select

    from reelscope.agent import affinity
    from reelscope.models import Agent

    if not hasattr(affinity, "prepare_model"):
        return False
    async with db.transaction(write=False) as session:
        agents = list((await session.scalars(select(Agent.id))).all())
    for agent_id in agents:
        async with db.transaction(write=False, off_loop=True) as session:
            made = await affinity.prepare_model(session, agent_id)
        if made is not None:
            async with db.transaction() as session:
                await affinity.keep_model(session, agent_id, *made, now)
    return True


async def workload_words(url: str) -> dict[str, str]:
    """A common word of the hooks and a phrase of one hook, for hook search."""
    from sqlalchemy import text

    db = create_database(url)
    try:
        async with db.transaction(write=False) as session:
            first = text("SELECT text_key FROM hooks ORDER BY seq LIMIT 2000")
            keys = list((await session.execute(first)).scalars())
            counts: dict[str, int] = {}
            for key in keys:
                for word in key.split(" "):
                    if len(word) >= 4:
                        counts[word] = counts.get(word, 0) + 1
            common = max(counts, key=lambda w: counts[w])
            phrase = " ".join(keys[7].split(" ")[:3])
    finally:
        await db.dispose()
    return {"common_word": common, "phrase": phrase}


# --- timing ------------------------------------------------------------------------------------------------


def evict(files: list[Path]) -> int:
    """Drop the files' pages from the OS page cache; MB."""
    total = 0
    for path in files:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            total += os.fstat(fd).st_size
        finally:
            os.close(fd)
    return total // 2**20


def postgres_files(dsn: str) -> list[Path]:
    async def find() -> list[Path]:
        import asyncpg

        conn = await asyncpg.connect(dsn)
        try:
            data = await conn.fetchval("SELECT current_setting('data_directory')")
            oid = await conn.fetchval("SELECT oid FROM pg_database WHERE datname = current_database()")
        finally:
            await conn.close()
        directory = Path(data) / "base" / str(oid)
        return sorted(p for p in directory.iterdir() if p.is_file()) if directory.is_dir() else []

    return asyncio.run(find())


def _summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)

    def pct(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))], 2)

    return {"p50_ms": pct(0.5), "p99_ms": pct(0.99), "max_ms": round(ordered[-1], 2), "n": len(ordered)}


def curl_ms(base: str, headers: dict[str, str], path: str) -> float:
    """One request by curl (a new connection, the body discarded as read): its ``time_total``, ms. httpx
    itself takes ~50 ms to read an 18 MB body that curl reads in ~9 (2-CPU box, a static body): beside
    httpx's figures, curl's say how much of a large body's time is the client's (``--curl``)."""
    command = ["curl", "-s", "-o", "/dev/null", "-w", "%{time_total}", base + path]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    done = subprocess.run(command, capture_output=True, text=True, check=True, timeout=TIMEOUT_S)
    return float(done.stdout) * 1000


def measure(
    base: str,
    headers: dict[str, str],
    ops: dict[str, str],
    files: list[Path],
    warm: int,
    cold: int,
    pid: int,
    checkpoint: Callable[[dict[str, Any]], None] | None = None,
    *,
    curl: bool = False,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    # this process's own garbage collections are not the server's latency: what it holds (the app the
    # periodic work imported) is frozen, and collections wait between operations (a full one took
    # 50-170 ms here, inside a timed request as often as not, until session 16)
    gc.collect()
    gc.freeze()
    with httpx.Client(base_url=base, headers=headers, timeout=TIMEOUT_S) as client:
        for name, path in ops.items():
            gc.enable()
            gc.collect()
            gc.disable()
            statuses: dict[str, int] = {}
            sizes: list[int] = []

            def get(path: str = path, statuses: dict[str, int] = statuses, sizes: list[int] = sizes) -> float:
                started = time.perf_counter()
                try:
                    response = client.get(path)
                except httpx.TimeoutException:  # counted as the timeout's length, and said so
                    statuses["timeout"] = statuses.get("timeout", 0) + 1
                    return (time.perf_counter() - started) * 1000
                elapsed = (time.perf_counter() - started) * 1000
                sizes.append(len(response.content))
                key = str(response.status_code)
                statuses[key] = statuses.get(key, 0) + 1
                return elapsed

            cold_samples = []
            for _ in range(cold):
                evict(files)
                cold_samples.append(get())
                if cold_samples[-1] > SLOW_MS:  # a slow operation: fewer samples (it misses anyway)
                    break
            before = cpu_seconds(pid)
            if "timeout" in statuses:  # no warm figures to add: it misses by more than the timeout
                warm_samples = list(cold_samples)
                count = 0
            else:
                slow = any(get() > SLOW_MS for _ in range(3))
                count = min(warm, 5) if slow else warm
                before = cpu_seconds(pid)
                warm_samples = [get() for _ in range(count)]
            cpu_ms = (cpu_seconds(pid) - before) / max(count, 1) * 1000
            curl_samples = [curl_ms(base, headers, path) for _ in range(count if curl else 0)]
            out[name] = {
                "path": path,
                "warm": _summary(warm_samples),
                "cold": _summary(cold_samples) if cold_samples else None,
                "server_cpu_ms": round(cpu_ms, 2),
                "response_kb": round(max(sizes, default=0) / 1024, 1),
                "statuses": statuses,
            }
            if curl_samples:
                out[name]["warm_curl"] = _summary(curl_samples)
            if checkpoint is not None:  # what a run measured survives its end
                checkpoint(out)
            flag = "" if set(statuses) <= {"200", "202"} else f" statuses {statuses}"
            by_curl = out[name].get("warm_curl")
            print(
                f"  {name}: warm p50 {out[name]['warm']['p50_ms']} p99 {out[name]['warm']['p99_ms']}"
                f" cold p99 {(out[name]['cold'] or {}).get('p99_ms')} ms{flag}"
                + (f" (curl warm p50 {by_curl['p50_ms']} p99 {by_curl['p99_ms']})" if by_curl else ""),
                flush=True,
            )
    gc.enable()
    gc.unfreeze()
    return out


def run_database(
    kind: str, url: str, catalog: Catalog, files: list[Path], args: argparse.Namespace
) -> dict[str, Any]:
    print(f"{kind}: periodic work …", flush=True)
    precompute = asyncio.run(prepare(url))
    extra = asyncio.run(workload_words(url))
    headers = {"Authorization": f"Bearer {catalog.facts.api_key}"}
    with tempfile.TemporaryDirectory(prefix="reads-ops-") as data_dir:
        server, base = start_api(url, Path(data_dir))
        try:
            tracked = catalog.facts.ids["tracked_creator"]
            detail = httpx.get(f"{base}/v1/tracking/creators/{tracked}", headers=headers)
            dashboard = (detail.json().get("data") or {}).get("dashboard_url") if detail.is_success else None
            if dashboard:  # its path
                extra["dashboard"] = (
                    "/" + dashboard.split("/", 3)[3] if dashboard.startswith("http") else dashboard
                )
            ops = operations(catalog, extra)
            if args.only:
                ops = {k: v for k, v in ops.items() if re.search(args.only, k)}
            load = [round(os.getloadavg()[0], 2)]
            partial = RESULTS / f"read_ops-{args.label}-{kind}.partial.json"

            def checkpoint(found: dict[str, Any]) -> None:
                partial.write_text(json.dumps(found, indent=1))

            timings = measure(
                base, headers, ops, files, args.warm, args.cold, server.pid, checkpoint, curl=args.curl
            )
            partial.unlink(missing_ok=True)
            load.append(round(os.getloadavg()[0], 2))
        finally:
            server.terminate()
            server.wait(timeout=30)
    return {"precompute": precompute, "load_average_1m": load, "operations": timings}


def _before_after(results: dict[str, Any]) -> list[str]:
    """The operations that were slowest before (warm p50 over 100 ms on either database), before and
    after: warm p50 / p99 and cold p99 in ms, and the API's CPU per request."""
    before, after = (
        results.get("before", {}).get("databases", {}),
        results.get("after", {}).get("databases", {}),
    )
    if not before or not after:
        return []

    def cell(section: dict[str, Any], db_name: str, name: str) -> str:
        o = section.get(db_name, {}).get("operations", {}).get(name)
        if not o:
            return "–"
        cold = (o.get("cold") or {}).get("p99_ms", "–")
        cpu = "" if o.get("server_cpu_ms") is None else f", {o['server_cpu_ms']} CPU"
        return f"{o['warm']['p50_ms']} / {o['warm']['p99_ms']} / {cold}{cpu}"

    slow = [
        name
        for name in after.get("sqlite", {}).get("operations", {})
        if any(
            (o := before.get(db_name, {}).get("operations", {}).get(name)) and o["warm"]["p50_ms"] > 100
            for db_name in ("sqlite", "postgresql")
        )
    ]
    lines = [
        "## Before and after, the operations that were slow",
        "",
        "Warm p50 / warm p99 / cold p99 in ms, and the API process's CPU per request in ms (less subject",
        "to the other work on the machine than the latencies). `before`: main at 9452361; `after`: this",
        "code (issue 33). A 60 s figure is a request that had not been answered after 60 s.",
        "",
        "| operation | SQLite before | SQLite after | PostgreSQL before | PostgreSQL after |",
        "|---|---|---|---|---|",
    ]
    for name in slow:
        lines.append(
            f"| {name} | {cell(before, 'sqlite', name)} | {cell(after, 'sqlite', name)} | "
            f"{cell(before, 'postgresql', name)} | {cell(after, 'postgresql', name)} |"
        )
    return [*lines, ""]


def _client_table(ops: dict[str, Any]) -> list[str]:
    """The operations also timed with curl (``--curl``): the same server, two clients."""
    timed = {name: o for name, o in ops.items() if o.get("warm_curl")}
    if not timed:
        return []
    lines = [
        "The same warm requests by two clients (ms): httpx (the figures above) and curl.",
        "",
        "| operation | KB | httpx p50 | httpx p99 | curl p50 | curl p99 |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, o in timed.items():
        lines.append(
            f"| {name} | {o.get('response_kb', '')} | {o['warm']['p50_ms']} | {o['warm']['p99_ms']} | "
            f"{o['warm_curl']['p50_ms']} | {o['warm_curl']['p99_ms']} |"
        )
    return [*lines, ""]


def write_markdown(results: dict[str, Any]) -> None:
    lines = [
        "# Every GET operation at 1M videos (issue 33 item 4)",
        "",
        "benchmarks/read_ops.py: one client, one request at a time over HTTP against `reelscope api`, on",
        "the catalog of benchmarks/big_catalog.py (1,000,000 generated videos over 90 days with hooks,",
        "sounds, hashtags, trends; a team with agents, lookups, tracking and webhooks made through the",
        "API). **warm**: the same request repeated (after 3 unmeasured); **cold**: the database's files",
        "evicted from the OS page cache before each request (PostgreSQL keeps its 128 MB of shared",
        "buffers; the API process keeps its in-process caches). Aims: p99 < 50 ms warm, < 250 ms cold.",
        "The machine (2 CPUs) is shared with other work, whose load is given per run: single figures can",
        "be 2-10x off; compare within a run.",
        "",
    ]
    lines += _before_after(results)
    for label, run in results.items():
        if label == "machine":
            continue
        m = run.get("machine", {})
        lines += [f"## {label}", "", f"Commit {m.get('commit')}, {m.get('measured_at')}.", ""]
        for db_name, section in run.get("databases", {}).items():
            ops = section["operations"]
            misses = [
                n
                for n, o in ops.items()
                if o["warm"]["p99_ms"] >= AIM_WARM_MS or (o["cold"] and o["cold"]["p99_ms"] >= AIM_COLD_MS)
            ]
            lines += [
                f"### {db_name} (load {section['load_average_1m']}; periodic work {section['precompute']})",
                "",
                f"{len(ops) - len(misses)} of {len(ops)} operations meet both aims"
                + (f"; misses: {', '.join(misses)}." if misses else "."),
                "",
                "| operation | warm p50 | warm p99 | cold p50 | cold p99 | server CPU ms | KB | statuses "
                "| path |",
                "|---|---:|---:|---:|---:|---:|---:|---|---|",
            ]
            for name, o in ops.items():
                cold = o["cold"] or {}
                lines.append(
                    f"| {name} | {o['warm']['p50_ms']} | {o['warm']['p99_ms']} | {cold.get('p50_ms', '')} | "
                    f"{cold.get('p99_ms', '')} | {o['server_cpu_ms']} | {o.get('response_kb', '')} | "
                    f"{o['statuses']} | `{o['path'][:80]}` |"
                )
            lines.append("")
            lines += _client_table(ops)
    (RESULTS / "read_ops.md").write_text("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--videos", type=int, default=1_000_000)
    parser.add_argument("--label", default="after")
    parser.add_argument("--databases", default="sqlite,postgresql")
    parser.add_argument("--warm", type=int, default=30)
    parser.add_argument("--cold", type=int, default=5)
    parser.add_argument("--only", default="", help="a regular expression over operation names")
    parser.add_argument("--pg-dsn", default=PG_DSN)
    parser.add_argument("--no-record", action="store_true")
    parser.add_argument(
        "--curl", action="store_true", help="also time each operation's warm requests with curl, side by side"
    )
    args = parser.parse_args()
    configure_logging("warning", json=True)

    catalog = ensure_sqlite(args.videos)
    run: dict[str, Any] = {"machine": machine(), "databases": {}}
    run["catalog"] = {**catalog.facts.build, "file": catalog.path.name}
    for kind in args.databases.split(","):
        if kind == "sqlite":
            upgrade_cached(catalog)
            files = [catalog.path, Path(f"{catalog.path}-wal"), Path(f"{catalog.path}-shm")]
            run["databases"]["sqlite"] = run_database("sqlite", catalog.url, catalog, files, args)
        elif kind == "postgresql":
            run["catalog"]["postgresql"] = asyncio.run(ensure_postgres(catalog, args.pg_dsn))
            url = args.pg_dsn.replace("postgresql://", "postgresql+asyncpg://")
            files = postgres_files(args.pg_dsn)
            run["databases"]["postgresql"] = run_database("postgresql", url, catalog, files, args)
    if args.no_record:
        return
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "read_ops.json"
    results = json.loads(path.read_text()) if path.exists() else {}
    if args.only and args.label in results:  # a partial run updates the operations it ran
        for db_name, section in run["databases"].items():
            kept = results[args.label].setdefault("databases", {}).setdefault(db_name, section)
            kept["operations"].update(section["operations"])
    else:
        results[args.label] = run
    path.write_text(json.dumps(results, indent=1) + "\n")
    write_markdown(results)


if __name__ == "__main__":
    main()
