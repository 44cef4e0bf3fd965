"""The event catalogue: every name of §6.2, whether it is public, and the schema of its ``data`` (§6.3).

Trend events are public (no team or user details; delivered to every subscribed team); the others are
team-scoped (§6.1). The legacy names ``orbit.run.completed`` and ``comet.run.completed`` still fire, with
the agent-run payload: a subscriber to an old and the new name gets two messages per run (§6.2, §9).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import TypeAdapter

from reelscope.events import schemas


class EventName(StrEnum):
    AGENT_RUN_COMPLETED = "content_research_agent.run.completed"
    AGENT_EVENT_DETECTED = "content_research_agent.event.detected"
    LOOKUP_COMPLETED = "satellite.lookup.completed"
    TRENDS_DAILY_COMPLETED = "trends.daily.completed"
    TRENDS_REGION_COMPLETED = "trends.region.completed"
    TRACKING_CYCLE_COMPLETED = "tracking.cycle.completed"
    TRACKING_OUTLIER_DETECTED = "tracking.outlier_video.detected"
    TRACKING_PAUSED = "tracking.paused"
    AUDIENCE_SNAPSHOT_COMPLETED = "audience.snapshot.completed"
    # legacy aliases (deprecated, §9): one-shot and recurring agent runs
    ORBIT_RUN_COMPLETED = "orbit.run.completed"
    COMET_RUN_COMPLETED = "comet.run.completed"


@dataclass(frozen=True)
class EventKind:
    name: EventName
    payload: TypeAdapter[Any]
    # public events carry no team; every team subscribed to them receives them
    public: bool
    # the current name a legacy alias stands for
    alias_of: EventName | None = None
    description: str = ""


_agent_run = TypeAdapter(schemas.AgentRunPayload)
_trends = TypeAdapter(schemas.TrendsPayload)

EVENTS: dict[str, EventKind] = {
    kind.name.value: kind
    for kind in (
        EventKind(
            EventName.AGENT_RUN_COMPLETED,
            _agent_run,
            public=False,
            description="An agent run finishes or fails; a successful run waits for the AI report",
        ),
        EventKind(
            EventName.AGENT_EVENT_DETECTED,
            TypeAdapter(schemas.AgentEventDetected),
            public=False,
            description="A recurring agent confirms a breaking story, between scheduled runs",
        ),
        EventKind(
            EventName.LOOKUP_COMPLETED,
            TypeAdapter(schemas.LookupCompleted),
            public=False,
            description="A creator, sound, hashtag or video-outlier lookup finishes or fails",
        ),
        EventKind(
            EventName.TRENDS_DAILY_COMPLETED,
            _trends,
            public=True,
            description="The global trend list updates (up to 3 times a day)",
        ),
        EventKind(
            EventName.TRENDS_REGION_COMPLETED,
            _trends,
            public=True,
            description="A country trend list updates; one message per country",
        ),
        EventKind(
            EventName.TRACKING_CYCLE_COMPLETED,
            TypeAdapter(schemas.TrackingCycleCompleted),
            public=False,
            description="A tracked creator or video gets its scheduled check",
        ),
        EventKind(
            EventName.TRACKING_OUTLIER_DETECTED,
            TypeAdapter(schemas.TrackingOutlierDetected),
            public=False,
            description="A tracked creator posts a video over 3 times their median views",
        ),
        EventKind(
            EventName.TRACKING_PAUSED,
            TypeAdapter(schemas.TrackingPaused),
            public=False,
            description="Tracking is paused",
        ),
        EventKind(
            EventName.AUDIENCE_SNAPSHOT_COMPLETED,
            TypeAdapter(schemas.AudienceSnapshotCompleted),
            public=False,
            description="A requested audience snapshot is ready",
        ),
        EventKind(
            EventName.ORBIT_RUN_COMPLETED,
            _agent_run,
            public=False,
            alias_of=EventName.AGENT_RUN_COMPLETED,
            description="Legacy alias for one-shot agent runs",
        ),
        EventKind(
            EventName.COMET_RUN_COMPLETED,
            _agent_run,
            public=False,
            alias_of=EventName.AGENT_RUN_COMPLETED,
            description="Legacy alias for recurring agent runs",
        ),
    )
}

PUBLIC_EVENTS = frozenset(name for name, kind in EVENTS.items() if kind.public)


def kind_of(name: str) -> EventKind:
    try:
        return EVENTS[name]
    except KeyError:
        raise ValueError(f"{name!r} is not an event of §6.2") from None
