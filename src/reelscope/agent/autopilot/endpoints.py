"""/v1/agents/{id}/activity, /events, /autonomy and the deprecated /proposals (spec §4.4; ADR 0032).

All free. Not paged (§8.3): each list serves the newest 200 at most. The proposal endpoints are
deprecated: every response, errors included, carries ``Deprecation: true``. Another team's agent or
proposal is 404 like a missing one (§7).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from reelscope.agent import service as agent_service
from reelscope.agent.autopilot import breaking
from reelscope.agent.autopilot import service as autopilot_service
from reelscope.agent.autopilot.schemas import (
    ActivityList,
    AutonomyUpdate,
    EventList,
    ProposalList,
    ProposalOut,
)
from reelscope.agent.deprecated import DeprecatedRoute
from reelscope.agent.schemas import AgentOut, EmptyQuery
from reelscope.contract import ClockDep, PrincipalDep, SessionDep, v1_router
from reelscope.kit.schemas import Envelope, errors

router = v1_router(prefix="/agents", tags=["agents"])
proposals_router = APIRouter(prefix="/agents", tags=["agents"], route_class=DeprecatedRoute)


@router.get("/{agent_id}/activity", responses=errors(400, 404))
async def get_agent_activity(
    agent_id: str, query: Annotated[EmptyQuery, Query()], session: SessionDep, principal: PrincipalDep
) -> Envelope[ActivityList]:
    """The autopilot's decision log, newest first: what it changed or proposed after each run and for
    each breaking story (with the reason and evidence), what the user applied, dismissed or reverted,
    and autonomy changes. Recurring agents; a one-shot agent's log is empty. Not paged (newest 200)."""
    return Envelope(data=await autopilot_service.activity(session, principal.team_id, agent_id))


@router.get("/{agent_id}/events", responses=errors(400, 404))
async def list_agent_events(
    agent_id: str, query: Annotated[EmptyQuery, Query()], session: SessionDep, principal: PrincipalDep
) -> Envelope[EventList]:
    """Breaking stories detected between runs (news scan, corpus bursts), active ones (candidate,
    confirmed) first, then dismissed and expired; each with salience (0 to 10), keywords, the
    keywords the autopilot added and evidence. Not paged (newest 200)."""
    agent = await agent_service.get_owned(session, principal.team_id, agent_id)
    return Envelope(data=await breaking.list_events(session, principal.team_id, agent))


@router.put("/{agent_id}/autonomy", responses=errors(400, 404))
async def update_agent_autonomy(
    agent_id: str, body: AutonomyUpdate, session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Envelope[AgentOut]:
    """Switch the autopilot (`autopilot`, or the deprecated `autonomy_level`: `autopilot` or `suggest`)
    and breaking-story detection (`cognition_enabled`). With the autopilot off the configuration stays
    exactly as sent and its changes become proposals. Returns the agent."""
    updated = await autopilot_service.set_autonomy(
        session, principal.team_id, agent_id, body, now=clock.now()
    )
    return Envelope(data=updated)


@proposals_router.get("/{agent_id}/proposals", responses=errors(400, 404), deprecated=True)
async def list_agent_proposals(
    agent_id: str, query: Annotated[EmptyQuery, Query()], session: SessionDep, principal: PrincipalDep
) -> Envelope[ProposalList]:
    """Deprecated. The autopilot's changes: open proposals (autopilot off) first, then those applied
    (by the autopilot or the user), dismissed, reverted or expired, newest first. Not paged."""
    return Envelope(data=await autopilot_service.proposals(session, principal.team_id, agent_id))


@proposals_router.post(
    "/{agent_id}/proposals/{proposal_id}/apply", responses=errors(400, 404, 409), deprecated=True
)
async def apply_agent_proposal(
    agent_id: str, proposal_id: str, session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Envelope[ProposalOut]:
    """Deprecated. Make a proposed change (within the 15-keyword limit); 409 unless it is proposed or
    when its breaking story has ended."""
    applied = await autopilot_service.apply_proposal(
        session, principal.team_id, agent_id, proposal_id, now=clock.now()
    )
    return Envelope(data=applied)


@proposals_router.post(
    "/{agent_id}/proposals/{proposal_id}/dismiss", responses=errors(400, 404, 409), deprecated=True
)
async def dismiss_agent_proposal(
    agent_id: str, proposal_id: str, session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Envelope[ProposalOut]:
    """Deprecated. Set a proposed change aside; the autopilot does not offer its keywords again. 409
    unless it is proposed."""
    dismissed = await autopilot_service.dismiss_proposal(
        session, principal.team_id, agent_id, proposal_id, now=clock.now()
    )
    return Envelope(data=dismissed)


@proposals_router.post(
    "/{agent_id}/proposals/{proposal_id}/revert", responses=errors(400, 404, 409), deprecated=True
)
async def revert_agent_proposal(
    agent_id: str, proposal_id: str, session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Envelope[ProposalOut]:
    """Deprecated. Undo an applied change, whether the autopilot or the user made it; keywords the user
    has set since stay. The autopilot does not offer its keywords again. 409 unless it is applied."""
    reverted = await autopilot_service.revert_proposal(
        session, principal.team_id, agent_id, proposal_id, now=clock.now()
    )
    return Envelope(data=reverted)
