"""GET /v1/hashtags, /v1/{platform}/hashtags, /v1/hashtags/{hashtag}/performance (spec §4.2)."""

from __future__ import annotations

from fastapi import Request
from starlette.responses import Response

from reelscope.contract import clock_of, database_of, v1_router
from reelscope.hashtag import service as hashtag_service
from reelscope.hashtag.schemas import HashtagPerformance, HashtagStat, PerformanceQuery, TopQuery
from reelscope.kit.platforms import Platform
from reelscope.kit.query import parse_query, query_parameters
from reelscope.kit.schemas import Envelope, errors

router = v1_router(tags=["hashtags"], read_only=True)

MAX_LIMIT = 100  # §4.2: above 100 returns 100


def _json(body: bytes) -> Response:
    return Response(content=body, media_type="application/json")


def _question(query: TopQuery, platform: Platform | None) -> hashtag_service.TopQuestion:
    first, last = hashtag_service.top_list_days(query.start_date, query.end_date)
    # §4.2: `page` is accepted and ignored, so page 2 repeats page 1 (and is charged)
    return hashtag_service.TopQuestion(
        first=first,
        last=last,
        platform=platform.value if platform is not None else None,
        order_by=query.order_by,
        descending=query.sort == "desc",
        limit=min(query.limit, MAX_LIMIT),
    )


@router.get(
    "/hashtags",
    response_model=Envelope[list[HashtagStat]],
    responses=errors(400),
    openapi_extra=query_parameters(TopQuery),
)
async def list_hashtags(request: Request) -> Response:
    """The most-used hashtags of all platforms among videos posted in the dates (billed even if empty)."""
    question = _question(parse_query(TopQuery, request), None)
    return _json(await hashtag_service.top_body(database_of(request), question))


@router.get(
    "/{platform}/hashtags",
    response_model=Envelope[list[HashtagStat]],
    responses=errors(400, 404),
    openapi_extra=query_parameters(TopQuery),
)
async def list_platform_hashtags(request: Request, platform: Platform) -> Response:
    """The most-used hashtags of one platform among videos posted in the dates."""
    question = _question(parse_query(TopQuery, request), platform)
    return _json(await hashtag_service.top_body(database_of(request), question))


@router.get(
    "/hashtags/{hashtag}/performance",
    response_model=Envelope[HashtagPerformance],
    responses=errors(400, 404),
    openapi_extra=query_parameters(PerformanceQuery),
)
async def get_hashtag_performance(request: Request, hashtag: str) -> Response:
    """One hashtag's counted videos, views, likes and comments, all platforms combined (case-insensitive;
    send a leading # as %23)."""
    query = parse_query(PerformanceQuery, request)
    today = clock_of(request).now().date()
    first, last = hashtag_service.performance_days(query.start_date, query.end_date, today)
    return _json(await hashtag_service.performance_body(database_of(request), hashtag, first, last))
