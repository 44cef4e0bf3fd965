"""SQL of the digest family: candidate videos for a list, and the stored lists (issue 6)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.catalog import reads as catalog_reads
from reelscope.kit.fast_reads import FastReads
from reelscope.models import DigestList, Sound, Video

_VIDEO_COLUMNS = (
    Video.id,
    Video.external_id,
    Video.url,
    Video.platform,
    Video.description,
    Video.published_at,
    Video.views,
    Video.likes,
    Video.comments,
    Video.shares,
    Video.bookmarks,
    Video.hashtags,
    Video.thumbnail_url,
    Video.duration,
    Video.transcript,
    Video.upload_region,
    Video.upload_region_source,
    Video.is_duet,
    Video.is_stitch,
    Video.is_eligible_for_commission,
    Video.creator_id,
    Video.region,
)


async def top_videos(
    session: AsyncSession, platform: str, since: datetime, until: datetime, limit: int
) -> Sequence[Any]:
    """The platform's most-viewed videos posted in [since, until], views descending (ties by id),
    with their sound's columns (NULL when the video has none). Uses (platform, published_at)."""
    stmt = (
        select(*_VIDEO_COLUMNS, *catalog_reads.VIDEO_SOUND_COLUMNS)
        .outerjoin(Sound, Sound.id == Video.sound_id)
        .where(Video.platform == platform, Video.published_at >= since, Video.published_at <= until)
        .order_by(Video.views.desc(), Video.id)
        .limit(limit)
    )
    return (await session.execute(stmt)).all()


async def list_version(reads: FastReads, scope: str) -> str | None:
    row = await reads.one("SELECT version FROM digest_lists WHERE scope = :scope", {"scope": scope})
    return None if row is None else str(row[0])


async def stored_list(reads: FastReads, scope: str) -> tuple[str, str] | None:
    """(version, rows as JSON text) of a scope's list."""
    row = await reads.one("SELECT version, rows FROM digest_lists WHERE scope = :scope", {"scope": scope})
    return None if row is None else (str(row[0]), str(row[1]))


async def get_list(session: AsyncSession, scope: str) -> DigestList | None:
    return await session.get(DigestList, scope)


async def save_list(session: AsyncSession, scope: str, version: str, rows: str, at: datetime) -> None:
    existing = await session.get(DigestList, scope)
    if existing is None:
        session.add(DigestList(scope=scope, version=version, built_at=at, rows=rows))
    else:
        existing.version, existing.rows, existing.built_at = version, rows, at
    await session.flush()
