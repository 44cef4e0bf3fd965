"""Content research agents (spec §4.4, §4.5, §3): agents, their runs, what they linked, and the analytics
each run recomputes over everything the agent has linked.

An agent is team-owned; every row below hangs off one agent and is read through it (team checked on the
agent). Links point into the shared catalog (videos, slideshows, ads, creators, sounds); the analytics
tables are the agent's own read models, replaced by each run so reads are plain indexed selects.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from reelscope.kit.db import Base, UtcDateTime


class Agent(Base):
    __tablename__ = "agents"
    __table_args__ = (
        Index("ix_agents_team_created", "team_id", "created_at"),
        # the retention purge finds deleted agents by it without reading live agents' wide rows
        Index(
            "ix_agents_deleted",
            "deleted_at",
            sqlite_where=text("deleted_at IS NOT NULL"),
            postgresql_where=text("deleted_at IS NOT NULL"),
        ),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    team_id: Mapped[str] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"))
    user_id: Mapped[str] = mapped_column(String(36))
    name: Mapped[str] = mapped_column(String(200))
    is_recurring: Mapped[bool] = mapped_column(Boolean)
    intent: Mapped[str | None] = mapped_column(Text)
    # normalized: no leading "#", deduplicated case-insensitively (§4.4)
    keywords: Mapped[list[str]] = mapped_column(JSON)
    exclude_keywords: Mapped[list[str]] = mapped_column(JSON)
    # the keywords the user set, always kept by autopilot (§4.4)
    pinned_keywords: Mapped[list[str]] = mapped_column(JSON)
    platforms: Mapped[list[str]] = mapped_column(JSON)
    meta_ads_enabled: Mapped[bool] = mapped_column(Boolean)
    data_intelligence_enabled: Mapped[bool] = mapped_column(Boolean)
    # a 5-field cron (UTC) for recurring agents, even when a shortcut was chosen (§6.3); null for one-shot
    cadence: Mapped[str | None] = mapped_column(String(100))
    # ISO 639-1 code the run keeps (videos of unknown language are kept); null keeps every language
    language: Mapped[str | None] = mapped_column(String(8))
    autopilot: Mapped[bool] = mapped_column(Boolean)
    # between-run detection of breaking stories (news scan, corpus bursts) for this agent (ADR 0032)
    cognition_enabled: Mapped[bool] = mapped_column(Boolean)
    # short-lived keywords of breaking stories now among ``keywords``: {keyword, event_id, expires_at}
    timely_keywords: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    is_active: Mapped[bool] = mapped_column(Boolean)
    # collection scope, set by the service (§4.4: not settable at creation)
    min_views: Mapped[int] = mapped_column(Integer)
    time_range: Mapped[str] = mapped_column(String(16))
    schedule_id: Mapped[str | None] = mapped_column(String(36))
    latest_run_id: Mapped[str | None] = mapped_column(String(36))
    last_run_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    # the latest AI analysis (§4.4 analysis_data); null until one exists
    analysis_data: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # follower-tier norms over every linked video, recomputed by each run (§4.4 benchmarks)
    benchmarks: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # what GET /affinity and /hooks read, recomputed with the analytics (agent_hooks holds the hooks'
    # rows); null until the first recomputation since they were kept (ADR 0038): read time computes them
    affinity: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    hook_coverage: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
    deleted_at: Mapped[datetime | None] = mapped_column(UtcDateTime)


class AgentRun(Base):
    """One run (§3): pending → processing → completed | partial_failure | failed."""

    __tablename__ = "agent_runs"
    __table_args__ = (
        Index("ix_agent_runs_agent_created", "agent_id", "created_at"),
        # one run per schedule firing; NULLs (runs made at creation) never collide
        UniqueConstraint("agent_id", "scheduled_for"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    agent_id: Mapped[str] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"))
    team_id: Mapped[str] = mapped_column(String(36))
    # the jobs row doing the collection
    job_id: Mapped[str | None] = mapped_column(String(36))
    # create | schedule
    trigger: Mapped[str] = mapped_column(String(16))
    scheduled_for: Mapped[datetime | None] = mapped_column(UtcDateTime)
    status: Mapped[str] = mapped_column(String(20))
    # what this run cost the team (the create request's charge or the job's own debit); refunded on failure
    charged_credits: Mapped[int] = mapped_column(Integer)
    refunded: Mapped[bool] = mapped_column(Boolean)
    metrics: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # one entry per (keyword, platform|ads) target: {keyword, source, kind, status, found, error}
    targets: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON)
    error: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    analysis: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    started_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    completed_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


# the legacy orbit read's catalog orders (§4.5) kept on each link, as the catalog had them at the agent's
# latest run (``agent.repository.refresh_link_orders``, ADR 0058); NULL counts are kept as 0
LINK_CATALOG_ORDERS = ("likes", "comments", "shares", "bookmarks", "author_followers")


class AgentVideo(Base):
    """A video the agent linked. ``platform``, ``published_at`` and ``views`` are copied from the catalog
    (views as of the agent's latest run that found it) so the read-time filters and orders run on this
    narrow table's indexes; the rendered video is the catalog's row. ``LINK_CATALOG_ORDERS`` are copied
    too, refreshed with every run, so that an order by them walks one index per agent (ADR 0058)."""

    __tablename__ = "agent_videos"
    __table_args__ = (
        Index("ix_agent_videos_agent_linked", "agent_id", "linked_at"),
        Index("ix_agent_videos_agent_published", "agent_id", "published_at"),
        Index("ix_agent_videos_agent_views", "agent_id", "views"),
        # the id ends each index: it ends each order too, and ties are common (one creator's videos)
        *(
            Index(f"ix_agent_videos_agent_{name}", "agent_id", name, "video_id")
            for name in LINK_CATALOG_ORDERS
        ),
    )

    agent_id: Mapped[str] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"), primary_key=True)
    video_id: Mapped[str] = mapped_column(ForeignKey("videos.id", ondelete="CASCADE"), primary_key=True)
    platform: Mapped[str] = mapped_column(String(16))
    published_at: Mapped[datetime] = mapped_column(UtcDateTime)
    views: Mapped[int] = mapped_column(BigInteger)
    run_id: Mapped[str] = mapped_column(String(36))
    keyword: Mapped[str] = mapped_column(String(200))
    # §2.6: ready | pending | disabled | failed | skipped
    intelligence_status: Mapped[str] = mapped_column(String(16))
    # the §2.6 intelligence object once Data Intelligence ran (status ready); null until then
    intelligence: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    # {matches, reasoning} once intent matching ran; null until then
    intent_match: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    intent_matches: Mapped[bool | None] = mapped_column(Boolean)
    linked_at: Mapped[datetime] = mapped_column(UtcDateTime)
    likes: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    comments: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    shares: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    bookmarks: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    # the followers of the video's creator
    author_followers: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")


class AgentSlideshow(Base):
    """A carousel the agent linked; sort and filter columns copied as for ``AgentVideo``."""

    __tablename__ = "agent_slideshows"
    __table_args__ = (
        Index("ix_agent_slideshows_agent_linked", "agent_id", "linked_at"),
        Index("ix_agent_slideshows_agent_published", "agent_id", "published_at"),
        Index("ix_agent_slideshows_agent_views", "agent_id", "views"),
    )

    agent_id: Mapped[str] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"), primary_key=True)
    slideshow_id: Mapped[str] = mapped_column(
        ForeignKey("slideshows.id", ondelete="CASCADE"), primary_key=True
    )
    platform: Mapped[str] = mapped_column(String(16))
    published_at: Mapped[datetime] = mapped_column(UtcDateTime)
    views: Mapped[int] = mapped_column(BigInteger)
    run_id: Mapped[str] = mapped_column(String(36))
    keyword: Mapped[str] = mapped_column(String(200))
    intelligence_status: Mapped[str] = mapped_column(String(16))
    # the §2.6 slideshow intelligence object (panel text, no video-only fields); null until it ran
    intelligence: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    intent_match: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    intent_matches: Mapped[bool | None] = mapped_column(Boolean)
    linked_at: Mapped[datetime] = mapped_column(UtcDateTime)


class AgentAd(Base):
    __tablename__ = "agent_ads"
    __table_args__ = (Index("ix_agent_ads_agent_linked", "agent_id", "linked_at"),)

    agent_id: Mapped[str] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"), primary_key=True)
    ad_id: Mapped[str] = mapped_column(ForeignKey("ads.id", ondelete="CASCADE"), primary_key=True)
    run_id: Mapped[str] = mapped_column(String(36))
    keyword: Mapped[str] = mapped_column(String(200))
    linked_at: Mapped[datetime] = mapped_column(UtcDateTime)


class AgentCreator(Base):
    """A creator of the agent's videos whose best video there is an outlier against their own median."""

    __tablename__ = "agent_creators"

    agent_id: Mapped[str] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"), primary_key=True)
    creator_id: Mapped[str] = mapped_column(ForeignKey("creators.id", ondelete="CASCADE"), primary_key=True)
    platform: Mapped[str] = mapped_column(String(16))
    handle: Mapped[str] = mapped_column(String(200))
    follower_count: Mapped[int | None] = mapped_column(BigInteger)
    # videos the median was taken over (the creator's recent posts)
    video_count: Mapped[int] = mapped_column(Integer)
    avg_views: Mapped[float] = mapped_column(Float)
    median_views: Mapped[float] = mapped_column(Float)
    outlier_ratio: Mapped[float] = mapped_column(Float)
    weighted_score: Mapped[float] = mapped_column(Float)
    top_video_id: Mapped[str] = mapped_column(String(36))
    top_video_views: Mapped[int] = mapped_column(BigInteger)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


class AgentSound(Base):
    __tablename__ = "agent_sounds"

    agent_id: Mapped[str] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"), primary_key=True)
    sound_id: Mapped[str] = mapped_column(ForeignKey("sounds.id", ondelete="CASCADE"), primary_key=True)
    video_count: Mapped[int] = mapped_column(Integer)
    total_views: Mapped[int] = mapped_column(BigInteger)
    videos_7d: Mapped[int] = mapped_column(Integer)
    videos_prev_7d: Mapped[int] = mapped_column(Integer)
    growth_7d: Mapped[float | None] = mapped_column(Float)
    rising_score: Mapped[float] = mapped_column(Float)
    # emerging | rising | peaking | declining | stable
    lifecycle: Mapped[str] = mapped_column(String(16))
    first_used_at: Mapped[datetime] = mapped_column(UtcDateTime)
    last_used_at: Mapped[datetime] = mapped_column(UtcDateTime)


class AgentHashtag(Base):
    __tablename__ = "agent_hashtags"

    agent_id: Mapped[str] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"), primary_key=True)
    # lower case without "#"
    hashtag: Mapped[str] = mapped_column(String(200), primary_key=True)
    display: Mapped[str] = mapped_column(String(200))
    video_count: Mapped[int] = mapped_column(Integer)
    total_views: Mapped[int] = mapped_column(BigInteger)
    avg_views: Mapped[float] = mapped_column(Float)
    videos_7d: Mapped[int] = mapped_column(Integer)
    videos_prev_7d: Mapped[int] = mapped_column(Integer)
    growth_7d: Mapped[float | None] = mapped_column(Float)
    top_creators: Mapped[list[dict[str, Any]]] = mapped_column(JSON)


# the agent's sounds by rising score and its hashtags by use, each list one index walk (ADR 0038)
Index(
    "ix_agent_sounds_rising",
    AgentSound.agent_id,
    AgentSound.rising_score.desc(),
    AgentSound.video_count.desc(),
    AgentSound.sound_id,
)
Index(
    "ix_agent_hashtags_order",
    AgentHashtag.agent_id,
    AgentHashtag.video_count.desc(),
    AgentHashtag.total_views.desc(),
    AgentHashtag.hashtag,
)


class AgentHook(Base):
    """One linked video's hook (§4.4 ``/hooks``), kept with the agent's analytics (ADR 0038): a page is
    a walk of an index in the list's order (views descending, then video id)."""

    __tablename__ = "agent_hooks"

    agent_id: Mapped[str] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"), primary_key=True)
    video_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    platform: Mapped[str] = mapped_column(String(16))
    url: Mapped[str] = mapped_column(Text)
    hook_text: Mapped[str] = mapped_column(Text)
    source: Mapped[str] = mapped_column(String(16))
    hook_type: Mapped[str] = mapped_column(String(32))
    matched_cue: Mapped[str | None] = mapped_column(Text)
    visual_hook_type: Mapped[str | None] = mapped_column(String(32))
    views: Mapped[int] = mapped_column(BigInteger)
    published_at: Mapped[datetime] = mapped_column(UtcDateTime)


Index("ix_agent_hooks_views", AgentHook.agent_id, AgentHook.views.desc(), AgentHook.video_id)
Index(
    "ix_agent_hooks_type_views",
    AgentHook.agent_id,
    AgentHook.hook_type,
    AgentHook.views.desc(),
    AgentHook.video_id,
)


class AgentSimilarModel(Base):
    """An agent's creators prepared for ``/creators/{id}/similar`` (``analysis.similar.Prepared`` as
    bytes), made by the ``agent.similar`` job after a run stores its links (ADR 0056). ``links_at`` and
    ``links_count`` are the agent's links it was made from (``repository.links_changed_at``): a question
    asked when they differ does not use it."""

    __tablename__ = "agent_similar_models"

    agent_id: Mapped[str] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"), primary_key=True)
    links_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    links_count: Mapped[int] = mapped_column(Integer)
    model: Mapped[bytes | None] = mapped_column(LargeBinary)  # None: no linked video has a creator
    built_at: Mapped[datetime] = mapped_column(UtcDateTime)


class AgentTrend(Base):
    """One theme of one run's AI analysis (§4.4 trends, §4.5 "stable_key and status new, rising, steady
    or fading"): a batch is the themes of one run, ``batch_end`` the run's completion."""

    __tablename__ = "agent_trends"
    __table_args__ = (
        Index("ix_agent_trends_agent_batch", "agent_id", "batch_end"),
        Index("ix_agent_trends_agent_key", "agent_id", "stable_key", "batch_end"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    agent_id: Mapped[str] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"))
    run_id: Mapped[str] = mapped_column(String(36))
    batch_end: Mapped[datetime] = mapped_column(UtcDateTime)
    stable_key: Mapped[str] = mapped_column(String(40))
    name: Mapped[str] = mapped_column(String(300))
    # new | rising | steady | fading, against the agent's previous batch
    status: Mapped[str] = mapped_column(String(16))
    video_count: Mapped[int] = mapped_column(Integer)
    # the theme's top terms, which later runs match to keep its stable_key
    terms: Mapped[list[str]] = mapped_column(JSON)
    # the §6.3 theme object plus its engagement stats
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    # the theme's video ids, which later runs match first to keep its stable_key (ADR 0032); not served,
    # so the reads of trends never load it; null for themes stored before it was kept
    member_ids: Mapped[list[str] | None] = mapped_column(JSON, deferred=True)


class AgentChange(Base):
    """One change the autopilot decided after a run or for a breaking story (§4.4): made at once with
    autopilot on (``applied``), else left as a proposal (``proposed``) the user applies or dismisses;
    an applied change can be reverted. ``effect`` is what applying it changed, which a revert undoes."""

    __tablename__ = "agent_changes"
    __table_args__ = (Index("ix_agent_changes_agent_created", "agent_id", "created_at"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    agent_id: Mapped[str] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"))
    team_id: Mapped[str] = mapped_column(String(36))
    # add_keywords | reword_keyword | widen_collection | add_timely_keywords
    kind: Mapped[str] = mapped_column(String(32))
    # proposed | applied | dismissed | reverted | expired
    status: Mapped[str] = mapped_column(String(16))
    # who made the last move: autopilot | user
    decided_by: Mapped[str | None] = mapped_column(String(16))
    add: Mapped[list[str]] = mapped_column(JSON)
    remove: Mapped[list[str]] = mapped_column(JSON)
    time_range_from: Mapped[str | None] = mapped_column(String(16))
    time_range_to: Mapped[str | None] = mapped_column(String(16))
    reason: Mapped[str] = mapped_column(Text)
    evidence: Mapped[dict[str, Any]] = mapped_column(JSON)
    # {added, removed, time_range_from, time_range_to} as applied; null until applied
    effect: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    run_id: Mapped[str | None] = mapped_column(String(36))
    event_id: Mapped[str | None] = mapped_column(String(36))
    # short-lived keywords (a breaking story's) leave at this moment
    expires_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    decided_at: Mapped[datetime | None] = mapped_column(UtcDateTime)


class AgentActivity(Base):
    """The autopilot's decision log (§4.4 /activity), append-only."""

    __tablename__ = "agent_activity"
    __table_args__ = (Index("ix_agent_activity_agent_at", "agent_id", "at"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    agent_id: Mapped[str] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"))
    team_id: Mapped[str] = mapped_column(String(36))
    at: Mapped[datetime] = mapped_column(UtcDateTime)
    action: Mapped[str] = mapped_column(String(40))
    summary: Mapped[str] = mapped_column(Text)
    change_id: Mapped[str | None] = mapped_column(String(36))
    event_id: Mapped[str | None] = mapped_column(String(36))
    run_id: Mapped[str | None] = mapped_column(String(36))
    detail: Mapped[dict[str, Any]] = mapped_column(JSON)


class AgentEvent(Base):
    """A breaking story detected between runs (§4.4 /events, §6.3): candidate → confirmed | dismissed |
    expired. ``dedupe_key`` (source, topic, day of detection) keeps a repeated scan from adding it twice."""

    __tablename__ = "agent_events"
    __table_args__ = (
        UniqueConstraint("agent_id", "dedupe_key"),
        Index("ix_agent_events_agent_topic", "agent_id", "source", "topic"),
        Index("ix_agent_events_status_expires", "status", "expires_at"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    agent_id: Mapped[str] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"))
    team_id: Mapped[str] = mapped_column(String(36))
    # news_scan | corpus_burst
    source: Mapped[str] = mapped_column(String(16))
    topic: Mapped[str] = mapped_column(String(300))
    dedupe_key: Mapped[str] = mapped_column(String(400))
    title: Mapped[str] = mapped_column(String(500))
    summary: Mapped[str] = mapped_column(Text)
    salience: Mapped[float] = mapped_column(Float)
    status: Mapped[str] = mapped_column(String(16))
    detected_at: Mapped[datetime] = mapped_column(UtcDateTime)
    confirmed_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    ended_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    keywords: Mapped[list[str]] = mapped_column(JSON)
    keywords_added: Mapped[list[str]] = mapped_column(JSON)
    # [{title, url, domain}]
    evidence: Mapped[list[dict[str, str]]] = mapped_column(JSON)
    # collecting_early | breaking_ingest | timely_keywords | none (§6.3); null while a candidate
    action_taken: Mapped[str | None] = mapped_column(String(20))
    # the proposal left for an agent without autopilot
    change_id: Mapped[str | None] = mapped_column(String(36))
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
