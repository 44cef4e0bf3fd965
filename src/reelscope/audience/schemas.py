"""Wire shapes of audience snapshots (spec §4.7, §6.3 audience.snapshot.completed; ADR 0023)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from reelscope.kit.schemas import Schema
from reelscope.worker.jobs.schemas import PendingJob


class AudienceJobOut(Schema):
    """An audience snapshot job: its status and, once completed, the snapshot."""

    snapshot_id: str
    tracking_id: str | None
    platform: str
    handle: str
    status: str = Field(description="pending, processing, completed, failed or expired")
    poll_url: str
    created_at: str
    completed_at: str | None = None
    expires_at: str | None = Field(default=None, description="Results are kept 24 hours after completion")
    error: dict[str, Any] | None = None
    snapshot: dict[str, Any] | None = Field(
        default=None,
        description="sample_size, data_source, confidence_per_signal, confidence_level, signal_breakdown, "
        "demographics {age, gender}, geography {country, city, language}",
    )


class AudiencePart(Schema):
    """The creator's latest audience demographics or geography, with its pending audience jobs (§2.6)."""

    tracking_id: str
    snapshot_id: str | None = Field(description="The latest completed snapshot; null before the first")
    generated_at: str | None
    sample_size: int = Field(description="Distinct commenters sampled; 0 before the first snapshot")
    data_source: str | None = Field(description="comments or profile_only; null before the first snapshot")
    confidence_per_signal: dict[str, float] = Field(
        description="age, gender, country, city, language: 0 to 1"
    )
    confidence_level: str = Field(description="low, medium or high (low before the first snapshot)")
    signal_breakdown: dict[str, int] = Field(description="comments and followers read")
    demographics: dict[str, dict[str, float]] | None = None
    geography: dict[str, dict[str, float]] | None = None
    finalized: bool
    pending_jobs: list[PendingJob]
