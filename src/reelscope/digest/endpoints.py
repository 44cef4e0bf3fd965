"""GET /v1/videos/digest and GET /v1/{platform}/videos/digest (spec §4.1)."""

from __future__ import annotations

from fastapi import Request
from starlette.responses import Response

from reelscope.contract import clock_of, database_of, v1_router
from reelscope.digest import service as digest_service
from reelscope.digest.schemas import DigestQuery, VideoOut
from reelscope.kit.platforms import Platform
from reelscope.kit.query import parse_query, query_parameters
from reelscope.kit.schemas import Envelope, errors

router = v1_router(tags=["digests"], read_only=True)


def _json(body: bytes) -> Response:
    return Response(content=body, media_type="application/json")


@router.get(
    "/videos/digest",
    response_model=Envelope[list[VideoOut]],
    responses=errors(400),
    openapi_extra=query_parameters(DigestQuery),
)
async def get_videos_digest(request: Request) -> Response:
    """The most-viewed videos of all platforms posted in the last 48 hours, ranked by views alone."""
    query = parse_query(DigestQuery, request)
    now = clock_of(request).now()
    body = await digest_service.digest_body(database_of(request), digest_service.ALL, now, query.limit)
    return _json(body)


@router.get(
    "/{platform}/videos/digest",
    response_model=Envelope[list[VideoOut]],
    responses=errors(400, 404),
    openapi_extra=query_parameters(DigestQuery),
)
async def get_platform_videos_digest(request: Request, platform: Platform) -> Response:
    """One platform's own top videos of the last 48 hours, by views."""
    query = parse_query(DigestQuery, request)
    now = clock_of(request).now()
    body = await digest_service.digest_body(database_of(request), platform.value, now, query.limit)
    return _json(body)
