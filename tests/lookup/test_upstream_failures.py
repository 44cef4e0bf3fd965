"""Lookups when the data source keeps failing (spec §3, §6.3, §8.4): retried while attempts last, then
failed, refunded and announced; a lookup whose job never finishes shows failed and sends nothing."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import httpx
import pytest

from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from reelscope.worker.context import TaskContext
from reelscope.worker.dispatcher import dispatch_once
from tests.conftest import TeamKey
from tests.lookup.conftest import Balance, Events, HandleOf


@pytest.fixture
def settings(data_dir: Path, database_url: str, redis_url: str | None) -> Settings:
    """Every TikTok call of the sandbox fails (a retryable upstream error)."""
    return Settings(
        data_dir=data_dir,
        database_url=database_url,
        redis_url=redis_url,
        sandbox_failures="tiktok:1.0",
    )


async def status_of(client: httpx.AsyncClient, team: TeamKey, poll_url: str) -> dict[str, object]:
    data: dict[str, object] = (await client.get(poll_url, headers=team.headers)).json()["data"]
    return data


class TestRetries:
    async def test_after_the_last_attempt_the_lookup_fails_is_refunded_and_announced(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        handle: HandleOf,
        clock: ManualClock,
        task_context: TaskContext,
        balance: Balance,
        events: Events,
    ) -> None:
        started = (await client.get(f"/v1/satellite/creator/tiktok/{handle()}", headers=team.headers)).json()[
            "data"
        ]
        assert (await status_of(client, team, started["poll_url"]))[
            "status"
        ] == "processing"  # a retry is due
        for wait in (timedelta(seconds=31), timedelta(minutes=2, seconds=1)):
            clock.advance(wait)
            await dispatch_once(task_context)  # re-sends the due retry, which runs at once
        data = await status_of(client, team, started["poll_url"])
        assert data["status"] == "failed"
        assert data["error"] == {"code": "upstream_error", "message": "The data source failed; try again"}
        assert await balance(team.team_id) == 1000
        [event] = await events(team.team_id)
        assert event["status"] == "failed" and event["error"]["code"] == "upstream_error"

    async def test_a_stalled_lookup_reads_failed_and_sends_nothing(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        handle: HandleOf,
        clock: ManualClock,
        task_context: TaskContext,
        balance: Balance,
        events: Events,
    ) -> None:
        """No dispatcher re-sends the retries: the job's window ends with the run never finished (§6.3:
        no message for a stalled lookup; read it through the runs endpoint)."""
        started = (await client.get(f"/v1/satellite/creator/tiktok/{handle()}", headers=team.headers)).json()[
            "data"
        ]
        clock.advance(timedelta(minutes=31))
        run = (await client.get(f"/v1/satellite/runs/{started['run_id']}", headers=team.headers)).json()[
            "data"
        ]
        assert run["status"] == "failed" and run["error"]["code"] == "upstream_error"
        await dispatch_once(task_context)  # expires the job: the engine refunds it
        assert await balance(team.team_id) == 1000
        assert await events(team.team_id) == []


class TestGivenUpIsNotCached:
    async def test_a_repeat_of_a_stalled_lookup_starts_a_new_paid_run(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        handle: HandleOf,
        clock: ManualClock,
        balance: Balance,
    ) -> None:
        """§4.7 "cached repeats free" is for a result: a lookup whose job gave up (its run row still
        ``processing``) is not served as a cached failure for 6 hours; the repeat is a new run."""
        path = f"/v1/satellite/creator/tiktok/{handle()}"
        first = (await client.get(path, headers=team.headers)).json()["data"]
        clock.advance(timedelta(minutes=31))  # the job's retry window ends with the run never finished
        repeat = await client.get(path, headers=team.headers)
        assert repeat.status_code in (200, 202)
        data = repeat.json()["data"]
        assert data["cached"] is False and data["status"] == "processing"
        assert data["run_id"] != first["run_id"]
        assert repeat.headers["X-Cost"] != "0.00"
