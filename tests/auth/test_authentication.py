"""Spec §5: bearer keys with the reelscope_tkn_ prefix, stored hashed, revocable; the per-IP limiter."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from reelscope.auth import keys
from reelscope.auth import service as auth_service
from reelscope.kit.clock import ManualClock
from reelscope.models import ApiKey
from reelscope.runtime import Runtime
from tests.conftest import MakeTeam, TeamKey
from tests.kit.test_errors import assert_error
from tests.probe import mount_probe

BALANCE = "/v1/account/balance"


class TestKeys:
    def test_key_format(self) -> None:
        key = keys.generate_key()
        assert key.startswith("reelscope_tkn_")
        body = key.removeprefix("reelscope_tkn_")
        assert len(body) >= 32
        assert keys.is_well_formed(key)

    async def test_only_a_hash_is_stored(self, runtime: Runtime, team: TeamKey) -> None:
        async with runtime.db.transaction(write=False) as session:
            rows = (await session.execute(select(ApiKey))).scalars().all()
        assert len(rows) == 1
        stored = rows[0]
        assert stored.key_hash == keys.hash_key(team.api_key)
        for value in (stored.key_hash, stored.display_prefix, stored.id):
            assert team.api_key not in value


class TestAuthentication:
    async def test_valid_key(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        response = await client.get(BALANCE, headers=team.headers)
        assert response.status_code == 200

    async def test_missing_header_is_missing_api_key(self, client: httpx.AsyncClient) -> None:
        assert_error(await client.get(BALANCE), 401, "missing_api_key")

    async def test_empty_header_is_missing_api_key(self, client: httpx.AsyncClient) -> None:
        assert_error(await client.get(BALANCE, headers={"Authorization": ""}), 401, "missing_api_key")

    @pytest.mark.parametrize(
        "value",
        [
            "Bearer reelscope_tkn_short",
            "Bearer reelscope_tkn_" + "a" * 31,
            "Bearer reelscope_tkn_" + "!" * 40,
            "Bearer sk_live_" + "a" * 40,
            "Bearer " + "a" * 40,
            "Basic dXNlcjpwYXNz",
        ],
    )
    async def test_malformed_key_is_invalid_api_key(self, client: httpx.AsyncClient, value: str) -> None:
        assert_error(await client.get(BALANCE, headers={"Authorization": value}), 401, "invalid_api_key")

    async def test_a_valid_key_without_the_bearer_scheme_is_invalid(
        self, client: httpx.AsyncClient, team: TeamKey
    ) -> None:
        """§5.1: the header is `Authorization: Bearer <API_KEY>`; a bare key is not accepted."""
        response = await client.get(BALANCE, headers={"Authorization": team.api_key})
        assert_error(response, 401, "invalid_api_key")
        lower = await client.get(BALANCE, headers={"Authorization": f"bearer {team.api_key}"})
        assert lower.status_code == 200  # the scheme name is case-insensitive

    async def test_unknown_well_formed_key_is_invalid(self, client: httpx.AsyncClient) -> None:
        response = await client.get(BALANCE, headers={"Authorization": f"Bearer {keys.generate_key()}"})
        assert_error(response, 401, "invalid_api_key")

    async def test_revocation_takes_effect_at_once(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey, clock: ManualClock
    ) -> None:
        assert (await client.get(BALANCE, headers=team.headers)).status_code == 200
        async with runtime.db.transaction() as session:
            await auth_service.revoke_key(session, team.key_id, clock.now())
        assert_error(await client.get(BALANCE, headers=team.headers), 401, "invalid_api_key")

    async def test_inactive_key_is_invalid(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey
    ) -> None:
        async with runtime.db.transaction() as session:
            key = await session.get(ApiKey, team.key_id)
            assert key is not None
            key.is_active = False
        assert_error(await client.get(BALANCE, headers=team.headers), 401, "invalid_api_key")

    async def test_a_401_is_not_counted_by_the_key_limiter(
        self, client: httpx.AsyncClient, team: TeamKey
    ) -> None:
        first = await client.get(BALANCE, headers=team.headers)
        await client.get(BALANCE, headers={"Authorization": "Bearer nope"})
        second = await client.get(BALANCE, headers=team.headers)
        assert int(first.headers["X-RateLimit-Remaining"]) - 1 == int(second.headers["X-RateLimit-Remaining"])


class TestPermissions:
    async def test_read_only_key_may_read(self, client: httpx.AsyncClient, make_team: MakeTeam) -> None:
        reader = await make_team(scope="read")
        assert (await client.get(BALANCE, headers=reader.headers)).status_code == 200

    async def test_read_only_key_may_not_write(
        self, client: httpx.AsyncClient, make_team: MakeTeam, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        transport = client._transport
        assert isinstance(transport, httpx.ASGITransport) and isinstance(transport.app, FastAPI)
        mount_probe(transport.app, monkeypatch)
        reader = await make_team(scope="read")
        response = await client.post("/v1/probe", json={"name": "x"}, headers=reader.headers)
        assert_error(response, 403, "forbidden")
        balance = (await client.get(BALANCE, headers=reader.headers)).json()["data"]
        assert balance["credits_remaining"] == 1000


RATE_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")


class TestRateLimitHeadersOnRefusals:
    """Where §8.1's X-RateLimit-* headers apply: they report a key's counted request. A 401 is not
    counted (§8.1) and has no key to count it for (a missing or unprefixed key meets the per-IP limiter
    of §5.5, whose state the spec gives no headers), so it carries none. A 403 is a valid key's request,
    counted (§8.1 exempts only 401 and most 402), so it carries them. (The one 403 outside /v1, an
    expired dashboard link, is a signed link without a key: nothing to report.)"""

    @pytest.mark.parametrize(
        "authorization",
        [None, "Bearer nope", "Bearer reelscope_tkn_" + "x" * 40, "Bearer reelscope_tkn_short"],
        ids=["missing", "unprefixed", "unknown", "malformed"],
    )
    async def test_a_401_has_none(self, client: httpx.AsyncClient, authorization: str | None) -> None:
        headers = {} if authorization is None else {"Authorization": authorization}
        response = await client.get(BALANCE, headers=headers)
        assert response.status_code == 401
        assert not any(name in response.headers for name in RATE_HEADERS)

    @pytest.mark.parametrize("params", [{}, {"dry_run": "true"}])
    async def test_a_403_has_them(
        self,
        client: httpx.AsyncClient,
        make_team: MakeTeam,
        monkeypatch: pytest.MonkeyPatch,
        params: dict[str, str],
    ) -> None:
        transport = client._transport
        assert isinstance(transport, httpx.ASGITransport) and isinstance(transport.app, FastAPI)
        mount_probe(transport.app, monkeypatch)
        reader = await make_team(scope="read")
        response = await client.post("/v1/probe", params=params, json={"name": "x"}, headers=reader.headers)
        assert_error(response, 403, "forbidden")
        assert all(name in response.headers for name in RATE_HEADERS)
        limit, remaining = (int(response.headers[name]) for name in RATE_HEADERS[:2])
        assert remaining == limit - 1  # counted


class TestPerIpLimiter:
    """§5.5: without a usable key, about 20 quick tries, then about one per second."""

    async def test_burst_then_too_many_requests(self, client: httpx.AsyncClient) -> None:
        codes = [(await client.get(BALANCE)).json()["code"] for _ in range(20)]
        assert codes == ["missing_api_key"] * 20
        response = await client.get(BALANCE)
        body = assert_error(response, 429, "too_many_requests")
        assert body["message"]
        assert "Retry-After" not in response.headers  # §8.1: only on a 429 from the key's own limit

    async def test_unprefixed_keys_share_the_ip_budget(self, client: httpx.AsyncClient) -> None:
        for _ in range(20):
            await client.get(BALANCE, headers={"Authorization": "Bearer sk_" + "a" * 40})
        assert_error(await client.get(BALANCE), 429, "too_many_requests")

    async def test_refills_about_one_per_second(self, client: httpx.AsyncClient, clock: ManualClock) -> None:
        for _ in range(21):
            await client.get(BALANCE)
        clock.advance(timedelta(seconds=1))
        assert (await client.get(BALANCE)).json()["code"] == "missing_api_key"
        assert (await client.get(BALANCE)).json()["code"] == "too_many_requests"

    async def test_valid_keys_are_not_ip_limited(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        for _ in range(25):
            await client.get(BALANCE)
        assert (await client.get(BALANCE, headers=team.headers)).status_code == 200
