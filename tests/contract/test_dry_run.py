"""``?dry_run=true`` on every paid operation (issue 30 item 4, ADR 0047; beyond the spec).

The paid routes are read from the app's route table, so a paid route added later is covered without
touching this file. A dry run charges nothing, writes nothing (every table's row count is unchanged)
and uses none of the operation's rate-limit window; it still validates the input (400)."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import func, select

from reelscope.auth import service as auth_service
from reelscope.billing.prices import price_of
from reelscope.contract import ContractRoute
from reelscope.kit.clock import ManualClock
from reelscope.kit.db import Base
from reelscope.reference import can_charge
from reelscope.runtime import Runtime
from tests.conftest import MakeTeam, TeamKey


def paid_requests(app: FastAPI) -> list[tuple[str, str, str]]:
    """(operation, method, path) of every paid /v1 route, path parameters filled in."""
    found = []
    for route in app.routes:
        if isinstance(route, ContractRoute) and can_charge(price_of(route.name)):
            path = re.sub(r"\{[^}]+\}", "x1", route.path_format.replace("{platform}", "tiktok"))
            found += [(route.name, method, path) for method in sorted(route.methods or ())]
    return found


async def row_counts(runtime: Runtime) -> dict[str, int]:
    async with runtime.db.transaction(write=False) as session:
        return {
            table.name: (await session.execute(select(func.count()).select_from(table))).scalar_one()
            for table in Base.metadata.sorted_tables
        }


def app_of(client: httpx.AsyncClient) -> FastAPI:
    transport = client._transport
    assert isinstance(transport, httpx.ASGITransport) and isinstance(transport.app, FastAPI)
    return transport.app


class TestEveryPaidOperation:
    async def test_quotes_without_charging_or_doing_anything(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey
    ) -> None:
        requests = paid_requests(app_of(client))
        assert len(requests) >= 30  # the route table was read
        before = await row_counts(runtime)
        answered: dict[str, int] = {}
        for operation, method, path in requests:
            body: dict[str, Any] | None = None if method == "GET" else {}
            response = await client.request(
                method, path, params={"dry_run": "true"}, json=body, headers=team.headers
            )
            answered[operation] = response.status_code
            # bad input (here: an empty body, a missing `q`) is still a 400, and nothing is charged
            assert response.status_code in (200, 400), (operation, response.text)
            assert response.headers["X-Credits-Used"] == "0" and "X-Credits-Remaining" not in response.headers
            if response.status_code == 200:
                data = response.json()["data"]
                assert data["dry_run"] is True and data["operation"] == operation
                assert data["price_credits"] == price_of(operation).quote({}, body)
                assert data["balance_credits"] == 1000
                assert data["balance_after_credits"] == 1000 - data["price_credits"]
                assert data["allowed"] is True and data["refusals"] == []
        # no job, no run, no row, no debit of any kind
        assert await row_counts(runtime) == before
        # reads, a lookup's GET that starts work and a POST that starts work all answered
        assert {answered[op] for op in ("get_videos_digest", "lookup_creator", "collect_creator_posts")} == {
            200
        }

    async def test_a_valid_create_is_quoted_and_not_made(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey
    ) -> None:
        before = await row_counts(runtime)
        body = {"keywords": ["sourdough"], "data_intelligence_enabled": True}
        response = await client.post("/v1/agents?dry_run=true", json=body, headers=team.headers)
        assert response.status_code == 200, response.text
        assert response.json()["data"]["price_credits"] == 150  # §4.4: $0.50 + $1.00 Data Intelligence
        assert await row_counts(runtime) == before
        # the same request without the flag does the work
        made = await client.post("/v1/agents?dry_run=false", json=body, headers=team.headers)
        assert made.status_code == 201 and made.headers["X-Credits-Used"] == "150"


class TestValidation:
    @pytest.mark.parametrize(
        "path",
        [
            "/v1/hooks/search?dry_run=true",  # q is required (§4.7)
            "/v1/trends/emerging?limit=999&dry_run=true",  # max 50 (§8.3)
            "/v1/videos/digest?dry_run=maybe",  # not a boolean
            "/v1/videos/digest?dry_run=true&nonsense=1",  # digests refuse unknown parameters (§7)
        ],
    )
    async def test_bad_input_is_still_400(self, client: httpx.AsyncClient, team: TeamKey, path: str) -> None:
        response = await client.get(path, headers=team.headers)
        assert response.status_code == 400 and response.json()["code"] == "validation_error"
        assert response.headers["X-Credits-Used"] == "0"

    async def test_the_parameter_reaches_no_endpoint(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        # a digest refuses parameters it does not know; dry_run=false is the contract's, not its own
        response = await client.get("/v1/videos/digest?dry_run=false", headers=team.headers)
        assert response.status_code == 200 and response.headers["X-Credits-Used"] == "25"

    async def test_needs_a_key(self, client: httpx.AsyncClient) -> None:
        assert (await client.get("/v1/videos/digest?dry_run=true")).status_code == 401


class TestRefusals:
    async def test_a_balance_too_low(self, client: httpx.AsyncClient, make_team: MakeTeam) -> None:
        poor = await make_team(10)
        response = await client.get("/v1/videos/digest?dry_run=true", headers=poor.headers)
        assert response.status_code == 200
        data = response.json()["data"]
        assert (data["allowed"], data["balance_after_credits"]) == (False, None)
        assert [r["code"] for r in data["refusals"]] == ["insufficient_credits"]

    async def test_a_daily_cap(
        self, client: httpx.AsyncClient, runtime: Runtime, clock: ManualClock, team: TeamKey
    ) -> None:
        async with runtime.db.transaction() as session:
            await auth_service.set_daily_cap(session, team.key_id, 30)
        first = await client.get("/v1/videos/digest", headers=team.headers)
        assert first.status_code == 200
        data = (await client.get("/v1/videos/digest?dry_run=true", headers=team.headers)).json()["data"]
        assert [r["code"] for r in data["refusals"]] == ["daily_cap_reached"]
        assert data["key_daily_cap"] == {
            "cap_credits": 30,
            "spent_today_credits": 25,
            "left_today_credits": 5,
        }

    async def test_a_used_up_window_without_using_it(
        self, client: httpx.AsyncClient, runtime: Runtime, clock: ManualClock, team: TeamKey
    ) -> None:
        async with runtime.db.transaction() as session:
            found = await auth_service.team_by_name(session, team.name)
            await auth_service.set_limits(
                session, found, "video_digests", per_minute=2, per_hour=None, per_day=None, at=clock.now()
            )
        # dry runs count on a counter of their own (the default group), never the operation's window
        for _ in range(3):
            dry = await client.get("/v1/videos/digest?dry_run=true", headers=team.headers)
            assert dry.json()["data"]["rate_limit"]["remaining"] == 2
            assert dry.headers["X-RateLimit-Limit"] == "10000"
        for _ in range(2):
            assert (await client.get("/v1/videos/digest", headers=team.headers)).status_code == 200
        data = (await client.get("/v1/videos/digest?dry_run=true", headers=team.headers)).json()["data"]
        assert data["rate_limit"] == {
            **data["rate_limit"],
            "feature": "video_digests",
            "limit": 2,
            "remaining": 0,
        }
        assert [r["code"] for r in data["refusals"]] == ["rate_limit_exceeded"] and data["allowed"] is False


class TestDocumented:
    async def test_every_paid_operation_documents_the_parameter(self, client: httpx.AsyncClient) -> None:
        document = (await client.get("/openapi.json")).json()
        for operation, method, _ in paid_requests(app_of(client)):
            path = next(r.path_format for r in app_of(client).routes if getattr(r, "name", None) == operation)
            parameters = document["paths"][path][method.lower()].get("parameters", [])
            assert "dry_run" in {p["name"] for p in parameters}, operation
