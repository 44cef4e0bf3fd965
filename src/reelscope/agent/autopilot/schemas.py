"""Wire shapes of the autopilot (spec §4.4 /activity, /events, /proposals, /autonomy; §6.3 event fields).
Not paged (§8.3): each list is ``{data: {count, <items>}}`` with the newest 200 at most."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import Field, model_validator

from reelscope.kit.schemas import RequestBody, Schema


class AutonomyLevel(StrEnum):
    SUGGEST = "suggest"
    AUTOPILOT = "autopilot"


class AutonomyUpdate(RequestBody):
    """§4.4 PUT /autonomy. `autonomy_level` (deprecated) and `autopilot` say the same thing: autopilot
    on or off; sent together they must agree. `cognition_enabled` switches breaking-story detection."""

    autonomy_level: AutonomyLevel | None = Field(
        default=None, description="`autopilot` (changes are made) or `suggest` (they become proposals)"
    )
    cognition_enabled: bool | None = Field(
        default=None, description="Detect breaking stories between runs (news scan, corpus bursts)"
    )
    autopilot: bool | None = Field(default=None, description="true: the autopilot changes the configuration")

    @model_validator(mode="after")
    def _consistent(self) -> AutonomyUpdate:
        sent = self.model_fields_set
        if not sent:
            raise ValueError("send at least one of autonomy_level, cognition_enabled, autopilot")
        for name in sent:
            if getattr(self, name) is None:
                raise ValueError(f"{name} must not be null")
        level, flag = self.autonomy_level, self.autopilot
        if level is not None and flag is not None and (level is AutonomyLevel.AUTOPILOT) != flag:
            raise ValueError("autonomy_level and autopilot disagree")
        return self

    def autopilot_wanted(self) -> bool | None:
        if self.autopilot is not None:
            return self.autopilot
        if self.autonomy_level is not None:
            return self.autonomy_level is AutonomyLevel.AUTOPILOT
        return None


class ActivityEntry(Schema):
    id: str
    at: str
    action: str = Field(
        description="keywords_added, keyword_reworded, collection_widened, timely_keywords_added, "
        "timely_keywords_expired, proposal_created, proposal_applied, proposal_dismissed, "
        "proposal_reverted, event_confirmed, no_change, autonomy_changed"
    )
    summary: str
    change_id: str | None
    event_id: str | None
    run_id: str | None
    detail: dict[str, Any]


class ActivityList(Schema):
    count: int
    activity: list[ActivityEntry]


class ProposalOut(Schema):
    id: str
    agent_id: str
    kind: str = Field(description="add_keywords, reword_keyword, widen_collection or add_timely_keywords")
    status: str = Field(description="proposed, applied, dismissed, reverted or expired")
    decided_by: str | None = Field(description="autopilot or user: who made the last move")
    add: list[str] = Field(description="Keywords the change adds")
    remove: list[str] = Field(description="Keywords the change replaces (never ones the user set)")
    time_range_from: str | None
    time_range_to: str | None
    reason: str
    evidence: dict[str, Any]
    effect: dict[str, Any] | None = Field(description="What applying it changed; a revert undoes this")
    run_id: str | None
    event_id: str | None
    expires_at: str | None = Field(description="Short-lived keywords leave at this moment")
    created_at: str
    decided_at: str | None


class ProposalList(Schema):
    count: int
    proposals: list[ProposalOut]


class EvidenceOut(Schema):
    title: str
    url: str
    domain: str


class EventOut(Schema):
    """A breaking story (§6.3 fields): lifecycle candidate → confirmed | dismissed | expired."""

    event_id: str
    agent_id: str
    title: str
    summary: str
    salience: float = Field(ge=0, le=10)
    source: str = Field(description="news_scan or corpus_burst")
    status: str = Field(description="candidate, confirmed, dismissed or expired")
    detected_at: str
    confirmed_at: str | None
    expires_at: str
    event_date: None = None
    keywords: list[str]
    keywords_added: list[str]
    evidence: list[EvidenceOut]
    action_taken: str | None = Field(
        description="collecting_early, breaking_ingest, timely_keywords or none; null while a candidate"
    )
    proposal_id: str | None


class EventList(Schema):
    count: int
    events: list[EventOut]
