"""Enqueue after commit (ARCHITECTURE §5): messages wait on the session and leave only when it commits.

``enqueue(session, ...)`` appends a message to ``session.info``, noting the (possibly nested) transaction
it was enqueued in. A class-wide ``after_commit`` listener hands the messages to the job engine bound to
the session's ``Database`` (``JobEngine.bind``) when the outermost transaction commits; a rollback drops
the messages enqueued inside what it rolled back (a savepoint rollback keeps those enqueued before it).
A message can still be lost after the commit (the process dies, the queue is down): work that must not
be lost is a ``jobs`` row, which the dispatcher re-sends when its message is stale (ADR 0005).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session, SessionTransaction

from reelscope.kit.logging import get_logger
from reelscope.worker import registry

log = get_logger(__name__)

SENDER_KEY = "reelscope.job_sender"
OUTBOUND_KEY = "reelscope.outbound"


@dataclass(frozen=True)
class Message:
    """Run ``task`` with ``kwargs`` (a plain call), or run the jobs row ``job_id`` (whose task is ``task``).
    The task names the lane the message travels on (``registry.Lane``)."""

    task: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    job_id: str | None = None

    @property
    def lane(self) -> registry.Lane:
        return registry.lane_of(self.task)


class Sender(Protocol):
    def send(self, messages: Sequence[Message]) -> None: ...


def enqueue(session: AsyncSession, task: str, **kwargs: Any) -> None:
    """Run registered ``task`` with ``kwargs`` once this transaction commits; never if it rolls back."""
    registry.get(task)  # a typo fails here, in the caller's transaction
    _append(session, Message(task=task, kwargs=kwargs))


def enqueue_job(session: AsyncSession, job_id: str, task: str) -> None:
    """Run the jobs row ``job_id`` (of ``task``) once this transaction commits (used by ``jobs.service``)."""
    _append(session, Message(task=task, job_id=job_id))


def _append(session: AsyncSession, message: Message) -> None:
    """Keep ``message`` on the session, tagged with the innermost transaction open now."""
    sync = session.sync_session
    if sync.info.get(SENDER_KEY) is None:
        # fail inside the transaction, so the caller's work rolls back instead of losing the message
        raise RuntimeError("no job engine is bound to this session's Database (see JobEngine.bind)")
    transaction = sync.get_nested_transaction() or sync.get_transaction()
    pending: list[tuple[Message, SessionTransaction | None]] = sync.info.setdefault(OUTBOUND_KEY, [])
    pending.append((message, transaction))


@event.listens_for(Session, "after_commit")
def _send_after_commit(session: Session) -> None:
    if session.get_nested_transaction() is not None:
        return  # a savepoint was released; the outer transaction may still roll back
    pending: list[tuple[Message, SessionTransaction | None]] | None = session.info.pop(OUTBOUND_KEY, None)
    if not pending:
        return
    messages = [message for message, _ in pending]
    sender: Sender = session.info[SENDER_KEY]
    try:
        sender.send(messages)
    # the commit has happened: a queue failure must not turn it into an error; jobs rows are re-sent
    # by the dispatcher, plain calls are lost (ADR 0005)
    except Exception as exc:
        log.error("jobs.send_failed", messages=len(messages), error_type=type(exc).__name__, exc_info=exc)


@event.listens_for(Session, "after_soft_rollback")
def _drop_rolled_back(session: Session, previous_transaction: SessionTransaction) -> None:
    pending: list[tuple[Message, SessionTransaction | None]] | None = session.info.get(OUTBOUND_KEY)
    if not pending:
        return
    kept = [(message, tx) for message, tx in pending if not _inside(tx, previous_transaction)]
    if kept:
        session.info[OUTBOUND_KEY] = kept
    else:
        session.info.pop(OUTBOUND_KEY)


def _inside(transaction: SessionTransaction | None, ancestor: SessionTransaction) -> bool:
    while transaction is not None:
        if transaction is ancestor:
            return True
        transaction = transaction.parent
    return False
