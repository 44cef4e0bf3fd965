"""Response and request models of the Reelscope API, generated from ``/openapi.json`` by
``python -m reelscope.client.codegen``; do not edit by hand (tests/client/test_drift.py
checks them).

Field names are the spec's snake_case; unknown fields are kept (``model_extra``), as §9 asks.
"""

from __future__ import annotations

from typing import Any, Literal

from reelscope.client.base import ApiModel, Envelope, ListResponse, NoContent, Page, Pagination

__all__ = [
    "ActivityEntry",
    "ActivityList",
    "AdOrder",
    "AdPage",
    "Affinity",
    "AgentCreated",
    "AgentHookPage",
    "AgentList",
    "AgentOut",
    "AgentRunList",
    "AudienceJobOut",
    "AudiencePart",
    "AutoTopUp",
    "AutonomyLevel",
    "Balance",
    "BatchCreator",
    "BatchEntry",
    "BatchOut",
    "Benchmarks",
    "BreakoutSoundOut",
    "Cadence",
    "Cadences",
    "CategoryOut",
    "CollectionOut",
    "Collector",
    "CollectorBucket",
    "CollectorError",
    "CollectorTurn",
    "DeliveryLog",
    "DeliveryOut",
    "Depth",
    "DigestSoundOut",
    "EmergingPage",
    "EmergingTrend",
    "Envelope",
    "EventList",
    "EventOut",
    "EvidenceOut",
    "Exemplar",
    "ExemplarAuthor",
    "Genre",
    "GenrePair",
    "HashtagPerformance",
    "HashtagStat",
    "HookMatch",
    "HookOut",
    "HookTypeOut",
    "HookTypes",
    "ItemOrder",
    "KeyDailyCap",
    "KeywordSuggestion",
    "LibraryHook",
    "LibrarySort",
    "ListResponse",
    "LookupJob",
    "LookupRunList",
    "Momentum",
    "NoContent",
    "OutlierOrder",
    "OutlierPage",
    "Page",
    "Pagination",
    "PendingJob",
    "Platform",
    "PostOut",
    "ProposalList",
    "ProposalOut",
    "Region",
    "ReportOut",
    "RunDetail",
    "RunOut",
    "RunSummary",
    "RunVideos",
    "SimilarCreator",
    "SimilarCreators",
    "SlideshowPage",
    "SnapshotList",
    "SnapshotOut",
    "Sort",
    "SoundDetail",
    "SoundOrder",
    "SoundOut",
    "SuggestMode",
    "TimelyKeyword",
    "TrackResolution",
    "TrackedDetail",
    "TrackedOut",
    "TrendBatch",
    "TrendGroupOut",
    "TrendInfo",
    "TrendRow",
    "TrendingSort",
    "TypeSort",
    "UsageHistory",
    "UsagePoint",
    "VideoOut",
    "VideoPage",
    "WebhookEndpointOut",
    "Window",
]

AdOrder = Literal["created_at", "page_like_count"]
AutonomyLevel = Literal["suggest", "autopilot"]
Cadence = Literal["six_hours", "twelve_hours", "daily", "every_other_day", "weekly", "bi_weekly", "monthly"]
Depth = Literal["standard", "deep", "full"]
ItemOrder = Literal["publish_date", "views", "created_at"]
LibrarySort = Literal["usage_count", "weighted_score"]
OutlierOrder = Literal["outlier_ratio", "avg_views", "follower_count", "weighted_score"]
PendingJob = dict[str, Any]
Platform = Literal["youtube", "tiktok", "instagram"]
Sort = Literal["asc", "desc"]
SoundOrder = Literal["rising", "growth_7d"]
SuggestMode = Literal["create", "refresh", "opportunity"]
TrendingSort = Literal["videos_7d", "videos_30d", "usage_count", "video_count"]
TypeSort = Literal["median_weighted_score", "strong_hit_rate", "hook_count"]
Window = Literal[7, 14, 30]


class ActivityEntry(ApiModel):
    """ActivityEntry"""

    __schema_name__ = "ActivityEntry"

    id: str
    at: str
    action: str
    summary: str
    change_id: str | None
    event_id: str | None
    run_id: str | None
    detail: dict[str, Any]


class ActivityList(ApiModel):
    """ActivityList"""

    __schema_name__ = "ActivityList"

    count: int
    activity: list[ActivityEntry]


class AdPage(ApiModel):
    """AdPage"""

    __schema_name__ = "AdPage"

    total: int
    limit: int
    offset: int
    page: int
    ads: list[dict[str, Any]]


class Genre(ApiModel):
    """Genre"""

    __schema_name__ = "Genre"

    key: str
    name: str
    kind: str
    video_count: int
    creator_count: int
    total_views: int


class GenrePair(ApiModel):
    """GenrePair"""

    __schema_name__ = "GenrePair"

    genres: list[str]
    strength: float
    video_strength: float
    creator_strength: float
    lift: float
    video_count: int
    creator_count: int
    evidence_video_ids: list[str]


class Affinity(ApiModel):
    """§4.4 affinity (beta): genre adjacency of the agent's videos; not paged (§8.3)."""

    __schema_name__ = "Affinity"

    video_count: int
    genres: list[Genre]
    pairs: list[GenrePair]


class TimelyKeyword(ApiModel):
    """TimelyKeyword"""

    __schema_name__ = "TimelyKeyword"

    keyword: str
    event_id: str | None
    expires_at: str | None
    change_id: str | None = None


class AgentCreated(ApiModel):
    """AgentCreated"""

    __schema_name__ = "AgentCreated"

    id: str
    name: str
    is_recurring: bool
    intent: str | None
    keywords: list[str]
    exclude_keywords: list[str]
    pinned_keywords: list[str]
    platforms: list[Platform]
    meta_ads_enabled: bool
    data_intelligence_enabled: bool
    cadence: str | None
    language: str | None
    autopilot: bool
    cognition_enabled: bool
    timely_keywords: list[TimelyKeyword]
    autonomy_level: str
    autopilot_unlocked: bool
    is_active: bool
    min_views: int
    time_range: str
    status: str
    latest_run_id: str | None
    last_run_at: str | None
    next_run_at: str | None
    finalized: bool
    pending_jobs: list[PendingJob]
    analysis_data: dict[str, Any] | None
    created_at: str
    updated_at: str
    job_id: str
    run_id: str


class AgentHookPage(ApiModel):
    """`{data, pagination, coverage}`: `coverage` counts every linked video, with and without a hook."""

    __schema_name__ = "AgentHookPage"

    data: list[dict[str, Any]]
    pagination: Pagination
    coverage: dict[str, Any]


class AgentOut(ApiModel):
    """AgentOut"""

    __schema_name__ = "AgentOut"

    id: str
    name: str
    is_recurring: bool
    intent: str | None
    keywords: list[str]
    exclude_keywords: list[str]
    pinned_keywords: list[str]
    platforms: list[Platform]
    meta_ads_enabled: bool
    data_intelligence_enabled: bool
    cadence: str | None
    language: str | None
    autopilot: bool
    cognition_enabled: bool
    timely_keywords: list[TimelyKeyword]
    autonomy_level: str
    autopilot_unlocked: bool
    is_active: bool
    min_views: int
    time_range: str
    status: str
    latest_run_id: str | None
    last_run_at: str | None
    next_run_at: str | None
    finalized: bool
    pending_jobs: list[PendingJob]
    analysis_data: dict[str, Any] | None
    created_at: str
    updated_at: str


class AgentList(ApiModel):
    """AgentList"""

    __schema_name__ = "AgentList"

    limit: int
    page: int
    count: int
    agents: list[AgentOut]


class RunOut(ApiModel):
    """RunOut"""

    __schema_name__ = "RunOut"

    id: str
    agent_id: str
    job_id: str | None
    trigger: str
    scheduled_for: str | None
    status: str
    charged_credits: int
    refunded: bool
    metrics: dict[str, Any] | None
    targets: list[dict[str, Any]] | None
    error: dict[str, Any] | None
    analysis: dict[str, Any] | None
    started_at: str | None
    completed_at: str | None
    created_at: str
    finalized: bool
    pending_jobs: list[PendingJob]


class AgentRunList(ApiModel):
    """RunList"""

    __schema_name__ = "reelscope__agent__schemas__RunList"

    limit: int
    page: int
    count: int
    runs: list[RunOut]


class AudienceJobOut(ApiModel):
    """An audience snapshot job: its status and, once completed, the snapshot."""

    __schema_name__ = "AudienceJobOut"

    snapshot_id: str
    tracking_id: str | None
    platform: str
    handle: str
    status: str
    poll_url: str
    created_at: str
    completed_at: str | None = None
    expires_at: str | None = None
    error: dict[str, Any] | None = None
    snapshot: dict[str, Any] | None = None


class AudiencePart(ApiModel):
    """The creator's latest audience demographics or geography, with its pending audience jobs (§2.6)."""

    __schema_name__ = "AudiencePart"

    tracking_id: str
    snapshot_id: str | None
    generated_at: str | None
    sample_size: int
    data_source: str | None
    confidence_per_signal: dict[str, float]
    confidence_level: str
    signal_breakdown: dict[str, int]
    demographics: dict[str, dict[str, float]] | None = None
    geography: dict[str, dict[str, float]] | None = None
    finalized: bool
    pending_jobs: list[PendingJob]


class AutoTopUp(ApiModel):
    """AutoTopUp"""

    __schema_name__ = "AutoTopUp"

    below_credits: int
    amount_credits: int
    last_top_up_at: str | None


class KeyDailyCap(ApiModel):
    """The calling API key's daily spending cap (beyond the spec, issue 30, ADR 0047): a charge that
    would take ``spent_today_credits`` past ``cap_credits`` is 402 ``daily_cap_reached``.
    """

    __schema_name__ = "KeyDailyCap"

    cap_credits: int
    cap_usd: float
    spent_today_credits: int
    spent_today_usd: float
    left_today_credits: int
    resets_at: str


class Balance(ApiModel):
    """Balance"""

    __schema_name__ = "Balance"

    credits_remaining: int
    balance_usd: float
    auto_top_up: AutoTopUp | None
    key_daily_cap: KeyDailyCap | None = None


class BatchCreator(ApiModel):
    """BatchCreator"""

    __schema_name__ = "BatchCreator"

    platform: Platform
    username: str


class LookupJob(ApiModel):
    """A lookup as its start and status endpoints show it."""

    __schema_name__ = "LookupJob"

    job_id: str
    run_id: str
    type: Literal["creator_lookup", "sound_lookup", "hashtag_lookup", "video_outlier"]
    platform: Platform
    target: str
    status: Literal["processing", "completed", "failed"]
    cached: bool
    request: dict[str, Any]
    poll_url: str
    retry_after_seconds: int | None
    created_at: str
    started_at: str | None
    completed_at: str | None
    result: dict[str, Any] | None
    error: dict[str, Any] | None
    finalized: bool
    pending_jobs: list[PendingJob]


class BatchEntry(ApiModel):
    """BatchEntry"""

    __schema_name__ = "BatchEntry"

    platform: Platform
    handle: str
    cached: bool
    lookup: LookupJob


class BatchOut(ApiModel):
    """BatchOut"""

    __schema_name__ = "BatchOut"

    batch_id: str
    platform: Platform | None
    status: Literal["processing", "completed", "partial_failure", "failed"]
    total: int
    completed: int
    failed: int
    creators: list[BatchEntry]
    finalized: bool
    pending_jobs: list[PendingJob]


class Benchmarks(ApiModel):
    """Benchmarks"""

    __schema_name__ = "Benchmarks"

    computed_at: str | None
    video_count: int
    tiers: list[dict[str, Any]]


class BreakoutSoundOut(ApiModel):
    """BreakoutSoundOut"""

    __schema_name__ = "BreakoutSoundOut"

    id: str
    title: str
    duration: int | None
    platform: str
    cover_url: str
    is_original: bool
    usage_count: int | None
    owner_handle: str | None
    owner_nickname: str | None
    is_commerce_music: bool | None
    video_count: int
    videos_7d: int
    videos_30d: int
    videos_90d: int
    breakout_score: float


class Cadences(ApiModel):
    """Cadences"""

    __schema_name__ = "Cadences"

    tracking_id: str
    posts_analyzed: int
    first_post_at: str | None
    last_post_at: str | None
    posts_per_week: float | None
    average_gap_hours: float | None
    median_gap_hours: float | None
    by_weekday: dict[str, int]
    by_hour: dict[str, int]


class CategoryOut(ApiModel):
    """CategoryOut"""

    __schema_name__ = "CategoryOut"

    category: str
    hook_count: int


class CollectionOut(ApiModel):
    """CollectionOut"""

    __schema_name__ = "CollectionOut"

    collection_id: str
    tracking_id: str
    depth: str
    max_videos: int
    status: str
    poll_url: str
    videos_collected: int | None = None
    new_posts: int | None = None
    error: dict[str, Any] | None = None
    created_at: str
    completed_at: str | None = None


class CollectorBucket(ApiModel):
    """A source's quota bucket: what the current window allows, used and leaves (issue 26)."""

    __schema_name__ = "CollectorBucket"

    name: str
    daily_limit: int | None
    used: int
    used_background: int
    background_limit: int | None
    left: int | None
    resets_at: str | None
    paused_until: str | None
    pause_reason: str | None


class CollectorError(ApiModel):
    """CollectorError"""

    __schema_name__ = "CollectorError"

    kind: str
    message: str | None
    at: str | None


class CollectorTurn(ApiModel):
    """A recurring pull of the source (a country's popular chart) and when it is due next."""

    __schema_name__ = "CollectorTurn"

    name: str
    next_at: str | None
    runs: int


class Collector(ApiModel):
    """One enabled data source, as an operator needs to see it."""

    __schema_name__ = "Collector"

    name: str
    capabilities: dict[str, list[str]]
    state: str
    state_until: str | None
    reason: str | None
    buckets: list[CollectorBucket]
    turns: list[CollectorTurn]
    calls: int
    last_success_at: str | None
    last_error: CollectorError | None


class DeliveryOut(ApiModel):
    """One delivery log entry (§2.7). ``id`` is the body's ``id`` and ``Service-Event-Id``."""

    __schema_name__ = "DeliveryOut"

    id: str
    event_type: str
    status: str
    attempts: int
    last_attempt_at: str | None
    response_status: int | None
    next_attempt_at: str | None
    error: str | None
    created_at: str


class DeliveryLog(ApiModel):
    """DeliveryLog"""

    __schema_name__ = "DeliveryLog"

    endpoint_id: str
    deliveries: list[DeliveryOut]
    limit: int
    next_cursor: str | None


class SoundOut(ApiModel):
    """The ten §2.2 fields plus what the catalog counts of the sound's videos."""

    __schema_name__ = "reelscope__sound__schemas__SoundOut"

    id: str
    title: str
    duration: int | None
    platform: str
    cover_url: str
    is_original: bool
    usage_count: int | None
    owner_handle: str | None
    owner_nickname: str | None
    is_commerce_music: bool | None
    video_count: int
    videos_7d: int
    videos_30d: int
    videos_90d: int


class DigestSoundOut(ApiModel):
    """SoundOut"""

    __schema_name__ = "reelscope__digest__schemas__SoundOut"

    id: str
    title: str
    duration: int | None
    platform: str
    cover_url: str
    is_original: bool
    usage_count: int | None
    owner_handle: str | None
    owner_nickname: str | None
    is_commerce_music: bool | None


class ExemplarAuthor(ApiModel):
    """ExemplarAuthor"""

    __schema_name__ = "ExemplarAuthor"

    username: str | None
    avatar_url: str | None
    verified: bool | None


class Exemplar(ApiModel):
    """Exemplar"""

    __schema_name__ = "Exemplar"

    video_id: str
    url: str
    platform: str
    views: int
    likes: int | None = None
    thumbnail_url: str | None
    publish_date: str | None
    author: ExemplarAuthor | None


class TrendInfo(ApiModel):
    """TrendInfo"""

    __schema_name__ = "TrendInfo"

    id: str
    name: str
    description: str
    trend_type: str


class EmergingTrend(ApiModel):
    """EmergingTrend"""

    __schema_name__ = "EmergingTrend"

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


class EmergingPage(ApiModel):
    """EmergingPage"""

    __schema_name__ = "EmergingPage"

    region: str
    generated_at: str
    data: list[EmergingTrend]


class EvidenceOut(ApiModel):
    """EvidenceOut"""

    __schema_name__ = "EvidenceOut"

    title: str
    url: str
    domain: str


class EventOut(ApiModel):
    """A breaking story (§6.3 fields): lifecycle candidate → confirmed | dismissed | expired."""

    __schema_name__ = "EventOut"

    event_id: str
    agent_id: str
    title: str
    summary: str
    salience: float
    source: str
    status: str
    detected_at: str
    confirmed_at: str | None
    expires_at: str
    event_date: Any = None
    keywords: list[str]
    keywords_added: list[str]
    evidence: list[EvidenceOut]
    action_taken: str | None
    proposal_id: str | None


class EventList(ApiModel):
    """EventList"""

    __schema_name__ = "EventList"

    count: int
    events: list[EventOut]


class HashtagPerformance(ApiModel):
    """HashtagPerformance"""

    __schema_name__ = "HashtagPerformance"

    hashtag: str
    video_count: int
    total_views: int
    avg_views: float
    total_likes: int
    avg_likes: float
    total_comments: int
    avg_comments: float


class HashtagStat(ApiModel):
    """HashtagStat"""

    __schema_name__ = "HashtagStat"

    hashtag: str
    count: int
    total_views: int


class HookMatch(ApiModel):
    """HookMatch"""

    __schema_name__ = "HookMatch"

    id: str
    video_id: str
    video_url: str
    hook_text: str
    hook_type: str
    visual_hook_type: str | None
    platform: str
    language: str | None
    category: str | None
    source: Literal["transcript", "caption"]
    usage_count: int
    views: int
    outlier_ratio: float | None
    weighted_score: float | None
    publish_date: str
    match_type: Literal["exact", "contains", "similar"]


class HookOut(ApiModel):
    """HookOut"""

    __schema_name__ = "HookOut"

    id: str
    video_id: str
    video_url: str
    hook_text: str
    hook_type: str
    visual_hook_type: str | None
    platform: str
    language: str | None
    category: str | None
    source: Literal["transcript", "caption"]
    usage_count: int
    views: int
    outlier_ratio: float | None
    weighted_score: float | None
    publish_date: str


class HookTypeOut(ApiModel):
    """HookTypeOut"""

    __schema_name__ = "HookTypeOut"

    hook_type: str
    description: str
    hook_count: int
    median_weighted_score: float | None
    strong_hit_rate: float | None


class HookTypes(ApiModel):
    """HookTypes"""

    __schema_name__ = "HookTypes"

    data: list[HookTypeOut]
    visual_hook_types: list[str]


class KeywordSuggestion(ApiModel):
    """KeywordSuggestion"""

    __schema_name__ = "KeywordSuggestion"

    mode: str
    keywords: list[str]
    exclude_keywords: list[str]
    reasoning: str
    quality_score: int
    seed_video_count: int
    candidates: list[dict[str, Any]]


class LibraryHook(ApiModel):
    """LibraryHook"""

    __schema_name__ = "LibraryHook"

    hook_text: str
    hook_type: str
    usage_count: int
    best_weighted_score: float | None
    max_views: int
    platform_count: int


class RunSummary(ApiModel):
    """RunSummary"""

    __schema_name__ = "RunSummary"

    run_id: str
    job_id: str
    type: Literal["creator_lookup", "sound_lookup", "hashtag_lookup", "video_outlier"]
    platform: Platform
    target: str
    status: Literal["processing", "completed", "failed"]
    request: dict[str, Any]
    video_count: int
    batch_id: str | None
    created_at: str
    started_at: str | None
    completed_at: str | None
    error: dict[str, Any] | None
    finalized: bool
    pending_jobs: list[PendingJob]


class LookupRunList(ApiModel):
    """RunList"""

    __schema_name__ = "reelscope__lookup__schemas__RunList"

    runs: list[RunSummary]
    total: int
    limit: int
    offset: int
    has_more: bool


class Momentum(ApiModel):
    """Momentum"""

    __schema_name__ = "Momentum"

    status: str
    score: float
    views_per_hour: float
    updated_at: str


class OutlierPage(ApiModel):
    """OutlierPage"""

    __schema_name__ = "OutlierPage"

    total: int
    limit: int
    offset: int
    page: int
    creators: list[dict[str, Any]]


class PostOut(ApiModel):
    """PostOut"""

    __schema_name__ = "PostOut"

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
    outlier_ratio: float | None
    is_outlier: bool
    first_seen_at: str
    updated_at: str


class ProposalOut(ApiModel):
    """ProposalOut"""

    __schema_name__ = "ProposalOut"

    id: str
    agent_id: str
    kind: str
    status: str
    decided_by: str | None
    add: list[str]
    remove: list[str]
    time_range_from: str | None
    time_range_to: str | None
    reason: str
    evidence: dict[str, Any]
    effect: dict[str, Any] | None
    run_id: str | None
    event_id: str | None
    expires_at: str | None
    created_at: str
    decided_at: str | None


class ProposalList(ApiModel):
    """ProposalList"""

    __schema_name__ = "ProposalList"

    count: int
    proposals: list[ProposalOut]


class Region(ApiModel):
    """Region"""

    __schema_name__ = "Region"

    code: str
    name: str
    timezone: str


class ReportOut(ApiModel):
    """ReportOut"""

    __schema_name__ = "ReportOut"

    tracking_id: str
    tracking_type: Literal["creator", "video"]
    report_available: bool
    generated_at: str | None
    report: dict[str, Any] | None


class RunDetail(ApiModel):
    """RunDetail"""

    __schema_name__ = "RunDetail"

    run_id: str
    job_id: str
    type: Literal["creator_lookup", "sound_lookup", "hashtag_lookup", "video_outlier"]
    platform: Platform
    target: str
    status: Literal["processing", "completed", "failed"]
    request: dict[str, Any]
    video_count: int
    batch_id: str | None
    created_at: str
    started_at: str | None
    completed_at: str | None
    error: dict[str, Any] | None
    finalized: bool
    pending_jobs: list[PendingJob]
    result: dict[str, Any] | None


class RunVideos(ApiModel):
    """RunVideos"""

    __schema_name__ = "RunVideos"

    run_id: str
    videos: list[dict[str, Any]]
    total: int
    limit: int
    offset: int
    has_more: bool


class SimilarCreator(ApiModel):
    """SimilarCreator"""

    __schema_name__ = "SimilarCreator"

    creator_id: str
    handle: str
    platform: str
    follower_count: int | None
    tier: str | None
    video_count: int
    score: float
    components: dict[str, float]
    shared: dict[str, Any]


class SimilarCreators(ApiModel):
    """§4.4 similar creators (beta): the agent's creators most like one of them; not paged (§8.3)."""

    __schema_name__ = "SimilarCreators"

    creator_id: str
    handle: str
    platform: str
    tier: str | None
    similar: list[SimilarCreator]


class SlideshowPage(ApiModel):
    """SlideshowPage"""

    __schema_name__ = "SlideshowPage"

    total: int
    limit: int
    offset: int
    page: int
    slideshows: list[dict[str, Any]]


class SnapshotOut(ApiModel):
    """SnapshotOut"""

    __schema_name__ = "SnapshotOut"

    id: str
    taken_at: str
    scheduled_for: str
    snapshot: dict[str, Any]
    new_posts_count: int


class SnapshotList(ApiModel):
    """SnapshotList"""

    __schema_name__ = "SnapshotList"

    tracking_id: str
    snapshots: list[SnapshotOut]
    count: int


class TrackResolution(ApiModel):
    """TrackResolution"""

    __schema_name__ = "TrackResolution"

    status: Literal["resolved", "unresolved", "original_sound"]
    track_title: str | None
    artist: str | None
    reason: str | None
    resolved_at: str | None


class SoundDetail(ApiModel):
    """SoundDetail"""

    __schema_name__ = "SoundDetail"

    id: str
    title: str
    duration: int | None
    platform: str
    cover_url: str
    is_original: bool
    usage_count: int | None
    owner_handle: str | None
    owner_nickname: str | None
    is_commerce_music: bool | None
    video_count: int
    videos_7d: int
    videos_30d: int
    videos_90d: int
    first_seen_at: str
    updated_at: str
    track_resolution: TrackResolution


class TrackedDetail(ApiModel):
    """One item with the §2.6 async fields (its cycle and audience jobs)."""

    __schema_name__ = "TrackedDetail"

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
    finalized: bool
    pending_jobs: list[PendingJob]


class TrackedOut(ApiModel):
    """A tracked creator or video (fields beyond §6.3's are ours, §2.9)."""

    __schema_name__ = "TrackedOut"

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


class TrendBatch(ApiModel):
    """TrendBatch"""

    __schema_name__ = "TrendBatch"

    batch_end: str | None
    run_id: str | None
    trends: list[dict[str, Any]]


class TrendRow(ApiModel):
    """TrendRow"""

    __schema_name__ = "TrendRow"

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
    top_exemplars: list[Exemplar] | None = None


class TrendGroupOut(ApiModel):
    """TrendGroupOut"""

    __schema_name__ = "TrendGroupOut"

    id: str
    title: str
    region: str
    local_date: str
    trends: list[TrendRow]


class UsagePoint(ApiModel):
    """UsagePoint"""

    __schema_name__ = "UsagePoint"

    at: str
    usage_count: int


class UsageHistory(ApiModel):
    """UsageHistory"""

    __schema_name__ = "UsageHistory"

    sound_id: str
    days: int
    points: list[UsagePoint]


class VideoOut(ApiModel):
    """VideoOut"""

    __schema_name__ = "VideoOut"

    id: str
    external_id: str
    url: str
    type: str
    description: str | None
    publish_date: str
    views: int
    number_of_likes: int
    number_of_comments: int
    number_of_shares: int | None
    bookmarks: int | None
    hashtags: list[str] | None
    thumbnail_url: str | None
    duration: int | None
    transcript_raw: str | None
    sound: DigestSoundOut | None
    upload_region: str | None
    upload_region_source: str | None
    is_duet: bool | None
    is_stitch: bool | None
    is_eligible_for_commission: bool | None
    author_id: str | None
    region: str | None
    niche: str


class VideoPage(ApiModel):
    """VideoPage"""

    __schema_name__ = "VideoPage"

    total: int
    limit: int
    offset: int
    page: int
    videos: list[dict[str, Any]]


class WebhookEndpointOut(ApiModel):
    """§2.7, plus the signing secret (beyond the spec, ADR 0010)."""

    __schema_name__ = "WebhookEndpointOut"

    id: str
    team_id: str
    url: str
    description: str
    enabled_events: list[str]
    headers: dict[str, str]
    is_active: bool
    status: str
    consecutive_failures: int
    last_success_at: str | None
    last_failure_at: str | None
    created_by: str
    created_at: str
    updated_at: str
    secret: str
