"""GET /v1/trends/regions, /v1/trends, /v1/trends/digest, /v1/trends/emerging (spec §4.3)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Annotated
from zoneinfo import ZoneInfo

from fastapi import Query
from pydantic import Field

from reelscope.contract import ClockDep, SessionDep, v1_router
from reelscope.kit.errors import InvalidDateRange, ValidationFailed
from reelscope.kit.responses import FastJSON
from reelscope.kit.schemas import Envelope, Schema, errors
from reelscope.models.trends import TrendRegion
from reelscope.trend import service as trend_service
from reelscope.trend.regions import GLOBAL
from reelscope.trend.schemas import EmergingPage, Region, TrendGroupOut

router = v1_router(prefix="/trends", tags=["trends"])


class TrendQuery(Schema):
    region: str = GLOBAL
    start_date: str | None = Field(default=None, description="ISO 8601; default 24 hours ago")
    end_date: str | None = Field(default=None, description="ISO 8601; default now")
    # §8.3: values above 100 clamp to 100
    limit: int = Field(default=50, ge=1, description="1 to 100; above 100 is treated as 100")
    top_exemplars: int = Field(default=5, ge=0, le=20)
    offset: str | None = Field(default=None, description="Not accepted: the list is not paged (§8.3)")


class EmergingQuery(Schema):
    region: str = GLOBAL
    limit: int = Field(default=20, ge=1, le=50)
    top_exemplars: int = Field(default=5, ge=0, le=20)
    offset: str | None = Field(default=None, description="Not accepted: the list is not paged (§8.3)")


def _moment(value: str | None, name: str, region: TrendRegion, *, end: bool) -> datetime | None:
    """ISO 8601 to UTC. A bare date is a day of the region's own calendar, both ends included (§2.5
    ``local_date``): a start is that day's first instant, an end its last."""
    if value is None:
        return None
    text = value.strip()
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            local = datetime.combine(
                day + timedelta(days=1) if end else day, time.min, ZoneInfo(region.timezone)
            )
            return (local - timedelta(microseconds=1) if end else local).astimezone(UTC)
        moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise InvalidDateRange(f"{name} must be an ISO 8601 date or timestamp") from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _window(query: TrendQuery, region: TrendRegion, now: datetime) -> tuple[datetime, datetime]:
    start = _moment(query.start_date, "start_date", region, end=False) or now - timedelta(hours=24)
    end = _moment(query.end_date, "end_date", region, end=True) or now
    if start > end:
        raise InvalidDateRange("start_date must not be after end_date")
    return start, end


def _reject_offset(offset: str | None) -> None:
    if offset is not None:
        raise ValidationFailed("offset is not a supported parameter: trend lists are not paged (§8.3)")


@router.get("/regions", responses=errors(400))
async def list_trend_regions(session: SessionDep) -> Envelope[list[Region]]:
    """The trend regions, discovered at runtime (free)."""
    regions = await trend_service.regions(session)
    return Envelope(data=[Region.model_validate(r) for r in regions])


@router.get("", response_model=Envelope[list[TrendGroupOut]], responses=errors(400))
async def list_trends(
    query: Annotated[TrendQuery, Query()], session: SessionDep, clock: ClockDep
) -> FastJSON:
    """Trend groups of a region whose local day falls in the window (default the last 24 hours)."""
    _reject_offset(query.offset)
    region = await trend_service.region_or_400(session, query.region)
    start, end = _window(query, region, clock.now())
    groups = await trend_service.groups_in_window(
        session, region, start, end, limit=min(query.limit, 100), top_exemplars=query.top_exemplars
    )
    return FastJSON({"data": groups})


@router.get("/digest", response_model=Envelope[list[TrendGroupOut]], responses=errors(400))
async def get_trends_digest(
    query: Annotated[TrendQuery, Query()], session: SessionDep, clock: ClockDep
) -> FastJSON:
    """Today's trend group of the region, today being the date in the region's own timezone."""
    _reject_offset(query.offset)
    region = await trend_service.region_or_400(session, query.region)
    _window(query, region, clock.now())  # the same parameters are validated the same way
    groups = await trend_service.todays_group(
        session, region, clock.now(), limit=min(query.limit, 100), top_exemplars=query.top_exemplars
    )
    return FastJSON({"data": groups})


@router.get("/emerging", response_model=EmergingPage, responses=errors(400))
async def list_emerging_trends(
    query: Annotated[EmergingQuery, Query()], session: SessionDep, clock: ClockDep
) -> FastJSON:
    """Trends whose momentum is new or rising, by momentum score; reads maintained state only."""
    _reject_offset(query.offset)
    region = await trend_service.region_or_400(session, query.region)
    now = clock.now()
    rows = await trend_service.emerging(
        session, region, now, limit=query.limit, top_exemplars=query.top_exemplars
    )
    return FastJSON(
        {"region": region.code, "generated_at": now.isoformat().replace("+00:00", "Z"), "data": rows}
    )
