"""GET /v1/account/balance (§4.7): free, the team's pooled balance (§5.7)."""

from __future__ import annotations

import httpx
import pytest

from reelscope.auth import service as auth_service
from reelscope.billing import service as billing_service
from reelscope.kit.clock import ManualClock
from reelscope.runtime import Runtime
from tests.conftest import MakeTeam, TeamKey


class TestBalance:
    async def test_shape_and_free(self, client: httpx.AsyncClient, make_team: MakeTeam) -> None:
        team = await make_team(1234)
        response = await client.get("/v1/account/balance", headers=team.headers)
        assert response.status_code == 200
        assert response.json() == {
            "data": {
                "credits_remaining": 1234,
                "balance_usd": 12.34,
                "auto_top_up": None,
                "key_daily_cap": None,
            }
        }
        assert response.headers["X-Cost"] == "0.00"
        assert response.headers["X-Credits-Used"] == "0"
        assert "X-Credits-Remaining" not in response.headers
        assert "X-Balance-Remaining" not in response.headers

    @pytest.mark.both_databases
    async def test_a_balance_past_two_to_the_31_credits(
        self, client: httpx.AsyncClient, runtime: Runtime, make_team: MakeTeam, clock: ManualClock
    ) -> None:
        # $25M: 64-bit on both databases (migration 0016), charged and read back exactly
        team = await make_team(2_000_000_000)
        async with runtime.db.transaction() as session:
            await billing_service.add_credits(session, team.team_id, 500_000_000, at=clock.now())
        response = await client.get("/v1/account/balance", headers=team.headers)
        assert response.json()["data"]["credits_remaining"] == 2_500_000_000
        assert response.json()["data"]["balance_usd"] == 25_000_000.0
        charged = await client.get("/v1/videos/digest", headers=team.headers)
        assert charged.status_code == 200
        remaining = int(charged.headers["X-Credits-Remaining"])
        assert remaining == 2_500_000_000 - int(charged.headers["X-Credits-Used"]) and remaining > 2**31

    async def test_pooled_per_team_across_keys(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey, clock: ManualClock
    ) -> None:
        async with runtime.db.transaction() as session:
            found = await auth_service.team_by_name(session, team.name)
            second = await auth_service.issue_key(session, found, clock.now())
            await billing_service.add_credits(session, team.team_id, 500, at=clock.now())
        response = await client.get(
            "/v1/account/balance", headers={"Authorization": f"Bearer {second.api_key}"}
        )
        assert response.json()["data"]["credits_remaining"] == 1500

    async def test_each_team_sees_only_its_own(self, client: httpx.AsyncClient, make_team: MakeTeam) -> None:
        rich = await make_team(9000)
        poor = await make_team(10)
        assert (await client.get("/v1/account/balance", headers=rich.headers)).json()["data"][
            "credits_remaining"
        ] == 9000
        assert (await client.get("/v1/account/balance", headers=poor.headers)).json()["data"][
            "credits_remaining"
        ] == 10
