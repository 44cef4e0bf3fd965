"""Wire shapes of the hashtag family (spec §2.3, §4.2)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from reelscope.kit.schemas import IsoDate, LimitUpTo100, QueryModel, Schema


class TopQuery(QueryModel):
    """§4.2 top list. Dates are strings here and checked by the service, so that a missing or bad date
    is 400 ``invalid_date_range`` (§7) rather than ``validation_error``; any other parameter is a 400."""

    # required, but checked by the service so that a missing one is invalid_date_range (reference.py)
    start_date: IsoDate | None = Field(
        default=None, description="YYYY-MM-DD: earliest post date", json_schema_extra={"x-required": True}
    )
    end_date: IsoDate | None = Field(
        default=None,
        description="YYYY-MM-DD: latest post date, at most 90 days after start_date",
        json_schema_extra={"x-required": True},
    )
    limit: LimitUpTo100 = Field(default=50, description="1 to 100, default 50; above 100 returns 100")
    page: int = Field(
        default=1, ge=1, description="Accepted, but the list is not paged: page 2 repeats page 1"
    )
    order_by: Literal["count", "views"] = "count"
    sort: Literal["desc", "asc"] = "desc"


class PerformanceQuery(QueryModel):
    start_date: IsoDate | None = Field(default=None, description="YYYY-MM-DD; alone: that day to today")
    end_date: IsoDate | None = Field(default=None, description="YYYY-MM-DD; alone: everything up to that day")


class HashtagStat(Schema):
    hashtag: str = Field(description="Without #")
    count: int
    total_views: int


class HashtagPerformance(Schema):
    hashtag: str
    video_count: int = Field(description="Equals the top list's count for the same dates")
    total_views: int
    avg_views: float
    total_likes: int
    avg_likes: float
    total_comments: int
    avg_comments: float
