"""Jobs and schedules: the database is the source of truth for async work (ARCHITECTURE §5, spec §2.6, §3).

The queue (Huey) only carries "run job X now" messages; a lost message loses no work because the
dispatcher re-sends stale pending jobs, and a killed worker loses no work because its lease expires.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from reelscope.kit.db import Base, UtcDateTime
from reelscope.kit.ids import new_id


class Job(Base):
    """One unit of async work the API can expose (a pending_jobs entry, a lookup, a run step)."""

    __tablename__ = "jobs"
    __table_args__ = (
        Index("ix_jobs_resource", "resource_type", "resource_id"),
        Index("ix_jobs_status_next_attempt", "status", "next_attempt_at"),
        Index("ix_jobs_status_locked_until", "status", "locked_until"),
        # the retention purge's scan for jobs finished long ago (retention.repository)
        Index("ix_jobs_finished_at", "finished_at"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    # null for system jobs (trend runs, momentum refresh)
    team_id: Mapped[str | None] = mapped_column(
        ForeignKey("teams.id", ondelete="CASCADE"), nullable=True, index=True
    )
    # the registered task name that runs it (worker.task), e.g. "agent.analysis"
    task: Mapped[str] = mapped_column(String(100))
    # what the API calls it, e.g. "viral_analysis" in pending_jobs (§2.6)
    type: Mapped[str] = mapped_column(String(64))
    resource_type: Mapped[str | None] = mapped_column(String(64), nullable=True)
    resource_id: Mapped[str | None] = mapped_column(String(100), nullable=True)
    # pending | processing | completed | failed | expired (§2.6)
    status: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    max_attempts: Mapped[int] = mapped_column(Integer, default=3)
    params: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    result: Mapped[Any | None] = mapped_column(JSON, nullable=True)
    # where a job that works in steps stands, written with each step it lands (null for the others)
    progress: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    error: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # credits the request that created the job charged; refunded if the job fails for good (ARCHITECTURE §3)
    charged_credits: Mapped[int] = mapped_column(Integer, default=0)
    # §2.6 pending_jobs extras, set by the family that creates the job
    poll_url: Mapped[str | None] = mapped_column(String(300), nullable=True)
    result_path: Mapped[str | None] = mapped_column(String(200), nullable=True)
    webhook_event: Mapped[str | None] = mapped_column(String(100), nullable=True)
    # makes creation idempotent (e.g. one job per schedule firing); NULLs never collide
    dedupe_key: Mapped[str | None] = mapped_column(String(200), nullable=True, unique=True)
    # end of the retry window: past it the job is expired (§3 "Pending job")
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    # when the next attempt may start; null once no attempt is left
    next_attempt_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    # when a queue message was last sent; the dispatcher re-sends when it is stale
    enqueued_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    # lease of the worker running it: the heartbeat extends it, recovery reclaims it once past
    locked_until: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    lease_token: Mapped[str | None] = mapped_column(String(36), nullable=True)
    started_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    # set when no more work will happen (completed, failed for good, expired)
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


class Schedule(Base):
    """A recurring (or one-off) firing: agent cadences, regional trend runs, tracking cycles, retries."""

    __tablename__ = "schedules"
    __table_args__ = (
        Index("ix_schedules_due", "is_active", "next_run_at"),
        Index("ix_schedules_resource", "resource_type", "resource_id"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    team_id: Mapped[str | None] = mapped_column(
        ForeignKey("teams.id", ondelete="CASCADE"), nullable=True, index=True
    )
    # the task each firing runs (a job is created per firing)
    task: Mapped[str] = mapped_column(String(100))
    job_type: Mapped[str] = mapped_column(String(64))
    resource_type: Mapped[str | None] = mapped_column(String(64), nullable=True)
    resource_id: Mapped[str | None] = mapped_column(String(100), nullable=True)
    # cron:<expr> | local:<HH:MM,HH:MM> | interval:<seconds> | once  (schedules.cadence)
    cadence: Mapped[str] = mapped_column(String(200))
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    params: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # copied to every job it fires, for the §2.6 pending_jobs entry (as on a job created directly)
    poll_url: Mapped[str | None] = mapped_column(String(300), nullable=True)
    webhook_event: Mapped[str | None] = mapped_column(String(100), nullable=True)
    is_active: Mapped[bool] = mapped_column(Boolean, default=True)
    next_run_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    last_run_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    run_count: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)
