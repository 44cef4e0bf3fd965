"""A client for an OpenAI-compatible ``POST {base}/chat/completions`` asking for one JSON object (ADR 0031).

Off unless ``REELSCOPE_LLM_BASE_URL`` and ``REELSCOPE_LLM_MODEL`` are set: ``open_client`` then yields
None and nothing is sent. The key goes out as ``Authorization: Bearer …`` and nowhere else: it is a
``SecretStr`` in the settings, the client's headers are never logged, and an ``LlmFailure`` carries only a
reason and a status code (never the request, the reply or the prompt).

Every way the provider can fail is one ``LlmFailure`` whose ``reason`` is:

    timeout       no complete reply within ``REELSCOPE_LLM_TIMEOUT_SECONDS`` (the whole exchange: httpx's
                  own timeout bounds each read, and a provider dripping a byte at a time never trips it)
    transport     the connection failed (refused, reset, TLS)
    http_status   a non-2xx status
    too_large     a reply past ``MAX_REPLY_BYTES`` (not read further: a reply is a few written fields)
    invalid_reply a 2xx whose body is not a chat completion
    invalid_json  a completion whose message is not one JSON object (its usage is kept: it was paid for)
    gave_up       not asked: the provider already failed (one of the above) on this client, so one job
                  or request waits for at most one timeout, not one per question
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx

from reelscope.config import Settings

TEMPERATURE = 0.2  # rewording, not invention: little variety wanted
# the largest reply read: the biggest asked for (20 summaries or an analysis' written fields, each at
# most 2,000 characters or twice its local text) is well under 1 MiB even JSON-escaped twice
MAX_REPLY_BYTES = 2 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens the provider reported for one completion (0 when it reported none)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True, slots=True)
class Completion:
    content: dict[str, Any]
    usage: Usage


class LlmFailure(Exception):
    def __init__(self, reason: str, *, status: int | None = None, usage: Usage | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.usage = usage or Usage()


@dataclass(frozen=True, slots=True)
class Prices:
    """USD per 1,000 tokens, from the settings (0: unknown, so the cost reported is 0)."""

    prompt_per_1k: float = 0.0
    completion_per_1k: float = 0.0

    def cost(self, usage: Usage) -> float:
        return (
            usage.prompt_tokens * self.prompt_per_1k + usage.completion_tokens * self.completion_per_1k
        ) / 1000


class LlmClient:
    def __init__(self, http: httpx.AsyncClient, model: str, prices: Prices, timeout: float) -> None:
        self._http = http
        self.model = model
        self.prices = prices
        self._timeout = timeout
        self._failed = False

    async def complete_json(self, system: str, user: str) -> Completion:
        """One chat completion in JSON mode: the reply's message parsed as a JSON object."""
        if self._failed:
            raise LlmFailure("gave_up")
        try:
            try:
                async with asyncio.timeout(self._timeout):
                    return await self._complete(system, user)
            except TimeoutError:
                raise LlmFailure("timeout") from None
        except LlmFailure as failure:
            self._failed = failure.reason != "invalid_json"  # the provider answered: it may answer again
            raise

    async def _complete(self, system: str, user: str) -> Completion:
        body = {
            "model": self.model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "response_format": {"type": "json_object"},
            "temperature": TEMPERATURE,
        }
        status, raw = await self._post(body)
        try:
            envelope = json.loads(raw)
            message = envelope["choices"][0]["message"]["content"]
        # RecursionError: JSON nested past the parser's depth, garbage like any other
        except (ValueError, KeyError, IndexError, TypeError, RecursionError):
            raise LlmFailure("invalid_reply", status=status) from None
        usage = _usage(envelope.get("usage"))
        content = _json_object(message)
        if content is None:
            raise LlmFailure("invalid_json", status=status, usage=usage)
        return Completion(content=content, usage=usage)

    async def _post(self, body: dict[str, Any]) -> tuple[int, bytes]:
        """The status and body of a 2xx reply, read up to ``MAX_REPLY_BYTES``."""
        try:
            async with self._http.stream("POST", "chat/completions", json=body) as response:
                if not response.is_success:
                    raise LlmFailure("http_status", status=response.status_code)
                raw = bytearray()
                async for chunk in response.aiter_bytes():
                    raw += chunk
                    if len(raw) > MAX_REPLY_BYTES:
                        raise LlmFailure("too_large", status=response.status_code)
                return response.status_code, bytes(raw)
        except httpx.TimeoutException:
            raise LlmFailure("timeout") from None
        except httpx.HTTPError:
            raise LlmFailure("transport") from None


def _usage(found: Any) -> Usage:
    if not isinstance(found, dict):
        return Usage()
    prompt, completion = (found.get(k) for k in ("prompt_tokens", "completion_tokens"))
    return Usage(prompt_tokens=_count(prompt), completion_tokens=_count(completion))


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _json_object(message: Any) -> dict[str, Any] | None:
    """The message as a JSON object; a Markdown code fence around it (some models add one even in JSON
    mode) is tolerated, anything else is not."""
    if not isinstance(message, str):
        return None
    text = message.strip()
    if text.startswith("```"):
        text = text.removeprefix("```json").removeprefix("```").removesuffix("```").strip()
    try:
        found = json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        return None
    return found if isinstance(found, dict) else None


def is_configured(settings: Settings) -> bool:
    return bool(settings.llm_base_url and settings.llm_model)


@asynccontextmanager
async def open_client(settings: Settings) -> AsyncIterator[LlmClient | None]:
    """A client for the configured provider, or None when none is configured (no connection is made)."""
    if not is_configured(settings):
        yield None
        return
    assert settings.llm_base_url is not None and settings.llm_model is not None
    key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else ""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    prices = Prices(settings.llm_prompt_price_per_1k_tokens, settings.llm_completion_price_per_1k_tokens)
    async with httpx.AsyncClient(
        base_url=settings.llm_base_url.rstrip("/") + "/",
        headers=headers,
        timeout=settings.llm_timeout_seconds,
        follow_redirects=False,
    ) as http:
        yield LlmClient(http, settings.llm_model, prices, settings.llm_timeout_seconds)
