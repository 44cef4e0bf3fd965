"""GET /v1/trends/regions, /v1/trends, /v1/trends/digest, /v1/trends/emerging (spec §4.3)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Query

from reelscope.contract import ClockDep, RuntimeDep, SessionDep, small_read, v1_router
from reelscope.kit.responses import FastJSON
from reelscope.kit.schemas import Envelope, errors
from reelscope.trend import service as trend_service
from reelscope.trend.schemas import EmergingPage, EmergingQuery, Region, TrendGroupOut, TrendQuery

router = v1_router(prefix="/trends", tags=["trends"])


@router.get("/regions")
@small_read
async def list_trend_regions(session: SessionDep) -> Envelope[list[Region]]:
    """The trend regions, discovered at runtime (free)."""
    regions = await trend_service.regions(session)
    return Envelope(data=[Region.model_validate(r) for r in regions])


@router.get("", response_model=Envelope[list[TrendGroupOut]], responses=errors(400))
async def list_trends(
    query: Annotated[TrendQuery, Query()], session: SessionDep, clock: ClockDep, runtime: RuntimeDep
) -> FastJSON:
    """Trend groups of a region whose local day falls in the window (default the last 24 hours)."""
    return FastJSON({"data": await trend_service.list_groups(session, query, clock.now(), runtime.caches)})


@router.get("/digest", response_model=Envelope[list[TrendGroupOut]], responses=errors(400))
async def get_trends_digest(
    query: Annotated[TrendQuery, Query()], session: SessionDep, clock: ClockDep, runtime: RuntimeDep
) -> FastJSON:
    """Today's trend group of the region, today being the date in the region's own timezone."""
    return FastJSON({"data": await trend_service.todays_groups(session, query, clock.now(), runtime.caches)})


@router.get("/emerging", response_model=EmergingPage, responses=errors(400))
async def list_emerging_trends(
    query: Annotated[EmergingQuery, Query()], session: SessionDep, clock: ClockDep
) -> FastJSON:
    """Trends whose momentum is new or rising, by momentum score; reads maintained state only."""
    return FastJSON(await trend_service.emerging_page(session, query, clock.now()))
