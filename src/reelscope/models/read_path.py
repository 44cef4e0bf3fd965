"""Precomputed read-path results (issue 6): digest lists and daily hashtag rollups (spec §4.1, §4.2).

Requests read these rows instead of the catalog. Each result carries a ``version`` (a fresh random id
whenever its content changes) so a process may keep a serialized copy and check it with one cheap
primary-key read per request (ADR 0011).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from reelscope.kit.db import Base, UtcDateTime


class DigestList(Base):
    """One digest list (§4.1): ``scope`` is a platform or ``all``; ``rows`` the rendered §2.1 items as
    a JSON array, by views descending, a few more than 100 so videos ageing out of the 48 hours between
    refreshes can be dropped at read time."""

    __tablename__ = "digest_lists"

    scope: Mapped[str] = mapped_column(String(16), primary_key=True)
    version: Mapped[str] = mapped_column(String(36))
    built_at: Mapped[datetime] = mapped_column(UtcDateTime)
    rows: Mapped[str] = mapped_column(Text)


class HashtagDaily(Base):
    """Counted videos (§2.3) posted on one UTC ``day`` (YYYY-MM-DD) on one platform that used one tag."""

    __tablename__ = "hashtag_daily"
    __table_args__ = (
        Index("ix_hashtag_daily_hashtag_id_day", "hashtag_id", "day"),
        {"sqlite_with_rowid": False},
    )

    day: Mapped[str] = mapped_column(String(10), primary_key=True)
    platform: Mapped[str] = mapped_column(String(16), primary_key=True)
    hashtag_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    videos: Mapped[int] = mapped_column(Integer)
    views: Mapped[int] = mapped_column(BigInteger)
    likes: Mapped[int] = mapped_column(BigInteger)
    comments: Mapped[int] = mapped_column(BigInteger)


class HashtagTopList(Base):
    """A §4.2 top list the rollup answered ahead of the question (ADR 0060): the rendered body of the
    ``limit=100`` answer for the posting days [``first_day``, ``last_day``], ``scope`` (a platform or
    ``all``), ``order_by`` and ``sort``, valid only under the rollup ``version`` it was built from."""

    __tablename__ = "hashtag_top_lists"

    version: Mapped[str] = mapped_column(String(36), primary_key=True)
    first_day: Mapped[str] = mapped_column(String(10), primary_key=True)
    last_day: Mapped[str] = mapped_column(String(10), primary_key=True)
    scope: Mapped[str] = mapped_column(String(16), primary_key=True)
    order_by: Mapped[str] = mapped_column(String(8), primary_key=True)
    sort: Mapped[str] = mapped_column(String(4), primary_key=True)
    body: Mapped[str] = mapped_column(Text)


class ReadVersion(Base):
    """The version of a precomputed result that is not a single row (the hashtag rollup)."""

    __tablename__ = "read_versions"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    version: Mapped[str] = mapped_column(String(36))
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
