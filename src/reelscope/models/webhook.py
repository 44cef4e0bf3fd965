"""Webhook endpoints, their deliveries and every delivery attempt (spec §2.7, §3, §6.1).

The rows are the truth of delivery (ARCHITECTURE §6): a delivery is due when ``next_attempt_at`` has
passed; a worker claims it with a lease (``lease_token``, ``lease_until``) and records the outcome
under that token. A worker that dies mid-attempt leaves the lease to expire, and the delivery is
attempted again: possibly twice, never lost.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from reelscope.kit.db import Base, UtcDateTime
from reelscope.kit.ids import new_id


class WebhookEndpoint(Base):
    __tablename__ = "webhook_endpoints"
    __table_args__ = (Index("ix_webhook_endpoints_team_created", "team_id", "created_at"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    team_id: Mapped[str] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"))
    url: Mapped[str] = mapped_column(String(2048))
    description: Mapped[str] = mapped_column(String(256), default="")
    enabled_events: Mapped[list[str]] = mapped_column(JSON)
    headers: Mapped[dict[str, str]] = mapped_column(JSON)
    # Standard Webhooks signing secret, "whsec_" + base64 (beyond the spec, ADR 0010)
    secret: Mapped[str] = mapped_column(String(64))
    # the owner's switch; stays true after an automatic shutdown (§2.7)
    is_active: Mapped[bool] = mapped_column(Boolean, default=True)
    # active | inactive | disabled_by_system (§2.7, §3)
    status: Mapped[str] = mapped_column(String(24))
    consecutive_failures: Mapped[int] = mapped_column(Integer, default=0)
    last_success_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    last_failure_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    # set by DELETE: the endpoint stays listed as inactive and can no longer be changed
    deleted_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    created_by: Mapped[str] = mapped_column(String(36))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


class WebhookDelivery(Base):
    """One event for one endpoint. ``id`` is the body's ``id`` and ``Service-Event-Id`` (§6.1)."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        # fan-out is idempotent: an event reaches an endpoint at most once
        UniqueConstraint("event_id", "endpoint_id"),
        Index("ix_webhook_deliveries_endpoint_created", "endpoint_id", "created_at", "id"),
        Index("ix_webhook_deliveries_due", "status", "next_attempt_at"),
        # the retention purge's oldest-first scan (retention.repository)
        Index("ix_webhook_deliveries_created", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    endpoint_id: Mapped[str] = mapped_column(ForeignKey("webhook_endpoints.id", ondelete="CASCADE"))
    team_id: Mapped[str] = mapped_column(String(36), index=True)
    # the outbox event this delivery carries (a test event gets an id of its own)
    event_id: Mapped[str] = mapped_column(String(36))
    event_type: Mapped[str] = mapped_column(String(100))
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    event_created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    # pending | delivered | failed | dead | payload_too_large (§2.7, §3)
    status: Mapped[str] = mapped_column(String(24))
    # every attempt ever made, and those of the current round (a manual retry starts a new round)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    round_attempts: Mapped[int] = mapped_column(Integer, default=0)
    # non-2xx answers outside 408/429/5xx in this round: the second one ends it as `failed` (§6.1)
    round_hard_failures: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    lease_token: Mapped[str | None] = mapped_column(String(36), nullable=True)
    lease_until: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    last_attempt_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    response_status: Mapped[int | None] = mapped_column(Integer, nullable=True)
    last_error: Mapped[str | None] = mapped_column(String(300), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


class WebhookAttempt(Base):
    """One HTTP attempt of a delivery, as it happened."""

    __tablename__ = "webhook_attempts"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    delivery_id: Mapped[str] = mapped_column(
        ForeignKey("webhook_deliveries.id", ondelete="CASCADE"), index=True
    )
    number: Mapped[int] = mapped_column(Integer)
    attempted_at: Mapped[datetime] = mapped_column(UtcDateTime)
    # delivered | retryable | rejected | blocked
    outcome: Mapped[str] = mapped_column(String(16))
    response_status: Mapped[int | None] = mapped_column(Integer, nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    duration_ms: Mapped[int] = mapped_column(Integer)
