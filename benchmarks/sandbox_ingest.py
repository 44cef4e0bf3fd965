"""Sandbox generation and catalog ingest throughput, against baselines measured in the same run.

1. generate: sandbox video records per second (World.videos_between over 3 platforms) — against the
   vectorised enumeration of the same posts and their counters alone (no text, no record objects).
2. ingest: videos per second into an empty catalog (videos, creators, sounds, hashtags + links, one
   snapshot each), then the re-ingest of the same records (the update path) — against the identical
   upserts as ``INSERT ... VALUES`` sent through SQLAlchemy's standard executemany
   (``session.execute(stmt, rows)``), which is what ADR 0008 replaced (driver executemany on SQLite,
   ``INSERT ... SELECT unnest(...)`` on PostgreSQL). On SQLite (a temp file) and PostgreSQL (a
   throwaway database).

Writes benchmarks/results/sandbox_ingest.json and .md.
Run: .venv/bin/python benchmarks/sandbox_ingest.py [--hours 40] [--pg postgresql+asyncpg://postgres@127.0.0.1:5432/postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from meta import machine
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, create_async_engine

from reelscope import models  # noqa: F401
from reelscope.catalog import repository, service
from reelscope.collectors.base import VideoRecord
from reelscope.collectors.sandbox import World
from reelscope.collectors.sandbox import posts as sandbox_posts
from reelscope.kit.db import Base, create_database
from reelscope.kit.logging import configure_logging
from reelscope.kit.platforms import Platform

RESULTS = Path(__file__).resolve().parent / "results"
AT = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
SEED = 20240601


def bench_generate(hours: float) -> tuple[dict[str, float], list[VideoRecord]]:
    since = AT - timedelta(hours=hours)
    world = World(SEED)
    started = time.perf_counter()
    count = 0
    for p in Platform:
        posts = sandbox_posts.feed(SEED, p, since.timestamp(), AT.timestamp())
        sandbox_posts.counters(SEED, posts, AT.timestamp())
        count += len(posts)
    enumerate_s = time.perf_counter() - started
    started = time.perf_counter()
    records = [v for p in Platform for v in world.videos_between(p, since, AT, AT)]
    records_s = time.perf_counter() - started
    assert len(records) == count
    return {
        "records": len(records),
        "baseline_posts_enumerated_per_s": round(count / enumerate_s),
        "records_generated_per_s": round(len(records) / records_s),
    }, records


async def _standard_execute_many(session: AsyncSession, stmt: Any, rows: Sequence[dict[str, Any]]) -> None:
    if rows:
        await session.execute(stmt, list(rows))


def _standard_source(session: AsyncSession, table: Any, rows: Sequence[dict[str, Any]]) -> tuple[Any, bool]:
    return repository._insert(session, table).values(repository._values(table, rows)), False


async def _ingest_once(url: str, records: list[VideoRecord]) -> tuple[float, float]:
    database = create_database(url)
    async with database.engine.begin() as conn:
        await conn.run_sync(Base.metadata.drop_all)
        await conn.run_sync(Base.metadata.create_all)
    timings = []
    for _ in range(2):  # first ingest, then the same records again (update path)
        started = time.perf_counter()
        for start in range(0, len(records), service.BATCH):
            async with database.transaction() as session:
                await service.ingest_videos(session, records[start : start + service.BATCH])
        timings.append(time.perf_counter() - started)
    await database.dispose()
    return timings[0], timings[1]


async def bench_ingest(url: str, records: list[VideoRecord]) -> dict[str, float]:
    fast = await _ingest_once(url, records)
    original = repository._execute_many, repository._source
    repository._execute_many = _standard_execute_many  # type: ignore[assignment]
    repository._source = _standard_source  # type: ignore[assignment]
    try:
        standard = await _ingest_once(url, records)
    finally:
        repository._execute_many, repository._source = original  # type: ignore[assignment]
    n = len(records)
    return {
        "videos": n,
        "videos_ingested_per_s": round(n / fast[0]),
        "videos_reingested_per_s": round(n / fast[1]),
        "baseline_standard_executemany_ingested_per_s": round(n / standard[0]),
        "baseline_standard_executemany_reingested_per_s": round(n / standard[1]),
    }


async def with_postgres(
    admin_url: str, work: Callable[[str], Awaitable[dict[str, float]]]
) -> dict[str, float]:
    name = f"reelscope_bench_{uuid.uuid4().hex[:10]}"
    admin = create_async_engine(admin_url, isolation_level="AUTOCOMMIT")
    async with admin.connect() as conn:
        await conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        return await work(admin_url.rsplit("/", 1)[0] + f"/{name}")
    finally:
        async with admin.connect() as conn:
            await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        await admin.dispose()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hours", type=float, default=40.0, help="window of sandbox videos to generate")
    parser.add_argument(
        "--pg",
        default=os.environ.get("REELSCOPE_BENCH_PG", "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"),
    )
    args = parser.parse_args()
    configure_logging("warning")
    generate, records = bench_generate(args.hours)
    print("generate", generate)
    with tempfile.TemporaryDirectory() as tmp:
        sqlite = await bench_ingest(f"sqlite+aiosqlite:///{Path(tmp) / 'bench.db'}", records)
    print("sqlite", sqlite)
    try:
        postgres: dict[str, float] | str = await with_postgres(
            args.pg, lambda url: bench_ingest(url, records)
        )
    except OSError as exc:
        postgres = f"skipped: {exc}"
    print("postgresql", postgres)
    result = {
        "machine": machine(),
        "generate": generate,
        "ingest_sqlite": sqlite,
        "ingest_postgresql": postgres,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "sandbox_ingest.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [
        "# sandbox_ingest",
        "",
        f"Machine: {result['machine']}",
        "",
        "| measure | value | baseline (same run) |",
        "|---|---|---|",
        f"| records generated/s | {generate['records_generated_per_s']} | posts enumerated/s (no records): "
        f"{generate['baseline_posts_enumerated_per_s']} |",
    ]
    for name, figures in (("SQLite", sqlite), ("PostgreSQL", postgres)):
        if isinstance(figures, dict):
            first, again = figures["videos_ingested_per_s"], figures["videos_reingested_per_s"]
            base_first = figures["baseline_standard_executemany_ingested_per_s"]
            base_again = figures["baseline_standard_executemany_reingested_per_s"]
            lines.append(
                f"| {name}: videos ingested/s (empty) | {first} | standard executemany: {base_first} |"
            )
            lines.append(
                f"| {name}: videos re-ingested/s (updates) | {again} | standard executemany: {base_again} |"
            )
    (RESULTS / "sandbox_ingest.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    asyncio.run(main())
