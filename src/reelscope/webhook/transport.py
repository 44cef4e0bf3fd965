"""One webhook attempt on the wire (spec §6.1; ARCHITECTURE §6; ADR 0009).

Built on httpcore directly rather than httpx: it never reads proxy settings from the environment and
never follows redirects, and it takes a network backend, which is where the address is pinned —
``_PinnedBackend.connect_tcp`` resolves the host through the ``AddressGuard`` and connects only to an
address the guard approved. TLS is then negotiated for the URL's host name (SNI and certificate
verification against the name), trusting the system CAs plus ``REELSCOPE_WEBHOOK_CA_BUNDLE``.
Before every attempt the guard also checks the host again, so a name that now points somewhere
private is refused even when a pooled connection to its old address exists.
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import hashlib
import hmac
import secrets
import ssl
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Any

import certifi
import httpcore
import orjson

from reelscope.config import Settings
from reelscope.kit.clock import iso
from reelscope.webhook.network import (
    AddressGuard,
    BlockedAddress,
    Resolver,
    guard_from_settings,
    host_and_port,
)

USER_AGENT = "Reelscope-Webhooks/1.0"  # §6.1: <service>-Webhooks/1.0
SECRET_PREFIX = "whsec_"  # noqa: S105 - a prefix, not a secret


def parse_schedule(text: str) -> tuple[timedelta, ...]:
    """``REELSCOPE_WEBHOOK_RETRY_SCHEDULE``: seconds before each attempt, counted from the previous."""
    delays = tuple(timedelta(seconds=int(part.strip())) for part in text.split(",") if part.strip())
    if not delays or any(d < timedelta(0) for d in delays):
        raise ValueError("the webhook retry schedule needs one or more non-negative numbers of seconds")
    if delays[0] != timedelta(0):
        raise ValueError("the first attempt of a webhook is immediate (§6.1): the schedule starts with 0")
    return delays


@dataclass(frozen=True)
class DeliveryPolicy:
    """The numbers of §6.1 and §8.3, in one place; tests shorten some of them."""

    # attempt n+1 waits schedule[n] after attempt n; schedule[0] = 0: attempt 1 is immediate
    schedule: tuple[timedelta, ...] = parse_schedule("0,30,120,600,3600,21600,86400")
    timeout_seconds: float = 30.0
    max_body_bytes: int = 10 * 1024 * 1024  # compressed
    gzip_above_bytes: int = 1024
    # a claimed delivery whose worker vanished is attempted again once this has passed
    lease: timedelta = timedelta(minutes=2)
    batch_size: int = 100
    concurrency: int = 16
    # of a receiver's answer only the status matters; read at most this much to reuse the connection
    max_response_bytes: int = 64 * 1024

    @property
    def max_attempts(self) -> int:
        return len(self.schedule)


def policy_from_settings(settings: Settings) -> DeliveryPolicy:
    return DeliveryPolicy(schedule=parse_schedule(settings.webhook_retry_schedule))


# ---- signing (Standard Webhooks; beyond the spec, ADR 0010) ------------------------------------


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(24)).decode()


def signature(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    """``v1,<base64 HMAC-SHA256 of "id.timestamp.body">`` keyed by the secret's decoded bytes."""
    key = base64.b64decode(secret.removeprefix(SECRET_PREFIX))
    signed = message_id.encode() + b"." + str(timestamp).encode() + b"." + body
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()


# ---- the request -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Message:
    """What one attempt sends: the endpoint's URL, custom headers and secret, and the event."""

    url: str
    custom_headers: dict[str, str]
    secret: str
    delivery_id: str
    event_type: str
    event_created_at: datetime
    data: dict[str, Any]

    def body(self) -> bytes:
        """§6.1: ``{id, event, created_at, data}``; ``id`` is the delivery id."""
        return orjson.dumps(
            {
                "id": self.delivery_id,
                "event": self.event_type,
                "created_at": iso(self.event_created_at),
                "data": self.data,
            }
        )


@dataclass(frozen=True)
class Payload:
    content: bytes
    gzipped: bool


async def encode_body(body: bytes, policy: DeliveryPolicy) -> Payload:
    """gzip above the threshold (§6.1); large bodies are compressed off the event loop."""
    if len(body) <= policy.gzip_above_bytes:
        return Payload(body, gzipped=False)
    if len(body) > 256 * 1024:
        content = await asyncio.to_thread(gzip.compress, body, 6, mtime=0)
    else:
        content = gzip.compress(body, 6, mtime=0)
    return Payload(content, gzipped=True)


def request_headers(message: Message, body: bytes, payload: Payload, at: datetime) -> list[tuple[str, str]]:
    timestamp = int(at.timestamp())
    headers = list(message.custom_headers.items())
    headers += [
        ("Content-Type", "application/json"),
        ("User-Agent", USER_AGENT),
        ("Service-Event-Id", message.delivery_id),
        ("Service-Event-Type", message.event_type),
        ("webhook-id", message.delivery_id),
        ("webhook-timestamp", str(timestamp)),
        ("webhook-signature", signature(message.secret, message.delivery_id, timestamp, body)),
    ]
    if payload.gzipped:
        headers.append(("Content-Encoding", "gzip"))
    return headers


class Outcome(StrEnum):
    DELIVERED = "delivered"
    # 408, 429, 5xx, timeouts and network errors: every attempt of the schedule (§6.1)
    RETRYABLE = "retryable"
    # any other answer, redirects and 404 included: one more try (§6.1)
    REJECTED = "rejected"
    # the host is not public (any more): treated as a network error
    BLOCKED = "blocked"
    # never sent: over the compressed-size cap (§6.1)
    TOO_LARGE = "too_large"


@dataclass(frozen=True)
class Result:
    outcome: Outcome
    response_status: int | None = None
    error: str | None = None
    duration_ms: int = 0


def classify(status: int) -> Outcome:
    if 200 <= status < 300:
        return Outcome.DELIVERED
    if status in (408, 429) or status >= 500:
        return Outcome.RETRYABLE
    return Outcome.REJECTED


# ---- the connection ----------------------------------------------------------------------------


class _BlockedConnect(httpcore.ConnectError):
    pass


class _PinnedBackend(httpcore.AsyncNetworkBackend):
    """Connects only to addresses the guard approved for the host being connected to."""

    def __init__(self, guard: AddressGuard) -> None:
        self._guard = guard
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore's interface
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            addresses = await self._guard.resolve(host, port)
        except BlockedAddress as exc:
            raise _BlockedConnect(str(exc)) from exc
        failure: Exception | None = None
        for address in addresses:
            try:
                return await self._inner.connect_tcp(
                    str(address), port, timeout, local_address, socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        assert failure is not None
        raise failure

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore's interface
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("webhooks never connect to a unix socket")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


def tls_context(ca_bundle: Path | None) -> ssl.SSLContext:
    """certifi's roots and the operator's extra bundle, built once per process and bundle file. The pump
    opens a client on every pass, about once a second, and loading the roots costs ~20 ms of CPU each
    time; an SSLContext is safe to share between connections, threads and loops. A bundle replaced in
    place or by a rename is read again: the key holds the file's inode, size and both its times, and
    its change time cannot be set back (a copy that keeps the modification time still changes it)."""
    if ca_bundle is None:
        return _tls_context(None, ())
    found = ca_bundle.stat()
    identity = (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)
    return _tls_context(str(ca_bundle), identity)


@lru_cache(maxsize=4)
def _tls_context(ca_bundle: str | None, _identity: tuple[int, ...]) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=certifi.where())
    if ca_bundle is not None:
        context.load_verify_locations(cafile=ca_bundle)
    return context


_TRANSPORT_ERRORS = (
    httpcore.NetworkError,
    httpcore.ProtocolError,
    httpcore.UnsupportedProtocol,
    OSError,
)


@dataclass
class DeliveryClient:
    """Sends webhook attempts; one per worker process, closed with ``aclose``."""

    guard: AddressGuard
    policy: DeliveryPolicy
    ssl_context: ssl.SSLContext
    _pool: httpcore.AsyncConnectionPool = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=self.ssl_context,
            max_connections=max(self.policy.concurrency, 10),
            keepalive_expiry=5.0,
            network_backend=_PinnedBackend(self.guard),
        )

    @classmethod
    def from_settings(
        cls, settings: Settings, *, resolver: Resolver | None = None, policy: DeliveryPolicy | None = None
    ) -> DeliveryClient:
        return cls(
            guard=guard_from_settings(settings.webhook_allowed_networks, resolver),
            policy=policy or policy_from_settings(settings),
            ssl_context=tls_context(settings.webhook_ca_bundle),
        )

    async def aclose(self) -> None:
        await self._pool.aclose()

    async def send(self, message: Message, at: datetime) -> Result:
        """One attempt: never raises for anything the receiver or the network does."""
        body = message.body()
        payload = await encode_body(body, self.policy)
        if len(payload.content) > self.policy.max_body_bytes:
            return Result(Outcome.TOO_LARGE, error=f"body is {len(payload.content)} bytes compressed")
        started = time.perf_counter()
        host, port = host_and_port(message.url)
        try:
            # §6.1 checked at every attempt; new connections are pinned by the backend as well
            await self.guard.resolve(host, port)
            status = await self._post(
                message.url, request_headers(message, body, payload, at), payload.content
            )
        except (BlockedAddress, _BlockedConnect) as exc:
            return Result(Outcome.BLOCKED, error=str(exc), duration_ms=_ms(started))
        except (TimeoutError, httpcore.TimeoutException):
            return Result(Outcome.RETRYABLE, error="timeout", duration_ms=_ms(started))
        except _TRANSPORT_ERRORS as exc:
            return Result(Outcome.RETRYABLE, error=_describe(exc), duration_ms=_ms(started))
        return Result(classify(status), response_status=status, duration_ms=_ms(started))

    async def _post(self, url: str, headers: Sequence[tuple[str, str]], content: bytes) -> int:
        seconds = self.policy.timeout_seconds
        extensions = {"timeout": {"connect": seconds, "read": seconds, "write": seconds, "pool": seconds}}
        # §6.1: 30 seconds in all, not per read
        async with (
            asyncio.timeout(seconds),
            self._pool.stream(
                "POST", url, headers=list(headers), content=content, extensions=extensions
            ) as response,
        ):
            received = 0
            async for chunk in response.aiter_stream():
                received += len(chunk)
                if received > self.policy.max_response_bytes:
                    break
            return response.status


def _ms(started: float) -> int:
    return int((time.perf_counter() - started) * 1000)


def _describe(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return f"network error: {text}"[:300]
