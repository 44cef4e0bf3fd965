"""What is refused at the edge, before routing, authentication or the rate limit (issue 14; ADR 0025).

``EdgeGuard`` is the app's innermost middleware but one (inside ``ContractHeadersMiddleware``, so every
refusal still has the §2.8 body, ``X-Request-Id`` and the zero billing headers). It refuses what no
endpoint can serve, in one place instead of per endpoint:

* a path or query string that is not UTF-8 once percent-decoded → 400 ``validation_error`` (Starlette
  would silently turn the bytes into U+FFFD);
* a NUL character anywhere in the path → 404 ``not_found`` (no resource is named so), and in the query
  string → 400 ``validation_error`` naming the parameter: PostgreSQL cannot store or compare text with
  NUL (``CharacterNotInRepertoireError``), and SQLite must not answer differently (NUL inside a JSON
  body is refused by ``kit.schemas.RequestBody``);
* a body over ``REELSCOPE_MAX_BODY_BYTES`` → 413 ``payload_too_large``, at once when Content-Length says
  so, else as soon as the streamed body passes the limit;
* a body not complete within ``REELSCOPE_BODY_TIMEOUT_SECONDS`` (a slow or short body: fewer bytes than
  its Content-Length) → 408 ``request_timeout``.

These refusals precede authentication, so they are neither counted by the rate limiter nor charged.
"""

from __future__ import annotations

import asyncio
from urllib.parse import unquote_to_bytes

import orjson
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from reelscope.kit.errors import ApiError, NotFound, PayloadTooLarge, RequestTimeout, ValidationFailed


class BodyRefused(HTTPException):
    """Raised from ``receive`` while an endpoint reads the body. An ``HTTPException``, because FastAPI
    re-raises those from body parsing (any other exception would become its own plain 400); the app's
    handler for it renders ``error`` (main.py)."""

    def __init__(self, error: ApiError) -> None:
        super().__init__(status_code=error.status, detail=str(error))
        self.error = error


def _decoded(raw: bytes, *, plus_is_space: bool) -> str:
    """Percent-decoded and strictly UTF-8 (raises UnicodeDecodeError)."""
    if plus_is_space:
        raw = raw.replace(b"+", b" ")
    return unquote_to_bytes(raw).decode("utf-8")


def _plain(raw: bytes) -> bool:
    return raw.isascii() and b"%" not in raw and b"\x00" not in raw


def refusal_of_target(path: bytes, query: bytes) -> ApiError | None:
    """What is wrong with a request target's raw path and query string, if anything."""
    if _plain(path) and _plain(query):
        return None  # nothing encoded and nothing beyond ASCII: the common case costs two scans
    try:
        decoded_path = _decoded(path, plus_is_space=False)
    except UnicodeDecodeError:
        return ValidationFailed("the path must be valid UTF-8 once percent-decoded")
    if "\x00" in decoded_path:
        return NotFound("No resource has a NUL character in its path")
    if not query:
        return None
    problems: list[str] = []
    for pair in query.split(b"&"):
        raw_name, _, raw_value = pair.partition(b"=")
        try:
            name = _decoded(raw_name, plus_is_space=True)
        except UnicodeDecodeError:
            problems.append("query parameter names must be valid UTF-8 once percent-decoded")
            continue
        shown = name.replace("\x00", "\\u0000")
        try:
            value = _decoded(raw_value, plus_is_space=True)
        except UnicodeDecodeError:
            problems.append(f"{shown} must be valid UTF-8 once percent-decoded")
            continue
        if "\x00" in name or "\x00" in value:
            problems.append(f"{shown} must not contain NUL characters")
    return ValidationFailed(problems) if problems else None


class EdgeGuard:
    def __init__(self, app: ASGIApp, *, max_body_bytes: int, body_timeout_seconds: float) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.body_timeout_seconds = body_timeout_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        raw_path: bytes = scope.get("raw_path") or scope["path"].encode()
        refusal = refusal_of_target(raw_path, scope.get("query_string", b""))
        if refusal is None and _declared_length(scope) > self.max_body_bytes:
            refusal = self._too_large()
        if refusal is not None:
            await _respond(send, refusal)
            return
        await self.app(scope, self._guarded(receive), send)

    def _too_large(self) -> PayloadTooLarge:
        return PayloadTooLarge(f"The request body must be at most {self.max_body_bytes} bytes")

    def _guarded(self, receive: Receive) -> Receive:
        """``receive`` with the body's size limit and one deadline for the whole body."""
        received = 0
        complete = False
        deadline: float | None = None

        async def guarded() -> Message:
            nonlocal received, complete, deadline
            if complete:  # after the body only a disconnect comes: wait for it as long as it takes
                return await receive()
            loop = asyncio.get_running_loop()
            if deadline is None:
                deadline = loop.time() + self.body_timeout_seconds
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                raise BodyRefused(
                    RequestTimeout(f"The request body did not arrive within {self.body_timeout_seconds:g} s")
                ) from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body_bytes:
                    raise BodyRefused(self._too_large())
                complete = not message.get("more_body", False)
            else:
                complete = True
            return message

        return guarded


def _declared_length(scope: Scope) -> int:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return 0  # the server refuses a malformed Content-Length before the app
    return 0


async def _respond(send: Send, error: ApiError) -> None:
    body = orjson.dumps(error.body())
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
