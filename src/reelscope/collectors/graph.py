"""HTTP to Meta's Graph API and its errors as the four typed errors, for the Instagram source and the Ad
Library source (connectors reference §3.5, §4.3). Both speak the same Graph: a ``GET {base}/{path}`` with
``access_token=``, errors as ``{"error": {"message", "type", "code", "error_subcode", "fbtrace_id"}}``,
usually on HTTP 400 whatever they mean, so the switch is on ``code``/``error_subcode``, never on text:

    190 (expired, revoked, invalid token)  → Unavailable, naming the setting to renew
    10 + subcode 2332002                   → Unavailable: identity confirmation of the Ad Library missing
    10, 200-299 (permission or feature)    → Unavailable, naming the permission step
    4, 17, 32, 613, 80002 (throttling)     → the source's bucket paused THROTTLE_PAUSE → RateLimited
    341, 368 (app limit, policy block)     → paused LONG_PAUSE → RateLimited
    1, 2 (transient)                       → UpstreamError(retryable=True)
    100 (invalid parameter), 110 (invalid user id)
                                           → NotFound: the one value a call varies is the name or tag
                                             asked for (an unknown username, a hashtag) [unverified]
    anything else: 5xx, timeouts, bodies that are not a JSON object → UpstreamError(retryable=True);
    other 4xx → UpstreamError(retryable=False)

Every call is counted in the ledger first (bucket ``calls``: no quota of its own, it records what was
used today and the pauses). Meta reports how close an app is to its rolling limits in the
``X-App-Usage`` and ``X-Business-Use-Case-Usage`` headers (percentages); at ``SLOW_AT`` percent the
bucket is paused before Meta starts refusing (§3.4: "slow down as any percentage nears 100").

The token travels only in the request's query: it is a ``SecretStr`` until the request is built,
``kit/logging.py`` blanks ``access_token=`` in httpx's request log, no message here carries a URL, and the
``paging.next`` links Meta returns (which embed the token) are never followed nor kept: callers page
with the ``after`` cursor.
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
from reelscope.collectors.budget import Bucket
from reelscope.collectors.ledger import Ledger
from reelscope.kit.clock import Clock
from reelscope.kit.logging import get_logger

log = get_logger(__name__)

CALLS = Bucket("calls")
THROTTLE_PAUSE = timedelta(minutes=10)
LONG_PAUSE = timedelta(hours=1)
USAGE_PAUSE = timedelta(minutes=5)
SLOW_AT = 95  # percent of a rolling limit
VENDOR_MESSAGE_LIMIT = 200

EXPIRED = 190
PERMISSION = 10
IDENTITY_NOT_CONFIRMED = 2332002  # subcode of 10 from the Ad Library (§4.1)
THROTTLED = frozenset({4, 17, 32, 613, 80002})
LONG_THROTTLED = frozenset({341, 368})
TRANSIENT = frozenset({1, 2})
NAMED_NOTHING = frozenset({100, 110})


@dataclass(frozen=True)
class GraphAccess:
    """What one source sends and says: its name (the ledger's and the messages'), its token and the
    setting that holds it, and what an operator must do when a permission is missing."""

    source: str
    token: SecretStr | None
    token_setting: str
    permission_hint: str


class GraphClient:
    """One per connector; ``session()`` opens one HTTP client for one operation (its pages share it)."""

    def __init__(
        self,
        access: GraphAccess,
        *,
        base_url: str,
        timeout: float,
        clock: Clock,
        ledger: Ledger | None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.access = access
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.clock = clock
        self.ledger = ledger
        self._transport = transport

    def missing_token(self) -> str | None:
        """Why no call can be made (no token configured), or None."""
        token = self.access.token
        if token is None or not token.get_secret_value().strip():
            return f"{self.access.source}: no access token configured (set {self.access.token_setting})"
        return None

    @asynccontextmanager
    async def session(self) -> AsyncIterator[GraphSession]:
        """Raises ``Unavailable`` at once when no token is configured: nothing is counted or sent."""
        missing = self.missing_token()
        if missing is not None:
            raise Unavailable(missing)
        assert self.access.token is not None
        async with httpx.AsyncClient(
            base_url=self.base_url,
            transport=self._transport,
            timeout=self.timeout,
            follow_redirects=False,
            verify=tls.context(),
        ) as http:
            yield GraphSession(self, http, self.access.token.get_secret_value().strip())


class GraphSession:
    def __init__(self, client: GraphClient, http: httpx.AsyncClient, token: str) -> None:
        self._client = client
        self._http = http
        self._token = token

    async def get(self, path: str, params: Mapping[str, str | int], *, what: str) -> dict[str, Any]:
        """One counted call of ``path`` (``ads_archive``, ``ig_hashtag_search``, an id …); ``what`` names
        it in messages (never the URL)."""
        client = self._client
        source = client.access.source
        if client.ledger is not None:
            await client.ledger.spend(source, CALLS, 1)
        try:
            # the whole exchange, not each read: a server dripping bytes costs one timeout at most
            async with asyncio.timeout(client.timeout):
                response = await self._http.get(
                    f"/{path.lstrip('/')}", params={**params, "access_token": self._token}
                )
        except (TimeoutError, httpx.TimeoutException):
            raise UpstreamError(f"{source} {what}: no answer within {client.timeout:g} s") from None
        except httpx.HTTPError as exc:
            # the cause is dropped on purpose: httpx errors carry the request, whose URL holds the token
            raise UpstreamError(f"{source} {what}: request failed ({type(exc).__name__})") from None
        body = _json(response)
        error = body.get("error") if body is not None else None
        if response.status_code == 200 and body is not None and not isinstance(error, dict):
            await self._mind_usage(response)
            return body
        raise await self._failure(what, response, error if isinstance(error, dict) else None)

    async def _failure(self, what: str, response: httpx.Response, error: dict[str, Any] | None) -> Exception:
        access = self._client.access
        status = response.status_code
        code, subcode = _int(error, "code"), _int(error, "error_subcode")
        said = f"{access.source} {what}: HTTP {status}" + (f" code {code}" if code is not None else "")
        said += f"/{subcode}" if subcode is not None else ""
        now = self._client.clock.now()
        detail = self._redacted(error.get("message") if error else None)
        if code == EXPIRED:
            return Unavailable(
                f"{said}: the access token has expired or was revoked; set {access.token_setting} to a "
                "fresh long-lived token"
            )
        if code == PERMISSION and subcode == IDENTITY_NOT_CONFIRMED:
            return Unavailable(
                f"{said}: the token's developer has not completed the Ad Library API's identity "
                "confirmation (facebook.com/ads/library/api)"
            )
        if code == PERMISSION or (code is not None and 200 <= code <= 299):
            return Unavailable(
                f"{said}: a permission is missing ({access.permission_hint})"
                + (f": {detail}" if detail else "")
            )
        if code in THROTTLED or code in LONG_THROTTLED or (code is None and status == 429):
            until = now + (LONG_PAUSE if code in LONG_THROTTLED else THROTTLE_PAUSE)
            until = max(until, now + self._regain(response))
            await self._pause(until, f"throttled (code {code if code is not None else status})")
            return RateLimited(f"{said}: throttled", retry_at=until)
        if code in TRANSIENT:
            return UpstreamError(f"{said}: a transient fault", retryable=True)
        if code in NAMED_NOTHING:
            return NotFound(f"{said}: not found" + (f" ({detail})" if detail else ""))
        if code is None and status in (401, 403):
            return Unavailable(f"{said}: the access token was refused; check {access.token_setting}")
        if code is None and status == 404:
            return NotFound(f"{said}: not found")
        if status >= 500 or status == 200:
            return UpstreamError(f"{said}: an unexpected answer", retryable=True)
        return UpstreamError(said + (f": {detail}" if detail else ""), retryable=False)

    async def _mind_usage(self, response: httpx.Response) -> None:
        """Pause the bucket when Meta says a rolling limit is nearly used (§3.4)."""
        percent = _usage_percent(response.headers)
        if percent < SLOW_AT:
            return
        until = self._client.clock.now() + max(USAGE_PAUSE, self._regain(response))
        await self._pause(until, f"{percent}% of a rolling limit used")

    @staticmethod
    def _regain(response: httpx.Response) -> timedelta:
        """``estimated_time_to_regain_access`` (minutes) of the business-use-case header, when given."""
        minutes = 0
        for entry in _business_usage(response.headers):
            value = entry.get("estimated_time_to_regain_access")
            if isinstance(value, int | float) and not isinstance(value, bool) and value > minutes:
                minutes = int(value)
        return timedelta(minutes=min(minutes, 24 * 60))

    async def _pause(self, until: datetime, reason: str) -> None:
        if self._client.ledger is not None:
            await self._client.ledger.pause(self._client.access.source, CALLS, until, reason)

    def _redacted(self, message: Any) -> str | None:
        """The vendor's message, clipped, with the token blanked should it ever be quoted back."""
        if not isinstance(message, str) or not message.strip():
            return None
        found = " ".join(message.replace(self._token, "***").split())
        return found if len(found) <= VENDOR_MESSAGE_LIMIT else found[: VENDOR_MESSAGE_LIMIT - 1] + "…"


def after_cursor(body: dict[str, Any]) -> str | None:
    """``paging.cursors.after`` of a list answer (never ``paging.next``: it carries the token)."""
    paging = body.get("paging")
    cursors = paging.get("cursors") if isinstance(paging, dict) else None
    after = cursors.get("after") if isinstance(cursors, dict) else None
    return after if isinstance(after, str) and after else None


def _json(response: httpx.Response) -> dict[str, Any] | None:
    try:
        body = json.loads(response.content)
    except ValueError:  # not JSON, or not UTF-8
        return None
    return body if isinstance(body, dict) else None


def _int(error: dict[str, Any] | None, key: str) -> int | None:
    value = error.get(key) if error is not None else None
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _header_json(headers: httpx.Headers, name: str) -> Any:
    raw = headers.get(name)
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _business_usage(headers: httpx.Headers) -> list[dict[str, Any]]:
    """The entries of ``X-Business-Use-Case-Usage`` (``{business id: [{type, call_count, …}]}``)."""
    found = _header_json(headers, "x-business-use-case-usage")
    if not isinstance(found, dict):
        return []
    return [
        entry
        for entries in found.values()
        if isinstance(entries, list)
        for entry in entries
        if isinstance(entry, dict)
    ]


def _usage_percent(headers: httpx.Headers) -> int:
    """The highest percentage either usage header reports (0 when neither is there or readable)."""
    entries = _business_usage(headers)
    app = _header_json(headers, "x-app-usage")
    if isinstance(app, dict):
        entries.append(app)
    highest = 0
    for entry in entries:
        for key in ("call_count", "total_cputime", "total_time"):
            value = entry.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                highest = max(highest, int(value))
    return highest
