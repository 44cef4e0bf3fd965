"""/v1/hooks (spec §4.7, §8.3): the hooks of the catalog's videos, their types and categories.

Trending and search serve the top 1,000 results (a page beyond is a 400); trending, search and the
library answer 503 ``service_unavailable`` when the query runs too long; none of these is charged.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Query

from reelscope.contract import ClockDep, SessionDep, v1_router
from reelscope.hook import service as hook_service
from reelscope.hook.schemas import (
    CategoryOut,
    HookMatch,
    HookOut,
    HookTypes,
    LibraryHook,
    LibraryQuery,
    SearchQuery,
    TrendingQuery,
    TypesQuery,
)
from reelscope.kit.pagination import Page
from reelscope.kit.schemas import Envelope, errors

router = v1_router(prefix="/hooks", tags=["hooks"])


@router.get("/types", responses=errors(400))
async def list_hook_types(query: Annotated[TypesQuery, Query()], session: SessionDep) -> HookTypes:
    """The 17 hook types with how many catalog hooks each has, their `median_weighted_score` and
    `strong_hit_rate` (the share at 3x or more their creator's median views), by `sort` descending;
    `visual_hook_types` lists the 12 visual types. Free."""
    return await hook_service.types(session, query)


@router.get("/categories", responses=errors(400))
async def list_hook_categories(session: SessionDep) -> Envelope[list[CategoryOut]]:
    """The category vocabulary with how many catalog hooks each has, the most first. Free."""
    return Envelope(data=await hook_service.categories(session))


@router.get("/trending", responses=errors(400, 503))
async def list_trending_hooks(
    query: Annotated[TrendingQuery, Query()], session: SessionDep, clock: ClockDep
) -> Page[HookOut]:
    """Hooks of catalog videos posted in the last `window` days (7, 14 or 30), the highest weighted
    score first, filtered by platform, category, hook_type, visual_hook_type, language and min_views.
    The top 1,000 are served."""
    return await hook_service.trending(session, query, clock.now())


@router.get("/search", responses=errors(400, 503))
async def search_hooks(query: Annotated[SearchQuery, Query()], session: SessionDep) -> Page[HookMatch]:
    """Hooks holding the words of `q` as whole words (punctuation, emoji, line breaks and case
    ignored), in tiers by `match_type`: `exact` (the hook is `q`), `contains` (the words of `q` in a
    row), `similar` (its words of 3+ characters anywhere); the best scored first in each tier. One row
    per distinct hook: videos opening with the same words are one row, the best scored of them, and
    `usage_count` says how many there are. The top 1,000 are served."""
    return await hook_service.search(session, query)


@router.get("/library", responses=errors(400, 503))
async def get_hook_library(query: Annotated[LibraryQuery, Query()], session: SessionDep) -> Page[LibraryHook]:
    """Distinct hooks (one per wording and type) with how many catalog videos use them, by
    `usage_count` (default) or best `weighted_score`, with the trending filters. With two of platform,
    category, language and visual_hook_type, or min_views, a query that runs too long is a 503."""
    return await hook_service.library(session, query)
