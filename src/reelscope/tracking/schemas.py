"""Wire shapes of /v1/tracking (spec §4.7, §6.3, §8.3). The spec names the routes and the event fields;
the record fields beyond those (§2.9) are ours (ADR 0023)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal, Self

from pydantic import BeforeValidator, Field, PrivateAttr, field_validator, model_validator

from reelscope.kit.pagination import MAX_PAGE, PageQuery
from reelscope.kit.platforms import Platform
from reelscope.kit.schemas import IsoDate, QueryModel, RequestBody, Schema
from reelscope.kit.video_links import (
    PROFILE_URL_FORMS,
    VIDEO_URL_FORMS,
    ProfileLink,
    VideoLink,
    resolve_creator,
    resolve_video,
)
from reelscope.worker.jobs.schemas import PendingJob


class Cadence(StrEnum):
    """§4.7 tracking cadences; each is a fixed interval from the creation time."""

    SIX_HOURS = "six_hours"
    TWELVE_HOURS = "twelve_hours"
    DAILY = "daily"
    EVERY_OTHER_DAY = "every_other_day"
    WEEKLY = "weekly"
    BI_WEEKLY = "bi_weekly"
    MONTHLY = "monthly"


HOUR = 3600
CADENCE_SECONDS: dict[Cadence, int] = {
    Cadence.SIX_HOURS: 6 * HOUR,
    Cadence.TWELVE_HOURS: 12 * HOUR,
    Cadence.DAILY: 24 * HOUR,
    Cadence.EVERY_OTHER_DAY: 48 * HOUR,
    Cadence.WEEKLY: 7 * 24 * HOUR,
    Cadence.BI_WEEKLY: 14 * 24 * HOUR,
    Cadence.MONTHLY: 30 * 24 * HOUR,
}


class Depth(StrEnum):
    STANDARD = "standard"
    DEEP = "deep"
    FULL = "full"


DEPTH_VIDEOS: dict[Depth, int] = {Depth.STANDARD: 50, Depth.DEEP: 200, Depth.FULL: 500}
SCRAPE_CADENCE_DOC = "The same as `cadence` (the older clients' name)"


def _scrape_cadence(body: TrackCreator | TrackVideo | TrackingUpdate) -> None:
    """``scrape_cadence`` is ``cadence`` under the older clients' name (issue 28); both may be sent
    when they agree."""
    if body.scrape_cadence is None:
        return
    if "cadence" in body.model_fields_set and body.cadence not in (None, body.scrape_cadence):
        raise ValueError("cadence and scrape_cadence disagree: send one of them")
    body.cadence = body.scrape_cadence


class TrackCreator(RequestBody):
    """A creator: `handle` with `platform`, or the `url` of their profile (`platform` then optional)."""

    platform: Platform | None = Field(
        default=None, description="Required with handle; the url's own with url"
    )
    handle: str | None = Field(
        default=None, min_length=1, max_length=100, description="The creator's handle, with or without @"
    )
    url: str | None = Field(
        default=None, min_length=1, max_length=2048, description=f"A link to the profile: {PROFILE_URL_FORMS}"
    )
    cadence: Cadence = Cadence.DAILY
    scrape_cadence: Cadence | None = Field(default=None, description=SCRAPE_CADENCE_DOC)
    collection_depth: Depth | None = Field(
        default=None,
        description="Only `standard`: tracking starts with the creator's latest 50 posts; deep and full are "
        "a paid collection afterwards (`POST /v1/tracking/creators/{id}/posts/collect`)",
    )
    _creator: ProfileLink = PrivateAttr()

    @field_validator("collection_depth")
    @classmethod
    def _first_posts(cls, depth: Depth | None) -> Depth | None:
        # a deeper first collection would cost more than the $0.25 of §4.7: refused, not ignored
        if depth not in (None, Depth.STANDARD):
            raise ValueError(
                "tracking starts with the latest 50 posts (standard); collect deeper afterwards with "
                "POST /v1/tracking/creators/{id}/posts/collect"
            )
        return depth

    @model_validator(mode="after")
    def _one_creator(self) -> Self:
        _scrape_cadence(self)
        self._creator = resolve_creator(self.platform, self.handle, self.url)
        return self

    def creator(self) -> ProfileLink:
        return self._creator


class TrackVideo(RequestBody):
    """A video: `video_id` with `platform`, or its `url` (`platform` then optional)."""

    platform: Platform | None = Field(
        default=None, description="Required with video_id; the url's own with url"
    )
    video_id: str | None = Field(
        default=None, min_length=1, max_length=100, description="The platform's id of the video"
    )
    url: str | None = Field(
        default=None, min_length=1, max_length=2048, description=f"A link to the video: {VIDEO_URL_FORMS}"
    )
    cadence: Cadence = Cadence.DAILY
    scrape_cadence: Cadence | None = Field(default=None, description=SCRAPE_CADENCE_DOC)
    tracking_account_id: str | None = Field(
        default=None,
        max_length=100,
        description="Accepted: the id of one of the team's tracked creators (404 when it is not one); the "
        "video is tracked on its own",
    )
    _video: VideoLink = PrivateAttr()

    @model_validator(mode="after")
    def _one_video(self) -> Self:
        _scrape_cadence(self)
        self._video = resolve_video(self.platform, self.video_id, self.url)
        return self

    def video(self) -> VideoLink:
        return self._video


class TrackingUpdate(RequestBody):
    status: Literal["active", "paused"] | None = Field(
        default=None, description="`active` resumes a paused item (§3); `paused` stops its cycles"
    )
    cadence: Cadence | None = None
    scrape_cadence: Cadence | None = Field(default=None, description=SCRAPE_CADENCE_DOC)

    @model_validator(mode="after")
    def _something(self) -> Self:
        _scrape_cadence(self)
        if self.status is None and self.cadence is None:
            raise ValueError("give status or cadence")
        return self


class TrackingListQuery(PageQuery):
    """§8.3: default 20, max 100 (above clamps)."""

    search: str | None = Field(default=None, max_length=200, description="Part of the handle, name or title")
    status: Literal["active", "paused"] | None = None
    platform: Platform | None = None


class SnapshotsQuery(QueryModel):
    start_date: IsoDate | None = Field(default=None, description="YYYY-MM-DD, inclusive (UTC)")
    end_date: IsoDate | None = Field(default=None, description="YYYY-MM-DD, inclusive (UTC)")
    limit: int = Field(default=30, ge=1, le=365, description="1 to 365, default 30; above 365 is a 400")


# the older clients' names of the two orders (issue 28); oldest first is not offered
POST_ORDER_NAMES = {"publish_date_desc": "recent", "views_desc": "views"}


class PostsQuery(QueryModel):
    page: int = Field(default=1, ge=1, le=MAX_PAGE)
    limit: int = Field(default=50, ge=1, le=200, description="1 to 200, default 50; above 200 is a 400")
    sort: Annotated[
        Literal["recent", "views"],
        BeforeValidator(lambda v: POST_ORDER_NAMES.get(v, v) if isinstance(v, str) else v),
    ] = Field(default="recent", description="recent (or publish_date_desc) or views (or views_desc)")


class CollectPosts(RequestBody):
    depth: Depth = Field(default=Depth.STANDARD, description="standard 50 videos, deep 200, full 500")


class TrackedOut(Schema):
    """A tracked creator or video (fields beyond §6.3's are ours, §2.9)."""

    id: str
    tracking_type: Literal["creator", "video"]
    platform: str
    platform_handle: str | None = None
    video_id: str | None = None
    video_url: str | None = None
    title: str | None = None
    status: Literal["active", "paused"]
    pause_reason: str | None = None
    cadence: str
    consecutive_failures: int
    cycles_completed: int
    last_checked_at: str | None = None
    next_check_at: str | None = None
    latest_snapshot: dict[str, Any] | None = None
    dashboard_url: str
    created_at: str
    updated_at: str


class TrackedDetail(TrackedOut):
    """One item with the §2.6 async fields (its cycle and audience jobs)."""

    finalized: bool
    pending_jobs: list[PendingJob]


class SnapshotOut(Schema):
    id: str
    taken_at: str
    scheduled_for: str
    snapshot: dict[str, Any] = Field(description="§6.3 snapshot: zero or unknown numbers are omitted")
    new_posts_count: int


class SnapshotList(Schema):
    tracking_id: str
    snapshots: list[SnapshotOut] = Field(description="Newest first")
    count: int


class PostOut(Schema):
    id: str
    video_id: str
    url: str
    title: str | None
    thumbnail_url: str | None
    duration: int | None
    hashtags: list[str]
    publish_date: str
    views: int
    likes: int
    comments: int
    shares: int | None
    bookmarks: int | None
    outlier_ratio: float | None = Field(description="views / the creator's median views, when known")
    is_outlier: bool
    first_seen_at: str
    updated_at: str


class ReportOut(Schema):
    tracking_id: str
    tracking_type: Literal["creator", "video"]
    report_available: bool
    generated_at: str | None
    report: dict[str, Any] | None


class Cadences(Schema):
    tracking_id: str
    posts_analyzed: int
    first_post_at: str | None
    last_post_at: str | None
    posts_per_week: float | None
    average_gap_hours: float | None
    median_gap_hours: float | None
    by_weekday: dict[str, int] = Field(description="Posts per UTC weekday (monday … sunday)")
    by_hour: dict[str, int] = Field(description='Posts per UTC hour, "00" … "23"')


class CollectionOut(Schema):
    collection_id: str
    tracking_id: str
    depth: str
    max_videos: int
    status: str = Field(description="pending, processing, completed, failed or expired")
    poll_url: str
    videos_collected: int | None = None
    new_posts: int | None = None
    error: dict[str, Any] | None = None
    created_at: str
    completed_at: str | None = None
