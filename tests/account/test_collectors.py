"""GET /v1/account/collectors (beyond the spec, issue 26 item 6): each enabled source's capabilities,
state, quota and last outcome, free, for any key."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest

from reelscope.collectors.base import Capability, Unavailable, UpstreamError
from reelscope.collectors.ledger import Breaker, Ledger
from reelscope.kit.clock import ManualClock, iso
from reelscope.runtime import Runtime
from tests.conftest import TeamKey


@pytest.mark.both_databases
class TestCollectors:
    async def test_the_default_sandbox_is_listed_free_with_every_capability(
        self, client: httpx.AsyncClient, team: TeamKey
    ) -> None:
        response = await client.get("/v1/account/collectors", headers=team.headers)
        assert response.status_code == 200, response.text
        assert response.headers["X-Cost"] == "0.00" and "X-Credits-Remaining" not in response.headers
        (sandbox,) = response.json()["data"]
        assert sandbox["name"] == "sandbox" and sandbox["state"] == "ok"
        assert set(sandbox["capabilities"]) == {c.value for c in Capability}
        assert sandbox["capabilities"]["search"] == ["instagram", "tiktok", "youtube"]
        assert sandbox["capabilities"]["news"] == []
        assert sandbox["buckets"] == [] and sandbox["last_error"] is None

    async def test_what_the_ledger_knows_shows(
        self, client: httpx.AsyncClient, team: TeamKey, runtime: Runtime, clock: ManualClock
    ) -> None:
        ledger = Ledger(runtime.db, clock)
        await ledger.succeeded("sandbox")
        clock.advance(timedelta(minutes=2))
        await ledger.failed("sandbox", UpstreamError("the sandbox failed (injected)"), None)
        (sandbox,) = (await client.get("/v1/account/collectors", headers=team.headers)).json()["data"]
        assert sandbox["state"] == "ok"  # a retryable failure is not a state
        assert sandbox["last_success_at"] == iso(clock.now() - timedelta(minutes=2))
        assert sandbox["last_error"] == {
            "kind": "UpstreamError",
            "message": "the sandbox failed (injected)",
            "at": iso(clock.now()),
        }
        assert sandbox["calls"] == 2

        await ledger.failed("sandbox", Unavailable("credentials refused"), None)
        (sandbox,) = (await client.get("/v1/account/collectors", headers=team.headers)).json()["data"]
        assert (sandbox["state"], sandbox["reason"]) == ("unavailable", "credentials refused")

        await ledger.failed("sandbox", UpstreamError("503"), Breaker(threshold=1))
        (sandbox,) = (await client.get("/v1/account/collectors", headers=team.headers)).json()["data"]
        assert sandbox["state"] == "circuit_open"  # the third failure in a row: 1 min doubled twice
        assert sandbox["state_until"] == iso(clock.now() + timedelta(minutes=4))

    async def test_a_key_is_needed(self, client: httpx.AsyncClient) -> None:
        response = await client.get("/v1/account/collectors")
        assert response.status_code == 401 and response.json()["code"] == "missing_api_key"
