"""Wire shapes of the sound family (spec §2.2, §4.7, §8.3)."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import Field, field_validator

from reelscope.digest import service as digest_service
from reelscope.kit.pagination import PageQuery
from reelscope.kit.platforms import Platform
from reelscope.kit.schemas import QueryModel, Schema


class SoundQuery(QueryModel):
    resolve: bool = Field(
        default=False,
        description="Resolve the licensed track and artist: +$0.10 on a fresh resolution, nothing once known",
    )


class UsageHistoryQuery(QueryModel):
    # §8.3: usage history default 90, max 365, 400 if over
    days: int = Field(default=90, ge=1, le=365, description="1 to 365, default 90; above 365 is a 400")


class SearchQuery(PageQuery):
    q: str = Field(min_length=1, max_length=200, description="Words of the title, artist or owner handle")

    @field_validator("q")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value.strip()


class TrendingSort(StrEnum):
    VIDEOS_7D = "videos_7d"
    VIDEOS_30D = "videos_30d"
    USAGE_COUNT = "usage_count"
    VIDEO_COUNT = "video_count"


class TrendingQuery(PageQuery):
    sort: TrendingSort = TrendingSort.VIDEOS_7D
    platform: Platform | None = None


class BreakoutQuery(PageQuery):
    min_recent: int = Field(
        default=3, ge=1, description="At least this many catalog videos in the last 7 days"
    )
    min_baseline: int = Field(
        default=3,
        ge=1,
        description="At least this many catalog videos in the last 90 days (the score's base)",
    )
    platform: Platform | None = None


class SoundOut(digest_service.SoundOut):
    """The ten §2.2 fields plus what the catalog counts of the sound's videos."""

    video_count: int = Field(description="Catalog videos using the sound")
    videos_7d: int = Field(description="Catalog videos using it posted in the last 7 days")
    videos_30d: int
    videos_90d: int


class TrackResolution(Schema):
    status: Literal["resolved", "unresolved", "original_sound"]
    track_title: str | None = Field(description="The licensed track, when resolved")
    artist: str | None = Field(description="Its artist, when resolved")
    reason: str | None = Field(description="Why there is no track (or how it was resolved)")
    resolved_at: str | None = Field(description="When the resolution was made; null if never")


class SoundDetail(SoundOut):
    first_seen_at: str
    updated_at: str
    track_resolution: TrackResolution


class BreakoutSoundOut(SoundOut):
    breakout_score: float = Field(description="videos_7d x (videos_7d / videos_90d)")


class UsagePoint(Schema):
    at: str
    usage_count: int


class UsageHistory(Schema):
    sound_id: str
    days: int
    points: list[UsagePoint] = Field(description="Observed usage counts, oldest first")
