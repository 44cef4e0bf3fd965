"""A sandbox catalog of 9 days (enough for a run's 24 h window and 7-day baseline), built once per test
session into a SQLite file and copied for each test that needs one.

It holds the TikTok videos only: the runs' tests check what a run stores and announces, not how the
platforms add up, and a third of the videos makes each run (loading its window, detecting) some 3-10x
faster while the regions still find their planted trends (the US one, multi-country ones promoted by
``global``). Detection and its thresholds are the same: they scale with the region's own volume."""

from __future__ import annotations

import asyncio
import shutil
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy.ext.asyncio import create_async_engine

from reelscope.catalog import collection
from reelscope.kit.clock import ManualClock
from reelscope.kit.db import Base, create_database
from reelscope.trend import service as trend_service
from tests.catalog_builders import SEED, TikTokSandbox

# the catalog's "now": a US evening run of 2026-11-19 (19:00 New York = 00:00 UTC on the 20th)
BUILT_AT = datetime(2026, 11, 20, 0, 0, tzinfo=UTC)
DAYS = 9


async def _build(path: Path) -> None:
    url = f"sqlite+aiosqlite:///{path}"
    engine = create_async_engine(url)
    async with engine.begin() as conn:
        await conn.run_sync(Base.metadata.create_all)
    await engine.dispose()
    database = create_database(url)
    clock = ManualClock(BUILT_AT)
    await collection.backfill(database, [TikTokSandbox(clock, seed=SEED)], clock, days=DAYS)
    async with database.transaction() as session:
        await trend_service.seed_default_regions(session)
    await database.dispose()


def build_template(directory: Path) -> Path:
    path = directory / "sandbox-catalog.db"
    asyncio.run(_build(path))
    return path


def copy_to(template: Path, target_dir: Path) -> str:
    target = target_dir / "reelscope.db"
    shutil.copyfile(template, target)
    return f"sqlite+aiosqlite:///{target}"
