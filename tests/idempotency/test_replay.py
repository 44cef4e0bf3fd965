"""Idempotency keys on creates and charges (issue 3 deliverable 4; ADR 0004).

The probe's POST /v1/probe costs 10 credits and writes a row; POST /v1/gated-probe waits in its handler
until the test lets it go, so a second request can arrive while the first is in flight.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Response
from sqlalchemy import func, select

from reelscope.billing import service as billing_service
from reelscope.billing.prices import PRICES, Price
from reelscope.contract import PrincipalDep, SessionDep, v1_router
from reelscope.kit.clock import ManualClock
from reelscope.kit.schemas import Envelope
from reelscope.models import LedgerEntry
from reelscope.runtime import Runtime
from tests.conftest import MakeTeam, TeamKey
from tests.kit.test_errors import assert_error
from tests.probe import mount_probe

pytestmark = pytest.mark.both_databases


@dataclass
class Gate:
    entered: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)


@pytest.fixture
def gate(client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch) -> Gate:
    transport = client._transport
    assert isinstance(transport, httpx.ASGITransport) and isinstance(transport.app, FastAPI)
    app = transport.app
    mount_probe(app, monkeypatch)
    monkeypatch.setitem(PRICES, "create_gated_probe", Price(10))
    gate = Gate()
    router = v1_router(prefix="/v1/gated-probe", tags=["probe"])

    @router.post("", status_code=201)
    async def create_gated_probe(
        session: SessionDep, principal: PrincipalDep, response: Response
    ) -> Envelope[str]:
        session.add(
            LedgerEntry(
                team_id=principal.team_id,
                kind="adjustment",
                credits=0,
                balance_after=0,
                operation="gated_probe",
                reference="gated",
                created_at=datetime.now(UTC),
            )
        )
        await session.flush()
        gate.entered.set()
        await gate.release.wait()
        response.headers["Location"] = "/v1/gated-probe/1"
        return Envelope(data="done")

    app.include_router(router)
    return gate


@pytest.fixture
async def team(make_team: MakeTeam, gate: Gate) -> AsyncIterator[TeamKey]:
    yield await make_team(1000)


def keyed(team: TeamKey, key: str) -> dict[str, str]:
    return {**team.headers, "Idempotency-Key": key}


async def rows(runtime: Runtime, team: TeamKey, kind: str) -> int:
    async with runtime.db.transaction(write=False) as session:
        stmt = select(func.count()).where(LedgerEntry.team_id == team.team_id, LedgerEntry.kind == kind)
        return int((await session.execute(stmt)).scalar_one())


async def balance(client: httpx.AsyncClient, team: TeamKey) -> int:
    response = await client.get("/v1/account/balance", headers=team.headers)
    return int(response.json()["data"]["credits_remaining"])


class TestReplay:
    async def test_a_retry_returns_the_first_response_and_charges_once(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey
    ) -> None:
        first = await client.post("/v1/probe", json={"name": "a"}, headers=keyed(team, "k-1"))
        assert first.status_code == 201
        assert first.headers["X-Credits-Used"] == "10"
        again = await client.post("/v1/probe", json={"name": "a"}, headers=keyed(team, "k-1"))
        assert again.status_code == 201
        assert again.content == first.content
        assert again.headers["content-type"] == first.headers["content-type"]
        assert again.headers["Idempotent-Replayed"] == "true"
        # §8.2: the charge header is authoritative, and a replay charges nothing
        assert again.headers["X-Cost"] == "0.00"
        assert again.headers["X-Credits-Used"] == "0"
        assert "X-Credits-Remaining" not in again.headers
        assert "Idempotent-Replayed" not in first.headers
        assert await rows(runtime, team, "charge") == 1
        assert await rows(runtime, team, "adjustment") == 1  # the handler ran once
        assert await balance(client, team) == 990

    async def test_concurrent_retries_of_a_completed_request_all_replay(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey
    ) -> None:
        """Only a key without a stored response is held while in flight; replays do not block each other."""
        await client.post("/v1/probe", json={"name": "a"}, headers=keyed(team, "k"))
        retries = await asyncio.gather(
            *(client.post("/v1/probe", json={"name": "a"}, headers=keyed(team, "k")) for _ in range(20))
        )
        assert {(r.status_code, r.headers["Idempotent-Replayed"]) for r in retries} == {(201, "true")}
        assert await rows(runtime, team, "charge") == 1

    async def test_the_same_json_in_another_layout_is_the_same_request(
        self, client: httpx.AsyncClient, team: TeamKey
    ) -> None:
        headers = {**keyed(team, "k"), "Content-Type": "application/json"}
        first = await client.post("/v1/probe", content=b'{"name": "a", "count": 2}', headers=headers)
        assert first.status_code == 201
        again = await client.post("/v1/probe", content=b'{"count":2,"name":"a"}', headers=headers)
        assert again.headers["Idempotent-Replayed"] == "true"

    async def test_a_replay_needs_no_balance(
        self, client: httpx.AsyncClient, make_team: MakeTeam, gate: Gate
    ) -> None:
        exact = await make_team(10)
        assert (
            await client.post("/v1/probe", json={"name": "a"}, headers=keyed(exact, "k"))
        ).status_code == 201
        again = await client.post("/v1/probe", json={"name": "a"}, headers=keyed(exact, "k"))
        assert again.status_code == 201
        assert again.headers["Idempotent-Replayed"] == "true"

    async def test_stored_headers_come_back(
        self, client: httpx.AsyncClient, team: TeamKey, gate: Gate
    ) -> None:
        gate.release.set()
        first = await client.post("/v1/gated-probe", headers=keyed(team, "g"))
        again = await client.post("/v1/gated-probe", headers=keyed(team, "g"))
        assert first.headers["Location"] == again.headers["Location"] == "/v1/gated-probe/1"

    async def test_without_a_key_every_request_runs(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        for _ in range(2):
            assert (
                await client.post("/v1/probe", json={"name": "a"}, headers=team.headers)
            ).status_code == 201
        assert await balance(client, team) == 980

    async def test_safe_methods_ignore_the_key(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        for _ in range(2):
            response = await client.get("/v1/probe", headers=keyed(team, "g"))
            assert response.headers["X-Credits-Used"] == "25"
        assert await balance(client, team) == 950


class TestConflicts:
    async def test_the_same_key_with_another_body_is_409(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey
    ) -> None:
        await client.post("/v1/probe", json={"name": "a"}, headers=keyed(team, "k"))
        other = await client.post("/v1/probe", json={"name": "b"}, headers=keyed(team, "k"))
        assert_error(other, 409, "conflict")
        assert await rows(runtime, team, "charge") == 1

    async def test_the_same_key_on_another_path_is_409(
        self, client: httpx.AsyncClient, team: TeamKey, gate: Gate
    ) -> None:
        gate.release.set()
        await client.post("/v1/probe", json={"name": "a"}, headers=keyed(team, "k"))
        assert_error(await client.post("/v1/gated-probe", headers=keyed(team, "k")), 409, "conflict")

    async def test_a_request_in_flight_with_the_key(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey, gate: Gate, backend: str
    ) -> None:
        """PostgreSQL: 409 at once. SQLite: the second waits for the first's write lock, then replays."""
        first = asyncio.create_task(client.post("/v1/gated-probe", headers=keyed(team, "k")))
        await gate.entered.wait()
        second = asyncio.create_task(client.post("/v1/gated-probe", headers=keyed(team, "k")))
        if backend == "postgres":
            assert_error(await second, 409, "conflict")
            gate.release.set()
            assert (await first).status_code == 201
        else:
            gate.release.set()
            assert (await first).status_code == 201
            replay = await second
            assert replay.status_code == 201
            assert replay.headers["Idempotent-Replayed"] == "true"
        assert await rows(runtime, team, "charge") == 1
        assert await rows(runtime, team, "adjustment") == 1

    @pytest.mark.parametrize("key", ["", "   ", "x" * 256])
    async def test_a_malformed_key_is_400(self, client: httpx.AsyncClient, team: TeamKey, key: str) -> None:
        response = await client.post("/v1/probe", json={"name": "a"}, headers=keyed(team, key))
        body = assert_error(response, 400, "validation_error")
        assert "Idempotency-Key" in str(body["message"])


class TestWhatIsStored:
    async def test_keys_are_scoped_per_team(
        self, client: httpx.AsyncClient, make_team: MakeTeam, team: TeamKey
    ) -> None:
        other = await make_team(1000)
        for caller in (team, other):
            response = await client.post("/v1/probe", json={"name": "a"}, headers=keyed(caller, "shared"))
            assert response.status_code == 201
            assert "Idempotent-Replayed" not in response.headers
            assert await balance(client, caller) == 990

    async def test_a_failed_request_stores_nothing(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey
    ) -> None:
        """The handler's 409 rolls back its writes, and with them the key: the retry runs again."""
        for _ in range(2):
            response = await client.post("/v1/probe", json={"name": "conflict"}, headers=keyed(team, "k"))
            assert_error(response, 409, "conflict")
            assert "Idempotent-Replayed" not in response.headers
        assert await rows(runtime, team, "adjustment") == 0

    async def test_a_402_stores_nothing_and_the_retry_after_a_top_up_runs(
        self, client: httpx.AsyncClient, runtime: Runtime, clock: ManualClock, make_team: MakeTeam, gate: Gate
    ) -> None:
        poor = await make_team(5)
        assert_error(
            await client.post("/v1/probe", json={"name": "a"}, headers=keyed(poor, "k")),
            402,
            "insufficient_credits",
        )
        async with runtime.db.transaction() as session:
            await billing_service.add_credits(session, poor.team_id, 100, at=clock.now())
        paid = await client.post("/v1/probe", json={"name": "a"}, headers=keyed(poor, "k"))
        assert paid.status_code == 201
        assert paid.headers["X-Credits-Used"] == "10"

    async def test_a_key_is_kept_for_24_hours(
        self, client: httpx.AsyncClient, clock: ManualClock, team: TeamKey
    ) -> None:
        await client.post("/v1/probe", json={"name": "a"}, headers=keyed(team, "k"))
        clock.advance(timedelta(hours=24) - timedelta(seconds=1))
        kept = await client.post("/v1/probe", json={"name": "a"}, headers=keyed(team, "k"))
        assert kept.headers["Idempotent-Replayed"] == "true"
        clock.advance(timedelta(seconds=1))
        # expired: the key is new again, even for another body
        fresh = await client.post("/v1/probe", json={"name": "b"}, headers=keyed(team, "k"))
        assert fresh.status_code == 201
        assert fresh.headers["X-Credits-Used"] == "10"
        assert "Idempotent-Replayed" not in fresh.headers
        replayed = await client.post("/v1/probe", json={"name": "b"}, headers=keyed(team, "k"))
        assert replayed.headers["Idempotent-Replayed"] == "true"
        assert await balance(client, team) == 980


class TestPurge:
    async def test_expired_records_are_purged_and_live_ones_kept(
        self,
        client: httpx.AsyncClient,
        clock: ManualClock,
        team: TeamKey,
        runtime: Runtime,
        task_context: Any,
    ) -> None:
        from reelscope.idempotency.tasks import purge
        from reelscope.models import IdempotencyRecord

        await client.post("/v1/probe", json={"name": "a"}, headers=keyed(team, "old"))
        clock.advance(timedelta(hours=23))
        await client.post("/v1/probe", json={"name": "a"}, headers=keyed(team, "young"))
        clock.advance(timedelta(hours=2))
        assert await purge(task_context) == {"removed": 1}
        async with runtime.db.transaction(write=False) as session:
            keys = (await session.execute(select(IdempotencyRecord.key))).scalars().all()
        assert keys == ["young"]
        replayed = await client.post("/v1/probe", json={"name": "a"}, headers=keyed(team, "young"))
        assert replayed.headers["Idempotent-Replayed"] == "true"
