"""Query bounds of the tracking reads (spec §7: a bad parameter is 400 validation_error or
invalid_date_range, never a 500), on SQLite and PostgreSQL."""

from __future__ import annotations

import httpx
import pytest

from reelscope.worker.engine import JobEngine
from tests.conftest import TeamKey
from tests.kit.test_errors import assert_error
from tests.tracking.conftest import creator_handle

pytestmark = pytest.mark.both_databases

HUGE = "9" * 20  # digits only, past any 64-bit integer


async def test_a_page_past_the_bound_is_a_400(
    client: httpx.AsyncClient, team: TeamKey, jobs: JobEngine
) -> None:
    created = await client.post(
        "/v1/tracking/creators",
        json={"platform": "tiktok", "handle": creator_handle(0)},
        headers=team.headers,
    )
    assert created.status_code == 201, created.text
    base = f"/v1/tracking/creators/{created.json()['data']['id']}"
    for path in ("/v1/tracking/creators", "/v1/tracking/videos", base + "/posts"):
        for page in (HUGE, "1000001"):
            response = await client.get(path, params={"page": page}, headers=team.headers)
            assert_error(response, 400, "validation_error")
        last = await client.get(path, params={"page": "1000000"}, headers=team.headers)
        assert last.status_code == 200, last.text
        assert last.json()["data"] == []


async def test_days_beyond_the_calendar_read_are_an_invalid_date_range(
    client: httpx.AsyncClient, team: TeamKey, jobs: JobEngine
) -> None:
    """kit/dates.py: 0002-01-01 to 9998-12-31 (the window ends at the next midnight, which 9999-12-31
    cannot hold: a 500 before)."""
    created = await client.post(
        "/v1/tracking/creators",
        json={"platform": "tiktok", "handle": creator_handle(0)},
        headers=team.headers,
    )
    base = f"/v1/tracking/creators/{created.json()['data']['id']}"
    for params, name in (
        ({"end_date": "9999-12-31"}, "end_date"),
        ({"start_date": "2026-11-21", "end_date": "9999-12-30"}, "end_date"),
        ({"start_date": "0001-01-01"}, "start_date"),
    ):
        response = await client.get(base + "/snapshots", params=params, headers=team.headers)
        body = assert_error(response, 400, "invalid_date_range")
        assert body["message"] == f"{name} must be between 0002-01-01 and 9998-12-31"
    window = await client.get(base + "/snapshots", params={"end_date": "9998-12-31"}, headers=team.headers)
    assert window.status_code == 200 and window.json()["data"]["count"] == 1
