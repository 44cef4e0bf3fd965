"""The event names a webhook may subscribe to (spec §6.2).

Kept here until the shared event catalogue lands; the integrator points these at it. The legacy
``orbit``/``comet`` names are still accepted and still fire (§6.2, §9).
"""

from __future__ import annotations

AGENT_RUN_COMPLETED = "content_research_agent.run.completed"
AGENT_EVENT_DETECTED = "content_research_agent.event.detected"
LOOKUP_COMPLETED = "satellite.lookup.completed"
TRENDS_DAILY_COMPLETED = "trends.daily.completed"
TRENDS_REGION_COMPLETED = "trends.region.completed"
TRACKING_CYCLE_COMPLETED = "tracking.cycle.completed"
TRACKING_OUTLIER_DETECTED = "tracking.outlier_video.detected"
TRACKING_PAUSED = "tracking.paused"
AUDIENCE_SNAPSHOT_COMPLETED = "audience.snapshot.completed"
ORBIT_RUN_COMPLETED = "orbit.run.completed"
COMET_RUN_COMPLETED = "comet.run.completed"

EVENT_NAMES: tuple[str, ...] = (
    AGENT_RUN_COMPLETED,
    AGENT_EVENT_DETECTED,
    LOOKUP_COMPLETED,
    TRENDS_DAILY_COMPLETED,
    TRENDS_REGION_COMPLETED,
    TRACKING_CYCLE_COMPLETED,
    TRACKING_OUTLIER_DETECTED,
    TRACKING_PAUSED,
    AUDIENCE_SNAPSHOT_COMPLETED,
    ORBIT_RUN_COMPLETED,
    COMET_RUN_COMPLETED,
)

# §6.1: trend events carry no team or user details and go to every subscribed endpoint
PUBLIC_EVENTS: frozenset[str] = frozenset({TRENDS_DAILY_COMPLETED, TRENDS_REGION_COMPLETED})


def is_known(name: str) -> bool:
    return name in EVENT_NAMES


def is_public(name: str) -> bool:
    return name in PUBLIC_EVENTS
