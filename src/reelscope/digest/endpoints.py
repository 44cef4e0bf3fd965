"""GET /v1/videos/digest and GET /v1/{platform}/videos/digest (spec §4.1)."""

from __future__ import annotations

from reelscope.contract import Read, precomputed, v1_router
from reelscope.digest import service as digest_service
from reelscope.digest.schemas import DigestQuery, VideoOut
from reelscope.kit.platforms import Platform
from reelscope.kit.schemas import Envelope, errors

router = v1_router(tags=["digests"])


@router.get("/videos/digest", response_model=Envelope[list[VideoOut]], responses=errors(400))
@precomputed(DigestQuery)
async def get_videos_digest(read: Read[DigestQuery]) -> bytes:
    """The most-viewed videos of all platforms posted in the last 48 hours, ranked by views alone."""
    return await digest_service.digest_body(
        read.db, read.caches, digest_service.ALL, read.now, read.query.limit
    )


@router.get("/{platform}/videos/digest", response_model=Envelope[list[VideoOut]], responses=errors(400, 404))
@precomputed(DigestQuery)
async def get_platform_videos_digest(read: Read[DigestQuery], platform: Platform) -> bytes:
    """One platform's own top videos of the last 48 hours, by views."""
    return await digest_service.digest_body(read.db, read.caches, platform.value, read.now, read.query.limit)
