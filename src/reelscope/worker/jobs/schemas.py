"""The §2.6 async envelope fields, embedded in the ``data`` of every resource with secondary jobs."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from reelscope.kit.schemas import Schema

PendingStatus = Literal["pending", "processing", "failed", "expired"]


class PendingJob(Schema):
    """One ``pending_jobs`` entry. Optional fields that are unknown are left out, not sent as null."""

    type: str = Field(
        description="viral_analysis, audience_demographics, audience_geography or tracking_report"
    )
    status: PendingStatus
    job_id: str | None = None
    poll_url: str | None = Field(default=None, description="Free path to GET")
    result_path: str | None = Field(default=None, description="JSON pointer relative to the response root")
    webhook_event: str | None = Field(default=None, description="Event that fires when the job is terminal")
    started_at: str | None = None
    retry_after_seconds: int | None = Field(default=None, description="Suggested wait before the next poll")

    @model_serializer(mode="wrap")
    def _omit_unknown(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        dumped: dict[str, Any] = handler(self)
        return {key: value for key, value in dumped.items() if value is not None}


class AsyncState(Schema):
    """``finalized`` and ``pending_jobs`` (§2.6): finalized once the resource and its jobs are done."""

    finalized: bool
    pending_jobs: list[PendingJob]
