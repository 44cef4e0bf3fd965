"""Fan-out of events into delivery rows, and the attempts of due deliveries (spec §3, §6.1).

Two plain async functions the job engine calls (ARCHITECTURE §5, §6):

- ``fan_out`` — in the transaction that handles an outbox event: one ``pending`` delivery per
  subscribed active endpoint (trend events: of every team; the others: of the event's team), due at
  once. Running it twice for one event adds nothing.
- ``deliver_due`` — periodically, and right after a fan-out: lease every due delivery, attempt it,
  record the attempt and schedule the next one. The lease is what makes a killed worker harmless:
  its deliveries become due again when the lease runs out (attempted twice, never dropped).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.kit import metrics
from reelscope.kit.clock import Clock
from reelscope.kit.db import Database
from reelscope.kit.ids import new_id
from reelscope.kit.logging import get_logger
from reelscope.models import WebhookDelivery, WebhookEndpoint
from reelscope.webhook import events
from reelscope.webhook import repository as webhook_repository
from reelscope.webhook.transport import DeliveryClient, DeliveryPolicy, Message, Outcome, Result

log = get_logger(__name__)

DISABLE_AFTER_FAILURES = 20  # §3, §6.1
MAX_ROUNDS_PER_CALL = 20
# how often a pump whose due deliveries are all in flight looks for new ones (ADR 0053)
RECLAIM_SECONDS = 1.0


async def fan_out(
    session: AsyncSession,
    event_id: str,
    event_name: str,
    data: dict[str, Any],
    team_id: str | None,
    created_at: datetime,
) -> int:
    """One delivery per (event, subscribed active endpoint); returns how many were added."""
    if events.is_public(event_name):
        endpoints = await webhook_repository.active_endpoints(session, None)
    elif team_id is None:
        log.warning("webhook.fan_out.no_team", event_id=event_id, event_type=event_name)
        return 0
    else:
        endpoints = await webhook_repository.active_endpoints(session, team_id)
    reached = await webhook_repository.endpoints_already_reached(session, event_id)
    added = 0
    for endpoint in endpoints:
        if event_name not in endpoint.enabled_events or endpoint.id in reached:
            continue
        session.add(new_delivery(endpoint, event_id, event_name, data, created_at))
        added += 1
    await session.flush()
    return added


def new_delivery(
    endpoint: WebhookEndpoint, event_id: str, event_name: str, data: dict[str, Any], created_at: datetime
) -> WebhookDelivery:
    return WebhookDelivery(
        id=new_id(),
        endpoint_id=endpoint.id,
        team_id=endpoint.team_id,
        event_id=event_id,
        event_type=event_name,
        data=data,
        event_created_at=created_at,
        status="pending",
        attempts=0,
        round_attempts=0,
        round_hard_failures=0,
        next_attempt_at=created_at,
        created_at=created_at,
        updated_at=created_at,
    )


@dataclass
class DeliveryReport:
    """What one ``deliver_due`` call did."""

    attempted: int = 0
    delivered: int = 0
    failed_attempts: int = 0
    lost_leases: int = 0


@dataclass(frozen=True)
class Claim:
    delivery_id: str
    endpoint_id: str
    token: str
    round_attempts: int
    round_hard_failures: int
    attempts: int
    message: Message


async def claim_due(
    db: Database, clock: Clock, policy: DeliveryPolicy, limit: int | None = None
) -> list[Claim]:
    """Lease up to ``limit`` due deliveries (default one batch) to this caller."""
    now = clock.now()
    token = new_id()
    async with db.transaction() as session:
        rows = await webhook_repository.claim_due(
            session, now, limit or policy.batch_size, token, now + policy.lease
        )
        return [
            Claim(
                delivery_id=delivery.id,
                endpoint_id=endpoint.id,
                token=token,
                round_attempts=delivery.round_attempts,
                round_hard_failures=delivery.round_hard_failures,
                attempts=delivery.attempts,
                message=Message(
                    url=endpoint.url,
                    custom_headers=dict(endpoint.headers),
                    secret=endpoint.secret,
                    delivery_id=delivery.id,
                    event_type=delivery.event_type,
                    event_created_at=delivery.event_created_at,
                    data=delivery.data,
                ),
            )
            for delivery, endpoint in rows
        ]


@dataclass(frozen=True)
class Attempted:
    """A claimed delivery after its attempt: what happened and when it was sent."""

    claim: Claim
    result: Result
    at: datetime


async def deliver_due(
    db: Database, clock: Clock, http: DeliveryClient, *, refill: Callable[[], Awaitable[object]] | None = None
) -> DeliveryReport:
    """Attempt every delivery that is due now, ``policy.concurrency`` at a time.

    While attempts are in flight, due deliveries are looked for again every ``RECLAIM_SECONDS``, after
    ``refill`` (the pump's: fan out the events committed since it began). A delivery is leased only
    when a sending slot is free for it, so each lease covers one attempt (at most the 30 s timeout)
    and never runs out while the delivery waits its turn behind slow receivers: otherwise another pump
    would take it over and send it a second time. Finished attempts are recorded by one writer, as
    many per transaction as have finished: on SQLite, one transaction per attempt would make the
    attempts queue for the write lock.
    """
    policy = http.policy
    report = DeliveryReport()
    finished: asyncio.Queue[Attempted | None] = asyncio.Queue()
    writer = asyncio.create_task(write_results(db, policy, finished, report))

    async def run(claim: Claim) -> None:
        at = clock.now()
        result = await http.send(claim.message, at)
        finished.put_nowait(Attempted(claim, result, at))

    in_flight: set[asyncio.Task[None]] = set()
    budget = policy.batch_size * MAX_ROUNDS_PER_CALL  # bounded work per call; the next pump goes on
    loop = asyncio.get_running_loop()
    try:
        drained, claimed_at = False, loop.time()
        while True:
            free = min(policy.concurrency - len(in_flight), budget)
            # once nothing more was due, look again only every RECLAIM_SECONDS while slow receivers hold
            # slots: a delivery queued meanwhile goes out within that (§6.1's immediate first attempt),
            # not after the slowest attempt's 30 s
            if free > 0 and (not drained or loop.time() - claimed_at >= RECLAIM_SECONDS):
                if drained and refill is not None:
                    await refill()
                claims = await claim_due(db, clock, policy, limit=free)
                claimed_at = loop.time()
                budget -= len(claims)
                drained = len(claims) < free
                in_flight |= {asyncio.create_task(run(claim)) for claim in claims}
            if not in_flight:
                break
            done, in_flight = await asyncio.wait(
                in_flight, timeout=RECLAIM_SECONDS, return_when=asyncio.FIRST_COMPLETED
            )
            for task in done:
                task.result()
    finally:
        if in_flight:
            await asyncio.gather(*in_flight, return_exceptions=True)
        finished.put_nowait(None)
        await writer
    return report


async def write_results(
    db: Database, policy: DeliveryPolicy, finished: asyncio.Queue[Attempted | None], report: DeliveryReport
) -> None:
    """Record finished attempts until the ``None`` that follows the last one."""
    done = False
    while not done:
        batch = [await finished.get()]
        while not finished.empty() and len(batch) < policy.batch_size:
            batch.append(finished.get_nowait())
        done = batch[-1] is None
        items = [item for item in batch if item is not None]
        if items:
            await record(db, policy, items, report)


@dataclass(frozen=True)
class Transition:
    status: str
    next_attempt_at: datetime | None
    round_hard_failures: int


def next_step(claim: Claim, result: Result, policy: DeliveryPolicy, now: datetime) -> Transition:
    """§6.1: 408/429/5xx/timeouts/network errors get every attempt of the schedule, then ``dead``;
    other answers get one more try, then ``failed``; the next attempt waits the schedule's delay
    counted from this one."""
    number = claim.round_attempts + 1
    hard = claim.round_hard_failures
    if result.outcome is Outcome.DELIVERED:
        return Transition("delivered", None, hard)
    if result.outcome is Outcome.TOO_LARGE:
        return Transition("payload_too_large", None, hard)
    if result.outcome is Outcome.REJECTED:
        hard += 1
        if hard >= 2 or number >= policy.max_attempts:
            return Transition("failed", None, hard)
    elif number >= policy.max_attempts:
        return Transition("dead", None, hard)
    return Transition("pending", now + policy.schedule[number], hard)


async def record(
    db: Database, policy: DeliveryPolicy, items: list[Attempted], report: DeliveryReport
) -> None:
    """Write the outcome of attempts, in one transaction: the delivery row (only while the lease is
    still ours), the attempt row, and the endpoint's counters — disabling it at 20 failures."""
    attempts: list[dict[str, Any]] = []
    async with db.transaction() as session:
        for item in items:
            await record_one(session, policy, item, report, attempts)
        await webhook_repository.add_attempts(session, attempts)


async def record_one(
    session: AsyncSession,
    policy: DeliveryPolicy,
    item: Attempted,
    report: DeliveryReport,
    attempts: list[dict[str, Any]],
) -> None:
    """One attempt's outcome; its attempt row is appended to ``attempts`` for one insert per batch."""
    claim, result, at = item.claim, item.result, item.at
    step = next_step(claim, result, policy, at)
    sent = result.outcome is not Outcome.TOO_LARGE
    status, next_attempt_at = step.status, step.next_attempt_at
    if (
        status == "pending"
        and await webhook_repository.endpoint_status(session, claim.endpoint_id) != "active"
    ):
        status, next_attempt_at = "failed", None
    values: dict[str, Any] = {
        "status": status,
        "next_attempt_at": next_attempt_at,
        "round_hard_failures": step.round_hard_failures,
        "last_error": result.error,
        "updated_at": at,
    }
    if sent:
        values.update(
            attempts=claim.attempts + 1,
            round_attempts=claim.round_attempts + 1,
            last_attempt_at=at,
            response_status=result.response_status,
        )
    if not await webhook_repository.finish_attempt(session, claim.delivery_id, claim.token, values):
        # the lease ran out and another worker took the delivery over: its record wins
        report.lost_leases += 1
        log.warning("webhook.delivery.lease_lost", delivery_id=claim.delivery_id)
        return
    log.info(
        "webhook.delivery.attempted",
        delivery_id=claim.delivery_id,
        outcome=result.outcome.value,
        response_status=result.response_status,
        status=status,
    )
    if not sent:
        return
    metrics.WEBHOOK_ATTEMPTS.labels(result.outcome.value, status).inc()
    if result.outcome is Outcome.DELIVERED:
        lag = (at - claim.message.event_created_at).total_seconds()
        metrics.WEBHOOK_LAG.labels(claim.message.event_type).observe(max(lag, 0.0))
    attempts.append(
        {
            "id": new_id(),
            "delivery_id": claim.delivery_id,
            "number": claim.attempts + 1,
            "attempted_at": at,
            "outcome": result.outcome.value,
            "response_status": result.response_status,
            "error": result.error,
            "duration_ms": result.duration_ms,
        }
    )
    report.attempted += 1
    if result.outcome is Outcome.DELIVERED:
        report.delivered += 1
        await webhook_repository.add_success(session, claim.endpoint_id, at)
        return
    report.failed_attempts += 1
    failures = await webhook_repository.add_failure(session, claim.endpoint_id, at)
    if failures >= DISABLE_AFTER_FAILURES and await webhook_repository.disable_by_system(
        session, claim.endpoint_id, at
    ):
        waiting = await webhook_repository.fail_waiting(
            session, claim.endpoint_id, at, "endpoint disabled by the system"
        )
        log.warning(
            "webhook.endpoint.disabled_by_system",
            endpoint_id=claim.endpoint_id,
            consecutive_failures=failures,
            waiting_failed=waiting,
        )
