"""Usage billed outside a request: compensating refunds for paid async work (ARCHITECTURE §3)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.billing import service as billing_service
from reelscope.kit.logging import get_logger

log = get_logger(__name__)


async def refund(
    session: AsyncSession, team_id: str, credits: int, reference: str, at: datetime
) -> int | None:
    """Give ``credits`` back with a ``refund`` ledger row, in the caller's transaction.

    Paid async work that fails for good is refunded (§6.3 audience: "A failed snapshot sends nothing and
    is refunded"). Idempotent by ``reference`` (a unique index): a second refund of it adds nothing, so a
    job given up on twice (two dispatchers, a retry of the dispatcher) refunds once. Returns the balance
    after, or None when nothing was added.
    """
    if credits <= 0:
        return None
    # one INSERT … ON CONFLICT DO NOTHING on the refund index: two racing refunds pay once
    remaining = await billing_service.refund_once(session, team_id, credits, reference=reference, at=at)
    if remaining is None:
        return None
    log.info("billing.refunded", team_id=team_id, credits=credits, reference=reference)
    return remaining
