"""The contract's one rule (ADR 0019): a safe request reads, then its debit is group-committed; any other
request runs endpoint and debit in one write transaction. Probed with routes of the test's own, priced
in the pricing table for the test's duration."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import HTTPException
from sqlalchemy import func, select, text

from reelscope.billing import prices
from reelscope.billing import service as billing_service
from reelscope.billing.prices import Price
from reelscope.contract import ContractRoute, SessionDep, starts_work, v1_router, writes_nothing
from reelscope.main import create_app
from reelscope.models import LedgerEntry, Team
from reelscope.runtime import Runtime
from tests.conftest import MakeTeam, TeamKey
from tests.kit.test_errors import assert_error

pytestmark = pytest.mark.both_databases


async def probe_read(session: SessionDep) -> dict[str, int]:
    """A priced GET that reads through SessionDep (before ADR 0019 this was a 500)."""
    teams = (await session.execute(select(func.count()).select_from(Team))).scalar_one()
    return {"teams": int(teams)}


async def probe_sneaky_write(session: SessionDep) -> dict[str, int]:
    await session.execute(text("UPDATE teams SET credits = credits + 1000"))
    return {"wrote": 1}


async def probe_write(session: SessionDep, fail: bool = False) -> dict[str, int]:
    await session.execute(text("UPDATE teams SET name = name || '!'"))
    if fail:
        raise HTTPException(status_code=409, detail="refused after writing")
    return {"wrote": 1}


@starts_work
async def probe_start(session: SessionDep, fail: bool = False) -> dict[str, int]:
    """A priced GET that starts work (§4.7 lookups): it writes, so it runs like a non-safe request."""
    await session.execute(text("UPDATE teams SET name = name || '!'"))
    if fail:
        raise HTTPException(status_code=409, detail="refused after writing")
    return {"wrote": 1}


@writes_nothing
async def probe_post_read(session: SessionDep, write: bool = False) -> dict[str, int]:
    """A priced POST that creates nothing (§4.4 suggest-keywords): it reads like a GET."""
    if write:
        await session.execute(text("UPDATE teams SET credits = credits + 1000"))
    teams = (await session.execute(select(func.count()).select_from(Team))).scalar_one()
    return {"teams": int(teams)}


@pytest.fixture
async def client(runtime: Runtime, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[httpx.AsyncClient]:
    for name in ("probe_read", "probe_sneaky_write", "probe_write", "probe_start", "probe_post_read"):
        monkeypatch.setitem(prices.PRICES, name, Price(7))
    app = create_app(runtime=runtime)
    for path, endpoint, method in (
        ("/v1/probe/read", probe_read, "GET"),
        ("/v1/probe/sneaky-write", probe_sneaky_write, "GET"),
        ("/v1/probe/write", probe_write, "POST"),
        ("/v1/probe/start", probe_start, "GET"),
        ("/v1/probe/post-read", probe_post_read, "POST"),
    ):
        app.router.add_api_route(path, endpoint, methods=[method], route_class_override=ContractRoute)
    transport = httpx.ASGITransport(app=app, client=("203.0.113.7", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http


async def ledger(runtime: Runtime, team_id: str) -> tuple[int, int]:
    async with runtime.db.transaction(write=False) as session:
        count = await session.scalar(
            select(func.count()).select_from(LedgerEntry).where(LedgerEntry.team_id == team_id)
        )
        return await billing_service.balance(session, team_id), int(count or 0)


def test_a_route_without_a_price_fails_when_it_is_declared() -> None:
    router = v1_router(prefix="/probe")
    with pytest.raises(LookupError, match="PRICES"):
        router.add_api_route("/unpriced", probe_read, methods=["GET"])


class TestSafeRequests:
    async def test_a_priced_get_reads_through_its_session_and_is_charged(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey
    ) -> None:
        response = await client.get("/v1/probe/read", headers=team.headers)
        assert response.status_code == 200 and response.json() == {"teams": 1}
        assert response.headers["X-Credits-Used"] == "7"
        assert response.headers["X-Credits-Remaining"] == "993"
        assert await ledger(runtime, team.team_id) == (993, 2)  # the opening top-up and the charge

    async def test_a_get_that_tries_to_write_is_refused_and_charged_nothing(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey
    ) -> None:
        response = await client.get("/v1/probe/sneaky-write", headers=team.headers)
        assert_error(response, 500, "internal_error")
        assert response.headers["X-Credits-Used"] == "0"
        assert await ledger(runtime, team.team_id) == (1000, 1)


class TestOtherRequests:
    async def test_the_write_and_the_debit_commit_together(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey
    ) -> None:
        response = await client.post("/v1/probe/write", headers=team.headers)
        assert response.status_code == 200
        assert await ledger(runtime, team.team_id) == (993, 2)
        async with runtime.db.transaction(write=False) as session:
            assert (await session.execute(select(Team.name))).scalar_one() == team.name + "!"

    async def test_a_refusal_after_writing_rolls_back_the_write_and_charges_nothing(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey
    ) -> None:
        response = await client.post("/v1/probe/write", params={"fail": "true"}, headers=team.headers)
        assert response.status_code == 409
        assert response.headers["X-Credits-Used"] == "0"
        assert await ledger(runtime, team.team_id) == (1000, 1)
        async with runtime.db.transaction(write=False) as session:
            assert (await session.execute(select(Team.name))).scalar_one() == team.name


async def team_name(runtime: Runtime) -> str:
    async with runtime.db.transaction(write=False) as session:
        return str((await session.execute(select(Team.name))).scalar_one())


class TestPostsThatWriteNothing:
    """``@writes_nothing``: a POST the spec says creates nothing reads like a GET (ADR 0031)."""

    async def test_it_reads_is_charged_and_a_read_only_key_may_call_it(
        self, client: httpx.AsyncClient, runtime: Runtime, make_team: MakeTeam
    ) -> None:
        reader = await make_team(scope="read")
        response = await client.post("/v1/probe/post-read", headers=reader.headers)
        assert response.status_code == 200 and response.json() == {"teams": 1}
        assert response.headers["X-Credits-Used"] == "7"
        assert await ledger(runtime, reader.team_id) == (993, 2)

    async def test_a_write_is_refused_and_charged_nothing(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey
    ) -> None:
        response = await client.post("/v1/probe/post-read", params={"write": "true"}, headers=team.headers)
        assert_error(response, 500, "internal_error")
        assert await ledger(runtime, team.team_id) == (1000, 1)


class TestGetsThatStartWork:
    """``@starts_work``: a GET the spec makes start a job runs in one write transaction with its debit."""

    async def test_the_write_and_the_debit_commit_together(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey
    ) -> None:
        response = await client.get("/v1/probe/start", headers=team.headers)
        assert response.status_code == 200
        assert response.headers["X-Credits-Used"] == "7"
        assert await ledger(runtime, team.team_id) == (993, 2)
        assert await team_name(runtime) == team.name + "!"

    async def test_a_refusal_after_writing_rolls_back_and_charges_nothing(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey
    ) -> None:
        response = await client.get("/v1/probe/start", params={"fail": "true"}, headers=team.headers)
        assert response.status_code == 409
        assert response.headers["X-Credits-Used"] == "0"
        assert await ledger(runtime, team.team_id) == (1000, 1)
        assert await team_name(runtime) == team.name

    async def test_an_idempotency_key_replays_the_first_response_uncharged(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey
    ) -> None:
        headers = {**team.headers, "Idempotency-Key": "start-once"}
        first = await client.get("/v1/probe/start", headers=headers)
        again = await client.get("/v1/probe/start", headers=headers)
        assert first.status_code == again.status_code == 200
        assert again.headers["Idempotent-Replayed"] == "true"
        assert again.headers["X-Cost"] == "0.00"
        assert await ledger(runtime, team.team_id) == (993, 2)  # one charge, one write
        assert await team_name(runtime) == team.name + "!"
        other = await client.get("/v1/probe/start", params={"fail": "false"}, headers=headers)
        assert_error(other, 409, "conflict")  # the same key for another request

    async def test_a_read_only_key_may_not_start_work(
        self, client: httpx.AsyncClient, runtime: Runtime, make_team: MakeTeam
    ) -> None:
        reader = await make_team(scope="read")
        assert_error(await client.get("/v1/probe/start", headers=reader.headers), 403, "forbidden")
        assert (await client.get("/v1/probe/read", headers=reader.headers)).status_code == 200
        assert await ledger(runtime, reader.team_id) == (993, 2)  # only the read was charged
        assert await team_name(runtime) == reader.name

    async def test_an_unmarked_get_still_refuses_to_write(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey
    ) -> None:
        headers = {**team.headers, "Idempotency-Key": "ignored-on-reads"}
        response = await client.get("/v1/probe/sneaky-write", headers=headers)
        assert_error(response, 500, "internal_error")
        assert await ledger(runtime, team.team_id) == (1000, 1)
