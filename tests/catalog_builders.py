"""Catalogs for read-path tests: hand-made video records and sandbox collection (issue 6)."""

from __future__ import annotations

from datetime import datetime, timedelta

from reelscope.catalog import collection
from reelscope.catalog import service as catalog_service
from reelscope.collectors.base import CreatorRecord, SoundRecord, VideoRecord
from reelscope.collectors.sandbox import SandboxConnector
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from reelscope.runtime import Runtime

SEED = 20240601


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


async def collect_sandbox(runtime: Runtime, clock: ManualClock, days: float) -> None:
    """The sandbox world's videos posted in the last ``days``, found within the hour of their window."""
    connector = SandboxConnector(clock, seed=SEED)
    now = clock.now()
    await collection.collect(runtime.db, [connector], clock, now - timedelta(days=days), now)
