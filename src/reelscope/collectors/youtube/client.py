"""HTTP to the YouTube Data API v3 and its errors as the four typed errors (connectors reference §1.1-1.5).

Every call is one ``GET {REELSCOPE_YOUTUBE_BASE_URL}/{resource}?…&key=…``. Before it is sent the ledger
counts it (§1.4, §10: pages, not queries): ``search`` takes 1 of the "search" bucket (100 calls a day
since 2026-06-01), every other resource 1 of the shared "units" (10,000 a day); both reset at midnight
America/Los_Angeles. A refusal of the ledger (``RateLimited``) means no request goes out.

What the API answers, switched on ``error.errors[0].reason`` (§1.5), never on message text:

    quotaExceeded, dailyLimitExceeded   the bucket of the resource that said it is paused until its next
                                        reset (search.list pauses only "search": the error does not say
                                        which bucket, [unverified]) → RateLimited(retry_at = that reset)
    rateLimitExceeded, userRateLimitExceeded, HTTP 429
                                        that bucket is paused for Retry-After or THROTTLE_PAUSE → RateLimited
    keyInvalid, keyExpired, forbidden, accessNotConfigured, ipRefererBlocked, HTTP 401
                                        → Unavailable, saying which setting to fix
    HTTP 404 (…NotFound)                → NotFound
    other 4xx (bad parameters: our bug) → UpstreamError(retryable=False)
    5xx, timeouts, connection failures, bodies that are not a JSON object
                                        → UpstreamError(retryable=True)

The key never leaves this module except in the request itself: it is a ``SecretStr`` until the request is
built, no message here contains a URL or a vendor message unredacted, transport errors are re-raised
without their httpx cause, and ``kit/logging.py`` redacts ``key=`` from httpx's request log.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import httpx
from pydantic import SecretStr

from reelscope.collectors import tls
from reelscope.collectors.base import NotFound, RateLimited, Unavailable, UpstreamError
from reelscope.collectors.budget import PACIFIC_MIDNIGHT, Bucket
from reelscope.collectors.ledger import Ledger
from reelscope.kit.clock import Clock
from reelscope.kit.logging import get_logger

log = get_logger(__name__)

SOURCE = "youtube"
KEY_SETTING = "REELSCOPE_YOUTUBE_API_KEY"
# how long a throttled bucket rests when the API gives no Retry-After (per-second limits clear fast)
THROTTLE_PAUSE = timedelta(seconds=60)
MAX_RETRY_AFTER = timedelta(hours=1)
VENDOR_MESSAGE_LIMIT = 200

QUOTA_SPENT = frozenset({"quotaExceeded", "dailyLimitExceeded"})
THROTTLED = frozenset({"rateLimitExceeded", "userRateLimitExceeded"})
REFUSED = frozenset({"keyInvalid", "keyExpired", "forbidden", "accessNotConfigured", "ipRefererBlocked"})


@dataclass(frozen=True)
class Buckets:
    """The two things YouTube counts (§1.4): search.list calls, and units of every other method."""

    search: Bucket
    units: Bucket

    @classmethod
    def of(cls, *, search_daily: int, units_daily: int, background_share: float) -> Buckets:
        return cls(
            search=Bucket("search", search_daily, PACIFIC_MIDNIGHT, background_share),
            units=Bucket("units", units_daily, PACIFIC_MIDNIGHT, background_share),
        )

    def for_resource(self, resource: str) -> Bucket:
        return self.search if resource == "search" else self.units


class YouTubeClient:
    """The key, the address, the clock and the ledger; ``session()`` opens one HTTP client for one
    operation of the connector (its pages share connections)."""

    def __init__(
        self,
        *,
        api_key: SecretStr | None,
        base_url: str,
        timeout: float,
        clock: Clock,
        ledger: Ledger | None,
        buckets: Buckets,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.clock = clock
        self.ledger = ledger
        self.buckets = buckets
        self._transport = transport

    def missing_key(self) -> str | None:
        """Why no call can be made (no key configured), or None."""
        if self._api_key is None or not self._api_key.get_secret_value().strip():
            return f"youtube: no API key configured (set {KEY_SETTING})"
        return None

    @asynccontextmanager
    async def session(self) -> AsyncIterator[Session]:
        """Raises ``Unavailable`` at once when no key is configured: nothing is counted or sent."""
        missing = self.missing_key()
        if missing is not None:
            raise Unavailable(missing)
        assert self._api_key is not None
        async with httpx.AsyncClient(
            base_url=self.base_url,
            transport=self._transport,
            timeout=self.timeout,
            follow_redirects=False,
            verify=tls.context(),
        ) as http:
            yield Session(self, http, self._api_key.get_secret_value().strip())


class Session:
    def __init__(self, client: YouTubeClient, http: httpx.AsyncClient, key: str) -> None:
        self._client = client
        self._http = http
        self._key = key

    async def get(self, resource: str, params: Mapping[str, str | int]) -> dict[str, Any]:
        """One counted call: ``resource`` is ``search``, ``videos``, ``channels`` or ``playlistItems``."""
        client = self._client
        bucket = client.buckets.for_resource(resource)
        if client.ledger is not None:
            await client.ledger.spend(SOURCE, bucket, 1)
        try:
            # the whole exchange, not each read: a server dripping bytes costs one timeout at most
            async with asyncio.timeout(client.timeout):
                response = await self._http.get(f"/{resource}", params={**params, "key": self._key})
        except (TimeoutError, httpx.TimeoutException):
            raise UpstreamError(f"youtube {resource}: no answer within {client.timeout:g} s") from None
        except httpx.HTTPError as exc:
            # the cause is dropped on purpose: httpx errors carry the request, whose URL holds the key
            raise UpstreamError(f"youtube {resource}: request failed ({type(exc).__name__})") from None
        body = _json(response)
        if response.status_code == 200:
            if body is None:
                raise UpstreamError(f"youtube {resource}: the answer is not a JSON object")
            return body
        raise await self._failure(resource, bucket, response, body)

    async def _failure(
        self, resource: str, bucket: Bucket, response: httpx.Response, body: dict[str, Any] | None
    ) -> Exception:
        status = response.status_code
        reason, message = _reason(body)
        said = f"youtube {resource}: HTTP {status}" + (f" {reason}" if reason else "")
        now = self._client.clock.now()
        if reason in QUOTA_SPENT:
            reset = bucket.resets.after(now)
            await self._pause(bucket, reset, f"{bucket.name} quota spent ({reason})")
            return RateLimited(f"{said}: daily {bucket.name} quota spent", retry_at=reset)
        if reason in THROTTLED or status == 429:
            until = now + _retry_after(response)
            await self._pause(bucket, until, f"throttled ({reason or status})")
            return RateLimited(f"{said}: throttled", retry_at=until)
        if reason in REFUSED or status == 401:
            detail = self._redacted(message)
            return Unavailable(
                f"{said}: the API key was refused"
                + (f" ({detail})" if detail else "")
                + f"; check {KEY_SETTING} and that the YouTube Data API v3 is enabled for its project"
            )
        if status == 404:
            return NotFound(f"{said}: not found")
        if 400 <= status < 500:
            detail = self._redacted(message)
            return UpstreamError(f"{said}" + (f": {detail}" if detail else ""), retryable=False)
        return UpstreamError(said, retryable=True)

    async def _pause(self, bucket: Bucket, until: datetime, reason: str) -> None:
        if self._client.ledger is not None:
            await self._client.ledger.pause(SOURCE, bucket, until, reason)

    def _redacted(self, message: str | None) -> str | None:
        """The vendor's message, clipped, with the key blanked should it ever be quoted back."""
        if not message:
            return None
        text = " ".join(message.replace(self._key, "***").split())
        return text if len(text) <= VENDOR_MESSAGE_LIMIT else text[: VENDOR_MESSAGE_LIMIT - 1] + "…"


def _json(response: httpx.Response) -> dict[str, Any] | None:
    try:
        body = json.loads(response.content)
    except ValueError:  # not JSON, or not UTF-8
        return None
    return body if isinstance(body, dict) else None


def _reason(body: dict[str, Any] | None) -> tuple[str | None, str | None]:
    """``error.errors[0].reason`` and ``error.message`` of an error body (§1.5), each None when absent."""
    error = body.get("error") if body is not None else None
    if not isinstance(error, dict):
        return None, None
    message = error.get("message") if isinstance(error.get("message"), str) else None
    errors = error.get("errors")
    first = errors[0] if isinstance(errors, list) and errors and isinstance(errors[0], dict) else {}
    reason = first.get("reason")
    return (reason if isinstance(reason, str) and reason else None), message


def _retry_after(response: httpx.Response) -> timedelta:
    """Retry-After in seconds when the API sends it (bounded), else ``THROTTLE_PAUSE``."""
    value = response.headers.get("retry-after", "").strip()
    if value.isdigit():
        return min(max(timedelta(seconds=int(value)), timedelta(seconds=1)), MAX_RETRY_AFTER)
    return THROTTLE_PAUSE
