"""What the sources have spent and how they are doing, shared by every process (issue 26; ADR 0044).

``collector_buckets``: one row per (source, bucket): what was spent in the current quota window and
whether the bucket is paused (spent, throttled, or a host that blocks a scraper). ``collector_sources``:
one row per source: its last success and error, consecutive failures and the circuit breaker.
``instagram_hashtags``: the hashtags the Instagram source searched, per professional account, each with
when its current 7 days began (30 unique hashtags per rolling 7 days; issue 27, ADR 0045).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from reelscope.kit.db import Base, BigInt, UtcDateTime


class CollectorBucket(Base):
    __tablename__ = "collector_buckets"

    source: Mapped[str] = mapped_column(String(40), primary_key=True)
    bucket: Mapped[str] = mapped_column(String(80), primary_key=True)
    # the reset that ends the current window; NULL until the first spend
    window_ends_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    used: Mapped[int] = mapped_column(BigInt, default=0)
    used_background: Mapped[int] = mapped_column(BigInt, default=0)
    # the limit declared at the last spend, for status (the connector's declaration is what counts)
    daily_limit: Mapped[int | None] = mapped_column(BigInt, nullable=True)
    paused_until: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    pause_reason: Mapped[str | None] = mapped_column(String(300), nullable=True)
    updated_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)


class CollectorSource(Base):
    __tablename__ = "collector_sources"

    source: Mapped[str] = mapped_column(String(40), primary_key=True)
    calls: Mapped[int] = mapped_column(BigInt, default=0)
    last_success_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    last_error_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    # the typed error's name and our own message (never a vendor body or a URL with a key)
    last_error_kind: Mapped[str | None] = mapped_column(String(40), nullable=True)
    last_error: Mapped[str | None] = mapped_column(String(300), nullable=True)
    # consecutive failures since the last success; the breaker opens past the source's threshold
    failures: Mapped[int] = mapped_column(Integer, default=0)
    circuit_open_until: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    circuit_reason: Mapped[str | None] = mapped_column(String(300), nullable=True)


class InstagramHashtag(Base):
    __tablename__ = "instagram_hashtags"

    # the professional account the searches were made for (REELSCOPE_INSTAGRAM_USER_ID)
    account: Mapped[str] = mapped_column(String(40), primary_key=True)
    # lower case, without "#"; a hashtag Meta named only by its id (recently_searched_hashtags) is "#<id>"
    name: Mapped[str] = mapped_column(String(120), primary_key=True)
    hashtag_id: Mapped[str | None] = mapped_column(String(40), nullable=True)
    # the first search of its current 7 days: it holds one of the 30 places until 7 days after
    counted_at: Mapped[datetime] = mapped_column(UtcDateTime)
