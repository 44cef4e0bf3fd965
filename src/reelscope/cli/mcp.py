"""``reelscope mcp``: the API as MCP tools for AI assistants (issue 30 item 2; reelscope/mcp_server.py).

It is a client of a running Reelscope: ``REELSCOPE_BASE_URL`` (default the local server) and the key in
``REELSCOPE_API_KEY`` (an environment variable, never an argument, so it stays out of process lists).
The MCP SDK and the client are imported inside the command, keeping ``reelscope --help`` light.
"""

from __future__ import annotations

import os
from enum import StrEnum
from typing import Annotated

import typer

from reelscope.cli.common import _fail, app


class Transport(StrEnum):
    STDIO = "stdio"
    HTTP = "http"


@app.command("mcp")
def mcp_command(
    transport: Annotated[
        Transport,
        typer.Option(help="stdio (an assistant starts the command) or http (streamable HTTP at /mcp)."),
    ] = Transport.STDIO,
    host: Annotated[
        str,
        typer.Option(
            help="Bind address with --transport http; anyone who reaches it spends the key's credits."
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port with --transport http.")] = 8765,
    base_url: Annotated[
        str | None,
        typer.Option(help="The Reelscope API to call (REELSCOPE_BASE_URL, default http://127.0.0.1:8000)."),
    ] = None,
) -> None:
    """Serve the API to AI assistants as MCP tools: one per operation, prices in their descriptions."""
    api_key = os.environ.get("REELSCOPE_API_KEY")
    if not api_key:
        _fail("set REELSCOPE_API_KEY to the key the tools should use (reelscope admin key create --team …)")
    from reelscope.client import AsyncReelscope
    from reelscope.mcp_server import build_server

    url = base_url or os.environ.get("REELSCOPE_BASE_URL", "http://127.0.0.1:8000")
    server = build_server(AsyncReelscope(url, api_key))
    if transport is Transport.STDIO:
        server.run("stdio")
    else:
        server.run("streamable-http", host=host, port=port)
