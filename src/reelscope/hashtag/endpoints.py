"""GET /v1/hashtags, /v1/{platform}/hashtags, /v1/hashtags/{hashtag}/performance (spec §4.2)."""

from __future__ import annotations

from reelscope.contract import Read, precomputed, v1_router
from reelscope.hashtag import service as hashtag_service
from reelscope.hashtag.schemas import HashtagPerformance, HashtagStat, PerformanceQuery, TopQuery
from reelscope.kit.platforms import Platform
from reelscope.kit.schemas import Envelope, errors

router = v1_router(tags=["hashtags"])


@router.get("/hashtags", response_model=Envelope[list[HashtagStat]], responses=errors(400))
@precomputed(TopQuery)
async def list_hashtags(read: Read[TopQuery]) -> bytes:
    """The most-used hashtags of all platforms among videos posted in the dates (billed even if empty)."""
    return await hashtag_service.top_body(read.db, read.caches, hashtag_service.question(read.query, None))


@router.get("/{platform}/hashtags", response_model=Envelope[list[HashtagStat]], responses=errors(400, 404))
@precomputed(TopQuery)
async def list_platform_hashtags(read: Read[TopQuery], platform: Platform) -> bytes:
    """The most-used hashtags of one platform among videos posted in the dates."""
    question = hashtag_service.question(read.query, platform.value)
    return await hashtag_service.top_body(read.db, read.caches, question)


@router.get(
    "/hashtags/{hashtag}/performance", response_model=Envelope[HashtagPerformance], responses=errors(400, 404)
)
@precomputed(PerformanceQuery)
async def get_hashtag_performance(read: Read[PerformanceQuery], hashtag: str) -> bytes:
    """One hashtag's counted videos, views, likes and comments, all platforms combined (case-insensitive;
    send a leading # as %23)."""
    first, last = hashtag_service.performance_days(
        read.query.start_date, read.query.end_date, read.now.date()
    )
    return await hashtag_service.performance_body(read.db, read.caches, hashtag, first, last)
