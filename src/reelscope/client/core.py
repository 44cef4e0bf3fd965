"""How one call goes over the wire, sync and async: build the request, retry as §7 says, parse the body.

Retries (§7): a 4xx is terminal except 408 and 429; a 429 waits ``Retry-After`` (or the body's
``retry_after``), a 408, a 5xx or no answer at all wait an exponential backoff with jitter. A request
the server can replay (every POST, PUT, PATCH and DELETE, and the GETs that start paid work — the
operations that list an ``Idempotency-Key`` header in ``/openapi.json``) carries one key, made once per
call and sent again on every retry, so a retried charge is never charged twice (ADR 0004).
"""

from __future__ import annotations

import asyncio
import os
import random
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Self, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel

from reelscope.client.base import CallMeta, HasMeta, NoContent, jsonable
from reelscope.client.errors import ConnectionFailed, error_from

M = TypeVar("M", bound=BaseModel)

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
IDEMPOTENCY_HEADER = "Idempotency-Key"
RETRIED_STATUSES = frozenset({408, 429})  # the two 4xx §7 lets a client retry


@dataclass(frozen=True)
class RetryPolicy:
    """When to try a call again and how long to wait first.

    ``max_retries`` retries follow the first attempt. The backoff before retry n (0-based) is drawn
    between half and all of ``min(backoff_cap, backoff_base * 2**n)`` (jitter keeps many clients from
    retrying in step). A 429 asking to wait longer than ``max_retry_after`` is raised at once: the
    window it names (an hour, a UTC day, §8.1) is the caller's to wait, not a sleeping client's.
    """

    max_retries: int = 3
    backoff_base: float = 0.5
    backoff_cap: float = 30.0
    max_retry_after: float = 60.0

    def backoff(self, retry: int, rng: random.Random) -> float:
        ceiling = min(self.backoff_cap, self.backoff_base * 2.0**retry)
        return ceiling / 2 + rng.uniform(0, ceiling / 2)

    def after_response(self, response: httpx.Response, retry: int, rng: random.Random) -> float | None:
        """Seconds to wait before retrying this error response, or None when it is final."""
        status = response.status_code
        if retry >= self.max_retries or (status < 500 and status not in RETRIED_STATUSES):
            return None
        if status == 429:
            asked = _retry_after(response)
            if asked is not None:
                return asked if asked <= self.max_retry_after else None
        return self.backoff(retry, rng)

    def after_failure(self, retry: int, rng: random.Random) -> float | None:
        """Seconds to wait after no answer (connect error, timeout), or None when retries are spent."""
        return None if retry >= self.max_retries else self.backoff(retry, rng)


def _retry_after(response: httpx.Response) -> float | None:
    """``Retry-After`` in seconds (§8.1), else the 429 body's ``retry_after`` (§7)."""
    header = response.headers.get("Retry-After")
    if header is not None:
        try:
            return max(0.0, float(header))
        except ValueError:
            pass
    try:
        body = response.json()
    except ValueError:
        return None
    value = body.get("retry_after") if isinstance(body, dict) else None
    return float(value) if isinstance(value, int | float) else None


@dataclass(frozen=True)
class Call:
    """One operation's request before it is sent: the client's generated methods fill it."""

    method: str
    path: str
    path_params: Mapping[str, Any]
    query: Mapping[str, Any]
    body: Mapping[str, Any] | None
    idempotent: bool

    def url(self) -> str:
        return self.path.format(
            **{name: quote(str(value), safe="") for name, value in self.path_params.items()}
        )

    def params(self) -> list[tuple[str, str | int | float | bool | None]]:
        """Query parameters without the unset ones; booleans as ``true``/``false``, lists repeated."""
        pairs: list[tuple[str, str | int | float | bool | None]] = []
        for name, value in self.query.items():
            for item in value if isinstance(value, list | tuple) else [value]:
                if item is not None:
                    pairs.append((name, _query_text(item)))
        return pairs

    def json(self) -> dict[str, Any] | None:
        if self.body is None:
            return None
        return {name: jsonable(value) for name, value in self.body.items() if value is not None}


def _query_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def parse(response: httpx.Response, model: type[M], *, idempotency_key: str | None, attempts: int) -> M:
    """The response body as ``model``, with the call's ``meta`` attached."""
    empty = response.status_code == 204 and issubclass(model, NoContent)
    result = model.model_validate_json(b"{}" if empty else response.content)
    if isinstance(result, HasMeta):
        result.attach(CallMeta.of(response, idempotency_key=idempotency_key, attempts=attempts))
    return result


class _Base:
    """Settings both clients share."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        *,
        max_retries: int,
        timeout: float,
        retry_policy: RetryPolicy | None,
        rng: random.Random | None,
        headers: Mapping[str, str] | None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.retry_policy = retry_policy or RetryPolicy(max_retries=max_retries)
        self._rng = rng or random.Random()  # noqa: S311 - jitter, not a secret
        self._timeout = timeout
        self._headers = {"User-Agent": "reelscope-python-client", **(headers or {})}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"

    def _request(self, http: httpx.Client | httpx.AsyncClient, call: Call, key: str | None) -> httpx.Request:
        headers = {IDEMPOTENCY_HEADER: key} if key else None
        return http.build_request(
            call.method, call.url(), params=call.params(), json=call.json(), headers=headers
        )

    @classmethod
    def from_env(cls, **options: Any) -> Self:
        """A client for ``REELSCOPE_BASE_URL`` (default the local server) and ``REELSCOPE_API_KEY``."""
        base_url = os.environ.get("REELSCOPE_BASE_URL", DEFAULT_BASE_URL)
        return cls(base_url, os.environ.get("REELSCOPE_API_KEY"), **options)


class SyncCore(_Base):
    """The blocking transport: ``httpx.Client``; ``sleep`` is injectable so tests never sleep."""

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        api_key: str | None = None,
        *,
        transport: httpx.BaseTransport | None = None,
        max_retries: int = 3,
        timeout: float = 30.0,
        retry_policy: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(
            base_url,
            api_key,
            max_retries=max_retries,
            timeout=timeout,
            retry_policy=retry_policy,
            rng=rng,
            headers=headers,
        )
        self.sleep = sleep
        self._http = httpx.Client(
            base_url=self.base_url, headers=self._headers, timeout=timeout, transport=transport
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, call: Call, model: type[M]) -> M:
        key = str(uuid.uuid4()) if call.idempotent else None
        retry = 0
        while True:
            try:
                response = self._http.send(self._request(self._http, call, key))
            except httpx.TransportError as exc:
                delay = self.retry_policy.after_failure(retry, self._rng)
                if delay is None:
                    raise ConnectionFailed(f"{call.method} {call.url()}: {exc!r}") from exc
            else:
                if response.is_success:
                    return parse(response, model, idempotency_key=key, attempts=retry + 1)
                delay = self.retry_policy.after_response(response, retry, self._rng)
                if delay is None:
                    raise error_from(response)
            self.sleep(delay)
            retry += 1


class AsyncCore(_Base):
    """The asyncio transport: ``httpx.AsyncClient`` (``httpx.ASGITransport`` runs an app in-process)."""

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        api_key: str | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        max_retries: int = 3,
        timeout: float = 30.0,
        retry_policy: RetryPolicy | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        rng: random.Random | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(
            base_url,
            api_key,
            max_retries=max_retries,
            timeout=timeout,
            retry_policy=retry_policy,
            rng=rng,
            headers=headers,
        )
        self.sleep = sleep
        self._http = httpx.AsyncClient(
            base_url=self.base_url, headers=self._headers, timeout=timeout, transport=transport
        )

    async def close(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _call(self, call: Call, model: type[M]) -> M:
        key = str(uuid.uuid4()) if call.idempotent else None
        retry = 0
        while True:
            try:
                response = await self._http.send(self._request(self._http, call, key))
            except httpx.TransportError as exc:
                delay = self.retry_policy.after_failure(retry, self._rng)
                if delay is None:
                    raise ConnectionFailed(f"{call.method} {call.url()}: {exc!r}") from exc
            else:
                if response.is_success:
                    return parse(response, model, idempotency_key=key, attempts=retry + 1)
                delay = self.retry_policy.after_response(response, retry, self._rng)
                if delay is None:
                    raise error_from(response)
            await self.sleep(delay)
            retry += 1
