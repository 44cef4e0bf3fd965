from __future__ import annotations

from reelscope.kit.schemas import Schema


class AutoTopUp(Schema):
    below_credits: int
    amount_credits: int
    last_top_up_at: str | None


class Balance(Schema):
    credits_remaining: int
    balance_usd: float
    auto_top_up: AutoTopUp | None
