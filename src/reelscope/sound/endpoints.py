"""/v1/sounds (spec §2.2, §4.7): the sound catalogue over the catalog's own sounds and videos; the
counts of each sound's videos as of the last ``sound.refresh`` (ADR 0038).

The fixed paths (search, trending, breakout, by-creator) are declared before ``/{sound_id}``, which
would otherwise take them (tests/test_routing.py).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Query

from reelscope.billing.prices import price_of
from reelscope.contract import CallDep, ClockDep, RuntimeDep, SessionDep, v1_router
from reelscope.kit.pagination import Page, PageQuery
from reelscope.kit.platforms import Platform
from reelscope.kit.schemas import Envelope, errors
from reelscope.sound import service as sound_service
from reelscope.sound.schemas import (
    BreakoutQuery,
    BreakoutSoundOut,
    SearchQuery,
    SoundDetail,
    SoundOut,
    SoundQuery,
    TrendingQuery,
    UsageHistory,
    UsageHistoryQuery,
)

router = v1_router(prefix="/sounds", tags=["sounds"])


@router.get("/search", responses=errors(400))
async def search_sounds(query: Annotated[SearchQuery, Query()], session: SessionDep) -> Page[SoundOut]:
    """Sounds whose title, artist (owner nickname) or owner handle contains `q`, case-insensitive; the
    most used on their platform first."""
    return await sound_service.search(session, query)


@router.get("/trending", responses=errors(400))
async def list_trending_sounds(
    query: Annotated[TrendingQuery, Query()], session: SessionDep
) -> Page[SoundOut]:
    """Sounds used by catalog videos posted in the last 30 days, by `sort` descending: `videos_7d`
    (default), `videos_30d`, `usage_count` (the platform's count) or `video_count`."""
    return await sound_service.trending(session, query)


@router.get("/breakout", responses=errors(400))
async def list_breakout_sounds(
    query: Annotated[BreakoutQuery, Query()], session: SessionDep
) -> Page[BreakoutSoundOut]:
    """Sounds taking off: at least `min_recent` catalog videos in 7 days and `min_baseline` in 90, by
    `breakout_score` = videos_7d x (videos_7d / videos_90d) descending."""
    return await sound_service.breakout(session, query)


@router.get("/by-creator/{platform}/{handle}", responses=errors(400, 404))
async def list_creator_sounds(
    platform: Platform,
    handle: str,
    query: Annotated[PageQuery, Query()],
    session: SessionDep,
) -> Page[SoundOut]:
    """Sounds used in the creator's catalog videos, the most used in the catalog first. The handle
    matches case-insensitively, with or without `@`."""
    return await sound_service.by_creator(session, platform, handle, query)


@router.get("/{sound_id}", responses=errors(400, 404))
async def get_sound(
    sound_id: str,
    query: Annotated[SoundQuery, Query()],
    session: SessionDep,
    runtime: RuntimeDep,
    call: CallDep,
    clock: ClockDep,
) -> Envelope[SoundDetail]:
    """One sound (§2.2) with its catalog usage and its `track_resolution` (status `resolved`,
    `unresolved` or `original_sound`, with a `reason`). `resolve=true` resolves the licensed track and
    artist: +$0.10 when this request makes the resolution, nothing more once it is known."""
    found = await sound_service.details(session, runtime.db, sound_id, query.resolve, clock.now())
    if not found.resolved_now:
        call.settle(price_of(call.operation).base)  # without the fresh resolution's $0.10
    return Envelope(data=found.sound)


@router.get("/{sound_id}/usage-history", responses=errors(400, 404))
async def get_sound_usage_history(
    sound_id: str, query: Annotated[UsageHistoryQuery, Query()], session: SessionDep, clock: ClockDep
) -> Envelope[UsageHistory]:
    """The sound's observed usage counts over the last `days` (default 90, at most 365), oldest first."""
    return Envelope(data=await sound_service.usage_history(session, sound_id, query.days, clock.now()))


@router.get("/{sound_id}/videos", responses=errors(400, 404))
async def list_sound_videos(
    sound_id: str, query: Annotated[PageQuery, Query()], session: SessionDep
) -> Page[sound_service.VideoOut]:
    """The catalog videos using the sound (§2.1 video objects), most viewed first."""
    return await sound_service.videos(session, sound_id, query)
