"""GET /v1/videos/digest and GET /v1/{platform}/videos/digest (spec §4.1)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Query
from starlette.responses import Response

from reelscope.contract import ClockDep, SessionDep, v1_router
from reelscope.digest import service as digest_service
from reelscope.digest.schemas import DigestQuery, VideoOut
from reelscope.kit.platforms import Platform
from reelscope.kit.schemas import Envelope, errors

router = v1_router(tags=["digests"], read_only=True)


def _json(body: bytes) -> Response:
    return Response(content=body, media_type="application/json")


@router.get("/videos/digest", response_model=Envelope[list[VideoOut]], responses=errors(400))
async def get_videos_digest(
    query: Annotated[DigestQuery, Query()], session: SessionDep, clock: ClockDep
) -> Response:
    """The most-viewed videos of all platforms posted in the last 48 hours, ranked by views alone."""
    body = await digest_service.digest_body(session, digest_service.ALL, clock.now(), query.limit)
    return _json(body)


@router.get("/{platform}/videos/digest", response_model=Envelope[list[VideoOut]], responses=errors(400, 404))
async def get_platform_videos_digest(
    platform: Platform, query: Annotated[DigestQuery, Query()], session: SessionDep, clock: ClockDep
) -> Response:
    """One platform's own top videos of the last 48 hours, by views."""
    body = await digest_service.digest_body(session, platform.value, clock.now(), query.limit)
    return _json(body)
