"""A request that meets SQLite's write lock held past its busy timeout is a 503 to retry, not a 500, and
is charged nothing (§7: 503 service_unavailable; found by benchmarks/soak.py on an overloaded machine)."""

from __future__ import annotations

import sqlite3

import httpx
import pytest
from sqlalchemy.exc import OperationalError

from reelscope.billing.debits import DebitQueue
from reelscope.billing.service import Debit
from tests.conftest import MakeTeam
from tests.kit.test_errors import assert_error

DIGEST = "/v1/videos/digest"


def database_error(code: int) -> OperationalError:
    """What SQLAlchemy raises when SQLite answers ``code`` (BUSY: the lock's busy timeout ran out)."""
    driver = sqlite3.OperationalError(
        "database is locked" if code == sqlite3.SQLITE_BUSY else "disk I/O error"
    )
    driver.sqlite_errorcode = code
    return OperationalError("UPDATE teams SET credits = credits - ?", {}, driver)


class TestDatabaseBusy:
    async def test_a_debit_that_waited_out_the_lock_is_a_503_to_retry_and_free(
        self, client: httpx.AsyncClient, make_team: MakeTeam, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        team = await make_team(credits=100)

        async def busy(_queue: DebitQueue, _debit: Debit) -> int:
            raise database_error(sqlite3.SQLITE_BUSY)

        monkeypatch.setattr(DebitQueue, "debit", busy)
        response = await client.get(DIGEST, headers=team.headers)
        assert_error(response, 503, "service_unavailable")
        assert response.headers["Retry-After"] == "5"
        assert response.headers["X-Cost"] == "0.00"
        monkeypatch.undo()
        balance = await client.get("/v1/account/balance", headers=team.headers)
        assert balance.json()["data"]["credits_remaining"] == 100

    async def test_any_other_database_failure_is_still_a_500(
        self, client: httpx.AsyncClient, make_team: MakeTeam, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        team = await make_team(credits=100)

        async def broken(_queue: DebitQueue, _debit: Debit) -> int:
            raise database_error(sqlite3.SQLITE_IOERR)

        monkeypatch.setattr(DebitQueue, "debit", broken)
        response = await client.get(DIGEST, headers=team.headers)
        assert_error(response, 500, "internal_error")
        assert "Retry-After" not in response.headers
