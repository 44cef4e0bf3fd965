"""The ``data`` of every event, field by field from §6.3. Producers build these; ``publish`` checks them.

Models forbid unknown fields so a typo fails in the producer's test, not in a client's receiver.
Timestamps are aware datetimes rendered ISO 8601 with ``Z``; shapes the spec leaves open are JSON values.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    PlainSerializer,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from reelscope.kit.clock import iso
from reelscope.kit.platforms import Platform

Timestamp = Annotated[AwareDatetime, PlainSerializer(iso, return_type=str)]
# publish_date renders as YYYY-MM-DDTHH:MM:SS without a zone (ARCHITECTURE §4, spec §2.1)
PublishDate = Annotated[
    datetime, PlainSerializer(lambda value: value.strftime("%Y-%m-%dT%H:%M:%S"), return_type=str)
]


class Payload(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorInfo(Payload):
    code: str
    message: str


# --- content_research_agent.run.completed (and the legacy orbit/comet aliases) ---------------------


class RunMetrics(Payload):
    """Success metrics; ``credits_used`` is an internal count, not the charge."""

    credits_used: int = 0
    execution_time_ms: int = 0
    videos_linked: int = 0
    videos_inserted: int = 0
    videos_updated: int = 0
    meta_ads_linked: int = 0
    outliers_identified: int = 0
    language_filtered: int = 0
    exclude_keywords_filtered: int = 0
    # per-platform counts before some filters
    platforms: dict[str, int] = Field(default_factory=dict)


class FailedRunMetrics(Payload):
    """Failed runs send zeros and ``youtube_count``-style keys per platform in place of ``platforms``."""

    credits_used: int = 0
    execution_time_ms: int = 0
    videos_linked: int = 0
    videos_inserted: int = 0
    videos_updated: int = 0
    meta_ads_linked: int = 0
    outliers_identified: int = 0
    language_filtered: int = 0
    exclude_keywords_filtered: int = 0
    youtube_count: int = 0
    tiktok_count: int = 0
    instagram_count: int = 0


class AgentSettings(Payload):
    """Agent settings on a successful run (key ``orbit`` for one-shot, ``comet`` for recurring)."""

    id: str
    name: str
    keywords: list[str]
    platforms: list[Platform]
    # a cron expression even if a shortcut was chosen
    cadence: str | None
    # both set by the service (§4.4)
    min_views: int | None
    time_range: str | None
    intent: str | None
    last_run_at: Timestamp | None
    next_run_at: Timestamp | None
    is_active: bool


class FailedAgentSettings(Payload):
    """The same settings on a failed run, with ``is_recurring`` inside and the flag named ``active``."""

    id: str
    name: str
    keywords: list[str]
    platforms: list[Platform]
    cadence: str | None
    min_views: int | None
    time_range: str | None
    intent: str | None
    last_run_at: Timestamp | None
    next_run_at: Timestamp | None
    is_recurring: bool
    active: bool


class IntentSummary(Payload):
    matched: int
    total_evaluated: int


class Theme(Payload):
    stable_key: str  # constant across runs
    name: str
    why_it_works: str
    tactics: list[str]
    confidence: float
    video_count: int
    evidence_video_ids: list[str]


class AnalysisData(Payload):
    key_highlight: str | None = None
    overview: str | None = None
    themes: list[Theme] = Field(default_factory=list)
    viral_tactics: JsonValue = None
    timing_analysis: JsonValue = None
    connecting_thread: JsonValue = None
    # item shapes inside top_10_breakdown.videos and excluded_videos are not shown (§6.3)
    top_10_breakdown: JsonValue = None
    excluded_videos: JsonValue = None


class RunAnalysis(Payload):
    id: str
    status: str
    analysis_data: AnalysisData
    trends: list[Theme]  # a copy of themes
    video_count: int
    cost_usd: float  # the service's own cost


class AgentRunCompleted(Payload):
    """A successful run; waits for the AI report. Some keywords or platforms failing is still success."""

    run_id: str
    team_id: str
    user_id: str
    status: Literal["success"] = "success"
    started_at: Timestamp
    completed_at: Timestamp
    is_recurring: bool
    metrics: RunMetrics
    orbit: AgentSettings | None = None
    comet: AgentSettings | None = None
    intent_summary: IntentSummary | None = None
    # null when the AI report failed or found no new videos
    analysis: RunAnalysis | None = None
    error: None = None

    @model_validator(mode="after")
    def _one_settings_block(self) -> AgentRunCompleted:
        present, absent = (self.comet, self.orbit) if self.is_recurring else (self.orbit, self.comet)
        if present is None or absent is not None:
            raise ValueError("a one-shot run carries orbit, a recurring run carries comet")
        return self

    @model_serializer(mode="wrap")
    def _only_present_settings(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        dumped: dict[str, Any] = handler(self)
        dumped.pop("comet" if not self.is_recurring else "orbit", None)
        return dumped


class AgentRunFailed(Payload):
    """A failed run. Rarely a run whose AI report could not start is laid out like this but says
    ``success`` or ``partial_failure`` (§6.3)."""

    run_id: str
    team_id: str
    user_id: str
    status: Literal["failed", "success", "partial_failure"] = "failed"
    started_at: Timestamp
    completed_at: Timestamp
    metrics: FailedRunMetrics = Field(default_factory=FailedRunMetrics)
    content_research_agent: FailedAgentSettings
    intent_summary: IntentSummary | None = None
    analysis: None = None
    error: ErrorInfo | None


AgentRunPayload = AgentRunCompleted | AgentRunFailed


# --- content_research_agent.event.detected -----------------------------------------------------------


class Evidence(Payload):
    title: str
    url: str
    domain: str


class AgentEventDetected(Payload):
    agent_id: str
    agent_name: str
    is_recurring: bool
    event_id: str
    title: str
    summary: str
    salience: float = Field(ge=0, le=10)
    source: Literal["news_scan", "corpus_burst"]
    # breaking-story events always say confirmed (§6.1); the lifecycle also has candidate, dismissed, expired
    status: Literal["confirmed"] = "confirmed"
    detected_at: Timestamp
    confirmed_at: Timestamp
    expires_at: Timestamp
    event_date: None = None
    keywords: list[str]
    keywords_added: list[str]
    evidence: list[Evidence]
    action_taken: Literal["collecting_early", "breaking_ingest", "timely_keywords", "none"]
    next_run_at: Timestamp | None


# --- satellite.lookup.completed ---------------------------------------------------------------------


class LookupCompleted(Payload):
    """One message per creator for a batch; none for a cached repeat within 6 hours (§6.3)."""

    run_id: str
    team_id: str
    user_id: str
    status: Literal["success", "failed"]
    type: Literal["creator_lookup", "sound_lookup", "hashtag_lookup", "video_outlier"]
    platform: Platform
    started_at: Timestamp
    completed_at: Timestamp
    metrics: int = 0  # "currently always 0"
    # echo of options such as include_videos, max_videos, trend_analysis, data_intelligence
    request: dict[str, JsonValue]
    results: JsonValue = None  # the full result on success
    error: ErrorInfo | None = None

    @model_validator(mode="after")
    def _error_iff_failed(self) -> LookupCompleted:
        if (self.status == "failed") != (self.error is not None):
            raise ValueError("error is set exactly when status is failed")
        return self


# --- trends.daily.completed and trends.region.completed ---------------------------------------------


class Velocity(Payload):
    band: Literal["breaking", "accelerating", "sustained", "fading"] | None
    count_24h_total: int
    median_views: float
    source: str
    per_platform: dict[str, int]


class ExemplarAuthor(Payload):
    username: str
    avatar_url: str | None
    verified: bool


class TrendExemplar(Payload):
    video_id: str
    url: str
    platform: Platform
    views: int
    thumbnail_url: str | None
    publish_date: PublishDate
    author: ExemplarAuthor


class TrendItem(Payload):
    trend_id: str
    trend_ranking_id: str
    title: str
    description: str
    ranking: int
    scrape_status: str
    exemplar_count: int
    velocity: Velocity
    top_exemplars: list[TrendExemplar]


class TrendsCompleted(Payload):
    """A trend list update; same-day updates share ``trend_group_id``. No ``status`` on success."""

    trend_group_id: str
    date: date  # the previous day, YYYY-MM-DD
    region: str
    trends: list[TrendItem]


class TrendsFailed(Payload):
    run_id: str
    region: str
    status: Literal["failed"] = "failed"
    completed_at: Timestamp
    error: ErrorInfo


TrendsPayload = TrendsCompleted | TrendsFailed


# --- tracking ---------------------------------------------------------------------------------------


class TrackingSnapshot(Payload):
    """Zero or unknown numbers are omitted, so every field is optional (§6.3)."""

    # creators and videos
    followers: int | None = None
    total_views: int | None = None
    total_likes: int | None = None
    delta_followers: int | None = None
    delta_total_views: int | None = None
    delta_total_likes: int | None = None
    # creators may add
    subscribers: int | None = None
    following: int | None = None
    total_videos: int | None = None
    posts_analyzed: int | None = None
    delta_subscribers: int | None = None
    # videos
    title: str | None = None
    views: int | None = None
    likes: int | None = None
    comments: int | None = None
    shares: int | None = None
    bookmarks: int | None = None
    delta_views: int | None = None
    delta_likes: int | None = None
    delta_comments: int | None = None
    delta_shares: int | None = None
    delta_bookmarks: int | None = None

    @model_serializer(mode="wrap")
    def _omit_zero_and_unknown(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        dumped: dict[str, Any] = handler(self)
        return {key: value for key, value in dumped.items() if value not in (None, 0, "")}


class TrackingCycleCompleted(Payload):
    tracking_type: Literal["creator", "video"]
    tracking_id: str
    platform: Platform
    # creators carry platform_handle; videos carry video_url instead
    platform_handle: str | None = None
    video_url: str | None = None
    snapshot: TrackingSnapshot
    new_posts_count: int
    report_available: bool
    dashboard_url: str

    @model_validator(mode="after")
    def _handle_or_url(self) -> TrackingCycleCompleted:
        if self.tracking_type == "creator" and (self.platform_handle is None or self.video_url is not None):
            raise ValueError("a creator cycle carries platform_handle")
        if self.tracking_type == "video" and (self.video_url is None or self.platform_handle is not None):
            raise ValueError("a video cycle carries video_url instead of platform_handle")
        return self

    @model_serializer(mode="wrap")
    def _one_identity(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        dumped: dict[str, Any] = handler(self)
        dumped.pop("video_url" if self.tracking_type == "creator" else "platform_handle", None)
        return dumped


class OutlierVideo(Payload):
    url: str
    title: str | None
    views: int
    median_views: float
    outlier_ratio: float  # views / creator median
    weighted_score: float  # ln(outlier_ratio) x ln(median_views)
    publish_date: PublishDate


class TrackingOutlierDetected(Payload):
    """A tracked creator posted a video over 3 times their median views."""

    tracking_type: Literal["creator", "video"]
    tracking_id: str
    platform: Platform
    platform_handle: str
    outlier_videos: list[OutlierVideo]
    creator_median_views: float
    dashboard_url: str


PauseReason = Literal["insufficient_credits", "max_failures_reached"]


class TrackingPaused(Payload):
    """After 3 failed checks in a row or when the balance cannot cover a check."""

    tracking_type: Literal["creator", "video"]
    tracking_id: str
    platform: Platform
    platform_handle: str | None
    reason: PauseReason
    pause_reason: PauseReason  # the same value under both names

    dashboard_url: str

    @model_validator(mode="after")
    def _same_reason(self) -> TrackingPaused:
        if self.reason != self.pause_reason:
            raise ValueError("reason and pause_reason carry the same value")
        return self


# --- audience.snapshot.completed --------------------------------------------------------------------


class ConfidencePerSignal(Payload):
    age: float = Field(ge=0, le=1)
    gender: float = Field(ge=0, le=1)
    country: float = Field(ge=0, le=1)
    city: float = Field(ge=0, le=1)
    language: float = Field(ge=0, le=1)


class SignalBreakdown(Payload):
    comments: int
    followers: int


class AudienceSnapshotCompleted(Payload):
    """``data_source: profile_only`` means no audience data was found (low confidence, refunded).
    A failed snapshot sends nothing, so there is no failed form."""

    snapshot_id: str
    platform: Platform
    handle: str
    sample_size: int
    cost_usd: float  # the service's own cost
    confidence_per_signal: ConfidencePerSignal
    confidence_level: Literal["low", "medium", "high"]
    data_source: str
    signal_breakdown: SignalBreakdown
