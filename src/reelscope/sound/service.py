"""The sound catalogue (spec §2.2, §4.7): a sound with its usage, its track resolution, and lists of
sounds ranked by what the catalog's videos show.

Counts are of the catalog's own videos using a sound, by posting time relative to the last ``refresh``:
``video_count`` (all), ``videos_7d``, ``videos_30d``, ``videos_90d``. They are kept in ``sound_stats``
by ``refresh`` (sound/tasks.py: after every catalog change and every 10 minutes), so they lag the
catalog by at most one refresh (ADR 0038). ``usage_count`` is the platform's figure (§2.2).

Track resolution (ADR 0020) is decided from the sound's own catalog fields, so the same sound always
resolves the same way:

* ``is_original`` → ``original_sound``: the creator's own audio has no licensed track; nothing is stored
  and nothing extra is charged.
* a title and an artist (``owner_nickname``, else ``owner_handle``: §2.2 says the nickname can hold the
  artist name for licensed music) → ``resolved``: track = title, artist = that name.
* otherwise → ``unresolved`` with the reason (no artist, or no title).

A resolution is made only on ``resolve=true`` and is kept (``sound_resolutions``); until then the object
says ``unresolved`` with the reason "not resolved yet". A resolve that finds one kept is cached: the
handler settles the price back to the base $0.05.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.catalog import reads as catalog_reads
from reelscope.digest import service as digest_service
from reelscope.kit.clock import iso
from reelscope.kit.db import Database
from reelscope.kit.errors import NotFound
from reelscope.kit.logging import get_logger
from reelscope.kit.pagination import Page, PageQuery, Pagination
from reelscope.kit.platforms import Platform
from reelscope.models import SoundResolution
from reelscope.sound import repository
from reelscope.sound.schemas import (
    BreakoutQuery,
    BreakoutSoundOut,
    SearchQuery,
    SoundDetail,
    SoundOut,
    TrackResolution,
    TrendingQuery,
    UsageHistory,
    UsagePoint,
)

log = get_logger(__name__)

VideoOut = digest_service.VideoOut
NOT_RESOLVED_YET = "Not resolved yet; request it with resolve=true"


@dataclass(frozen=True)
class Details:
    sound: SoundDetail
    # whether this request made the sound's resolution (a fresh one is charged +$0.10, §4.7)
    resolved_now: bool


def _sound_fields(row: Any) -> dict[str, Any]:
    return {
        **catalog_reads.sound_object(row),
        "video_count": row.video_count,
        "videos_7d": row.videos_7d,
        "videos_30d": row.videos_30d,
        "videos_90d": row.videos_90d,
    }


def render(row: Any) -> SoundOut:
    return SoundOut(**_sound_fields(row))


def resolve_track(row: Any) -> TrackResolution:
    """The resolution rule above, for a sound that is not original."""
    title = (row.title or "").strip()
    artist = (row.owner_nickname or "").strip() or (row.owner_handle or "").strip().lstrip("@")
    if title and artist:
        return TrackResolution(
            status="resolved",
            track_title=title,
            artist=artist,
            reason="Track from the sound's title; artist from its owner",
            resolved_at=None,
        )
    reason = "The sound names no artist" if title else "The sound has no title"
    return TrackResolution(
        status="unresolved", track_title=None, artist=None, reason=reason, resolved_at=None
    )


def _kept(resolution: SoundResolution) -> TrackResolution:
    return TrackResolution(
        status="resolved" if resolution.status == "resolved" else "unresolved",
        track_title=resolution.track_title,
        artist=resolution.artist,
        reason=resolution.reason,
        resolved_at=iso(resolution.resolved_at),
    )


async def _keep(db: Database, sound_id: str, made: TrackResolution, now: datetime) -> bool:
    """Store a resolution in its own short write transaction (a GET's session reads only, ADR 0020);
    False when a concurrent request stored one first."""
    async with db.transaction() as session:
        return await repository.add_resolution(
            session,
            {
                "sound_id": sound_id,
                "status": made.status,
                "track_title": made.track_title,
                "artist": made.artist,
                "reason": made.reason,
                "resolved_at": now,
            },
        )


async def details(
    session: AsyncSession, db: Database, sound_id: str, resolve: bool, now: datetime
) -> Details:
    row = await repository.get_sound(session, sound_id)
    if row is None:
        raise NotFound("Sound not found")
    resolved_now = False
    if row.is_original:
        track = TrackResolution(
            status="original_sound",
            track_title=None,
            artist=None,
            reason="The creator's original audio; there is no licensed track",
            resolved_at=None,
        )
    elif (kept := await repository.get_resolution(session, sound_id)) is not None:
        track = _kept(kept)
    elif resolve:
        made = resolve_track(row)
        resolved_now = await _keep(db, sound_id, made, now)
        kept = await repository.get_resolution(session, sound_id)
        track = _kept(kept) if kept is not None else made
    else:
        track = TrackResolution(
            status="unresolved", track_title=None, artist=None, reason=NOT_RESOLVED_YET, resolved_at=None
        )
    sound = SoundDetail(
        **_sound_fields(row),
        first_seen_at=iso(row.first_seen_at) or "",
        updated_at=iso(row.updated_at) or "",
        track_resolution=track,
    )
    return Details(sound=sound, resolved_now=resolved_now)


async def usage_history(session: AsyncSession, sound_id: str, days: int, now: datetime) -> UsageHistory:
    if not await repository.sound_exists(session, sound_id):
        raise NotFound("Sound not found")
    points = await repository.usage_history(session, sound_id, now - timedelta(days=days))
    return UsageHistory(
        sound_id=sound_id,
        days=days,
        points=[UsagePoint(at=iso(p.at) or "", usage_count=p.usage_count) for p in points],
    )


def _page(rows: Sequence[Any], total: int, query: PageQuery) -> Page[SoundOut]:
    return Page[SoundOut](data=[render(r) for r in rows], pagination=Pagination.of(query, total))


async def search(session: AsyncSession, query: SearchQuery) -> Page[SoundOut]:
    rows, total = await repository.search(session, query.q, query.limit, query.offset)
    return _page(rows, total, query)


async def trending(session: AsyncSession, query: TrendingQuery) -> Page[SoundOut]:
    platform = query.platform.value if query.platform else None
    rows, total = await repository.trending(session, query.sort.value, platform, query.limit, query.offset)
    return _page(rows, total, query)


async def breakout(session: AsyncSession, query: BreakoutQuery) -> Page[BreakoutSoundOut]:
    platform = query.platform.value if query.platform else None
    rows, total = await repository.breakout(
        session, query.min_recent, query.min_baseline, platform, query.limit, query.offset
    )
    data = [BreakoutSoundOut(**_sound_fields(r), breakout_score=round(r.breakout_score, 4)) for r in rows]
    return Page[BreakoutSoundOut](data=data, pagination=Pagination.of(query, total))


async def videos(session: AsyncSession, sound_id: str, query: PageQuery) -> Page[VideoOut]:
    if not await repository.sound_exists(session, sound_id):
        raise NotFound("Sound not found")
    rows, total = await repository.sound_videos(session, sound_id, query.limit, query.offset)
    data = [VideoOut.model_validate(digest_service.render(r)) for r in rows]
    return Page[VideoOut](data=data, pagination=Pagination.of(query, total))


async def by_creator(
    session: AsyncSession, platform: Platform, handle: str, query: PageQuery
) -> Page[SoundOut]:
    creator_id = await repository.find_creator_id(session, platform.value, handle.strip().lstrip("@").lower())
    if creator_id is None:
        raise NotFound("Creator not found")
    rows, total = await repository.creator_sounds(session, creator_id, query.limit, query.offset)
    return _page(rows, total, query)


# --- keeping the counts -----------------------------------------------------------------------------


def _breakout_score(recent: int, baseline: int) -> float:
    # §4.7: videos_7d x (videos_7d / videos_90d); a sound with a recent video has baseline >= recent
    return float(recent) * recent / baseline if baseline else 0.0


async def refresh(db: Database, now: datetime) -> dict[str, int]:
    """Count every sound's catalog videos as of ``now`` into ``sound_stats``: one aggregate read, then
    one short write transaction holding only the rows that changed (ADR 0038)."""
    async with db.transaction(write=False) as session:
        counts = await repository.count_videos(session, now)
        facts = await repository.sound_facts(session, list(counts))
        kept = await repository.kept_stats(session)
    rows = []
    for sound_id, (total, recent, month, baseline) in counts.items():
        if sound_id not in facts:  # deleted since the count
            continue
        platform, usage = facts[sound_id]
        row = {
            "platform": platform,
            "usage_rank": -1 if usage is None else usage,
            "video_count": total,
            "videos_7d": recent,
            "videos_30d": month,
            "videos_90d": baseline,
            "breakout_score": _breakout_score(recent, baseline),
        }
        if kept.get(sound_id) != tuple(row.values()):
            rows.append({"sound_id": sound_id, **row})
    gone = [sound_id for sound_id in kept if sound_id not in facts]
    async with db.transaction() as session:
        await repository.write_stats(session, rows, gone)
    log.info("sound.stats.refreshed", sounds=len(counts), written=len(rows), removed=len(gone))
    return {"sounds": len(counts), "written": len(rows), "removed": len(gone)}
