from __future__ import annotations

from reelscope.account import service as account_service
from reelscope.account.schemas import Balance
from reelscope.contract import PrincipalDep, SessionDep, small_read, v1_router
from reelscope.kit.schemas import Envelope, errors

router = v1_router(prefix="/account", tags=["account"])


@router.get("/balance", responses=errors(400))
@small_read
async def get_account_balance(session: SessionDep, principal: PrincipalDep) -> Envelope[Balance]:
    """The team's prepaid balance in credits and dollars (free; 1 credit = $0.01)."""
    return Envelope(data=await account_service.balance(session, principal.team_id))
