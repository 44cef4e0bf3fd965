"""Wire shapes of the agent family (spec §2.6, §4.4, §4.5, §8.3): bodies, queries and the agent and run
objects. Bodies reject unknown fields (so create-time ``min_views``/``time_range`` are a 400, §4.4)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from enum import StrEnum
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, field_validator, model_validator

from reelscope.analysis.hooks import HOOK_TYPES
from reelscope.kit import dates
from reelscope.kit.pagination import PageQuery, Pagination
from reelscope.kit.platforms import Platform
from reelscope.kit.schemas import LimitUpTo100, QueryModel, RequestBody, Schema
from reelscope.worker.jobs.schemas import PendingJob

# §8.3 "Agent keywords with autopilot: up to 15 in all"; the user's own list can use all of them
MAX_KEYWORDS = 15
MAX_EXCLUDE_KEYWORDS = 50
MAX_KEYWORD_LENGTH = 100
DEFAULT_LANGUAGE = "en"
# the width of agents.cadence: a longer cron was a 500 on PostgreSQL, and stored whole on SQLite (issue 31)
MAX_CADENCE_LENGTH = 100


def normalize_keyword(value: str) -> str:
    """§4.4: hashtag-style tokens are normalized, so ``#tag`` and ``tag`` resolve alike."""
    return " ".join(value.strip().lstrip("#").split())


def _keywords(values: list[str]) -> list[str]:
    kept: dict[str, str] = {}
    for value in values:
        keyword = normalize_keyword(value)
        if not keyword:
            raise ValueError("keywords must not be blank")
        if len(keyword) > MAX_KEYWORD_LENGTH:
            raise ValueError(f"each keyword is at most {MAX_KEYWORD_LENGTH} characters")
        kept.setdefault(keyword.lower(), keyword)
    return list(kept.values())


def _platforms(values: list[Platform]) -> list[Platform]:
    return list(dict.fromkeys(values))


def _language(value: str | None) -> str | None:
    if value is None:
        return None
    code = value.strip().lower()
    if not (len(code) == 2 and code.isalpha()):
        raise ValueError("language must be a two-letter ISO 639-1 code or null")
    return code


Keywords = Annotated[list[str], AfterValidator(_keywords)]
Platforms = Annotated[list[Platform], AfterValidator(_platforms)]
Language = Annotated[str | None, AfterValidator(_language)]


class AgentCreate(RequestBody):
    """§4.4 create body. Collection scope (``min_views``, ``time_range``) is the service's, not settable."""

    name: str | None = Field(default=None, max_length=200, description="Defaults to the keywords")
    is_recurring: bool = Field(default=False, description="One-shot (false) or recurring (true)")
    intent: str | None = Field(default=None, max_length=2000, description="Used for intent matching")
    keywords: Keywords = Field(
        min_length=1, max_length=MAX_KEYWORDS, description="At least one; `#tag` and `tag` resolve alike"
    )
    exclude_keywords: Keywords = Field(default_factory=list, max_length=MAX_EXCLUDE_KEYWORDS)
    platforms: Platforms = Field(default_factory=lambda: list(Platform), min_length=1)
    meta_ads_enabled: bool = Field(default=False, description="Adds ad-library collection")
    data_intelligence_enabled: bool = Field(default=False, description="+$1.00 per run")
    cadence: str | None = Field(
        default=None,
        max_length=MAX_CADENCE_LENGTH,
        description="Recurring only: daily, weekly, monthly or a cron firing at most once a day "
        "(default daily)",
    )
    autopilot: bool = Field(default=True, description="Default true")
    language: Language = Field(
        default=DEFAULT_LANGUAGE,
        description="Keep videos in this ISO 639-1 language (unknown kept); null keeps all (beyond §4.4)",
    )


class AgentUpdate(RequestBody):
    """§4.4 update: every field optional; `keywords`/`exclude_keywords` replace their lists."""

    name: str | None = Field(default=None, min_length=1, max_length=200)
    intent: str | None = Field(default=None, max_length=2000)
    keywords: Keywords | None = Field(default=None, min_length=1, max_length=MAX_KEYWORDS)
    exclude_keywords: Keywords | None = Field(default=None, max_length=MAX_EXCLUDE_KEYWORDS)
    platforms: Platforms | None = Field(default=None, min_length=1)
    meta_ads_enabled: bool | None = None
    data_intelligence_enabled: bool | None = None
    cadence: str | None = Field(default=None, max_length=MAX_CADENCE_LENGTH)
    autopilot: bool | None = None
    is_active: bool | None = Field(default=None, description="false pauses a recurring agent's schedule")
    language: Language = None


# --- objects ---------------------------------------------------------------------------------------


class TimelyKeyword(Schema):
    keyword: str
    event_id: str | None
    expires_at: str | None
    change_id: str | None = None


class AgentOut(Schema):
    id: str
    name: str
    is_recurring: bool
    intent: str | None
    keywords: list[str]
    exclude_keywords: list[str]
    pinned_keywords: list[str] = Field(description="The keywords the user set, always kept")
    platforms: list[Platform]
    meta_ads_enabled: bool
    data_intelligence_enabled: bool
    cadence: str | None = Field(description="Cron expression (UTC) for recurring agents; null for one-shot")
    language: str | None
    autopilot: bool
    cognition_enabled: bool = Field(description="Breaking stories are detected between runs (beyond §4.4)")
    timely_keywords: list[TimelyKeyword] = Field(
        description="Short-lived keywords of breaking stories among `keywords`; they leave with the story"
    )
    autonomy_level: str = Field(description="Deprecated: `autopilot` or `suggest`", deprecated=True)
    autopilot_unlocked: bool = Field(description="Deprecated; always true", deprecated=True)
    is_active: bool
    min_views: int = Field(description="Collection scope, set by the service")
    time_range: str = Field(description="Collection scope, set by the service")
    status: str = Field(description="Latest run: pending, processing, completed, partial_failure, failed")
    latest_run_id: str | None
    last_run_at: str | None
    next_run_at: str | None
    finalized: bool
    pending_jobs: list[PendingJob]
    analysis_data: dict[str, Any] | None = Field(description="Latest AI analysis; null until one exists")
    created_at: str
    updated_at: str


class AgentCreated(AgentOut):
    job_id: str = Field(description="The first run's job")
    run_id: str


class AgentList(Schema):
    limit: int
    page: int
    count: int = Field(description="Items on this page; stop at the first page shorter than `limit`")
    agents: list[AgentOut]


class RunOut(Schema):
    id: str
    agent_id: str
    job_id: str | None
    trigger: str = Field(description="create or schedule")
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


class RunList(Schema):
    limit: int
    page: int
    count: int
    runs: list[RunOut]


# --- queries ---------------------------------------------------------------------------------------


class Sort(StrEnum):
    ASC = "asc"
    DESC = "desc"


class AgentPageQuery(QueryModel):
    """§4.4 agent lists: `limit` default 50, max 100 (above clamps), `page` from 1; `offset` ignored
    (§8.3)."""

    limit: LimitUpTo100 = Field(default=50, description="1 to 100, default 50; above 100 is treated as 100")
    page: int = Field(default=1, ge=1, description="1-indexed page number")
    offset: int | None = Field(default=None, description="Accepted and ignored on agent lists (§8.3)")

    @property
    def skip(self) -> int:
        return (self.page - 1) * self.limit


def _split_list(value: Any) -> Any:
    """`platforms=tiktok&platforms=youtube` and `platforms=tiktok,youtube` both read as a list."""
    if value is None:
        return None
    items = value if isinstance(value, list) else [value]
    return [part.strip() for item in items for part in str(item).split(",") if part.strip()]


def _moment(value: Any, *, end: bool) -> Any:
    """An ISO date (whole day, UTC) or an ISO 8601 timestamp, within the calendar the API reads
    (kit/dates.py; beyond it, a ValueError: 400 like any other unreadable date)."""
    if value is None or isinstance(value, datetime):
        return value
    text = str(value).strip()
    try:
        day = date.fromisoformat(text)
    except ValueError:
        try:
            moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError("must be an ISO date (YYYY-MM-DD) or ISO 8601 timestamp") from None
        return dates.as_utc(moment)
    return dates.day_edge(day, UTC, end=end)


class ItemOrder(StrEnum):
    PUBLISH_DATE = "publish_date"
    VIEWS = "views"
    CREATED_AT = "created_at"


class ItemQuery(AgentPageQuery):
    """§4.5 videos and slideshows filters, applied at read time."""

    min_views: int | None = Field(default=None, ge=0)
    platforms: Annotated[list[Platform] | None, BeforeValidator(_split_list)] = Field(
        default=None, description="Repeat the parameter or separate with commas"
    )
    start_date: Annotated[datetime | None, BeforeValidator(lambda v: _moment(v, end=False))] = Field(
        default=None, description="ISO date or timestamp: published at or after"
    )
    end_date: Annotated[datetime | None, BeforeValidator(lambda v: _moment(v, end=True))] = Field(
        default=None, description="ISO date (whole day included) or timestamp: published at or before"
    )
    order_by: ItemOrder = ItemOrder.PUBLISH_DATE
    sort: Sort = Sort.DESC
    intent_match: bool | None = Field(
        default=None, description="Only meaningful with intent plus data_intelligence_enabled"
    )

    @field_validator("end_date")
    @classmethod
    def _ordered(cls, value: datetime | None, info: Any) -> datetime | None:
        start = info.data.get("start_date")
        if value is not None and start is not None and start > value:
            raise ValueError("must not be before start_date")
        return value


class AdOrder(StrEnum):
    CREATED_AT = "created_at"
    PAGE_LIKE_COUNT = "page_like_count"


class AdQuery(AgentPageQuery):
    order_by: AdOrder = AdOrder.CREATED_AT
    sort: Sort = Sort.DESC


class OutlierOrder(StrEnum):
    OUTLIER_RATIO = "outlier_ratio"
    AVG_VIEWS = "avg_views"
    FOLLOWER_COUNT = "follower_count"
    WEIGHTED_SCORE = "weighted_score"


class OutlierQuery(AgentPageQuery):
    order_by: OutlierOrder = OutlierOrder.OUTLIER_RATIO
    sort: Sort = Sort.DESC
    platform: Platform | None = None


class SoundOrder(StrEnum):
    RISING = "rising"
    GROWTH_7D = "growth_7d"


class SoundQuery(AgentPageQuery):
    sort: SoundOrder = Field(default=SoundOrder.RISING, description="rising (default) or growth_7d")


class EmptyQuery(QueryModel):
    """Reads without parameters: any parameter is a 400."""


# --- read-time lists (§4.4, §4.5, §8.3) ---------------------------------------------------------------


class ItemPage(Schema):
    """§8.3 lists with a total: stop only at an empty page; `total` may be approximate."""

    total: int
    limit: int
    offset: int
    page: int


class VideoPage(ItemPage):
    videos: list[dict[str, Any]] = Field(
        description="§2.1 video objects plus intelligence_status, intelligence, intent_match, keyword, "
        "created_at (when the agent linked it)"
    )


class SlideshowPage(ItemPage):
    slideshows: list[dict[str, Any]]


class AdPage(ItemPage):
    ads: list[dict[str, Any]]


class OutlierPage(ItemPage):
    creators: list[dict[str, Any]] = Field(
        description="creator_id, platform, handle, follower_count, video_count, avg_views, median_views, "
        "outlier_ratio (views / creator median), weighted_score (ln(ratio) x ln(median)), top_video"
    )


class Benchmarks(Schema):
    computed_at: str | None
    video_count: int
    tiers: list[dict[str, Any]] = Field(description="nano, micro, mid, macro: norms of the agent's videos")


class TrendQuery(AgentPageQuery):
    """§4.5 trend history: `limit`, `page`, `stable_key`, `start_date`/`end_date` on the batch end."""

    stable_key: str | None = Field(default=None, max_length=40)
    start_date: Annotated[datetime | None, BeforeValidator(lambda v: _moment(v, end=False))] = Field(
        default=None, description="ISO date or timestamp: batches that ended at or after"
    )
    end_date: Annotated[datetime | None, BeforeValidator(lambda v: _moment(v, end=True))] = Field(
        default=None,
        description="ISO date (whole day included) or timestamp: batches that ended at or before",
    )

    @field_validator("end_date")
    @classmethod
    def _ordered(cls, value: datetime | None, info: Any) -> datetime | None:
        start = info.data.get("start_date")
        if value is not None and start is not None and start > value:
            raise ValueError("must not be before start_date")
        return value


class TrendBatch(Schema):
    batch_end: str | None
    run_id: str | None
    trends: list[dict[str, Any]]


class SuggestMode(StrEnum):
    CREATE = "create"
    REFRESH = "refresh"
    OPPORTUNITY = "opportunity"


class SuggestKeywords(RequestBody):
    """§4.4 suggest-keywords body: an intent, or the keywords to refresh or build on (at least one)."""

    intent: str | None = Field(default=None, max_length=2000, description="What the research is about")
    keywords: Keywords = Field(
        default_factory=list,
        max_length=MAX_KEYWORDS,
        description="The current keywords (refresh, opportunity)",
    )
    exclude_keywords: Keywords = Field(default_factory=list, max_length=MAX_EXCLUDE_KEYWORDS)
    mode: SuggestMode = Field(
        default=SuggestMode.CREATE, description="create (default), refresh or opportunity"
    )

    @model_validator(mode="after")
    def _something_to_start_from(self) -> SuggestKeywords:
        if not (self.intent or "").strip() and not self.keywords:
            raise ValueError("send an intent or keywords")
        return self


class KeywordSuggestion(Schema):
    mode: str
    keywords: list[str]
    exclude_keywords: list[str]
    reasoning: str
    quality_score: int = Field(description="0-100: how well the catalog backs the suggestion")
    seed_video_count: int = Field(description="Videos of the last 30 days carrying a seed term")
    candidates: list[dict[str, Any]] = Field(description="Each suggested keyword's 30-day volume and growth")


def _hook_type(value: str | None) -> str | None:
    if value is not None and value not in HOOK_TYPES:
        raise ValueError(f"must be one of {', '.join(HOOK_TYPES)}")
    return value


class HookQuery(PageQuery):
    """§4.4 agent hooks: `limit` (default 20, max 100), `page`, optional `hook_type` (one of the 17)."""

    hook_type: Annotated[str | None, AfterValidator(_hook_type)] = Field(
        default=None, description="Only this hook type"
    )


class AgentHookPage(Schema):
    """`{data, pagination, coverage}`: `coverage` counts every linked video, with and without a hook."""

    data: list[dict[str, Any]]
    pagination: Pagination
    coverage: dict[str, Any]


class Genre(Schema):
    key: str = Field(description="`hashtag:<tag>` or `category:<name>`")
    name: str
    kind: str = Field(description="hashtag or category")
    video_count: int
    creator_count: int
    total_views: int


class GenrePair(Schema):
    genres: list[str] = Field(description="The two genre keys")
    strength: float = Field(description="The larger of video_strength and creator_strength, 0 to 1")
    video_strength: float = Field(description="Ochiai coefficient over videos: both / sqrt(a x b)")
    creator_strength: float = Field(description="Ochiai coefficient over the creators posting each")
    lift: float = Field(description="Shared videos against what chance would give")
    video_count: int = Field(description="Videos carrying both")
    creator_count: int = Field(description="Creators posting both")
    evidence_video_ids: list[str]


class Affinity(Schema):
    """§4.4 affinity (beta): genre adjacency of the agent's videos; not paged (§8.3)."""

    video_count: int
    genres: list[Genre]
    pairs: list[GenrePair]


class SimilarCreator(Schema):
    creator_id: str
    handle: str
    platform: str
    follower_count: int | None
    tier: str | None = Field(description="nano, micro, mid or macro; null when followers are unknown")
    video_count: int = Field(description="The creator's videos among the agent's")
    score: float
    components: dict[str, float] = Field(description="text (cosine), sounds (Jaccard), tier (closeness)")
    shared: dict[str, Any] = Field(description="hashtags, words, sound_ids in common; same_tier")


class SimilarCreators(Schema):
    """§4.4 similar creators (beta): the agent's creators most like one of them; not paged (§8.3)."""

    creator_id: str
    handle: str
    platform: str
    tier: str | None
    similar: list[SimilarCreator]
