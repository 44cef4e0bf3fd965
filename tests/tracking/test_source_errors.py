"""A source's own error text never reaches a client (collectors/guard.py): the 502 of a creation, a
collection's and an audience snapshot's job ``error`` carry the fixed ``{code, message}`` only."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from reelscope.config import Settings
from reelscope.worker.engine import JobEngine
from tests.conftest import TeamKey
from tests.kit.test_errors import assert_error
from tests.tracking.conftest import creator_handle, failing
from tests.tracking.test_endpoints import get, track

pytestmark = pytest.mark.both_databases

VENDOR = "injected"  # the sandbox's own failure text: "sandbox tiktok creator failed (injected)"


class TestCreation:
    @pytest.fixture
    def settings(self, data_dir: Path, database_url: str, redis_url: str | None) -> Settings:
        return Settings(
            data_dir=data_dir,
            database_url=database_url,
            redis_url=redis_url,
            sandbox_failures="tiktok:1",
        )

    async def test_a_failing_source_is_a_502_without_its_text(
        self, client: httpx.AsyncClient, team: TeamKey, jobs: JobEngine
    ) -> None:
        body = {"platform": "tiktok", "handle": creator_handle(0)}
        response = await client.post("/v1/tracking/creators", json=body, headers=team.headers)
        error = assert_error(response, 502, "upstream_error")
        assert VENDOR not in response.text and "sandbox" not in str(error["message"])


class TestJobs:
    async def test_job_errors_carry_no_source_text(
        self, client: httpx.AsyncClient, team: TeamKey, jobs: JobEngine
    ) -> None:
        item = await track(client, team, creator_handle(3))
        base = f"/v1/tracking/creators/{item['id']}"
        failing(jobs)
        collect = await client.post(base + "/posts/collect", json={}, headers=team.headers)
        assert collect.status_code == 202, collect.text
        collected = (await get(client, team, collect.json()["data"]["poll_url"]))["data"]
        assert collected["error"]["code"] == "upstream_error"
        refresh = await client.post(base + "/audience-refresh", headers=team.headers)
        assert refresh.status_code == 202, refresh.text
        snapshot = (await get(client, team, refresh.json()["data"]["poll_url"]))["data"]
        assert snapshot["error"]["code"] == "upstream_error"
        for error in (collected["error"], snapshot["error"]):
            assert error["message"] == "The data source failed; try again", error
