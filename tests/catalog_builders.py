"""Catalogs for read-path tests: hand-made video records and sandbox collection (issue 6)."""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path

from reelscope.catalog import collection
from reelscope.catalog import service as catalog_service
from reelscope.collectors.base import PLATFORMLESS, Capability, CreatorRecord, SoundRecord, VideoRecord
from reelscope.collectors.routing import Sources
from reelscope.collectors.sandbox import SandboxConnector
from reelscope.kit.clock import ManualClock
from reelscope.kit.db import Database, create_database
from reelscope.kit.platforms import Platform
from reelscope.runtime import Runtime

SEED = 20240601


class TikTokSandbox(SandboxConnector):
    """The sandbox world collected from one platform: a third of the videos, for tests whose point holds
    on any amount of them (each platform's videos are generated the same way, ADR 0007)."""

    platforms = frozenset({Platform.TIKTOK})
    capabilities = {c: frozenset() if c in PLATFORMLESS else frozenset({Platform.TIKTOK}) for c in Capability}


def video(
    external_id: str,
    published_at: datetime,
    *,
    platform: Platform = Platform.TIKTOK,
    views: int = 100,
    likes: int = 10,
    comments: int = 1,
    hashtags: tuple[str, ...] = (),
    fetched_at: datetime | None = None,
    sound: SoundRecord | None = None,
    region: str | None = None,
) -> VideoRecord:
    return VideoRecord(
        platform=platform,
        external_id=external_id,
        url=f"https://example.test/{platform.value}/{external_id}",
        published_at=published_at,
        fetched_at=fetched_at or published_at + timedelta(hours=1),
        description=f"video {external_id}",
        views=views,
        likes=likes,
        comments=comments,
        hashtags=hashtags,
        sound=sound,
        creator=CreatorRecord(platform=platform, handle=f"maker_{external_id}"),
        region=region,
    )


async def ingest(runtime: Runtime, *records: VideoRecord, found_at: datetime | None = None) -> None:
    """Ingest records as the catalog would observe them (``found_at`` default: each one's fetch time)."""
    async with runtime.db.transaction() as session:
        await catalog_service.ingest_videos(session, list(records), found_at=found_at)


async def collect_sandbox(
    runtime: Runtime, clock: ManualClock, days: float, *, tiktok_only: bool = False
) -> None:
    """The sandbox world's videos posted in the last ``days``, found within the hour of their window
    (``tiktok_only``: those of TikTok alone)."""
    await _collect(runtime.db, clock, days, tiktok_only=tiktok_only)


async def _collect(db: Database, clock: ManualClock, days: float, *, tiktok_only: bool = False) -> None:
    connector = (TikTokSandbox if tiktok_only else SandboxConnector)(clock, seed=SEED)
    now = clock.now()
    await collection.collect(db, Sources([connector], None), clock, now - timedelta(days=days), now)


def build_sandbox_template(schema: Path, target: Path, at: datetime, days: float) -> Path:
    """A SQLite file with the schema and what ``collect_sandbox(runtime, ManualClock(at), days)`` collects
    into an empty database: built once (a 3-day catalog takes some 7 s) and copied for each test."""
    shutil.copyfile(schema, target)
    url = f"sqlite+aiosqlite:///{target}"

    async def build() -> None:
        database = create_database(url)
        await _collect(database, ManualClock(at), days)
        await database.dispose()

    asyncio.run(build())
    with sqlite3.connect(target) as connection:  # everything in the file itself, nothing left in the WAL
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return target
