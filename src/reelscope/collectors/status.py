"""What an operator sees of the sources (issue 26 item 6): ``GET /v1/account/collectors`` and
``reelscope collectors status`` / ``check``.

Each enabled source: what it can do, its state (``ok``; ``rate_limited`` until a bucket frees;
``circuit_open`` until the breaker lets a call through; ``unavailable`` and why: missing credentials, or
the last call refused), every quota bucket with what was used and is left, the turns of its recurring
pulls, its last success and its last error (our own words, never a vendor body or a key). A source may
add buckets of its own (``quota_status``: Instagram's hashtag places over a rolling week).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from reelscope.collectors.base import ConnectorError, Unavailable
from reelscope.collectors.budget import Bucket
from reelscope.collectors.routing import Sources

OK, RATE_LIMITED, CIRCUIT_OPEN, UNAVAILABLE = "ok", "rate_limited", "circuit_open", "unavailable"


@dataclass(frozen=True)
class BucketStatus:
    name: str
    daily_limit: int | None
    used: int
    used_background: int
    background_limit: int | None
    left: int | None
    resets_at: datetime | None
    paused_until: datetime | None
    pause_reason: str | None


@dataclass(frozen=True)
class TurnStatus:
    """A recurring pull (a country's chart): when it may run next."""

    name: str
    next_at: datetime | None
    runs: int


@dataclass(frozen=True)
class SourceStatus:
    name: str
    capabilities: dict[str, list[str]]
    state: str
    state_until: datetime | None
    reason: str | None
    buckets: list[BucketStatus] = field(default_factory=list)
    turns: list[TurnStatus] = field(default_factory=list)
    calls: int = 0
    last_success_at: datetime | None = None
    last_error_at: datetime | None = None
    last_error_kind: str | None = None
    last_error: str | None = None


def _capabilities(connector: Any) -> dict[str, list[str]]:
    return {
        capability.value: sorted(p.value for p in platforms)
        for capability, platforms in sorted(connector.capabilities.items(), key=lambda kv: kv[0].value)
    }


def _bucket_status(declared: Bucket, row: Any, now: datetime) -> BucketStatus:
    live = row is not None and row.window_ends_at is not None and row.window_ends_at > now
    used = row.used if live else 0
    used_background = row.used_background if live else 0
    paused = row is not None and row.paused_until is not None and row.paused_until > now
    left = None if declared.daily_limit is None else max(declared.daily_limit - used, 0)
    if paused:
        left = 0
    return BucketStatus(
        name=declared.name,
        daily_limit=declared.daily_limit,
        used=used,
        used_background=used_background,
        background_limit=declared.background_limit,
        left=left,
        resets_at=row.window_ends_at if live else None,
        paused_until=row.paused_until if paused else None,
        pause_reason=row.pause_reason if paused else None,
    )


async def status(sources: Sources, now: datetime) -> list[SourceStatus]:
    """Every enabled source, in the configured order."""
    bucket_rows: list[Any] = []
    source_rows: list[Any] = []
    if sources.ledger is not None:
        bucket_rows, source_rows = await sources.ledger.rows()
    buckets_by = {(r.source, r.bucket): r for r in bucket_rows}
    health = {r.source: r for r in source_rows}
    found = []
    for connector in sources.connectors:
        declared: tuple[Bucket, ...] = tuple(getattr(connector, "buckets", ()))
        buckets = [_bucket_status(b, buckets_by.get((connector.name, b.name)), now) for b in declared]
        known = {b.name for b in declared}
        extra = [
            r for (name, bucket), r in buckets_by.items() if name == connector.name and bucket not in known
        ]
        turns = [
            TurnStatus(r.bucket, r.window_ends_at, r.used) for r in extra if r.bucket.startswith("feed:")
        ]
        # pauses of buckets the source opens as it goes (a host a scraper is blocked on)
        buckets += [
            _bucket_status(Bucket(r.bucket), r, now)
            for r in extra
            if not r.bucket.startswith("feed:") and r.paused_until is not None and r.paused_until > now
        ]
        # quotas a source keeps itself, that no daily bucket can say (Instagram's 30 hashtags a week)
        own = getattr(connector, "quota_status", None)
        if sources.ledger is not None and callable(own):
            buckets += await own()
        row = health.get(connector.name)
        state, until, reason = _state(connector, row, buckets, now)
        found.append(
            SourceStatus(
                name=connector.name,
                capabilities=_capabilities(connector),
                state=state,
                state_until=until,
                reason=reason,
                buckets=buckets,
                turns=sorted(turns, key=lambda t: t.name),
                calls=row.calls if row is not None else 0,
                last_success_at=row.last_success_at if row is not None else None,
                last_error_at=row.last_error_at if row is not None else None,
                last_error_kind=row.last_error_kind if row is not None else None,
                last_error=row.last_error if row is not None else None,
            )
        )
    return found


def _state(
    connector: Any, row: Any, buckets: list[BucketStatus], now: datetime
) -> tuple[str, datetime | None, str | None]:
    missing = getattr(connector, "unavailable_reason", None)
    if missing:
        return UNAVAILABLE, None, str(missing)
    if row is not None and row.circuit_open_until is not None and row.circuit_open_until > now:
        return CIRCUIT_OPEN, row.circuit_open_until, row.circuit_reason
    if (
        row is not None
        and row.last_error_kind == Unavailable.__name__
        and (row.last_success_at is None or row.last_success_at < row.last_error_at)
    ):
        return UNAVAILABLE, None, row.last_error
    blocked = [b for b in buckets if b.left == 0]
    if blocked:
        ends = [b.paused_until or b.resets_at for b in blocked]
        until = min((e for e in ends if e is not None), default=None)
        reasons = "; ".join(f"{b.name}: {b.pause_reason or 'quota spent'}" for b in blocked)
        return RATE_LIMITED, until, reasons
    return OK, None, None


@dataclass(frozen=True)
class CheckResult:
    name: str
    ok: bool
    error_kind: str | None = None
    message: str | None = None


async def check(sources: Sources) -> list[CheckResult]:
    """One cheap call per source (its ``check``) to validate credentials and reachability; a success closes
    the source's circuit. A source without a ``check`` is reported as fine (the sandbox)."""

    async def probe(connector: Any) -> None:
        await connector.check()

    results = []
    for connector in sources.connectors:
        try:
            if callable(getattr(connector, "check", None)):
                await sources.call(connector, probe)
        except ConnectorError as exc:
            results.append(CheckResult(connector.name, False, type(exc).__name__, str(exc)))
            continue
        if sources.ledger is not None:
            await sources.ledger.reset(connector.name)
        results.append(CheckResult(connector.name, True))
    return results
