"""Wire shapes of satellite lookups (spec §4.7, §6.3, §8.3). Result bodies are open JSON objects: the spec
names their parts, not their fields (§2.9); ``lookup/results.py`` builds them."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal, Self

from pydantic import (
    BeforeValidator,
    Field,
    PrivateAttr,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from reelscope.billing.prices import BATCH_MAX_HANDLES
from reelscope.kit.pagination import MAX_OFFSET
from reelscope.kit.platforms import Platform
from reelscope.kit.schemas import LimitUpTo100, QueryModel, RequestBody, Schema
from reelscope.kit.video_links import VIDEO_URL_FORMS, VideoLink, resolve_video
from reelscope.worker.jobs.schemas import PendingJob

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


# --- the creator options, in Reelscope's flags or the older clients' words (issue 28, ADR 0043) ---------

# ``include=videos,outliers``: the parts named are on, the others off
INCLUDE_FLAGS = {"videos": "include_videos", "outliers": "include_outliers"}
# ``cross_links=true``: the same as include_cross_platform
CROSS_LINKS_FLAG = "include_cross_platform"
_BOOL = TypeAdapter(bool)


def _words(value: Any) -> Any:
    """``videos,outliers``, or a list of words, as a list of words."""
    if value is None or not isinstance(value, str | list):
        return value
    items = value if isinstance(value, list) else [value]
    return [part.strip() for item in items for part in str(item).split(",") if part.strip()]


Include = Annotated[list[Literal["videos", "outliers"]] | None, BeforeValidator(_words)]
INCLUDE_DOC = (
    "Comma list of `videos`, `outliers`: the parts named are included, the others not (the same as "
    "`include_videos` and `include_outliers`, which it may not contradict)"
)
CROSS_LINKS_DOC = "The same as `include_cross_platform`"


def _as_bool(value: Any) -> bool | None:
    try:
        return _BOOL.validate_python(value)
    except ValidationError:
        return None  # the field's own validation names it


def _client_words(data: Any) -> Any:
    """``include`` and ``cross_links`` turned into the include flags they stand for, so that both
    forms make the same lookup (one cache key, one price, one echo). A value that is not understood is
    left to its field's validation; a flag both sent and contradicted is refused as ambiguous."""
    if not isinstance(data, dict):
        return data
    data = dict(data)
    wanted: dict[str, bool] = {}
    words = _words(data.get("include"))
    if isinstance(words, list) and all(word in INCLUDE_FLAGS for word in words):
        del data["include"]
        wanted |= {flag: word in words for word, flag in INCLUDE_FLAGS.items()}
    cross = _as_bool(data.get("cross_links"))
    if cross is not None:
        del data["cross_links"]
        wanted[CROSS_LINKS_FLAG] = cross
    for flag, value in wanted.items():
        if flag in data and _as_bool(data[flag]) not in (None, value):
            source = "cross_links" if flag == CROSS_LINKS_FLAG else "include"
            raise ValueError(f"{source} and {flag} disagree: send one of them")
        data.setdefault(flag, value)
    return data


class CreatorOptions(QueryModel):
    """What a creator lookup collects (the single lookup's query; the batch body has the same fields)."""

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
    include: Include = Field(default=None, exclude=True, description=INCLUDE_DOC)
    cross_links: bool | None = Field(default=None, exclude=True, description=CROSS_LINKS_DOC)

    @model_validator(mode="before")
    @classmethod
    def _older_words(cls, data: Any) -> Any:
        return _client_words(data)


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


def _handle(value: str) -> str:
    cleaned = value.strip().lstrip("@")
    if not cleaned or len(cleaned) > 100:
        raise ValueError("every handle must be 1 to 100 characters")
    return cleaned


Handle = Annotated[str, BeforeValidator(lambda v: _handle(v) if isinstance(v, str) else v)]


class BatchCreator(RequestBody):
    platform: Platform
    username: Handle = Field(description="The creator's handle, with or without @")


class BatchBody(RequestBody):
    """Up to 25 creators: `handles` of one `platform`, or `creators` each with its own platform."""

    platform: Platform | None = Field(default=None, description="The platform of every handle in `handles`")
    handles: list[Handle] | None = Field(
        default=None, min_length=1, max_length=BATCH_MAX_HANDLES, description="1 to 25 handles of `platform`"
    )
    creators: list[BatchCreator] | None = Field(
        default=None,
        min_length=1,
        max_length=BATCH_MAX_HANDLES,
        description="1 to 25 `{platform, username}`, platforms mixed at will (instead of `handles`)",
    )
    max_videos: int = Field(default=CREATOR_MAX_VIDEOS_DEFAULT, ge=1, le=100)
    include_videos: bool = True
    include_outliers: bool = True
    outlier_threshold: float = Field(default=DEFAULT_OUTLIER_THRESHOLD, gt=1, le=1000)
    include_cross_platform: bool = False
    include_audience: bool = Field(default=False, description="Audience data: $1.00 per creator")
    include: Include = Field(default=None, exclude=True, description=INCLUDE_DOC)
    cross_links: bool | None = Field(default=None, exclude=True, description=CROSS_LINKS_DOC)

    @model_validator(mode="before")
    @classmethod
    def _older_words(cls, data: Any) -> Any:
        return _client_words(data)

    @model_validator(mode="after")
    def _one_list(self) -> Self:
        if (self.handles is None) == (self.creators is None):
            raise ValueError("send handles (with platform) or creators, one of them")
        if self.handles is not None and self.platform is None:
            raise ValueError("platform is required with handles")
        both = self.creators is not None and self.platform is not None
        if both and any(creator.platform is not self.platform for creator in self.creators or ()):
            raise ValueError("platform disagrees with the platforms of creators: send one of them")
        return self

    def targets(self) -> list[tuple[Platform, str]]:
        """(platform, handle) of every creator asked, in order."""
        if self.creators is not None:
            return [(creator.platform, creator.username) for creator in self.creators]
        assert self.platform is not None and self.handles is not None  # _one_list
        return [(self.platform, handle) for handle in self.handles]

    def options(self) -> CreatorLookupQuery:
        return CreatorLookupQuery(**self.model_dump(exclude={"platform", "handles", "creators"}))


class VideoOutlierBody(RequestBody):
    """One video: `video_id` with `platform`, or its `url` (`platform` then optional)."""

    platform: Platform | None = Field(
        default=None, description="Required with video_id; the url's own with url"
    )
    video_id: str | None = Field(
        default=None, min_length=1, max_length=100, description="The platform's own id of the video"
    )
    url: str | None = Field(
        default=None, min_length=1, max_length=2048, description=f"A link to the video: {VIDEO_URL_FORMS}"
    )
    outlier_threshold: float = Field(default=DEFAULT_OUTLIER_THRESHOLD, gt=1, le=1000)
    _video: VideoLink = PrivateAttr()

    @model_validator(mode="after")
    def _one_video(self) -> Self:
        self._video = resolve_video(self.platform, self.video_id, self.url)
        return self

    def video(self) -> VideoLink:
        return self._video


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
    finalized: bool = Field(
        description="§2.6: true once completed or failed (a lookup has no secondary jobs)"
    )
    pending_jobs: list[PendingJob] = Field(description="§2.6: always empty")


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
    finalized: bool = Field(description="§2.6: true once completed or failed")
    pending_jobs: list[PendingJob] = Field(description="§2.6: always empty")


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
    platform: Platform
    handle: str
    cached: bool
    lookup: LookupJob


class BatchOut(Schema):
    batch_id: str
    platform: Platform | None = Field(description="The creators' platform; null when they are on several")
    status: Literal["processing", "completed", "partial_failure", "failed"]
    total: int
    completed: int
    failed: int
    creators: list[BatchEntry]
    finalized: bool = Field(description="§2.6: true once every lookup is completed or failed")
    pending_jobs: list[PendingJob] = Field(description="§2.6: always empty")
