"""The team's own account: balance and auto top-up settings."""

from __future__ import annotations

from datetime import datetime

from reelscope.account.schemas import (
    AutoTopUp,
    Balance,
    Collector,
    CollectorBucket,
    CollectorError,
    CollectorTurn,
    KeyDailyCap,
)
from reelscope.auth.service import Caller
from reelscope.billing import service as billing_service
from reelscope.collectors import status as collector_status
from reelscope.collectors.routing import Sources
from reelscope.kit.clock import iso


def balance_of(caller: Caller, now: datetime) -> Balance:
    """The team's balance and auto top-up, and the calling key's daily cap (ADR 0047), from the caller
    the contract read with the key at the start of this request: the same point read of the team's
    row, so no second query (issue 33 item 7)."""
    auto = None
    if caller.auto_top_up_below is not None and caller.auto_top_up_amount is not None:
        auto = AutoTopUp(
            below_credits=caller.auto_top_up_below,
            amount_credits=caller.auto_top_up_amount,
            last_top_up_at=iso(caller.auto_top_up_last_at),
        )
    return Balance(
        credits_remaining=caller.balance,
        balance_usd=billing_service.credits_to_usd(caller.balance),
        auto_top_up=auto,
        key_daily_cap=None if caller.daily_cap is None else _key_daily_cap(caller.daily_cap, now),
    )


def _key_daily_cap(cap: billing_service.DailyCap, now: datetime) -> KeyDailyCap:
    spent = cap.spent_on(now)
    return KeyDailyCap(
        cap_credits=cap.cap,
        cap_usd=billing_service.credits_to_usd(cap.cap),
        spent_today_credits=spent,
        spent_today_usd=billing_service.credits_to_usd(spent),
        left_today_credits=cap.left_on(now),
        resets_at=billing_service.next_day_start(now).isoformat().replace("+00:00", "Z"),
    )


async def collectors(sources: Sources, now: datetime) -> list[Collector]:
    """Every enabled data source with its state, quota and last outcome (beyond the spec, issue 26)."""
    return [
        Collector(
            name=found.name,
            capabilities=found.capabilities,
            state=found.state,
            state_until=iso(found.state_until),
            reason=found.reason,
            buckets=[
                CollectorBucket(
                    name=b.name,
                    daily_limit=b.daily_limit,
                    used=b.used,
                    used_background=b.used_background,
                    background_limit=b.background_limit,
                    left=b.left,
                    resets_at=iso(b.resets_at),
                    paused_until=iso(b.paused_until),
                    pause_reason=b.pause_reason,
                )
                for b in found.buckets
            ],
            turns=[CollectorTurn(name=t.name, next_at=iso(t.next_at), runs=t.runs) for t in found.turns],
            calls=found.calls,
            last_success_at=iso(found.last_success_at),
            last_error=CollectorError(
                kind=found.last_error_kind, message=found.last_error, at=iso(found.last_error_at)
            )
            if found.last_error_kind
            else None,
        )
        for found in await collector_status.status(sources, now)
    ]
