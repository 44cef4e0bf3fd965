"""How uvicorn runs the app (cli/http_server.py; issue 14 items 5 and 6; ADR 0025): forwarded headers
are believed only from the proxies the operator names, and a request that does not parse as HTTP is
answered in the §2.8 shape."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx
import orjson
import pytest
import uvicorn
from uvicorn.server import ServerState

from reelscope.cli.http_server import EdgeProtocol, uvicorn_options
from reelscope.config import Settings
from reelscope.main import create_app
from reelscope.runtime import Runtime
from tests.kit.test_errors import assert_error

BALANCE = "/v1/account/balance"


async def served(runtime: Runtime, forwarded_allow_ips: str) -> AsyncIterator[httpx.AsyncClient]:
    """The app as uvicorn loads it with our options, reached from a client on this machine."""
    settings = runtime.settings.model_copy(update={"forwarded_allow_ips": forwarded_allow_ips})
    config = uvicorn.Config(create_app(runtime=runtime), **uvicorn_options(settings), log_config=None)
    config.load()
    transport = httpx.ASGITransport(app=config.loaded_app, client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"ip_burst": 3})


class TestForwardedHeaders:
    async def test_not_believed_by_default(self, runtime: Runtime) -> None:
        """The reproduction: a rotating X-Forwarded-For from loopback no longer escapes the per-IP limiter."""
        async for client in served(runtime, ""):
            for n in range(3):
                response = await client.get(BALANCE, headers={"X-Forwarded-For": f"198.51.100.{n}"})
                assert_error(response, 401, "missing_api_key")
            refused = await client.get(BALANCE, headers={"X-Forwarded-For": "198.51.100.99"})
            assert_error(refused, 429, "too_many_requests")

    async def test_believed_from_a_named_proxy(self, runtime: Runtime) -> None:
        async for client in served(runtime, "127.0.0.1"):
            for n in range(6):  # each forwarded client has its own bucket
                response = await client.get(BALANCE, headers={"X-Forwarded-For": f"198.51.100.{n}"})
                assert_error(response, 401, "missing_api_key")
            for _ in range(3):
                await client.get(BALANCE, headers={"X-Forwarded-For": "198.51.100.200"})
            refused = await client.get(BALANCE, headers={"X-Forwarded-For": "198.51.100.200"})
            assert_error(refused, 429, "too_many_requests")

    def test_the_setting_reaches_uvicorn(self) -> None:
        assert uvicorn_options(Settings())["proxy_headers"] is False
        named = uvicorn_options(Settings(forwarded_allow_ips="10.0.0.0/8, 192.0.2.1"))
        assert (named["proxy_headers"], named["forwarded_allow_ips"]) == (True, "10.0.0.0/8, 192.0.2.1")


class _Transport(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.written = b""
        self.closed = False

    def write(self, data: Any) -> None:
        self.written += bytes(data)

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}.get(name, default)


class TestUnparsableRequests:
    @pytest.mark.parametrize(
        "request_bytes",
        [
            b"GET /v1/account/balance\x01 HTTP/1.1\r\nHost: x\r\n\r\n",
            b"GET / HTTP/1.1\r\nBad Header\r\n\r\n",
            b"POST /v1/webhooks HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        ],
    )
    async def test_answered_in_the_error_shape(self, request_bytes: bytes) -> None:
        """What uvicorn answers before the app: a 400 with the §2.8 body and a request id."""
        config = uvicorn.Config(create_app_stub, **uvicorn_options(Settings()), log_config=None)
        config.load()
        protocol = EdgeProtocol(config=config, server_state=ServerState(), app_state={})
        transport = _Transport()
        protocol.connection_made(transport)
        protocol.data_received(request_bytes)
        head, _, body = transport.written.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        assert lines[0] == b"HTTP/1.1 400 Bad Request"
        headers = dict(line.split(b": ", 1) for line in lines[1:])
        assert headers[b"content-type"] == b"application/json"
        assert headers[b"x-cost"] == b"0.00"
        error = orjson.loads(body)
        assert (error["statusCode"], error["code"], error["error"]) == (
            400,
            "validation_error",
            "Bad Request",
        )
        assert headers[b"x-request-id"].decode() in error["message"][0]
        assert transport.closed

    def protocol(self, **settings: Any) -> tuple[EdgeProtocol, _Transport]:
        config = uvicorn.Config(create_app_stub, **uvicorn_options(Settings(**settings)), log_config=None)
        config.load()
        protocol = config.http_protocol_class(config=config, server_state=ServerState(), app_state={})
        assert isinstance(protocol, EdgeProtocol)
        transport = _Transport()
        protocol.connection_made(transport)
        return protocol, transport

    async def test_a_head_over_the_limit_is_431(self) -> None:
        """httptools takes a head of any size; the protocol stops at REELSCOPE_MAX_HEADER_BYTES."""
        protocol, transport = self.protocol(max_header_bytes=4096)
        protocol.data_received(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 3000)
        assert transport.written == b""
        protocol.data_received(b"a" * 2000)
        head, _, body = transport.written.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n")
        error = orjson.loads(body)
        assert (error["statusCode"], error["code"]) == (431, "request_header_too_large")
        assert error["message"].startswith("The request line and headers must be at most 4096 bytes. Quote")
        assert transport.closed

    async def test_a_body_in_the_same_read_is_not_counted_as_head(self) -> None:
        protocol, transport = self.protocol(max_header_bytes=4096)
        head = b"POST /v1/webhooks HTTP/1.1\r\nHost: x\r\nContent-Length: 20000\r\n\r\n"
        protocol.data_received(head + b" " * 20000)
        assert not transport.written.startswith(b"HTTP/1.1 431")


async def create_app_stub(scope: Any, receive: Any, send: Any) -> None:
    """Stands in for the app: what the protocol refuses never reaches it."""
    await send({"type": "http.response.start", "status": 204, "headers": []})
    await send({"type": "http.response.body", "body": b""})


class TestAccessLog:
    """A dashboard link is a credential for days (ADR 0023): the access log keeps the route, not the token."""

    def access_line(self, path: str, caplog: pytest.LogCaptureFixture) -> str:
        uvicorn_options(Settings())
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="uvicorn.access"):
            # the call uvicorn's httptools protocol makes for every answered request
            logging.getLogger("uvicorn.access").info(
                '%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "GET", path, "1.1", 200
            )
        (record,) = caplog.records
        return record.getMessage()

    def test_a_dashboard_token_is_not_logged(self, caplog: pytest.LogCaptureFixture) -> None:
        line = self.access_line("/dashboard/eyJ0ZWFtIjoiYWJjIn0.Zs1f0Q.secret-signature", caplog)
        assert "secret-signature" not in line and "eyJ0" not in line
        assert '"GET /dashboard/<token> HTTP/1.1" 200' in line

    def test_other_paths_are_logged_as_they_are(self, caplog: pytest.LogCaptureFixture) -> None:
        assert "/dashboard/assets/bokeh.min.js" in self.access_line("/dashboard/assets/bokeh.min.js", caplog)
        assert "/v1/trends?region=us" in self.access_line("/v1/trends?region=us", caplog)
