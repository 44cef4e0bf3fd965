"""Wire shapes of the trend family (spec §2.4, §2.5, §4.3)."""

from __future__ import annotations

from pydantic import Field

from reelscope.kit.schemas import IsoMoment, LimitUpTo100, QueryModel, Schema
from reelscope.trend.regions import GLOBAL


class TrendQuery(QueryModel):
    """§4.3 trend lists; not paged, so ``offset`` (like any other unknown parameter) is a 400 (§8.3)."""

    region: str = GLOBAL
    start_date: IsoMoment | None = Field(default=None, description="ISO 8601; default 24 hours ago")
    end_date: IsoMoment | None = Field(default=None, description="ISO 8601; default now")
    limit: LimitUpTo100 = Field(default=50, description="Trends per group, 1 to 100; above 100 is 100")
    top_exemplars: int = Field(default=5, ge=0, le=20)


class EmergingQuery(QueryModel):
    region: str = GLOBAL
    limit: int = Field(default=20, ge=1, le=50)
    top_exemplars: int = Field(default=5, ge=0, le=20)


class Region(Schema):
    code: str
    name: str
    timezone: str = Field(description="IANA zone")


class ExemplarAuthor(Schema):
    username: str | None
    avatar_url: str | None
    verified: bool | None


class Exemplar(Schema):
    video_id: str
    url: str
    platform: str
    views: int
    likes: int | None = None
    thumbnail_url: str | None
    publish_date: str | None
    author: ExemplarAuthor | None


class Momentum(Schema):
    status: str = Field(description="new, rising, steady or fading")
    score: float = Field(ge=0, le=1)
    views_per_hour: float
    updated_at: str


class TrendInfo(Schema):
    id: str
    name: str
    description: str
    trend_type: str


class TrendRow(Schema):
    id: str
    trend_id: str
    trend_group_id: str
    ranking: int
    detected_at: str
    last_seen_at: str
    origin_region_codes: list[str] | None
    global_confidence: float | None
    momentum: Momentum | None
    trend: TrendInfo
    top_exemplars: list[Exemplar] | None = Field(
        default=None, description="Omitted when top_exemplars=0; by views descending"
    )


class TrendGroupOut(Schema):
    id: str
    title: str
    region: str
    local_date: str
    trends: list[TrendRow]


class EmergingTrend(Schema):
    id: str
    trend_id: str
    ranking: int
    region: str
    status: str
    momentum_score: float
    views_per_hour: float
    detected_at: str
    last_seen_at: str
    exemplar_count: int
    top_exemplars: list[Exemplar] | None = None
    trend: TrendInfo


class EmergingPage(Schema):
    region: str
    generated_at: str
    data: list[EmergingTrend]
