"""Idempotency keys: a retried create or charge returns the first response instead of running again.

Beyond the spec, on the model of payment APIs (ADR 0004). A non-safe request with an ``Idempotency-Key``
header is fingerprinted (method, path, query, body). The first 2xx response is stored for 24 hours in the
request's own transaction, beside the handler's writes and the debit, so a request that rolls back
stores nothing and may be retried with the same key. Keys are scoped per team.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta

import orjson
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.datastructures import URL

from reelscope.idempotency import repository
from reelscope.kit.errors import Conflict, ValidationFailed
from reelscope.kit.logging import get_logger
from reelscope.models import IdempotencyRecord

log = get_logger(__name__)

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
RETENTION = timedelta(hours=24)
MAX_KEY_LENGTH = 255
# set again when a response is rendered; storing them would only repeat or contradict the new ones
_NOT_STORED = frozenset({"content-length", "date", "server"})


@dataclass(frozen=True)
class StoredResponse:
    status_code: int
    body: bytes
    headers: list[tuple[str, str]]


def parse_key(raw: str) -> str:
    key = raw.strip()
    if not key or len(key) > MAX_KEY_LENGTH or not key.isprintable():
        raise ValidationFailed(
            [f"{HEADER} header must be 1 to {MAX_KEY_LENGTH} printable characters (a UUID is a good key)"]
        )
    return key


def fingerprint(method: str, url: URL, body: bytes) -> str:
    """What makes two requests the same: method, path, query parameters, and body (JSON compared by value)."""
    try:
        canonical = orjson.dumps(orjson.loads(body), option=orjson.OPT_SORT_KEYS) if body else b""
    except orjson.JSONDecodeError:
        canonical = body
    query = "&".join(sorted(url.query.split("&"))) if url.query else ""
    digest = hashlib.sha256()
    for part in (method.encode(), url.path.encode(), query.encode(), canonical):
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


async def find_replay(
    session: AsyncSession, *, team_id: str, key: str, fingerprint: str, now: datetime
) -> StoredResponse | None:
    """The stored response to replay, or None when this key is new to the team (or its record expired).

    409 ``conflict`` when a request with the key is still in flight, or the key was used for another request.
    """
    record = await _live_record(session, team_id, key, now)
    if record is None:
        # new to the team: hold the key for this request, then look again in case its holder just committed
        if not await repository.try_lock(session, team_id, key):
            raise Conflict(f"A request with this {HEADER} is still in progress; retry after it completes")
        record = await _live_record(session, team_id, key, now)
        if record is None:
            return None
    if record.fingerprint != fingerprint:
        raise Conflict(f"This {HEADER} was already used for a different request; use a new key")
    log.info("idempotency.replayed", team_id=team_id, status_code=record.status_code)
    return StoredResponse(
        status_code=record.status_code, body=record.body, headers=[(n, v) for n, v in record.headers]
    )


async def _live_record(
    session: AsyncSession, team_id: str, key: str, now: datetime
) -> IdempotencyRecord | None:
    """The key's record if it is younger than 24 hours; an expired one is removed, freeing the key."""
    record = await repository.get(session, team_id, key)
    if record is not None and record.expires_at <= now:
        await repository.remove(session, record.id)
        return None
    return record


def remember(
    session: AsyncSession,
    *,
    team_id: str,
    key: str,
    fingerprint: str,
    status_code: int,
    body: bytes,
    headers: list[tuple[str, str]],
    now: datetime,
) -> None:
    """Store a 2xx response in the caller's transaction (it commits with the handler's writes)."""
    repository.add(
        session,
        IdempotencyRecord(
            team_id=team_id,
            key=key,
            fingerprint=fingerprint,
            status_code=status_code,
            body=body,
            headers=[[n, v] for n, v in headers if n.lower() not in _NOT_STORED],
            created_at=now,
            expires_at=now + RETENTION,
        ),
    )
