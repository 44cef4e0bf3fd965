"""Receiving Reelscope webhooks (spec §6.1): check the delivery is Reelscope's, drop duplicates, and
hand events over in ``created_at`` order.

A delivery is signed beyond the spec with Standard Webhooks headers (``webhook-id``,
``webhook-timestamp``, ``webhook-signature``: ``v1,`` + base64 HMAC-SHA256 of ``id.timestamp.body``
keyed by the endpoint's ``whsec_`` secret, over the uncompressed body) — the endpoint object's ``secret``.
The spec's own protection is a custom header set in the endpoint's ``headers`` (§5.6); a receiver may
ask for either or both. Written here with ``hmac`` rather than the ``standardwebhooks`` package so the
client needs nothing beyond httpx and pydantic (ADR 0049).

    receiver = WebhookReceiver(secret=endpoint.secret)
    event = receiver.receive(request.headers, request.body)   # None for a duplicate
    for event in receiver.drain(): ...                          # oldest first
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import httpx
from pydantic import BaseModel, ConfigDict

from reelscope.client.errors import ReelscopeError

SECRET_PREFIX = "whsec_"  # noqa: S105 - a prefix, not a secret
# a 10 MB compressed body (§6.1) inflates to less than this, usually far less
MAX_BODY_BYTES = 64 * 1024 * 1024


class InvalidWebhook(ReelscopeError):
    """Not a genuine delivery: bad or missing signature or shared header, stale timestamp, or bad body."""


class WebhookEvent(BaseModel):
    """``{id, event, created_at, data}`` (§6.1); ``id`` is the delivery id, reused on every retry."""

    model_config = ConfigDict(extra="allow", frozen=True)

    id: str
    event: str
    created_at: datetime
    data: dict[str, Any]


def sign(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    """The ``webhook-signature`` value the server sends for this delivery (one ``v1,`` signature)."""
    key = base64.b64decode(secret.removeprefix(SECRET_PREFIX))
    digest = hmac.new(key, f"{message_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


@dataclass
class WebhookReceiver:
    """Verifies, de-duplicates (on ``id``, the last ``remember`` ids) and orders deliveries.

    ``secret``: the endpoint's signing secret; ``shared_headers``: custom headers each delivery must carry
    with exactly these values (§5.6). ``tolerance_seconds`` refuses signatures older or newer than that,
    so a captured delivery cannot be replayed later.
    """

    secret: str | None = None
    shared_headers: Mapping[str, str] | None = None
    tolerance_seconds: int = 300
    remember: int = 10_000
    clock: Callable[[], float] = time.time

    def __post_init__(self) -> None:
        if not self.secret and not self.shared_headers:
            raise ValueError("give the endpoint's signing secret, a shared header, or both")
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._pending: list[WebhookEvent] = []

    def verify(self, headers: Mapping[str, str], body: bytes) -> WebhookEvent:
        """The event of a genuine delivery; ``InvalidWebhook`` otherwise. Does not de-duplicate."""
        found = httpx.Headers(headers)
        if found.get("content-encoding", "").lower() == "gzip":
            body = _gunzip(body)
        if self.shared_headers:
            for name, expected in self.shared_headers.items():
                if not hmac.compare_digest(found.get(name, "").encode(), expected.encode()):
                    raise InvalidWebhook(f"header {name} is missing or wrong")
        if self.secret:
            self._check_signature(found, body)
        try:
            return WebhookEvent.model_validate_json(body)
        except ValueError as exc:
            raise InvalidWebhook(f"not a delivery body: {exc}") from exc

    def receive(self, headers: Mapping[str, str], body: bytes) -> WebhookEvent | None:
        """Verify a delivery and keep it for ``drain``; None when its ``id`` was already received."""
        event = self.verify(headers, body)
        if event.id in self._seen:
            return None
        self._seen[event.id] = None
        while len(self._seen) > self.remember:
            self._seen.popitem(last=False)
        self._pending.append(event)
        return event

    def drain(self) -> list[WebhookEvent]:
        """The events received since the last drain, oldest first (delivery order is not, §6.1)."""
        events, self._pending = in_order(self._pending), []
        return events

    def _check_signature(self, headers: httpx.Headers, body: bytes) -> None:
        message_id = headers.get("webhook-id")
        timestamp_text = headers.get("webhook-timestamp", "")
        signatures = headers.get("webhook-signature", "").split()
        if not message_id or not timestamp_text.isdigit() or not signatures:
            raise InvalidWebhook(
                "the webhook-id, webhook-timestamp and webhook-signature headers are required"
            )
        timestamp = int(timestamp_text)
        if abs(self.clock() - timestamp) > self.tolerance_seconds:
            raise InvalidWebhook("webhook-timestamp is outside the tolerance")
        assert self.secret is not None
        expected = sign(self.secret, message_id, timestamp, body)
        if not any(hmac.compare_digest(expected, given) for given in signatures):
            raise InvalidWebhook("webhook-signature does not match")


def in_order(events: Iterable[WebhookEvent]) -> list[WebhookEvent]:
    """Events by ``created_at`` (ties by id, so the order is the same on every receiver)."""
    return sorted(events, key=lambda event: (event.created_at, event.id))


def _gunzip(body: bytes) -> bytes:
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        inflated = inflater.decompress(body, MAX_BODY_BYTES)
    except zlib.error as exc:
        raise InvalidWebhook(f"bad gzip body: {exc}") from exc
    if inflater.unconsumed_tail:
        raise InvalidWebhook("the body inflates past the size a receiver accepts")
    return inflated


__all__ = ["InvalidWebhook", "WebhookEvent", "WebhookReceiver", "in_order", "sign"]
