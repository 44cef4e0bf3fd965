"""Wire shapes of satellite lookups (spec §4.7, §6.3, §8.3). Result bodies are open JSON objects: the spec
names their parts, not their fields (§2.9); ``lookup/results.py`` builds them."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import Field, field_validator

from reelscope.billing.prices import BATCH_MAX_HANDLES
from reelscope.kit.pagination import MAX_OFFSET
from reelscope.kit.platforms import Platform
from reelscope.kit.schemas import LimitUpTo100, QueryModel, RequestBody, Schema

CREATOR_MAX_VIDEOS_DEFAULT = 20  # §4.7
COLLECTION_MAX_VIDEOS_DEFAULT = 50  # §4.7 hashtag lookup; sounds read the same way
DEFAULT_OUTLIER_THRESHOLD = 3.0  # §6.3: "over 3 times their median views"

LookupType = Literal["creator_lookup", "sound_lookup", "hashtag_lookup", "video_outlier"]
LookupStatus = Literal["processing", "completed", "failed"]


class Depth(StrEnum):
    STANDARD = "standard"
    DEEP = "deep"  # about 300 videos (§4.7)
    FULL = "full"  # about 500 videos


DEPTH_VIDEOS = {Depth.STANDARD: 100, Depth.DEEP: 300, Depth.FULL: 500}


class CreatorOptions(QueryModel):
    """What a creator lookup collects; shared by the single lookup (query) and the batch (body)."""

    max_videos: int = Field(
        default=CREATOR_MAX_VIDEOS_DEFAULT, ge=1, le=100, description="Recent videos returned, 1 to 100"
    )
    include_videos: bool = Field(default=True, description="Return the recent videos")
    include_outliers: bool = Field(default=True, description="Return the videos far above the median")
    outlier_threshold: float = Field(
        default=DEFAULT_OUTLIER_THRESHOLD,
        gt=1,
        le=1000,
        description="Outlier ratio from which a video counts",
    )
    include_cross_platform: bool = Field(
        default=False, description="Look for the handle on the other platforms"
    )
    include_audience: bool = Field(
        default=False, description="Audience countries and languages from comments"
    )


class CreatorLookupQuery(CreatorOptions):
    trend_analysis: bool = Field(default=False, description="Rising themes over time windows (+$0.50)")


class SoundLookupQuery(QueryModel):
    max_videos: int = Field(default=COLLECTION_MAX_VIDEOS_DEFAULT, ge=1, le=100, description="1 to 100")
    trend_analysis: bool = Field(default=False, description="time_windows, momentum and resurgence (+$0.50)")


class HashtagLookupQuery(QueryModel):
    depth: Depth = Field(
        default=Depth.STANDARD,
        description="standard; deep (about 300 videos, +$0.50, waived with trend_analysis); full (about "
        "500 videos, +$1.50). deep and full are not available on instagram",
    )
    max_videos: int = Field(default=COLLECTION_MAX_VIDEOS_DEFAULT, ge=1, le=100, description="1 to 100")
    sort: Literal["top", "recent"] = "top"
    trend_analysis: bool = Field(default=False, description="time_windows, momentum and resurgence (+$0.50)")


class BatchBody(RequestBody):
    platform: Platform
    handles: list[str] = Field(min_length=1, max_length=BATCH_MAX_HANDLES, description="1 to 25 handles")
    max_videos: int = Field(default=CREATOR_MAX_VIDEOS_DEFAULT, ge=1, le=100)
    include_videos: bool = True
    include_outliers: bool = True
    outlier_threshold: float = Field(default=DEFAULT_OUTLIER_THRESHOLD, gt=1, le=1000)
    include_cross_platform: bool = False
    include_audience: bool = Field(default=False, description="Audience data: $1.00 per creator")

    @field_validator("handles")
    @classmethod
    def _handles(cls, handles: list[str]) -> list[str]:
        cleaned = [handle.strip().lstrip("@") for handle in handles]
        if any(not handle or len(handle) > 100 for handle in cleaned):
            raise ValueError("every handle must be 1 to 100 characters")
        return cleaned

    def options(self) -> CreatorLookupQuery:
        return CreatorLookupQuery(**self.model_dump(exclude={"platform", "handles"}))


class VideoOutlierBody(RequestBody):
    platform: Platform
    video_id: str = Field(min_length=1, max_length=100, description="The platform's own id of the video")
    outlier_threshold: float = Field(default=DEFAULT_OUTLIER_THRESHOLD, gt=1, le=1000)


class RunsQuery(QueryModel):
    """§8.3: the satellite runs list takes ``offset`` (``page`` is refused); limit default 25, max 100."""

    offset: int = Field(default=0, ge=0, le=MAX_OFFSET)
    limit: LimitUpTo100 = Field(default=25, description="1 to 100, default 25; above 100 is treated as 100")
    type: Literal["creator_lookup", "sound_lookup", "hashtag_lookup"] | None = None


class RunVideosQuery(QueryModel):
    """§8.3: a lookup's videos take ``offset``; limit default 25, max 200 (400 if over)."""

    offset: int = Field(default=0, ge=0, le=MAX_OFFSET)
    limit: int = Field(default=25, ge=1, le=200, description="1 to 200, default 25; above 200 is a 400")


class LookupJob(Schema):
    """A lookup as its start and status endpoints show it."""

    job_id: str
    run_id: str
    type: LookupType
    platform: Platform
    target: str = Field(description="The handle, music id, hashtag or video id looked up")
    status: LookupStatus
    cached: bool = Field(description="A repeat within 6 hours: the earlier run, uncharged")
    request: dict[str, Any] = Field(description="The options, as the completion webhook echoes them")
    poll_url: str
    retry_after_seconds: int | None = Field(description="Suggested wait before the next poll; null when done")
    created_at: str
    started_at: str | None
    completed_at: str | None
    result: dict[str, Any] | None = Field(description="The full result once completed")
    error: dict[str, Any] | None = Field(description="`{code, message}` once failed")


class RunSummary(Schema):
    run_id: str
    job_id: str
    type: LookupType
    platform: Platform
    target: str
    status: LookupStatus
    request: dict[str, Any]
    video_count: int
    batch_id: str | None
    created_at: str
    started_at: str | None
    completed_at: str | None
    error: dict[str, Any] | None


class RunDetail(RunSummary):
    result: dict[str, Any] | None


class RunList(Schema):
    runs: list[RunSummary]
    total: int
    limit: int
    offset: int
    has_more: bool


class RunVideos(Schema):
    run_id: str
    videos: list[dict[str, Any]]
    total: int
    limit: int
    offset: int
    has_more: bool


class BatchEntry(Schema):
    handle: str
    cached: bool
    lookup: LookupJob


class BatchOut(Schema):
    batch_id: str
    platform: Platform
    status: Literal["processing", "completed", "partial_failure", "failed"]
    total: int
    completed: int
    failed: int
    creators: list[BatchEntry]
