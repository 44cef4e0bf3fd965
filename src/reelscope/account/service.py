"""The team's own account: balance and auto top-up settings."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.account.schemas import AutoTopUp, Balance
from reelscope.auth import repository as auth_repository
from reelscope.billing import service as billing_service
from reelscope.kit.clock import iso
from reelscope.kit.errors import NotFound


async def balance(session: AsyncSession, team_id: str) -> Balance:
    found = await auth_repository.team_balance(session, team_id)
    if found is None:
        raise NotFound("Team not found")
    credits, below, amount, last_at = found
    auto = None
    if below is not None and amount is not None:
        auto = AutoTopUp(below_credits=below, amount_credits=amount, last_top_up_at=iso(last_at))
    return Balance(
        credits_remaining=credits,
        balance_usd=billing_service.credits_to_usd(credits),
        auto_top_up=auto,
    )
