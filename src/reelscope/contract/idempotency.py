"""The contract's use of Idempotency-Key (ADR 0004): find a replay, remember a first response."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson
from fastapi import Request, Response
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.contract.calls import SAFE_METHODS
from reelscope.idempotency import service as idempotency_service
from reelscope.kit.logging import get_logger

log = get_logger(__name__)


@dataclass(frozen=True)
class IdempotentRequest:
    key: str
    fingerprint: str


async def json_body(request: Request) -> dict[str, Any] | None:
    """The body as a JSON object, for price quotes; None when absent or not an object (the endpoint's
    own validation reports a bad body as a 400)."""
    if request.method in SAFE_METHODS:
        return None
    raw = await request.body()
    if not raw:
        return None
    try:
        parsed = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    return parsed if isinstance(parsed, dict) else None


async def of(request: Request) -> IdempotentRequest | None:
    """The Idempotency-Key of a request that runs as a write: a non-safe one, or a GET that starts work
    (contract/route.py ``starts_work``). Plain reads never ask: they are idempotent already."""
    raw = request.headers.get(idempotency_service.HEADER)
    if raw is None:
        return None
    key = idempotency_service.parse_key(raw)
    return IdempotentRequest(
        key=key,
        fingerprint=idempotency_service.fingerprint(request.method, request.url, await request.body()),
    )


async def find_replay(
    session: AsyncSession, team_id: str, idempotent: IdempotentRequest, now: datetime
) -> Response | None:
    """The first response again, uncharged: X-Cost 0.00 and no X-Credits-Remaining (§8.2)."""
    stored = await idempotency_service.find_replay(
        session, team_id=team_id, key=idempotent.key, fingerprint=idempotent.fingerprint, now=now
    )
    if stored is None:
        return None
    response = Response(content=stored.body, status_code=stored.status_code)
    for name, value in stored.headers:
        response.headers.append(name, value)
    response.headers[idempotency_service.REPLAYED_HEADER] = "true"
    return response


def remember(
    session: AsyncSession, team_id: str, idempotent: IdempotentRequest, response: Response, now: datetime
) -> None:
    body = getattr(response, "body", None)
    if not isinstance(body, bytes):
        # a streamed response cannot be stored; the request still succeeds, without replay protection
        log.warning("idempotency.not_stored", team_id=team_id, reason="streamed response")
        return
    idempotency_service.remember(
        session,
        team_id=team_id,
        key=idempotent.key,
        fingerprint=idempotent.fingerprint,
        status_code=response.status_code,
        body=body,
        headers=[(n.decode("latin-1"), v.decode("latin-1")) for n, v in response.raw_headers],
        now=now,
    )
