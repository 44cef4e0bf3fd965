"""The team's own account: balance and auto top-up settings."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.account.schemas import AutoTopUp, Balance
from reelscope.auth import repository as auth_repository
from reelscope.billing import service as billing_service
from reelscope.kit.clock import iso
from reelscope.kit.errors import NotFound


async def balance(session: AsyncSession, team_id: str) -> Balance:
    team = await auth_repository.get_team(session, team_id)
    if team is None:
        raise NotFound("Team not found")
    auto = None
    if team.auto_topup_below is not None and team.auto_topup_amount is not None:
        auto = AutoTopUp(
            below_credits=team.auto_topup_below,
            amount_credits=team.auto_topup_amount,
            last_top_up_at=iso(team.auto_topup_last_at),
        )
    return Balance(
        credits_remaining=team.credits,
        balance_usd=billing_service.credits_to_usd(team.credits),
        auto_top_up=auto,
    )
