"""The hook catalogue (spec §4.7): the hook of each catalog video, derived by ``hook/service.py``."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from reelscope.kit.db import Base, UtcDateTime

UNSCORED = -1e9
FILTERED = ("published_at", "views", "platform", "language", "hook_type", "category", "visual_hook_type")
LIBRARY_GROUP = (
    "text_key",
    "hook_type",
    "views",
    "platform",
    "language",
    "category",
    "visual_hook_type",
    "weighted_score",
    "text",
)


class Hook(Base):
    """One catalog video's hook, its types, and how the video did against its creator's norm.

    ``seq`` is an integer key only so the SQLite full-text index (``hooks_fts``, models/fulltext.py) can
    point at rows by rowid; clients see ``id``.
    """

    __tablename__ = "hooks"
    __table_args__ = (
        Index("ix_hooks_published_at", "published_at"),
        # the lists' order, carrying every filtered column so a filter is checked in the index alone
        Index("ix_hooks_rank", "rank_score", "seq", *FILTERED),
        # a list filtered by one of these reads that filter's hooks in rank order (ADR 0021)
        Index("ix_hooks_platform_rank", "platform", "rank_score", "seq", "published_at", "views"),
        Index("ix_hooks_language_rank", "language", "rank_score", "seq", "published_at", "views"),
        Index("ix_hooks_hook_type_rank", "hook_type", "rank_score", "seq", "published_at", "views"),
        Index("ix_hooks_category_rank", "category", "rank_score", "seq", "published_at", "views"),
        Index(
            "ix_hooks_visual_hook_type_rank", "visual_hook_type", "rank_score", "seq", "published_at", "views"
        ),
        # a text's hooks best first: usage counts and library ranges by text, and a text's best hook in
        # one seek (the triggers that keep hook_texts, models/fulltext.py)
        Index("ix_hooks_text_key_rank", "text_key", "rank_score", "seq"),
        # one distinct hook's (words and type) hooks with every column the library filters and shows, so
        # its figures within any filters are read from the index alone (a library walk, ADR 0057)
        Index("ix_hooks_library_group", *LIBRARY_GROUP),
        # the hooks over a library's min_views, when they are few (ADR 0057)
        Index("ix_hooks_views", "views"),
        Index("ix_hooks_creator_id", "creator_id"),
    )

    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    id: Mapped[str] = mapped_column(String(36), unique=True)
    video_id: Mapped[str] = mapped_column(ForeignKey("videos.id", ondelete="CASCADE"), unique=True)
    creator_id: Mapped[str | None] = mapped_column(String(36))
    platform: Mapped[str] = mapped_column(String(16))
    language: Mapped[str | None] = mapped_column(String(8))
    category: Mapped[str | None] = mapped_column(String(32))
    # as written or spoken, one line; ``text_key`` is its matching form (analysis/hooks.normalize)
    text: Mapped[str] = mapped_column(Text)
    text_key: Mapped[str] = mapped_column(Text)
    source: Mapped[str] = mapped_column(String(16))
    hook_type: Mapped[str] = mapped_column(String(32))
    visual_hook_type: Mapped[str | None] = mapped_column(String(32))
    views: Mapped[int] = mapped_column(BigInteger)
    published_at: Mapped[datetime] = mapped_column(UtcDateTime)
    # against the median views of the creator's catalog videos (analysis/outliers.py); null without one
    outlier_ratio: Mapped[float | None] = mapped_column(Float)
    weighted_score: Mapped[float | None] = mapped_column(Float)
    # the order of trending and search in one indexed column: weighted_score, or UNSCORED when there
    # is none (last); ties go to the newer row (seq descending), so a list is one index scan
    rank_score: Mapped[float] = mapped_column(Float)
    # catalog videos whose hook has the same text_key
    usage_count: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


# --- what the lists read, kept by hook.refresh (ADR 0038) ---------------------------------------------


class HookTypeStats(Base):
    """One row of ``GET /v1/hooks/types`` (each of the 17 types, none counted included)."""

    __tablename__ = "hook_type_stats"

    hook_type: Mapped[str] = mapped_column(String(32), primary_key=True)
    hook_count: Mapped[int] = mapped_column(Integer)
    median_weighted_score: Mapped[float | None] = mapped_column(Float)
    strong_hit_rate: Mapped[float | None] = mapped_column(Float)


class HookCategoryStats(Base):
    """One row of ``GET /v1/hooks/categories`` (each category of the vocabulary)."""

    __tablename__ = "hook_category_stats"

    category: Mapped[str] = mapped_column(String(32), primary_key=True)
    hook_count: Mapped[int] = mapped_column(Integer)


class HookLibrary(Base):
    """One distinct hook (its words and type) of ``GET /v1/hooks/library`` within a ``scope``: ``all``
    the hooks, or those of one value of one filter (``platform:tiktok``, ``category:food``,
    ``language:es``, ``visual_hook_type:skit``), so a list with at most one of those filters (and any
    ``hook_type``) is a walk of one index in its order. ``best_rank`` is the best weighted score, or
    ``UNSCORED`` without one (last)."""

    __tablename__ = "hook_library"
    __table_args__ = {"sqlite_with_rowid": False}

    scope: Mapped[str] = mapped_column(String(64), primary_key=True)
    text_key: Mapped[str] = mapped_column(Text, primary_key=True)
    hook_type: Mapped[str] = mapped_column(String(32), primary_key=True)
    text: Mapped[str] = mapped_column(Text)
    usage_count: Mapped[int] = mapped_column(Integer)
    best_weighted_score: Mapped[float | None] = mapped_column(Float)
    best_rank: Mapped[float] = mapped_column(Float)
    max_views: Mapped[int] = mapped_column(BigInteger)
    platform_count: Mapped[int] = mapped_column(Integer)


# the library's two orders (ties by words, then type), hook_type carried for its filter
Index(
    "ix_hook_library_usage",
    HookLibrary.scope,
    HookLibrary.usage_count.desc(),
    HookLibrary.best_rank.desc(),
    HookLibrary.text_key,
    HookLibrary.hook_type,
)
Index(
    "ix_hook_library_best",
    HookLibrary.scope,
    HookLibrary.best_rank.desc(),
    HookLibrary.usage_count.desc(),
    HookLibrary.text_key,
    HookLibrary.hook_type,
)


class HookText(Base):
    """One distinct hook text (``text_key``) of hook search (§4.7: one row per text, ADR 0055): how many
    hooks share it (``usage_count``) and its best hook (``best_seq``, ``best_rank``: the first of its
    hooks in search's order, ``rank_score`` then ``seq``, both descending).

    Search counts and pages texts here instead of walking every hook of a text: templated openings repeat
    one text across thousands of videos. Kept in step with ``hooks`` by triggers on ``hooks`` in the
    database itself (models/fulltext.py), so every change of a hook counts, a video's deletion cascading
    to its hook included. ``seq`` is an integer key only so the SQLite full-text index
    (``hook_texts_fts``) can point at rows by rowid."""

    __tablename__ = "hook_texts"

    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    text_key: Mapped[str] = mapped_column(Text, unique=True)
    usage_count: Mapped[int] = mapped_column(Integer)
    best_seq: Mapped[int] = mapped_column(Integer)
    best_rank: Mapped[float] = mapped_column(Float)


# search's order of texts: a common word's texts are met best first walking it; on PostgreSQL with the
# words and count, so the walk tests each text by a regular expression without reading the table
# (hook/repository._pg_text_match: 9 ms for 17,000 texts, against 18 ms testing the stored vectors)
Index(
    "ix_hook_texts_best",
    HookText.best_rank.desc(),
    HookText.best_seq.desc(),
    postgresql_include=["text_key", "usage_count"],
)
# made after hooks, dropped before it: its triggers are on hooks (models/fulltext.py)
HookText.__table__.add_is_dependent_on(Hook.__table__)  # type: ignore[attr-defined]
