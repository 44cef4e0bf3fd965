"""Webhook delivery: deliveries per second to a local HTTPS receiver, and event-to-first-attempt latency.

Baseline, measured in the same run: the same number of bare HTTPS POSTs to the same receiver with
httpx at the same concurrency, no database — the ceiling the delivery pipeline (claim, sign, send,
record each attempt in its own transaction) is compared with.

Latency is measured two ways, for the two ways the job engine will call ``deliver_due``:
- immediate: right after the event's fan-out commits (the enqueue-after-event wiring);
- periodic only: a poller every second, events published at random moments.

Run: ``.venv/bin/python benchmarks/webhook_delivery.py``. Writes benchmarks/results/webhook_delivery.json.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from sqlalchemy.ext.asyncio import create_async_engine  # noqa: E402
from tests.webhook.receiver import ReceiverServer, make_tls  # noqa: E402

from reelscope import models  # noqa: E402, F401
from reelscope.auth import service as auth_service  # noqa: E402
from reelscope.config import Settings  # noqa: E402
from reelscope.kit.clock import SystemClock  # noqa: E402
from reelscope.kit.db import Base, Database, create_database  # noqa: E402
from reelscope.kit.ids import new_id  # noqa: E402
from reelscope.kit.logging import configure_logging  # noqa: E402
from reelscope.models import WebhookEndpoint  # noqa: E402
from reelscope.webhook.delivery import deliver_due, fan_out  # noqa: E402
from reelscope.webhook.transport import DeliveryClient, new_secret  # noqa: E402

DELIVERIES = int(os.environ.get("BENCH_WEBHOOK_DELIVERIES", "2000"))
LATENCY_EVENTS = int(os.environ.get("BENCH_WEBHOOK_LATENCY_EVENTS", "100"))
PERIODIC_EVENTS = int(os.environ.get("BENCH_WEBHOOK_PERIODIC_EVENTS", "30"))
POLL_SECONDS = 1.0
EVENT = "satellite.lookup.completed"
DATA = {"run_id": "r", "status": "success", "results": {"videos": [{"views": n} for n in range(20)]}}


async def setup(tmp: Path, url: str) -> tuple[Database, str]:
    db_url = f"sqlite+aiosqlite:///{tmp / 'bench.db'}"
    engine = create_async_engine(db_url)
    async with engine.begin() as conn:
        await conn.run_sync(Base.metadata.create_all)
    await engine.dispose()
    db = create_database(db_url)
    now = datetime.now(UTC)
    async with db.transaction() as session:
        team = await auth_service.create_team(session, "bench", 0, now)
        issued = await auth_service.issue_key(session, team, now)
        session.add(
            WebhookEndpoint(
                id=new_id(), team_id=team.id, url=url, description="", enabled_events=[EVENT], headers={},
                secret=new_secret(), is_active=True, status="active", consecutive_failures=0,
                created_by=issued.key.user_id, created_at=now, updated_at=now,
            )
        )  # fmt: skip
    return db, team.id


async def publish(db: Database, team_id: str, n: int) -> None:
    async with db.transaction() as session:
        for _ in range(n):
            await fan_out(session, new_id(), EVENT, DATA, team_id, datetime.now(UTC))


async def baseline(url: str, ca: Path, count: int, concurrency: int) -> float:
    import ssl

    context = ssl.create_default_context(cafile=str(ca))
    body = json.dumps({"id": new_id(), "event": EVENT, "created_at": "x", "data": DATA}).encode()
    gate = asyncio.Semaphore(concurrency)
    async with httpx.AsyncClient(verify=context, trust_env=False) as http:

        async def post() -> None:
            async with gate:
                (
                    await http.post(url, content=body, headers={"Content-Type": "application/json"})
                ).raise_for_status()

        started = time.perf_counter()
        await asyncio.gather(*(post() for _ in range(count)))
        return count / (time.perf_counter() - started)


async def throughput(db: Database, team_id: str, sender: DeliveryClient, count: int) -> float:
    await publish(db, team_id, count)
    started = time.perf_counter()
    delivered = 0
    while delivered < count:
        delivered += (await deliver_due(db, SystemClock(), sender)).delivered
    return count / (time.perf_counter() - started)


async def latency_immediate(
    db: Database, team_id: str, sender: DeliveryClient, receiver: Any, n: int
) -> list[float]:
    samples = []
    for _ in range(n):
        before = len(receiver.received)
        started = time.monotonic()
        await publish(db, team_id, 1)
        await deliver_due(db, SystemClock(), sender)
        samples.append(receiver.received[before].at - started)
    return samples


async def latency_periodic(
    db: Database, team_id: str, sender: DeliveryClient, receiver: Any, n: int
) -> list[float]:
    stop = asyncio.Event()

    async def poller() -> None:
        while not stop.is_set():
            await deliver_due(db, SystemClock(), sender)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), POLL_SECONDS)

    task = asyncio.create_task(poller())
    rng = random.Random(7)
    samples = []
    for _ in range(n):
        await asyncio.sleep(rng.uniform(0, POLL_SECONDS))
        before = len(receiver.received)
        started = time.monotonic()
        await publish(db, team_id, 1)
        while len(receiver.received) <= before:
            await asyncio.sleep(0.005)
        samples.append(receiver.received[before].at - started)
    stop.set()
    await task
    return samples


def p(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] if len(values) > 1 else values[0]


async def main() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        tls = make_tls(tmp / "tls")
        server = ReceiverServer(tls)
        receiver = server.start()
        try:
            url = receiver.url("/hook")
            settings = Settings(
                data_dir=tmp, webhook_allowed_networks="127.0.0.0/8", webhook_ca_bundle=tls.ca
            )
            sender = DeliveryClient.from_settings(settings)
            db, team_id = await setup(tmp, url)
            concurrency = sender.policy.concurrency
            await baseline(url, tls.ca, 50, concurrency)  # warm up
            # the machine is shared: measure the baseline before and after, and compare with their mean
            base_before = await baseline(url, tls.ca, DELIVERIES, concurrency)
            rate = await throughput(db, team_id, sender, DELIVERIES)
            base_after = await baseline(url, tls.ca, DELIVERIES, concurrency)
            base = (base_before + base_after) / 2
            receiver.reset()
            immediate = await latency_immediate(db, team_id, sender, receiver, LATENCY_EVENTS)
            receiver.reset()
            periodic = await latency_periodic(db, team_id, sender, receiver, PERIODIC_EVENTS)
            await sender.aclose()
            await db.dispose()
        finally:
            server.stop()
    return {
        "benchmark": "webhook_delivery",
        "measured_at": datetime.now(UTC).isoformat(),
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
        ).stdout.strip(),
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "processor": platform.processor() or platform.machine(),
        },
        "setup": {
            "database": "SQLite (WAL) in a temp dir",
            "receiver": "uvicorn HTTPS on 127.0.0.1, same process, other thread",
            "deliveries": DELIVERIES,
            "concurrency": concurrency,
            "body_bytes": len(json.dumps(DATA)) + 120,
        },
        "baseline_bare_https_posts_per_second": {
            "before": round(base_before, 1),
            "after": round(base_after, 1),
            "mean": round(base, 1),
        },
        "deliveries_per_second": round(rate, 1),
        "ratio_to_baseline": round(rate / base, 3),
        "latency_immediate_seconds": {
            "events": len(immediate),
            "p50": round(statistics.median(immediate), 4),
            "p95": round(p(immediate, 95), 4),
        },
        "latency_periodic_1s_seconds": {
            "events": len(periodic),
            "p50": round(statistics.median(periodic), 4),
            "p95": round(p(periodic, 95), 4),
        },
    }


if __name__ == "__main__":
    configure_logging("warning")
    result = asyncio.run(main())
    out = ROOT / "benchmarks" / "results" / "webhook_delivery.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
