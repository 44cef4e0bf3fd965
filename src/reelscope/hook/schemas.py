"""Wire shapes of the hook family (spec §4.7, §8.3)."""

from __future__ import annotations

from enum import IntEnum, StrEnum
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, field_validator

from reelscope.analysis import hooks as analysis
from reelscope.kit.pagination import PageQuery
from reelscope.kit.platforms import Platform
from reelscope.kit.schemas import QueryModel, Schema


def _one_of(values: tuple[str, ...]) -> Any:
    def check(value: str | None) -> str | None:
        if value is not None and value not in values:
            raise ValueError(f"must be one of: {', '.join(values)}")
        return value

    return AfterValidator(check)


HookType = Annotated[
    str | None,
    Field(default=None, json_schema_extra={"enum": list(analysis.HOOK_TYPES)}),
    _one_of(analysis.HOOK_TYPES),
]
VisualHookType = Annotated[
    str | None,
    Field(default=None, json_schema_extra={"enum": list(analysis.VISUAL_HOOK_TYPES)}),
    _one_of(analysis.VISUAL_HOOK_TYPES),
]


class TypeSort(StrEnum):
    MEDIAN_WEIGHTED_SCORE = "median_weighted_score"
    STRONG_HIT_RATE = "strong_hit_rate"
    HOOK_COUNT = "hook_count"


class TypesQuery(QueryModel):
    sort: TypeSort = Field(
        default=TypeSort.MEDIAN_WEIGHTED_SCORE,
        description="Descending; types with nothing to measure last",
    )


class Window(IntEnum):
    WEEK = 7
    TWO_WEEKS = 14
    MONTH = 30


class _Filters(PageQuery):
    platform: Platform | None = None
    # checked against the category vocabulary by the service: an unknown one is a 400 listing them (§4.7)
    category: str | None = Field(default=None, description="One of GET /v1/hooks/categories")
    hook_type: HookType = None
    visual_hook_type: VisualHookType = None
    language: str | None = Field(default=None, min_length=2, max_length=8, description="e.g. en, es")
    min_views: int | None = Field(default=None, ge=0)


class TrendingQuery(_Filters):
    window: Window = Field(default=Window.WEEK, description="Days: 7 (default), 14 or 30")


class LibrarySort(StrEnum):
    USAGE_COUNT = "usage_count"
    WEIGHTED_SCORE = "weighted_score"


class LibraryQuery(_Filters):
    sort: LibrarySort = LibrarySort.USAGE_COUNT


class SearchQuery(PageQuery):
    q: str = Field(
        min_length=1,
        max_length=200,
        description="Words to find; at least one of 3 or more letters or digits",
    )

    @field_validator("q")
    @classmethod
    def _has_a_word(cls, value: str) -> str:
        # §4.7: q needs at least one word of 3 or more letters or digits
        if not any(len(word) >= 3 for word in analysis.words(value)):
            raise ValueError("needs a word of 3 or more letters or digits")
        return value


class HookTypeOut(Schema):
    hook_type: str
    description: str
    hook_count: int = Field(description="Catalog hooks of this type")
    median_weighted_score: float | None = Field(
        description="Median weighted score of its scored hooks; null when none is scored"
    )
    strong_hit_rate: float | None = Field(
        description="Share of its scored hooks at 3x or more their creator's median views"
    )


class HookTypes(Schema):
    data: list[HookTypeOut]
    visual_hook_types: list[str] = Field(description="The 12 visual_hook_type values")


class CategoryOut(Schema):
    category: str
    hook_count: int


class HookOut(Schema):
    id: str
    video_id: str
    video_url: str
    hook_text: str
    hook_type: str
    visual_hook_type: str | None = Field(description="Null when the data does not show it")
    platform: str
    language: str | None
    category: str | None
    source: Literal["transcript", "caption"]
    usage_count: int = Field(description="Catalog videos opening with the same words")
    views: int
    outlier_ratio: float | None = Field(description="Views / the creator's median views")
    weighted_score: float | None = Field(description="ln(outlier_ratio) x ln(creator median views)")
    publish_date: str


class HookMatch(HookOut):
    match_type: Literal["exact", "contains", "similar"]


class LibraryHook(Schema):
    hook_text: str
    hook_type: str
    usage_count: int = Field(description="Catalog videos opening with these words (within the filters)")
    best_weighted_score: float | None
    max_views: int
    platform_count: int
