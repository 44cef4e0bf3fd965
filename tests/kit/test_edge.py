"""What the edge refuses before routing (kit/edge.py; issue 14 items 3 and 5; ADR 0025): NUL characters
anywhere, bytes that are not UTF-8, bodies too large or too slow. Every refusal has the §2.8 body, a
request id and the zero billing headers, and is neither counted nor charged.

NUL characters were a 500 on PostgreSQL only, so this module runs on both databases.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from reelscope.config import Settings
from tests.conftest import TeamKey
from tests.kit.test_errors import assert_error

pytestmark = pytest.mark.both_databases

NIL = "00000000-0000-0000-0000-000000000000"


@pytest.fixture
def settings(data_dir: Path, database_url: str, redis_url: str | None) -> Settings:
    # a small limit and a short deadline, so that the tests need neither megabytes nor waiting
    return Settings(
        data_dir=data_dir,
        database_url=database_url,
        redis_url=redis_url,
        max_body_bytes=1024,
        body_timeout_seconds=0.5,
    )


def assert_edge_error(response: httpx.Response, status: int, code: str) -> dict[str, object]:
    body = assert_error(response, status, code)
    assert response.headers["X-Request-Id"]
    assert "X-RateLimit-Remaining" not in response.headers  # refused before the key was counted
    return body


async def assert_uncharged(client: httpx.AsyncClient, team: TeamKey, credits: int = 1000) -> None:
    balance = await client.get("/v1/account/balance", headers=team.headers)
    assert balance.json()["data"]["credits_remaining"] == credits
    # the balance read is the first request the limiter counted
    assert balance.headers["X-RateLimit-Remaining"] == "9999"


class TestNul:
    """The reproductions of issue 14 item 3."""

    async def test_in_a_path_id_is_404(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        response = await client.get("/v1/hashtags/a%00b/performance", headers=team.headers)
        assert_edge_error(response, 404, "not_found")
        assert_edge_error(await client.get(f"/v1/webhooks/{NIL}%00", headers=team.headers), 404, "not_found")
        await assert_uncharged(client, team)

    @pytest.mark.parametrize(
        "target",
        ["/v1/trends?region=%00", "/v1/trends/emerging?region=us%00", "/v1/videos/digest?li%00mit=5"],
    )
    async def test_in_the_query_is_400_naming_the_parameter(
        self, client: httpx.AsyncClient, team: TeamKey, target: str
    ) -> None:
        body = assert_edge_error(await client.get(target, headers=team.headers), 400, "validation_error")
        assert isinstance(body["message"], list)
        assert "must not contain NUL characters" in body["message"][0]
        await assert_uncharged(client, team)

    async def test_in_a_body_is_400_naming_the_field(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        body = {"url": "https://example.com/hook", "enabled_events": ["trends.daily.completed"]}
        created = await client.post(
            "/v1/webhooks", json={**body, "description": "a\u0000b"}, headers=team.headers
        )
        message = assert_error(created, 400, "validation_error")["message"]
        assert message == ["body: description must not contain NUL characters"]
        patched = await client.patch(
            f"/v1/webhooks/{NIL}", json={"headers": {"X-A": "\u0000"}}, headers=team.headers
        )
        assert assert_error(patched, 400, "validation_error")["message"] == [
            "body: headers.X-A must not contain NUL characters"
        ]
        key = await client.patch(
            f"/v1/webhooks/{NIL}", json={"headers": {"X\u0000": "a"}}, headers=team.headers
        )
        assert assert_error(key, 400, "validation_error")["message"] == [
            "body: headers.X\\u0000 must not contain NUL characters"
        ]


class TestNotUtf8:
    async def test_in_the_path_is_400(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        response = await client.get("/v1/hashtags/%ff%fe/performance", headers=team.headers)
        body = assert_edge_error(response, 400, "validation_error")
        assert body["message"] == ["the path must be valid UTF-8 once percent-decoded"]

    async def test_in_the_query_is_400(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        response = await client.get("/v1/trends?region=%c3%28", headers=team.headers)
        body = assert_edge_error(response, 400, "validation_error")
        assert body["message"] == ["region must be valid UTF-8 once percent-decoded"]
        await assert_uncharged(client, team)

    async def test_encoded_utf8_passes(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        """Percent-encoded UTF-8 (and a `+` for a space) reaches the endpoint as usual."""
        response = await client.get("/v1/trends?region=%C3%A9t%C3%A9+x", headers=team.headers)
        assert_error(response, 400, "unknown_region")


class TestBodySize:
    async def test_a_declared_length_over_the_limit_is_413_at_once(
        self, client: httpx.AsyncClient, team: TeamKey
    ) -> None:
        response = await client.post("/v1/webhooks", content=b"{" + b" " * 2000 + b"}", headers=team.headers)
        body = assert_edge_error(response, 413, "payload_too_large")
        assert body["message"] == "The request body must be at most 1024 bytes"
        await assert_uncharged(client, team)

    async def test_a_streamed_body_over_the_limit_is_413(
        self, client: httpx.AsyncClient, team: TeamKey
    ) -> None:
        """No Content-Length (chunked): refused once the bytes read pass the limit."""

        async def chunks() -> AsyncIterator[bytes]:
            for _ in range(10):
                yield b" " * 200

        response = await client.post("/v1/webhooks", content=chunks(), headers=team.headers)
        assert_error(response, 413, "payload_too_large")

    async def test_a_body_within_the_limit_is_served(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        response = await client.post("/v1/webhooks", json={"url": "ftp://x"}, headers=team.headers)
        assert_error(response, 400, "validation_error")


class TestSlowBody:
    async def test_a_body_shorter_than_its_length_times_out_with_408(
        self, client: httpx.AsyncClient, team: TeamKey
    ) -> None:
        """The client promised 100 bytes and sends 10, then nothing: 408 once the body's deadline passes."""
        never = asyncio.Event()

        async def short() -> AsyncIterator[bytes]:
            yield b'{"url": "h'
            await never.wait()

        headers = {**team.headers, "Content-Length": "100", "Content-Type": "application/json"}
        response = await client.post("/v1/webhooks", content=short(), headers=headers)
        body = assert_error(response, 408, "request_timeout")
        assert "did not arrive within 0.5 s" in str(body["message"])
