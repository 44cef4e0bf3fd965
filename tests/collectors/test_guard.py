"""What a client reads when a source fails (collectors/guard.py): our words, never the vendor's; a spent
source says until when (issue 26 item 5)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from reelscope.collectors.base import ConnectorError, NotFound, RateLimited, Unavailable, UpstreamError
from reelscope.collectors.guard import SourceFailed, guarded


async def fail(error: ConnectorError) -> None:
    raise error


@pytest.mark.parametrize(
    ("error", "message", "retryable"),
    [
        (NotFound("No tiktok creator @nobody"), "No tiktok creator @nobody", False),
        (
            RateLimited("youtube units: quotaExceeded", retry_at=datetime(2026, 11, 22, 8, 0, tzinfo=UTC)),
            "The data source's quota is spent or it is throttled; try again after 2026-11-22T08:00:00Z",
            True,
        ),
        (
            UpstreamError("HTTP 503 from https://api.example/?key=SECRET"),
            "The data source failed; try again",
            True,
        ),
        (UpstreamError("400 invalidFilters", retryable=False), "The data source failed; try again", False),
        (Unavailable("REELSCOPE_YOUTUBE_API_KEY refused"), "The data source is unavailable", False),
    ],
)
async def test_each_failure_becomes_a_client_safe_error(
    error: ConnectorError, message: str, retryable: bool
) -> None:
    with pytest.raises(SourceFailed) as failed:
        await guarded(fail(error))
    assert failed.value.message == message and failed.value.retryable is retryable
    assert failed.value.code == ("not_found" if isinstance(error, NotFound) else "upstream_error")
    assert "SECRET" not in failed.value.message
