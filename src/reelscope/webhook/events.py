"""The event names a webhook may subscribe to: the shared catalogue of spec §6.2 (events/catalogue.py).

The legacy ``orbit``/``comet`` names are still accepted and still fire (§6.2, §9).
"""

from __future__ import annotations

from reelscope.events.catalogue import EVENTS, PUBLIC_EVENTS, EventName

AGENT_RUN_COMPLETED = EventName.AGENT_RUN_COMPLETED.value
AGENT_EVENT_DETECTED = EventName.AGENT_EVENT_DETECTED.value
LOOKUP_COMPLETED = EventName.LOOKUP_COMPLETED.value
TRENDS_DAILY_COMPLETED = EventName.TRENDS_DAILY_COMPLETED.value
TRENDS_REGION_COMPLETED = EventName.TRENDS_REGION_COMPLETED.value
TRACKING_CYCLE_COMPLETED = EventName.TRACKING_CYCLE_COMPLETED.value
TRACKING_OUTLIER_DETECTED = EventName.TRACKING_OUTLIER_DETECTED.value
TRACKING_PAUSED = EventName.TRACKING_PAUSED.value
AUDIENCE_SNAPSHOT_COMPLETED = EventName.AUDIENCE_SNAPSHOT_COMPLETED.value
ORBIT_RUN_COMPLETED = EventName.ORBIT_RUN_COMPLETED.value
COMET_RUN_COMPLETED = EventName.COMET_RUN_COMPLETED.value

EVENT_NAMES: tuple[str, ...] = tuple(EVENTS)


def is_known(name: str) -> bool:
    return name in EVENTS


def is_public(name: str) -> bool:
    """§6.1: trend events carry no team or user details and go to every subscribed endpoint."""
    return name in PUBLIC_EVENTS
