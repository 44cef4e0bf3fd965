"""publish() into the outbox, and the reader the webhook delivery worker uses (ARCHITECTURE §6).

``publish`` runs in the caller's transaction: the event exists exactly when the state change that caused
it commits. ``events_after`` returns committed events in creation order; the delivery worker keeps the
``sequence`` of the last event it handled as its cursor.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.events import repository
from reelscope.events.catalogue import EventName, kind_of
from reelscope.kit.logging import get_logger
from reelscope.models import OutboxCursor, OutboxEvent
from reelscope.worker.queue import enqueue

log = get_logger(__name__)

# the task that reads the outbox: the webhook family fans events out to endpoints and delivers them
CONSUMER_TASK = "webhook.pump"


async def publish(
    session: AsyncSession,
    event: str,
    data: BaseModel | Mapping[str, Any],
    team_id: str | None,
    *,
    at: datetime,
) -> OutboxEvent:
    """Record ``event`` with ``data`` (validated against its §6.3 schema) for ``team_id``.

    Public events (trends) take ``team_id=None``; every other event belongs to a team. Publishing
    ``content_research_agent.run.completed`` also records its legacy alias (``orbit.run.completed`` for a
    one-shot run, ``comet.run.completed`` for a recurring one), since the old names still fire (§6.2).
    Returns the event row (``id``, ``sequence``).
    """
    kind = kind_of(event)
    if kind.public and team_id is not None:
        raise ValueError(f"{event} is public and carries no team (§6.1)")
    if not kind.public and team_id is None:
        raise ValueError(f"{event} is team-scoped and needs a team_id")
    validated = kind.payload.validate_python(data)
    payload: dict[str, Any] = kind.payload.dump_python(validated, mode="json")
    row = await repository.insert(session, name=kind.name.value, team_id=team_id, payload=payload, at=at)
    log.info("event.published", name=kind.name.value, event_id=row.id, team_id=team_id)
    # wake the outbox's consumer (webhook delivery) once this transaction commits
    enqueue(session, CONSUMER_TASK)
    if kind.name is EventName.AGENT_RUN_COMPLETED:
        alias = EventName.COMET_RUN_COMPLETED if _is_recurring(payload) else EventName.ORBIT_RUN_COMPLETED
        await repository.insert(session, name=alias.value, team_id=team_id, payload=payload, at=at)
    return row


async def events_after(session: AsyncSession, cursor: int = 0, limit: int = 100) -> Sequence[OutboxEvent]:
    """Committed events with ``sequence > cursor``, oldest first, at most ``limit``.

    Start with ``cursor=0``; pass the last returned ``sequence`` to continue. An empty result means
    nothing newer has been committed yet.
    """
    return await repository.after(session, cursor, limit)


def _is_recurring(payload: Mapping[str, Any]) -> bool:
    if "is_recurring" in payload:
        return bool(payload["is_recurring"])
    # the failed layout keeps the flag inside the agent settings
    return bool(payload.get("content_research_agent", {}).get("is_recurring", False))


async def claim_batch(
    session: AsyncSession, consumer: str, limit: int = 200
) -> tuple[OutboxCursor, Sequence[OutboxEvent]]:
    """The next events for ``consumer`` after its cursor, with the cursor locked for this transaction.

    The consumer does its work in the same transaction and then moves ``cursor.sequence`` to the last
    event's sequence, so each event is consumed exactly once even with several workers.
    """
    cursor = await repository.lock_cursor(session, consumer)
    return cursor, await repository.after(session, cursor.sequence, limit)
