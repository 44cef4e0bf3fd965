"""Satellite lookups end to end on the sandbox world (issue 18 item 8; spec §8.4 says 20-60 s real-world).

Set up as ``reelscope serve`` runs by default: SQLite in a temporary data dir, the API (in process, over
ASGI) sending jobs through the SQLite queue to an embedded consumer (threads, its own loop and
connections), the wall clock. Each figure is from the start request to the first status poll (every
50 ms) that reads a finished lookup:

1. creator lookup (defaults, and with trend_analysis): aim < 5 s;
2. a 25-creator batch: aim < 30 s;
3. baseline: the same creator lookup's collection and result alone (connector calls and
   ``results.creator_result``), with no request, queue or database.

Writes benchmarks/results/lookups.json. Run: .venv/bin/python benchmarks/lookups.py [--creators N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from meta import machine

from reelscope import models  # noqa: F401
from reelscope.auth import service as auth_service
from reelscope.collectors.registry import build_connectors
from reelscope.collectors.sandbox.creators import handle_of
from reelscope.config import Settings
from reelscope.kit.clock import SystemClock
from reelscope.kit.db import Base
from reelscope.kit.logging import configure_logging
from reelscope.kit.platforms import Platform
from reelscope.lookup import results
from reelscope.main import create_app
from reelscope.runtime import build_runtime
from reelscope.worker.consumer import start_embedded

RESULTS = Path(__file__).resolve().parent / "results" / "lookups.json"
POLL_EVERY = 0.05
GIVE_UP_AFTER = 120.0


async def wait_until_done(http: httpx.AsyncClient, headers: dict[str, str], url: str) -> dict[str, Any]:
    deadline = time.perf_counter() + GIVE_UP_AFTER
    while time.perf_counter() < deadline:
        data: dict[str, Any] = (await http.get(url, headers=headers)).json()["data"]
        if data["status"] not in ("processing",):
            return data
        await asyncio.sleep(POLL_EVERY)
    raise TimeoutError(url)


async def baseline(settings: Settings, handle: str) -> float:
    """Collection and result building alone, as the job does them."""
    clock = SystemClock()
    [connector] = build_connectors(settings, clock)
    started = time.perf_counter()
    profile = await connector.creator(Platform.TIKTOK, handle)
    posts = await connector.creator_posts(Platform.TIKTOK, handle, limit=50)
    results.creator_result(
        profile,
        posts,
        now=clock.now(),
        max_videos=20,
        include_videos=True,
        include_outliers=True,
        outlier_threshold=3.0,
        trend_analysis=False,
    )
    return time.perf_counter() - started


async def run(creators: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp))
        runtime = build_runtime(settings, SystemClock())
        async with runtime.db.engine.begin() as conn:
            await conn.run_sync(Base.metadata.create_all)
        async with runtime.db.transaction() as session:
            team = await auth_service.create_team(session, "bench", 1_000_000, runtime.clock.now())
            issued = await auth_service.issue_key(session, team, runtime.clock.now(), "full")
        # every window of §8.1 is per key: a key per creator lookup keeps the 5/min limit out of the figures
        keys = [issued.api_key]
        async with runtime.db.transaction() as session:
            for _ in range(creators * 2):
                keys.append(
                    (await auth_service.issue_key(session, team, runtime.clock.now(), "full")).api_key
                )
        worker = start_embedded(settings, periodic=False)
        seed = settings.sandbox_seed
        transport = httpx.ASGITransport(app=create_app(runtime=runtime))
        figures: dict[str, Any] = {}
        try:
            async with httpx.AsyncClient(transport=transport, base_url="http://bench") as http:
                for label, params in (
                    ("creator_lookup", {}),
                    ("creator_lookup_trend_analysis", {"trend_analysis": "true"}),
                ):
                    times = []
                    for index in range(creators):
                        headers = {"Authorization": f"Bearer {keys.pop()}"}
                        handle = handle_of(seed, Platform.TIKTOK, 1000 + index + (500 if params else 0))
                        started = time.perf_counter()
                        response = await http.get(
                            f"/v1/satellite/creator/tiktok/{handle}", params=params, headers=headers
                        )
                        done = await wait_until_done(http, headers, response.json()["data"]["poll_url"])
                        times.append(time.perf_counter() - started)
                        assert done["status"] == "completed", done
                    figures[label] = {
                        "lookups": creators,
                        "p50_s": round(statistics.median(times), 3),
                        "max_s": round(max(times), 3),
                        "aim_s": 5.0,
                    }
                headers = {"Authorization": f"Bearer {issued.api_key}"}
                handles = [handle_of(seed, Platform.TIKTOK, 5000 + i) for i in range(25)]
                started = time.perf_counter()
                response = await http.post(
                    "/v1/satellite/creators/batch",
                    json={"platform": "tiktok", "handles": handles},
                    headers=headers,
                )
                batch_id = response.json()["data"]["batch_id"]
                done = await wait_until_done(http, headers, f"/v1/satellite/creators/batch/{batch_id}")
                assert done["status"] == "completed", done["status"]
                figures["batch_25_creators"] = {"s": round(time.perf_counter() - started, 3), "aim_s": 30.0}
            times = [
                await baseline(settings, handle_of(seed, Platform.TIKTOK, 9000 + i)) for i in range(creators)
            ]
            figures["baseline_collect_and_build_only"] = {"p50_s": round(statistics.median(times), 3)}
            figures["job_user_workers"] = settings.job_user_workers
        finally:
            worker.stop()
            await runtime.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--creators", type=int, default=5)
    args = parser.parse_args()
    configure_logging("warning")
    figures = {"benchmark": "lookups", "machine": machine(), "database": "sqlite (WAL), queue: SqliteHuey"}
    figures.update(asyncio.run(run(args.creators)))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(figures, indent=2) + "\n")
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
