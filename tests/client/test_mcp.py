"""The MCP server (issue 30 item 2) through the SDK's own client, in memory, against the in-process
app: a tool per useful operation with its price in the description, typed inputs, answers with their
cost, API errors as tool errors with the spec's code, and long work as start + poll."""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import socket
import subprocess
import sys
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from typer.testing import CliRunner

from reelscope.cli import app
from reelscope.client import AsyncReelscope
from reelscope.client.async_api import AsyncOperations
from reelscope.client.operations import OPERATIONS
from reelscope.collectors.sandbox.creators import handle_of
from reelscope.config import Settings
from reelscope.kit.platforms import Platform
from reelscope.mcp_server import build_server, exposed
from tests.client.conftest import Sleeps
from tests.test_process import free_port

HANDLE = handle_of(Settings().sandbox_seed, Platform.TIKTOK, 123)


def answer(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    parsed: dict[str, Any] = json.loads(result.content[0].text)
    return parsed


class TestTools:
    async def test_each_useful_operation_is_a_tool_and_paid_ones_say_their_price(
        self, api: AsyncReelscope
    ) -> None:
        async with Client(build_server(api)) as mcp:
            tools = {tool.name: tool for tool in (await mcp.list_tools()).tools}
        assert "get_videos_digest" in tools and "lookup_creator" in tools and "get_agent" in tools
        assert not any(name.endswith("webhook") or "proposal" in name for name in tools)
        assert "$0.25 (25 credits)" in (tools["get_videos_digest"].description or "")  # §4.1
        assert "get_creator_lookup_status" in (tools["lookup_creator"].description or "")
        for name, tool in tools.items():
            assert "**Price:**" in (tool.description or ""), name
            assert set(tool.input_schema.get("properties", {})) <= set(_parameters(name)), name
        digest = tools["get_platform_videos_digest"].input_schema
        assert digest["required"] == ["platform"]
        assert digest["properties"]["platform"]["enum"] == ["youtube", "tiktok", "instagram"]
        assert tools["get_account_balance"].annotations is not None
        assert tools["get_account_balance"].annotations.read_only_hint

    async def test_a_paid_tool_answers_with_its_data_and_cost(self, api: AsyncReelscope) -> None:
        async with Client(build_server(api)) as mcp:
            result = answer(await mcp.call_tool("get_videos_digest", {"limit": 3}))
        assert result["data"] == {"data": []}  # an empty catalog; still charged (§8.2)
        assert result["cost_usd"] == "0.25" and result["credits_remaining"] == 975

    async def test_an_api_error_is_a_tool_error_with_the_code(self, api: AsyncReelscope) -> None:
        async with Client(build_server(api)) as mcp:
            result = await mcp.call_tool("list_trends", {"region": "atlantis"})
        assert result.is_error
        assert "400 unknown_region" in result.content[0].text

    async def test_a_lookup_is_started_then_polled_until_finalized(
        self, api: AsyncReelscope, sleeps: Sleeps
    ) -> None:
        async with Client(build_server(api)) as mcp:
            started = answer(
                await mcp.call_tool("lookup_creator", {"platform": "tiktok", "username": HANDLE})
            )
            job = started["data"]["data"]
            assert started["cost_usd"] == "0.50" and not job["finalized"]
            await sleeps(job["retry_after_seconds"])  # the assistant waits; the job runs meanwhile
            polled = answer(await mcp.call_tool("get_creator_lookup_status", {"job_id": job["job_id"]}))
        assert polled["data"]["data"]["finalized"] and polled["data"]["data"]["status"] == "completed"
        assert polled["cost_usd"] == "0.00"


class TestCommand:
    async def test_reelscope_mcp_serves_the_tools_over_stdio(self) -> None:
        """The command as an assistant starts it; listing tools needs no API server."""
        environment = {**os.environ, "REELSCOPE_API_KEY": "reelscope_tkn_unused"}
        command = StdioServerParameters(
            command=sys.executable, args=["-m", "reelscope", "mcp"], env=environment
        )
        async with Client(command) as mcp:
            names = {tool.name for tool in (await mcp.list_tools()).tools}
        assert names == {name for name, operation in OPERATIONS.items() if exposed(operation)}

    @pytest.mark.process
    async def test_reelscope_mcp_serves_the_tools_over_streamable_http(self) -> None:
        """`--transport http`: a real process answering MCP at /mcp, as a remote assistant reaches it."""
        environment = {**os.environ, "REELSCOPE_API_KEY": "reelscope_tkn_unused"}
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "reelscope", "mcp", "--transport", "http", "--port", str(port)],
            env=environment,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            for _ in range(300):  # until it listens (a deadline of 30 s only catches one that never does)
                assert server.poll() is None, f"reelscope mcp exited with {server.returncode}"
                with socket.socket() as probe:
                    if probe.connect_ex(("127.0.0.1", port)) == 0:
                        break
                await asyncio.sleep(0.1)
            async with Client(f"http://127.0.0.1:{port}/mcp") as mcp:
                names = {tool.name for tool in (await mcp.list_tools()).tools}
        finally:
            server.terminate()
            server.wait(timeout=15)
        assert names == {name for name, operation in OPERATIONS.items() if exposed(operation)}

    def test_without_a_key_it_says_so_and_exits_2(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.delenv("REELSCOPE_API_KEY", raising=False)
        result = CliRunner().invoke(app, ["mcp"])
        assert result.exit_code == 2
        assert "REELSCOPE_API_KEY" in result.output


def _parameters(name: str) -> list[str]:
    return [p for p in inspect.signature(getattr(AsyncOperations, name)).parameters if p != "self"]
