"""Cost of the charge path of the request contract (ARCHITECTURE §3), in process over ASGI.

Baseline: the free balance read (auth + rate limit, read transaction). Compared in the same run:
a charged GET (write transaction + conditional debit + ledger row), a charged POST without and with a
fresh Idempotency-Key each time (the difference is storing the response), and a replay of a stored key
(no handler, no debit).
Each is run sequentially and with 20 requests in flight. SQLite always; PostgreSQL when reachable.
Writes benchmarks/results/billing_contract.json.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import subprocess
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from pydantic import BaseModel
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from reelscope import models  # noqa: F401
from reelscope.auth import service as auth_service
from reelscope.billing.prices import PRICES, Price
from reelscope.config import Settings
from reelscope.contract import v1_router
from reelscope.kit.clock import ManualClock
from reelscope.kit.db import Base
from reelscope.kit.logging import configure_logging
from reelscope.kit.schemas import Envelope
from reelscope.main import create_app
from reelscope.runtime import build_runtime

REQUESTS = int(os.environ.get("BENCH_REQUESTS", "400"))
IN_FLIGHT = 20
RESULTS = Path(__file__).parent / "results" / "billing_contract.json"
POSTGRES_URL = os.environ.get(
    "REELSCOPE_TEST_DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
)


class Item(BaseModel):
    name: str


PRICES["get_bench_item"] = Price(1)
PRICES["create_bench_item"] = Price(1)
router = v1_router(prefix="/v1/bench", tags=["bench"])


@router.get("")
async def get_bench_item() -> Envelope[str]:
    return Envelope(data="ok")


@router.post("", status_code=201)
async def create_bench_item(item: Item) -> Envelope[str]:
    return Envelope(data=item.name)


async def timed(label: str, make: Any, concurrent: bool) -> dict[str, Any]:
    started = time.perf_counter()
    if concurrent:
        semaphore = asyncio.Semaphore(IN_FLIGHT)

        async def one(i: int) -> int:
            async with semaphore:
                return (await make(i)).status_code

        statuses = await asyncio.gather(*(one(i) for i in range(REQUESTS)))
    else:
        statuses = [(await make(i)).status_code for i in range(REQUESTS)]
    elapsed = time.perf_counter() - started
    assert all(200 <= s < 300 for s in statuses), (label, set(statuses))
    return {
        "case": label,
        "in_flight": IN_FLIGHT if concurrent else 1,
        "requests": REQUESTS,
        "requests_per_second": round(REQUESTS / elapsed, 1),
        "mean_ms": round(elapsed / REQUESTS * 1000, 2),
    }


async def run_backend(name: str, url: str) -> list[dict[str, Any]]:
    engine = create_async_engine(url)
    async with engine.begin() as conn:
        await conn.run_sync(Base.metadata.create_all)
    await engine.dispose()
    settings = Settings(data_dir=Path(tempfile.mkdtemp()), database_url=url, redis_url=None)
    runtime = build_runtime(settings, ManualClock(datetime(2026, 11, 21, 12, tzinfo=UTC)))
    app = create_app(runtime=runtime)
    app.include_router(router)
    async with runtime.db.transaction() as session:
        team = await auth_service.create_team(session, "bench", 10_000_000, runtime.clock.now())
        issued = await auth_service.issue_key(session, team, runtime.clock.now())
    auth = {"Authorization": f"Bearer {issued.api_key}"}
    transport = httpx.ASGITransport(app=app)
    results = []
    async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
        await client.post("/v1/bench", json={"name": "x"}, headers={**auth, "Idempotency-Key": "replayed"})
        cases = {
            "free read (baseline)": lambda i: client.get("/v1/account/balance", headers=auth),
            "charged GET": lambda i: client.get("/v1/bench", headers=auth),
            "charged POST, no key": lambda i: client.post("/v1/bench", json={"name": "x"}, headers=auth),
            "charged POST, new Idempotency-Key": lambda i: client.post(
                "/v1/bench", json={"name": "x"}, headers={**auth, "Idempotency-Key": uuid.uuid4().hex}
            ),
            "replay of a stored Idempotency-Key": lambda i: client.post(
                "/v1/bench", json={"name": "x"}, headers={**auth, "Idempotency-Key": "replayed"}
            ),
        }
        for concurrent in (False, True):
            for label, make in cases.items():
                results.append({"database": name, **await timed(label, make, concurrent)})
    await runtime.close()
    return results


async def postgres_url() -> str | None:
    admin = create_async_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    name = f"reelscope_bench_{uuid.uuid4().hex[:8]}"
    try:
        async with admin.connect() as conn:
            await conn.execute(text(f'CREATE DATABASE "{name}"'))
    except OSError:
        return None
    finally:
        await admin.dispose()
    return POSTGRES_URL.rsplit("/", 1)[0] + f"/{name}"


async def drop_postgres(url: str) -> None:
    admin = create_async_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    async with admin.connect() as conn:
        await conn.execute(text(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)'))
    await admin.dispose()


async def main() -> None:
    configure_logging("warning")
    results = await run_backend("sqlite", f"sqlite+aiosqlite:///{tempfile.mkdtemp()}/bench.db")
    pg = await postgres_url()
    if pg is not None:
        try:
            results += await run_backend("postgresql", pg)
        finally:
            await drop_postgres(pg)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False).stdout
    report = {
        "benchmark": "billing_contract",
        "measured_at": datetime.now(UTC).isoformat(),
        "commit": commit.strip(),
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
        },
        "results": results,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    for row in results:
        print(
            f"{row['database']:<10} in_flight={row['in_flight']:<3} {row['case']:<38} "
            f"{row['requests_per_second']:>8} req/s {row['mean_ms']:>7} ms"
        )


if __name__ == "__main__":
    asyncio.run(main())
