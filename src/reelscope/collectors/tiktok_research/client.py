"""HTTP to the TikTok Research API, its client token and its errors as the four typed errors (connectors
reference §2.1, §2.4, §2.5).

**Token.** ``POST {base}/v2/oauth/token/`` with the project's client key and secret (a form body, never a
URL) gives a client token (``clt.…``) good for ``expires_in`` seconds (2 h). Connectors are built per job,
so the token is kept per process (``TOKENS``, by base URL and client key) and replaced ``REFRESH_EARLY``
before it expires. A research call answered ``access_token_invalid`` (or ``invalid_token``) drops it and
is sent once more with a new one; refused again, the source is ``Unavailable``. A token endpoint that
refuses the credentials (OAuth ``invalid_client``, ``invalid_grant``, …) is ``Unavailable`` naming the
settings.

**Quota.** Every research call (a page of videos, of comments, a user) is counted in the ledger before it
is sent: bucket ``requests``, ``REELSCOPE_TIKTOK_DAILY_REQUEST_LIMIT`` (1,000) a day, reset at 00:00 UTC.
A page holds at most 100 records, so the 100,000 records a day follow from the requests. Token requests
are not research requests and are not counted.

**Errors.** Every answer carries ``error.code``, ``"ok"`` on success; it is checked on every response,
HTTP 200 included (§10 "failures dressed as success"):

    daily_quota_limit_exceeded          the bucket paused until the next 00:00 UTC → RateLimited
    rate_limit_exceeded, HTTP 429       paused for Retry-After or THROTTLE_PAUSE → RateLimited
    access_token_invalid, invalid_token a new token and one more try, then Unavailable
    scope_not_authorized, scope_permission_missed, HTTP 401/403
                                        → Unavailable (the project lacks research.data.basic)
    invalid_params                      → UpstreamError(retryable=False): a request of ours is wrong;
                                          the caller may read it as NotFound where the one value it
                                          varies is a username or a video id
    internal_error, 5xx, timeouts, bodies that are not a JSON object, an unknown code on 200
                                        → UpstreamError(retryable=True)

Neither the secret nor a token appears in a message or a log: the secret is a ``SecretStr`` until the
form is built, the token travels in a header, transport errors are re-raised without their httpx cause.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import httpx
from pydantic import SecretStr

from reelscope.collectors import tls
from reelscope.collectors.base import RateLimited, Unavailable, UpstreamError
from reelscope.collectors.budget import UTC_MIDNIGHT, Bucket
from reelscope.collectors.ledger import Ledger
from reelscope.kit.clock import Clock
from reelscope.kit.logging import get_logger

log = get_logger(__name__)

SOURCE = "tiktok_research"
KEY_SETTING = "REELSCOPE_TIKTOK_CLIENT_KEY"
SECRET_SETTING = "REELSCOPE_TIKTOK_CLIENT_SECRET"  # noqa: S105 (the setting's name)
TOKEN_PATH = "/v2/oauth/token/"  # noqa: S105 (a path)
# a token is replaced this long before it expires (a call may take a while, clocks differ)
REFRESH_EARLY = timedelta(minutes=10)
TOKEN_LIFETIME = timedelta(hours=2)  # when the answer does not say (§2.1: expires_in 7200)
THROTTLE_PAUSE = timedelta(seconds=60)
MAX_RETRY_AFTER = timedelta(hours=1)
VENDOR_MESSAGE_LIMIT = 200

OK = "ok"
QUOTA_SPENT = "daily_quota_limit_exceeded"
THROTTLED = "rate_limit_exceeded"
TOKEN_REFUSED = frozenset({"access_token_invalid", "invalid_token"})
SCOPE_MISSING = frozenset({"scope_not_authorized", "scope_permission_missed"})
INVALID_PARAMS = "invalid_params"


def requests_bucket(daily_limit: int, background_share: float) -> Bucket:
    return Bucket("requests", daily_limit, UTC_MIDNIGHT, background_share)


class InvalidParams(UpstreamError):
    """``invalid_params``: one of our request's values was refused (not retryable)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, retryable=False)


@dataclass(frozen=True)
class Token:
    value: str
    expires_at: datetime


class TokenCache:
    """Client tokens of this process by (base URL, client key): every connector built for a job shares
    them, so a token is asked for once per 2 hours, not once per job. The secret is not part of the
    key; a token minted with an old secret is refused and replaced (one more call)."""

    def __init__(self) -> None:
        self._tokens: dict[tuple[str, str], Token] = {}

    def valid(self, key: tuple[str, str], now: datetime) -> str | None:
        token = self._tokens.get(key)
        if token is None or now >= token.expires_at - REFRESH_EARLY:
            return None
        return token.value

    def keep(self, key: tuple[str, str], token: Token) -> None:
        self._tokens[key] = token

    def drop(self, key: tuple[str, str], value: str) -> None:
        """Forget ``value`` (refused) unless another call already replaced it."""
        token = self._tokens.get(key)
        if token is not None and token.value == value:
            del self._tokens[key]


TOKENS = TokenCache()


class TikTokClient:
    """The credentials, the address, the clock, the ledger and the token cache; ``session()`` opens one
    HTTP client for one operation of the connector (its pages share connections)."""

    def __init__(
        self,
        *,
        client_key: SecretStr | None,
        client_secret: SecretStr | None,
        base_url: str,
        timeout: float,
        clock: Clock,
        ledger: Ledger | None,
        bucket: Bucket,
        tokens: TokenCache = TOKENS,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._client_key = client_key
        self._client_secret = client_secret
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.clock = clock
        self.ledger = ledger
        self.bucket = bucket
        self.tokens = tokens
        self._transport = transport

    def missing_credentials(self) -> str | None:
        """Why no call can be made (a key or secret not configured), or None."""
        missing = [
            setting
            for setting, value in ((KEY_SETTING, self._client_key), (SECRET_SETTING, self._client_secret))
            if value is None or not value.get_secret_value().strip()
        ]
        if missing:
            return f"{SOURCE}: no research project credentials configured (set {' and '.join(missing)})"
        return None

    @property
    def _cache_key(self) -> tuple[str, str]:
        assert self._client_key is not None
        # the key is hashed so that even the process's memory holds no plain identifier of the project
        digest = hashlib.sha256(self._client_key.get_secret_value().strip().encode()).hexdigest()
        return self.base_url, digest

    @asynccontextmanager
    async def session(self) -> AsyncIterator[Session]:
        """Raises ``Unavailable`` at once when the credentials are missing: nothing is counted or sent."""
        missing = self.missing_credentials()
        if missing is not None:
            raise Unavailable(missing)
        async with httpx.AsyncClient(
            base_url=self.base_url,
            transport=self._transport,
            timeout=self.timeout,
            follow_redirects=False,
            verify=tls.context(),
        ) as http:
            yield Session(self, http)

    async def token(self, http: httpx.AsyncClient) -> str:
        """The cached token, or a new one from the token endpoint."""
        key = self._cache_key
        cached = self.tokens.valid(key, self.clock.now())
        if cached is not None:
            return cached
        assert self._client_key is not None and self._client_secret is not None
        form = {
            "client_key": self._client_key.get_secret_value().strip(),
            "client_secret": self._client_secret.get_secret_value().strip(),
            "grant_type": "client_credentials",
        }
        response = await _exchange(self, "token", http.post(TOKEN_PATH, data=form))
        body = _json(response)
        error = body.get("error") if body is not None else None
        value = body.get("access_token") if body is not None else None
        if response.status_code == 200 and isinstance(value, str) and value and not error:
            lifetime = _seconds(body.get("expires_in") if body else None) or TOKEN_LIFETIME
            self.tokens.keep(key, Token(value, self.clock.now() + lifetime))
            log.info("tiktok_research.token_issued", lifetime_s=int(lifetime.total_seconds()))
            return value
        said = f"{SOURCE} token: HTTP {response.status_code}" + (
            f" {error}" if isinstance(error, str) else ""
        )
        if response.status_code >= 500:
            raise UpstreamError(said, retryable=True)
        if isinstance(error, str) or response.status_code in (400, 401, 403):
            raise Unavailable(
                f"{said}: the client credentials were refused; check {KEY_SETTING} and {SECRET_SETTING} "
                "(an approved Research API project's)"
            )
        raise UpstreamError(f"{said}: an unexpected answer", retryable=True)

    def drop_token(self, value: str) -> None:
        self.tokens.drop(self._cache_key, value)


class Session:
    def __init__(self, client: TikTokClient, http: httpx.AsyncClient) -> None:
        self._client = client
        self._http = http

    async def post(self, endpoint: str, fields: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """One counted research call (``video/query``, ``user/info``, ``video/comment/list``); its
        ``data`` object. A refused token is replaced and the call sent once more (counted again)."""
        client = self._client
        for attempt in (1, 2):
            if client.ledger is not None:
                await client.ledger.spend(SOURCE, client.bucket, 1)
            token = await client.token(self._http)
            call = self._http.post(
                f"/v2/research/{endpoint}/",
                params={"fields": fields},
                json=dict(body),
                headers={"Authorization": f"Bearer {token}"},
            )
            response = await _exchange(client, endpoint, call)
            parsed = _json(response)
            code, message = _error(parsed)
            if code in TOKEN_REFUSED and attempt == 1:
                log.info("tiktok_research.token_refused", endpoint=endpoint)
                client.drop_token(token)
                continue
            if response.status_code == 200 and parsed is not None and (code == OK or code is None):
                data = parsed.get("data")
                if code is None and not isinstance(data, dict):
                    raise UpstreamError(f"{SOURCE} {endpoint}: an answer without data or error")
                return data if isinstance(data, dict) else {}
            raise await self._failure(endpoint, response, code, message)
        raise AssertionError("unreachable")  # pragma: no cover

    async def _failure(
        self, endpoint: str, response: httpx.Response, code: str | None, message: str | None
    ) -> Exception:
        client = self._client
        status = response.status_code
        said = f"{SOURCE} {endpoint}: HTTP {status}" + (f" {code}" if code else "")
        now = client.clock.now()
        if code == QUOTA_SPENT:
            reset = client.bucket.resets.after(now)
            await self._pause(reset, f"daily request quota spent ({code})")
            return RateLimited(f"{said}: daily request quota spent", retry_at=reset)
        if code == THROTTLED or status == 429:
            until = now + _retry_after(response)
            await self._pause(until, f"throttled ({code or status})")
            return RateLimited(f"{said}: throttled", retry_at=until)
        if code in TOKEN_REFUSED:
            return Unavailable(
                f"{said}: a fresh client token was refused too; check {KEY_SETTING} and {SECRET_SETTING}"
            )
        if code in SCOPE_MISSING or (code is None and status in (401, 403)):
            return Unavailable(
                f"{said}: the research project lacks the research.data.basic scope (TikTok for Developers: "
                "the project's approved scopes)"
            )
        if code == INVALID_PARAMS:
            detail = _clipped(message)
            return InvalidParams(f"{said}" + (f": {detail}" if detail else ""))
        if status >= 500 or status == 200:
            return UpstreamError(f"{said}: an unexpected answer", retryable=True)
        detail = _clipped(message)
        return UpstreamError(f"{said}" + (f": {detail}" if detail else ""), retryable=False)

    async def _pause(self, until: datetime, reason: str) -> None:
        if self._client.ledger is not None:
            await self._client.ledger.pause(SOURCE, self._client.bucket, until, reason)


async def _exchange(client: TikTokClient, what: str, call: Any) -> httpx.Response:
    """Await one request within the timeout (the whole exchange, not each read); transport failures as
    retryable ``UpstreamError`` without their cause (it carries the request)."""
    try:
        async with asyncio.timeout(client.timeout):
            response: httpx.Response = await call
            return response
    except (TimeoutError, httpx.TimeoutException):
        raise UpstreamError(f"{SOURCE} {what}: no answer within {client.timeout:g} s") from None
    except httpx.HTTPError as exc:
        raise UpstreamError(f"{SOURCE} {what}: request failed ({type(exc).__name__})") from None


def _json(response: httpx.Response) -> dict[str, Any] | None:
    try:
        body = json.loads(response.content)
    except ValueError:  # not JSON, or not UTF-8
        return None
    return body if isinstance(body, dict) else None


def _error(body: dict[str, Any] | None) -> tuple[str | None, str | None]:
    """``error.code`` and ``error.message`` of an answer, each None when absent."""
    error = body.get("error") if body is not None else None
    if not isinstance(error, dict):
        return None, None
    code, message = error.get("code"), error.get("message")
    return (
        code.strip() if isinstance(code, str) and code.strip() else None,
        message if isinstance(message, str) else None,
    )


def _clipped(message: str | None) -> str | None:
    if not message or not message.strip():
        return None
    found = " ".join(message.split())
    return found if len(found) <= VENDOR_MESSAGE_LIMIT else found[: VENDOR_MESSAGE_LIMIT - 1] + "…"


def _seconds(value: Any) -> timedelta | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, int) and value > 0:
        return timedelta(seconds=value)
    return None


def _retry_after(response: httpx.Response) -> timedelta:
    """Retry-After in seconds when sent (bounded), else ``THROTTLE_PAUSE``."""
    value = response.headers.get("retry-after", "").strip()
    if value.isdigit():
        return min(max(timedelta(seconds=int(value)), timedelta(seconds=1)), MAX_RETRY_AFTER)
    return THROTTLE_PAUSE
