from __future__ import annotations

from reelscope.kit.schemas import Schema


class AutoTopUp(Schema):
    below_credits: int
    amount_credits: int
    last_top_up_at: str | None


class KeyDailyCap(Schema):
    """The calling API key's daily spending cap (beyond the spec, issue 30, ADR 0047): a charge that
    would take ``spent_today_credits`` past ``cap_credits`` is 402 ``daily_cap_reached``."""

    cap_credits: int
    cap_usd: float
    spent_today_credits: int
    spent_today_usd: float
    left_today_credits: int
    resets_at: str


class Balance(Schema):
    credits_remaining: int
    balance_usd: float
    auto_top_up: AutoTopUp | None
    # additive (§9): null when the calling key has no daily cap
    key_daily_cap: KeyDailyCap | None = None


class CollectorBucket(Schema):
    """A source's quota bucket: what the current window allows, used and leaves (issue 26)."""

    name: str
    daily_limit: int | None
    used: int
    used_background: int
    background_limit: int | None
    left: int | None
    resets_at: str | None
    paused_until: str | None
    pause_reason: str | None


class CollectorTurn(Schema):
    """A recurring pull of the source (a country's popular chart) and when it is due next."""

    name: str
    next_at: str | None
    runs: int


class CollectorError(Schema):
    kind: str
    message: str | None
    at: str | None


class Collector(Schema):
    """One enabled data source, as an operator needs to see it."""

    name: str
    capabilities: dict[str, list[str]]
    state: str
    state_until: str | None
    reason: str | None
    buckets: list[CollectorBucket]
    turns: list[CollectorTurn]
    calls: int
    last_success_at: str | None
    last_error: CollectorError | None
