"""Spec §7 and §2.8: every error has the {statusCode, code, error, message} body and is never billed."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from tests.conftest import TeamKey
from tests.probe import mount_probe


@pytest.fixture
def app(client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch) -> FastAPI:
    transport = client._transport
    assert isinstance(transport, httpx.ASGITransport)
    application = transport.app
    assert isinstance(application, FastAPI)
    mount_probe(application, monkeypatch)
    return application


def assert_error(response: httpx.Response, status: int, code: str) -> dict[str, object]:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) >= {"statusCode", "code", "error", "message"}
    assert body["statusCode"] == status
    assert body["code"] == code
    assert isinstance(body["error"], str) and body["error"]
    # §8.2: error responses carry the billing headers, at zero
    assert response.headers["X-Cost"] == "0.00"
    assert response.headers["X-Credits-Used"] == "0"
    assert "X-Credits-Remaining" not in response.headers
    return body


class TestRouting:
    async def test_unknown_route_is_404_not_found(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        body = assert_error(await client.get("/v1/nothing-here", headers=team.headers), 404, "not_found")
        assert "/v1/nothing-here" in str(body["message"])

    async def test_unknown_route_outside_v1_is_404(self, client: httpx.AsyncClient) -> None:
        assert_error(await client.get("/favicon.ico"), 404, "not_found")

    async def test_wrong_method_keeps_the_error_shape(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        response = await client.delete("/v1/account/balance", headers=team.headers)
        assert_error(response, 405, "method_not_allowed")
        assert response.headers["Allow"] == "GET"

    async def test_405_lists_every_method_of_the_path(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        """GET and POST on /v1/webhooks are two routes; Allow names both (RFC 9110 §15.5.6)."""
        response = await client.delete("/v1/webhooks", headers=team.headers)
        assert_error(response, 405, "method_not_allowed")
        assert response.headers["Allow"] == "GET, POST"
        one = await client.put("/v1/webhooks/00000000-0000-0000-0000-000000000000", headers=team.headers)
        assert one.headers["Allow"] == "DELETE, GET, PATCH"

    async def test_unknown_platform_segment_is_404(
        self, app: FastAPI, client: httpx.AsyncClient, team: TeamKey
    ) -> None:
        assert_error(await client.get("/v1/probe/myspace", headers=team.headers), 404, "not_found")
        ok = await client.get("/v1/probe/tiktok", headers=team.headers)
        assert ok.status_code == 200
        assert ok.json() == {"data": "tiktok"}


class TestValidation:
    async def test_out_of_range_query_is_400_with_message_array_naming_it(
        self, app: FastAPI, client: httpx.AsyncClient, team: TeamKey
    ) -> None:
        body = assert_error(
            await client.get("/v1/probe?limit=0", headers=team.headers), 400, "validation_error"
        )
        assert isinstance(body["message"], list)
        assert body["message"] == ["limit must be greater than or equal to 1"]

    async def test_non_integer_query_is_400(
        self, app: FastAPI, client: httpx.AsyncClient, team: TeamKey
    ) -> None:
        body = assert_error(
            await client.get("/v1/probe?limit=ten", headers=team.headers), 400, "validation_error"
        )
        assert any(m.startswith("limit ") for m in body["message"])  # type: ignore[union-attr]

    async def test_malformed_json_body_is_400(
        self, app: FastAPI, client: httpx.AsyncClient, team: TeamKey
    ) -> None:
        response = await client.post(
            "/v1/probe", content=b'{"name": ', headers={**team.headers, "Content-Type": "application/json"}
        )
        body = assert_error(response, 400, "validation_error")
        assert body["message"] == ["body must be valid JSON"]

    async def test_missing_and_unknown_body_fields_are_named(
        self, app: FastAPI, client: httpx.AsyncClient, team: TeamKey
    ) -> None:
        response = await client.post("/v1/probe", json={"colour": "red"}, headers=team.headers)
        body = assert_error(response, 400, "validation_error")
        assert sorted(body["message"]) == ["colour is not an allowed field", "name is required"]  # type: ignore[arg-type]

    async def test_never_the_frameworks_422(
        self, app: FastAPI, client: httpx.AsyncClient, team: TeamKey
    ) -> None:
        response = await client.post("/v1/probe", json=[], headers=team.headers)
        assert response.status_code == 400


class TestUnexpectedFailures:
    async def test_500_internal_error_without_internals(
        self, app: FastAPI, client: httpx.AsyncClient, team: TeamKey
    ) -> None:
        response = await client.get("/v1/probe/fail/crash", headers=team.headers)
        body = assert_error(response, 500, "internal_error")
        assert "hunter2" not in response.text
        assert "RuntimeError" not in response.text
        assert response.headers["X-Request-Id"] in str(body["message"])

    async def test_a_500_is_not_charged(self, app: FastAPI, client: httpx.AsyncClient, team: TeamKey) -> None:
        await client.get("/v1/probe/fail/crash", headers=team.headers)
        balance = await client.get("/v1/account/balance", headers=team.headers)
        assert balance.json()["data"]["credits_remaining"] == 1000

    async def test_typed_error_from_handler_is_rendered_and_not_charged(
        self, app: FastAPI, client: httpx.AsyncClient, team: TeamKey
    ) -> None:
        body = assert_error(
            await client.get("/v1/probe/fail/conflict", headers=team.headers), 409, "conflict"
        )
        assert body["message"] == "the probe always conflicts"


class TestTrailingSlash:
    async def test_a_trailing_slash_is_not_redirected(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        assert_error(await client.get("/v1/account/balance/", headers=team.headers), 404, "not_found")
