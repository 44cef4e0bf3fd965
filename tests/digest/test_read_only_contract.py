"""The request contract on safe requests (ADR 0011, 0019): the endpoint reads, debits are
group-committed afterwards — with the same outcomes as the one-transaction contract (spec §7, §8)."""

from __future__ import annotations

import asyncio
import sqlite3

import httpx
import pytest
from sqlalchemy import func, select

from reelscope.auth import service as auth_service
from reelscope.billing import service as billing_service
from reelscope.kit.clock import ManualClock
from reelscope.models import LedgerEntry
from reelscope.runtime import Runtime
from tests.conftest import MakeTeam
from tests.kit.test_errors import assert_error

DIGEST = "/v1/videos/digest"


async def balance_and_ledger(runtime: Runtime, team_id: str) -> tuple[int, int]:
    async with runtime.db.transaction(write=False) as session:
        assert await billing_service.verify_ledger(session) == []
        entries = await session.scalar(
            select(func.count()).select_from(LedgerEntry).where(LedgerEntry.team_id == team_id)
        )
        return await billing_service.balance(session, team_id), int(entries or 0)


async def auto_top_up(runtime: Runtime, team_id: str, below: int, amount: int) -> None:
    async with runtime.db.transaction() as session:
        await billing_service.configure_auto_top_up(session, team_id, below=below, amount=amount)


class TestReadOnlyContract:
    @pytest.mark.both_databases
    async def test_concurrent_charged_reads_are_each_debited_once(
        self, client: httpx.AsyncClient, runtime: Runtime, make_team: MakeTeam
    ) -> None:
        team = await make_team(credits=1_000)
        _, entries_before = await balance_and_ledger(runtime, team.team_id)
        responses = await asyncio.gather(*(client.get(DIGEST, headers=team.headers) for _ in range(12)))
        assert [r.status_code for r in responses] == [200] * 12
        assert all(r.headers["X-Cost"] == "0.25" for r in responses)
        # each response reports the balance right after its own debit: all different
        assert len({r.headers["X-Credits-Remaining"] for r in responses}) == 12
        balance, entries = await balance_and_ledger(runtime, team.team_id)
        assert balance == 1_000 - 12 * 25 and entries == entries_before + 12

    @pytest.mark.both_databases
    async def test_a_debit_that_loses_the_race_is_a_402(
        self, client: httpx.AsyncClient, runtime: Runtime, make_team: MakeTeam
    ) -> None:
        team = await make_team(credits=50)  # covers two of three
        responses = await asyncio.gather(*(client.get(DIGEST, headers=team.headers) for _ in range(3)))
        assert sorted(r.status_code for r in responses) == [200, 200, 402]
        refused = next(r for r in responses if r.status_code == 402)
        body = assert_error(refused, 402, "insufficient_credits")
        assert body["required_credits"] == 25
        balance, _ = await balance_and_ledger(runtime, team.team_id)
        assert balance == 0

    async def test_402_before_work_gives_the_rate_limit_count_back(
        self, client: httpx.AsyncClient, make_team: MakeTeam
    ) -> None:
        team = await make_team(credits=10)
        response = await client.get(DIGEST, headers=team.headers)
        body = assert_error(response, 402, "insufficient_credits")
        assert body["required_credits"] == 25 and body["remaining_credits"] == 10
        assert response.headers["X-RateLimit-Remaining"] == "50"

    async def test_a_402_before_work_reports_the_balance_after_this_process_debits(
        self, client: httpx.AsyncClient, runtime: Runtime, make_team: MakeTeam, clock: ManualClock
    ) -> None:
        # the caller's balance is read with the key on every request (kit/fast_reads.py): a 402 reports
        # the balance as it is after this process's own debits
        team = await make_team(credits=20)
        body = assert_error(await client.get(DIGEST, headers=team.headers), 402, "insufficient_credits")
        assert body["remaining_credits"] == 20
        today = clock.now().date().isoformat()
        hashtags = {"start_date": today, "end_date": today}
        for _ in range(2):  # 5 credits each (§4.2), debited by this process
            served = await client.get("/v1/hashtags", params=hashtags, headers=team.headers)
            assert served.status_code == 200 and served.headers["X-Credits-Used"] == "5"
        body = assert_error(await client.get(DIGEST, headers=team.headers), 402, "insufficient_credits")
        assert body["remaining_credits"] == 10
        assert (await balance_and_ledger(runtime, team.team_id))[0] == 10

    async def test_a_team_this_process_drained_gets_its_402_before_any_work(
        self, client: httpx.AsyncClient, runtime: Runtime, make_team: MakeTeam
    ) -> None:
        # the balance is read afresh with the caller (kit/fast_reads.py): the next request is refused
        # before its handler runs and the count is given back (§8.1); bad input is still its 400,
        # free and counted, whatever the balance (§7; issue 31)
        team = await make_team(credits=25)
        served = await client.get(DIGEST, headers=team.headers)
        assert served.status_code == 200 and served.headers["X-Credits-Remaining"] == "0"
        bad = await client.get(DIGEST, params={"limit": "abc"}, headers=team.headers)
        assert_error(bad, 400, "validation_error")
        counted = int(served.headers["X-RateLimit-Remaining"]) - 1
        assert bad.headers["X-RateLimit-Remaining"] == str(counted)
        refused = await client.get(DIGEST, params={"limit": "5"}, headers=team.headers)
        body = assert_error(refused, 402, "insufficient_credits")
        assert body["remaining_credits"] == 0
        assert refused.headers["X-RateLimit-Remaining"] == str(counted)
        assert (await balance_and_ledger(runtime, team.team_id))[0] == 0

    async def test_a_due_auto_top_up_pays_for_the_read(
        self, client: httpx.AsyncClient, runtime: Runtime, make_team: MakeTeam
    ) -> None:
        team = await make_team(credits=10)
        await auto_top_up(runtime, team.team_id, below=100, amount=1_000)
        response = await client.get(DIGEST, headers=team.headers)
        assert response.status_code == 200
        assert response.headers["X-Credits-Remaining"] == str(10 + 1_000 - 25)
        assert (await balance_and_ledger(runtime, team.team_id))[0] == 985

    @pytest.mark.both_databases
    async def test_a_refill_that_still_falls_short_rolls_back_with_the_402(
        self, client: httpx.AsyncClient, runtime: Runtime, make_team: MakeTeam
    ) -> None:
        team = await make_team(credits=10)
        await auto_top_up(runtime, team.team_id, below=100, amount=10)  # 20 < 25
        _, entries_before = await balance_and_ledger(runtime, team.team_id)
        ok = make_team(credits=1_000)
        other = await ok
        # the refused debit shares its transaction with another team's debit, which must stand
        refused, served = await asyncio.gather(
            client.get(DIGEST, headers=team.headers), client.get(DIGEST, headers=other.headers)
        )
        assert_error(refused, 402, "insufficient_credits")
        assert served.status_code == 200
        assert await balance_and_ledger(runtime, team.team_id) == (10, entries_before)
        assert (await balance_and_ledger(runtime, other.team_id))[0] == 975

    async def test_a_failed_request_is_not_charged(
        self, client: httpx.AsyncClient, runtime: Runtime, make_team: MakeTeam
    ) -> None:
        team = await make_team(credits=100)
        assert_error(
            await client.get(DIGEST, params={"limit": 0}, headers=team.headers), 400, "validation_error"
        )
        assert (await balance_and_ledger(runtime, team.team_id))[0] == 100

    @pytest.mark.both_databases
    async def test_each_debit_writes_its_own_ledger_row(
        self, client: httpx.AsyncClient, runtime: Runtime, make_team: MakeTeam, clock: ManualClock
    ) -> None:
        # on SQLite these rows are written by the debit writer's own connection (billing/debits.py): read
        # back through the ORM they must be what billing.service.charge writes
        team = await make_team(credits=1_000)
        first = await make_team(credits=1_000)
        responses = await asyncio.gather(
            *(client.get(DIGEST, headers=t.headers) for t in (team, first, team, team, first))
        )
        assert [r.status_code for r in responses] == [200] * 5
        async with runtime.db.transaction(write=False) as session:
            rows = (
                await session.scalars(
                    select(LedgerEntry).where(
                        LedgerEntry.team_id == team.team_id, LedgerEntry.kind == billing_service.CHARGE
                    )
                )
            ).all()
        mine = [r for r, t in zip(responses, (team, first, team, team, first), strict=True) if t is team]
        assert sorted(row.reference or "" for row in rows) == sorted(r.headers["X-Request-Id"] for r in mine)
        assert {row.operation for row in rows} == {"get_videos_digest"}
        assert {row.credits for row in rows} == {-25}
        assert {row.created_at for row in rows} == {clock.now()}
        assert sorted(row.balance_after for row in rows) == [925, 950, 975]
        assert sorted(int(r.headers["X-Credits-Remaining"]) for r in mine) == [925, 950, 975]
        assert await balance_and_ledger(runtime, first.team_id) == (950, 3)  # grant + two charges

    @pytest.mark.both_databases
    async def test_a_revoked_key_is_refused_on_the_next_read(
        self, client: httpx.AsyncClient, runtime: Runtime, make_team: MakeTeam, clock: ManualClock
    ) -> None:
        # the caller is looked up on every request, outside the ORM (kit/fast_reads.py): a commit made
        # through another connection is seen at once
        team = await make_team(credits=1_000)
        assert (await client.get(DIGEST, headers=team.headers)).status_code == 200
        async with runtime.db.transaction() as session:
            await auth_service.revoke_key(session, team.key_id, clock.now())
        assert_error(await client.get(DIGEST, headers=team.headers), 401, "invalid_api_key")
        assert (await balance_and_ledger(runtime, team.team_id))[0] == 975

    async def test_a_debit_waits_for_another_process_writer(
        self, client: httpx.AsyncClient, runtime: Runtime, make_team: MakeTeam
    ) -> None:
        # another process holds SQLite's write lock: the attempt on the loop fails at once and the batch
        # waits on aiosqlite's thread (billing/debits.py); the response comes after that commit
        team = await make_team(credits=1_000)
        assert runtime.db.sqlite_file is not None
        other = sqlite3.connect(runtime.db.sqlite_file, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            request = asyncio.ensure_future(client.get(DIGEST, headers=team.headers))
            with pytest.raises(TimeoutError):  # no response while the lock is held
                await asyncio.wait_for(asyncio.shield(request), timeout=0.5)
            other.execute("COMMIT")
        finally:
            other.close()
        response = await request
        assert response.status_code == 200 and response.headers["X-Credits-Remaining"] == "975"
        assert (await balance_and_ledger(runtime, team.team_id))[0] == 975
