"""/v1/audience (spec §4.7): any audience job of the team, its result kept 24 hours. Free.

Snapshots of tracked creators are started and read under /v1/tracking/creators/{id} (tracking family).
"""

from __future__ import annotations

from reelscope.audience import service
from reelscope.audience.schemas import AudienceJobOut
from reelscope.contract import ClockDep, PrincipalDep, SessionDep, small_read, v1_router
from reelscope.kit.schemas import Envelope, errors

router = v1_router(prefix="/audience", tags=["audience"])


@router.get("/snapshot/{job_id}", responses=errors(400, 404))
@small_read
async def get_audience_snapshot(
    job_id: str, session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Envelope[AudienceJobOut]:
    """An audience job's status and, once completed, the snapshot: demographics (age bracket, gender),
    geography (country, city, language), `sample_size`, `confidence_per_signal`, `confidence_level`,
    `data_source`, `signal_breakdown`. 404 once 24 hours have passed since it completed."""
    return Envelope(data=await service.snapshot(session, principal.team_id, job_id, clock.now()))
