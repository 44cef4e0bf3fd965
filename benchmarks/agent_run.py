"""Research agents on the sandbox (issue 15 item 6), in process over ASGI with the embedded job consumer
on the SQLite queue, as `reelscope serve` runs them.

1. one one-shot agent, 5 keywords on the three platforms: create → `finalized: true` (aim < 30 s), with
   the time split by stage: the connector calls alone (collection, creator norms, measured directly on
   the same sandbox), the run job as it records itself (`execution_time_ms`), and the rest (queue, the
   store transaction, the analysis job, the webhook pump);
2. 20 agents created together: all finalized (aim < 3 min);
3. every free agent read with 10,000 videos linked to one agent: p50/p99 over sequential requests
   (aim p99 < 50 ms).

Writes benchmarks/results/agent_run.json. Run: .venv/bin/python benchmarks/agent_run.py
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import insert

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.meta import machine
from reelscope.agent import repository as agent_repository
from reelscope.agent.run import collect
from reelscope.agent.run import service as run_service
from reelscope.auth import service as auth_service
from reelscope.catalog import service as catalog_service
from reelscope.collectors.sandbox import SandboxConnector
from reelscope.config import Settings
from reelscope.kit.clock import SystemClock
from reelscope.kit.logging import configure_logging
from reelscope.kit.migrate import upgrade_to_head
from reelscope.kit.platforms import Platform
from reelscope.main import create_app
from reelscope.models import AgentVideo
from reelscope.runtime import build_runtime
from reelscope.worker.consumer import start_embedded

RESULTS = Path(__file__).resolve().parent / "results" / "agent_run.json"
KEYWORDS = ["sourdough", "running", "skincare", "home workout", "budget travel"]
MORE = ["meal prep", "marathon", "baking", "glutes", "protein", "crumb", "starter", "pace", "bread", "reps"]
POLL_SECONDS = 0.1
READ_REQUESTS = 200
LINKED = 10_000


async def wait_finalized(client: httpx.AsyncClient, headers: dict[str, str], agent_ids: list[str]) -> float:
    started = time.perf_counter()
    waiting = set(agent_ids)
    while waiting:
        for agent_id in list(waiting):
            data = (await client.get(f"/v1/agents/{agent_id}", headers=headers)).json()["data"]
            if data["finalized"]:
                waiting.discard(agent_id)
        if waiting:
            await asyncio.sleep(POLL_SECONDS)
        if time.perf_counter() - started > 600:
            raise TimeoutError(f"{len(waiting)} agents not finalized after 10 minutes")
    return time.perf_counter() - started


async def connector_stages(settings: Settings) -> dict[str, float]:
    """The connector calls of the 5-keyword run alone, on the same sandbox."""
    connector = SandboxConnector(SystemClock(), seed=settings.sandbox_seed)
    agent_settings = collect.Settings(
        keywords=tuple(KEYWORDS), exclude_keywords=(), platforms=tuple(Platform), meta_ads_enabled=False,
        language="en",
    )  # fmt: skip
    now = SystemClock().now()
    started = time.perf_counter()
    results = await collect.collect_targets([connector], agent_settings, now - timedelta(days=30), now)
    collected = time.perf_counter()
    filtered = collect.apply_filters(results, agent_settings)
    videos = [record for record, _ in filtered.videos]
    await collect.creator_posts([connector], collect.outlier_candidates(videos))
    norms = time.perf_counter()
    return {"collection_s": round(collected - started, 2), "creator_norms_s": round(norms - collected, 2)}


async def link_many(runtime: Any, agent_id: str, connector: SandboxConnector) -> int:
    """Link LINKED catalog videos (from the sandbox's discovery feeds) to one agent, then its analytics."""
    now = runtime.clock.now()
    records = []
    day = 0
    while len(records) < LINKED:
        day += 1
        for platform in Platform:
            records += await connector.discovery_feed(
                platform, None, now - timedelta(days=day), now - timedelta(days=day - 1)
            )
    records = records[:LINKED]
    async with runtime.db.transaction() as session:
        await catalog_service.ingest_videos(session, records)
        by_id = {catalog_service.catalog_id("video", r.platform.value, r.external_id): r for r in records}
        ids = list(by_id)
        known = await agent_repository.linked_ids(session, AgentVideo, "video_id", agent_id, ids)
        rows = [
            {
                "agent_id": agent_id,
                "video_id": vid,
                "platform": record.platform.value,
                "published_at": record.published_at,
                "views": record.views,
                "run_id": "bench",
                "keyword": "bench",
                "intelligence_status": "disabled",
                "linked_at": now,
            }
            for vid, record in by_id.items()
            if vid not in known
        ]
        await session.execute(insert(AgentVideo), rows)
        agent = await agent_repository.get_agent_any_team(session, agent_id)
        assert agent is not None
        await run_service.refresh_analytics(session, agent, [], now)
    return len(ids)


async def timed_reads(
    client: httpx.AsyncClient, headers: dict[str, str], path: str, params: dict[str, Any]
) -> dict[str, float]:
    await client.get(path, params=params, headers=headers)  # warm
    timings = []
    for _ in range(READ_REQUESTS):
        started = time.perf_counter()
        response = await client.get(path, params=params, headers=headers)
        timings.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.text
    timings.sort()
    return {
        "p50_ms": round(statistics.median(timings), 2),
        "p99_ms": round(timings[int(0.99 * len(timings)) - 1], 2),
    }


async def main() -> dict[str, Any]:
    configure_logging("WARNING")
    with tempfile.TemporaryDirectory(prefix="reelscope-agent-bench-") as tmp:
        settings = Settings(data_dir=Path(tmp), job_user_workers=2)
        upgrade_to_head(settings.effective_database_url)
        runtime = build_runtime(settings)
        async with runtime.db.transaction() as session:
            team = await auth_service.create_team(session, "bench", 1_000_000, runtime.clock.now())
            issued = await auth_service.issue_key(session, team, runtime.clock.now(), "full")
        headers = {"Authorization": f"Bearer {issued.api_key}"}
        worker = start_embedded(settings, periodic=False)
        app = create_app(runtime=runtime)
        transport = httpx.ASGITransport(app=app)
        results: dict[str, Any] = {"machine": machine()}
        try:
            async with httpx.AsyncClient(transport=transport, base_url="http://bench", timeout=60) as client:
                # 1. one agent, 5 keywords x 3 platforms
                started = time.perf_counter()
                created = await client.post(
                    "/v1/agents", json={"name": "bench", "keywords": KEYWORDS}, headers=headers
                )
                agent = created.json()["data"]
                await wait_finalized(client, headers, [agent["id"]])
                total = time.perf_counter() - started
                run = (
                    await client.get(f"/v1/agents/{agent['id']}/runs/{agent['run_id']}", headers=headers)
                ).json()["data"]
                in_job = run["metrics"]["execution_time_ms"] / 1000
                results["one_agent"] = {
                    "keywords": len(KEYWORDS),
                    "platforms": 3,
                    "create_to_finalized_s": round(total, 2),
                    "run_job_execution_s": round(in_job, 2),
                    "queue_store_analysis_webhook_s": round(total - in_job, 2),
                    "videos_linked": run["metrics"]["videos_linked"],
                    "aim_s": 30,
                    **(await connector_stages(settings)),
                }
                # 2. twenty agents started together
                started = time.perf_counter()
                bodies = [
                    {
                        "name": f"bench-{i}",
                        "keywords": [KEYWORDS[i % 5], MORE[i % len(MORE)]],
                        "meta_ads_enabled": i % 2 == 0,
                    }
                    for i in range(20)
                ]
                responses = await asyncio.gather(
                    *(client.post("/v1/agents", json=b, headers=headers) for b in bodies)
                )
                ids = [r.json()["data"]["id"] for r in responses]
                await wait_finalized(client, headers, ids)
                results["twenty_agents"] = {
                    "agents": 20,
                    "all_finalized_s": round(time.perf_counter() - started, 2),
                    "job_user_workers": settings.job_user_workers,
                    "aim_s": 180,
                }
                # 3. free reads with 10,000 linked videos
                linked = await link_many(
                    runtime, agent["id"], SandboxConnector(SystemClock(), seed=settings.sandbox_seed)
                )
                base = f"/v1/agents/{agent['id']}"
                reads = {
                    "agent": (base, {}),
                    "list_agents": ("/v1/agents", {}),
                    "videos": (base + "/videos", {}),
                    "videos_by_views_min_views": (
                        base + "/videos",
                        {"order_by": "views", "min_views": 10000},
                    ),
                    "videos_page_20": (base + "/videos", {"page": 20}),
                    "slideshows": (base + "/slideshows", {}),
                    "ads": (base + "/ads", {}),
                    "creators_outliers": (base + "/creators/outliers", {}),
                    "sounds": (base + "/sounds", {}),
                    "hashtags": (base + "/hashtags", {}),
                    "benchmarks": (base + "/benchmarks", {}),
                    "runs": (base + "/runs", {}),
                }
                results["reads_10k_linked"] = {
                    "linked_videos": linked,
                    "requests_each": READ_REQUESTS,
                    "aim_p99_ms": 50,
                    **{
                        name: await timed_reads(client, headers, path, params)
                        for name, (path, params) in reads.items()
                    },
                }
        finally:
            worker.stop()
            await runtime.close()
    return results


if __name__ == "__main__":
    figures = asyncio.run(main())
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(figures, indent=2) + "\n")
    print(json.dumps(figures, indent=2))
