"""The MCP server for AI assistants (issue 30 item 2): ``reelscope mcp``, over stdio or streamable HTTP.

Built on the typed client, never on the server's internals, so it talks to any Reelscope over HTTP with
one API key (``REELSCOPE_BASE_URL``, ``REELSCOPE_API_KEY``). Each useful operation of ``OPERATIONS`` is
one tool: its name is the operation id, its description the OpenAPI description (price included, from
``x-cost``), its parameters the client method's. A tool answers ``{data, cost_usd, credits_remaining}``;
an API error becomes a tool error naming the spec's ``code`` (§7).

Long work is a start tool plus a poll tool (§8.4): the start's description names the free status tool
to call with the returned id, every ``retry_after_seconds``, until ``finalized`` is true. Left out: the
webhook endpoints (an assistant has nowhere to receive them), the deprecated proposal operations and
the operator's collector status.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

from reelscope.client import ApiError, AsyncReelscope, ReelscopeError
from reelscope.client.operations import OPERATIONS, Operation

LEFT_OUT_PREFIXES = ("/v1/webhooks",)
LEFT_OUT = frozenset({"get_account_collectors"})

# a start operation → the free status tool that follows it (§4.4, §4.7, §8.4)
POLLED_BY = {
    "create_agent": "get_agent_run (agent_id=id, run_id=run_id) or get_agent",
    "lookup_creator": "get_creator_lookup_status (job_id)",
    "lookup_sound": "get_sound_lookup_status (job_id)",
    "lookup_hashtag": "get_hashtag_lookup_status (job_id)",
    "create_video_outlier": "get_video_outlier_status (job_id)",
    "create_creator_batch": "get_creator_batch (batch_id)",
    "collect_creator_posts": "get_creator_post_collection (id, collection_id)",
    "create_creator_audience_refresh": "get_creator_audience_refresh (id, job_id)",
}

INSTRUCTIONS = (
    "Short-form video intelligence (YouTube Shorts, TikTok, Instagram Reels): digests, hashtags, trends, "
    "research agents, creator/sound/hashtag lookups, tracking, sounds and hooks. Paid tools say their "
    "price; reads of collected data are free. Slow work returns an id: poll the named status tool every "
    "retry_after_seconds until finalized is true."
)


def exposed(operation: Operation) -> bool:
    return not (
        operation.deprecated or operation.name in LEFT_OUT or operation.path.startswith(LEFT_OUT_PREFIXES)
    )


def description_of(operation: Operation) -> str:
    text = operation.description
    if operation.name in POLLED_BY:
        text += (
            f"\n\nLong-running: poll {POLLED_BY[operation.name]} every retry_after_seconds until "
            "`finalized` is true (free)."
        )
    return text


def annotations_of(operation: Operation) -> ToolAnnotations:
    """Hints for the assistant: free GETs only read; a DELETE destroys; paid calls are not idempotent
    in what they charge (the client's Idempotency-Key covers its own retries only)."""
    reads = operation.method == "GET" and operation.price_usd == "0.00" and not operation.price_varies
    return ToolAnnotations(
        title=operation.summary,
        readOnlyHint=reads,
        destructiveHint=operation.method == "DELETE",
        idempotentHint=reads or operation.method in ("PUT", "DELETE"),
        openWorldHint=False,
    )


def tool_for(client: AsyncReelscope, name: str) -> Callable[..., Awaitable[dict[str, Any]]]:
    """The operation's client method as a tool function: its own typed parameters, a JSON answer."""
    method = getattr(client, name)

    async def call(**arguments: Any) -> dict[str, Any]:
        try:
            result = await method(**arguments)
        except ApiError as error:
            raise ToolError(f"{error.status} {error.code}: {error.message}") from error
        except ReelscopeError as error:  # no answer at all, after the retries
            raise ToolError(str(error)) from error
        return {
            "data": result.model_dump(mode="json", by_alias=True),
            "cost_usd": str(result.meta.cost),
            "credits_remaining": result.meta.credits_remaining,
        }

    signature = inspect.signature(method, eval_str=True)
    call.__signature__ = signature.replace(return_annotation=dict[str, Any])  # type: ignore[attr-defined]
    call.__name__ = name
    return call


def build_server(client: AsyncReelscope) -> MCPServer:
    """An MCP server whose tools call the API through ``client``."""
    server: MCPServer = MCPServer("reelscope", instructions=INSTRUCTIONS)
    for operation in OPERATIONS.values():
        if exposed(operation):
            server.add_tool(
                tool_for(client, operation.name),
                name=operation.name,
                description=description_of(operation),
                annotations=annotations_of(operation),
                structured_output=False,
            )
    return server
