"""Webhook endpoints and their delivery log: the rules of spec §2.7, §3, §4.6 and §8.3."""

from __future__ import annotations

import base64
import binascii
import struct
import uuid
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, nullcontext
from datetime import UTC, datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.auth.service import Principal
from reelscope.events import service as events_service
from reelscope.kit.clock import iso
from reelscope.kit.errors import Conflict, NotFound, UnknownEventType, ValidationFailed
from reelscope.kit.ids import new_id
from reelscope.models import WebhookDelivery, WebhookEndpoint
from reelscope.webhook import events, samples
from reelscope.webhook import repository as webhook_repository
from reelscope.webhook.delivery import new_delivery
from reelscope.webhook.network import AddressGuard, BlockedAddress, host_and_port
from reelscope.webhook.schemas import (
    DeliveryLog,
    DeliveryOut,
    WebhookCreate,
    WebhookEndpointOut,
    WebhookUpdate,
)
from reelscope.webhook.transport import new_secret
from reelscope.worker.queue import enqueue

MAX_SWITCHED_ON = 5  # §4.6, §8.3: active and disabled_by_system ones count
# where a creation or a change resolves its URL's host: outside the request's write transaction
# (contract/calls.py), so that a slow resolver holds no other writer (on SQLite, the one write lock)
Outside = Callable[[], AbstractAsyncContextManager[object]]


# ---- endpoints -------------------------------------------------------------------------------


async def create_endpoint(
    session: AsyncSession,
    guard: AddressGuard,
    principal: Principal,
    body: WebhookCreate,
    now: datetime,
    *,
    outside: Outside = nullcontext,
) -> WebhookEndpoint:
    ensure_known_events(body.enabled_events)
    await ensure_reachable(guard, body.url, outside)
    if body.is_active:
        await ensure_free_slot(session, principal.team_id)
    endpoint = WebhookEndpoint(
        id=new_id(),
        team_id=principal.team_id,
        url=body.url,
        description=body.description,
        enabled_events=body.enabled_events,
        headers=body.headers,
        secret=new_secret(),
        is_active=body.is_active,
        status="active" if body.is_active else "inactive",
        consecutive_failures=0,
        created_by=principal.user_id,
        created_at=now,
        updated_at=now,
    )
    session.add(endpoint)
    await session.flush()
    return endpoint


async def list_endpoints(session: AsyncSession, team_id: str) -> list[WebhookEndpoint]:
    return list(await webhook_repository.list_endpoints(session, team_id))


async def get_endpoint(session: AsyncSession, team_id: str, endpoint_id: str) -> WebhookEndpoint:
    endpoint = await webhook_repository.get_endpoint(session, team_id, endpoint_id)
    if endpoint is None:
        raise NotFound("No webhook with this id on your team")
    return endpoint


async def update_endpoint(
    session: AsyncSession,
    guard: AddressGuard,
    team_id: str,
    endpoint_id: str,
    body: WebhookUpdate,
    now: datetime,
    *,
    outside: Outside = nullcontext,
) -> WebhookEndpoint:
    # the host is resolved before the first statement: once the session has sent one, the request holds
    # the write lock and keeps it (contract/calls.py)
    if body.url is not None:
        await ensure_reachable(guard, body.url, outside)
    endpoint = await changeable_endpoint(session, team_id, endpoint_id)
    if body.enabled_events is not None:
        ensure_known_events(body.enabled_events)
        endpoint.enabled_events = body.enabled_events
    if body.url is not None:
        endpoint.url = body.url
    if body.headers is not None:
        endpoint.headers = body.headers
    if body.description is not None:
        endpoint.description = body.description
    if body.is_active is False:
        await switch_off(session, endpoint, now)
    elif body.is_active is True and endpoint.status == "inactive":
        await switch_on(session, endpoint)
    elif body.is_active is True and endpoint.status == "disabled_by_system":
        # is_active stays true after a system shutdown (§2.7); only the re-enable operation restarts it
        raise Conflict(f"This webhook was disabled by the system; POST /v1/webhooks/{endpoint.id}/enable")
    endpoint.updated_at = now
    await session.flush()
    return endpoint


async def delete_endpoint(session: AsyncSession, team_id: str, endpoint_id: str, now: datetime) -> None:
    """§3: the endpoint becomes ``inactive`` and stays listed; deleting twice is harmless."""
    endpoint = await get_endpoint(session, team_id, endpoint_id)
    if endpoint.deleted_at is not None:
        return
    await switch_off(session, endpoint, now)
    endpoint.deleted_at = now
    endpoint.updated_at = now
    await session.flush()


async def enable_endpoint(
    session: AsyncSession, team_id: str, endpoint_id: str, now: datetime
) -> WebhookEndpoint:
    """§3 re-enable: back to ``active`` with the failure count reset (409 if it would be a sixth)."""
    endpoint = await changeable_endpoint(session, team_id, endpoint_id)
    if endpoint.status == "inactive":
        await switch_on(session, endpoint)
    endpoint.status = "active"
    endpoint.consecutive_failures = 0
    endpoint.updated_at = now
    await session.flush()
    return endpoint


async def changeable_endpoint(session: AsyncSession, team_id: str, endpoint_id: str) -> WebhookEndpoint:
    endpoint = await get_endpoint(session, team_id, endpoint_id)
    if endpoint.deleted_at is not None:
        raise Conflict("This webhook was deleted; create a new one")
    return endpoint


async def switch_off(session: AsyncSession, endpoint: WebhookEndpoint, now: datetime) -> None:
    """→ ``inactive``, which frees a slot (§3); its waiting deliveries end as ``failed``."""
    endpoint.is_active = False
    if endpoint.status != "inactive":
        endpoint.status = "inactive"
        await webhook_repository.fail_waiting(session, endpoint.id, now, "endpoint switched off")


async def switch_on(session: AsyncSession, endpoint: WebhookEndpoint) -> None:
    await ensure_free_slot(session, endpoint.team_id)
    endpoint.is_active = True
    endpoint.status = "active"
    endpoint.consecutive_failures = 0


async def ensure_free_slot(session: AsyncSession, team_id: str) -> None:
    await webhook_repository.lock_team(session, team_id)
    if await webhook_repository.count_switched_on(session, team_id) >= MAX_SWITCHED_ON:
        raise Conflict(
            f"Your team already has {MAX_SWITCHED_ON} switched-on webhooks; delete one or set is_active "
            "to false to free a slot (webhooks disabled by the system still count)"
        )


def ensure_known_events(names: list[str]) -> None:
    unknown = [name for name in names if not events.is_known(name)]
    if unknown:
        raise UnknownEventType(
            f"Unknown event type: {', '.join(unknown)}. Accepted event types: {', '.join(events.EVENT_NAMES)}"
        )


async def ensure_reachable(guard: AddressGuard, url: str, outside: Outside = nullcontext) -> None:
    """§4.6: public hosts only, also when a name resolves to a private address. The resolver (up to
    ``RESOLVE_TIMEOUT_SECONDS``) is waited on ``outside`` the request's write transaction."""
    host, port = host_and_port(url)
    try:
        async with outside():
            await guard.resolve(host, port)
    except BlockedAddress as exc:
        raise ValidationFailed([f"url: {exc}"]) from exc


def render_endpoint(endpoint: WebhookEndpoint) -> WebhookEndpointOut:
    return WebhookEndpointOut(
        id=endpoint.id,
        team_id=endpoint.team_id,
        url=endpoint.url,
        description=endpoint.description,
        enabled_events=list(endpoint.enabled_events),
        headers=dict(endpoint.headers),
        is_active=endpoint.is_active,
        status=endpoint.status,
        consecutive_failures=endpoint.consecutive_failures,
        last_success_at=iso(endpoint.last_success_at),
        last_failure_at=iso(endpoint.last_failure_at),
        created_by=endpoint.created_by,
        created_at=iso(endpoint.created_at) or "",
        updated_at=iso(endpoint.updated_at) or "",
        secret=endpoint.secret,
    )


# ---- deliveries ------------------------------------------------------------------------------


async def retry_delivery(
    session: AsyncSession, team_id: str, endpoint_id: str, delivery_id: str, now: datetime
) -> WebhookDelivery:
    """Resend a delivery: a new round of the whole schedule, first attempt now (§3)."""
    endpoint = await get_endpoint(session, team_id, endpoint_id)
    delivery = await webhook_repository.get_delivery(session, team_id, endpoint_id, delivery_id)
    if delivery is None:
        raise NotFound("No delivery with this id on this webhook")
    if delivery.status == "payload_too_large":
        raise Conflict("This delivery is over the 10 MB compressed limit and can never be sent")
    if delivery.status == "pending":
        raise Conflict("This delivery is already waiting for its next attempt")
    ensure_active(endpoint)
    delivery.status = "pending"
    delivery.round_attempts = 0
    delivery.round_hard_failures = 0
    delivery.next_attempt_at = now
    delivery.lease_token = None
    delivery.lease_until = None
    delivery.updated_at = now
    await session.flush()
    enqueue(session, events_service.CONSUMER_TASK)  # attempt it once this request commits
    return delivery


async def send_test_event(
    session: AsyncSession, principal: Principal, endpoint_id: str, event: str, now: datetime
) -> WebhookDelivery:
    """A sample message of ``event`` (§6.3 shapes) through the normal delivery path."""
    ensure_known_events([event])
    endpoint = await get_endpoint(session, principal.team_id, endpoint_id)
    ensure_active(endpoint)
    data = samples.sample_data(event, team_id=principal.team_id, user_id=principal.user_id, now=now)
    delivery = new_delivery(endpoint, new_id(), event, data, now)
    session.add(delivery)
    await session.flush()
    enqueue(session, events_service.CONSUMER_TASK)  # attempt it once this request commits
    return delivery


def ensure_active(endpoint: WebhookEndpoint) -> None:
    if endpoint.status != "active":
        raise Conflict(f"This webhook is {endpoint.status}; enable it first")


async def delivery_log(
    session: AsyncSession, team_id: str, endpoint_id: str, limit: int, cursor: str | None
) -> DeliveryLog:
    """§8.3: newest first; ``next_cursor`` is null when the page is not full (so a last page may be empty)."""
    endpoint = await get_endpoint(session, team_id, endpoint_id)
    after = decode_cursor(cursor) if cursor is not None else None
    rows = await webhook_repository.page_deliveries(session, endpoint.id, after, limit)
    next_cursor = encode_cursor(rows[-1].created_at, rows[-1].id) if len(rows) == limit else None
    return DeliveryLog(
        endpoint_id=endpoint.id,
        deliveries=[render_delivery(row) for row in rows],
        limit=limit,
        next_cursor=next_cursor,
    )


def render_delivery(delivery: WebhookDelivery) -> DeliveryOut:
    return DeliveryOut(
        id=delivery.id,
        event_type=delivery.event_type,
        status=delivery.status,
        attempts=delivery.attempts,
        last_attempt_at=iso(delivery.last_attempt_at),
        response_status=delivery.response_status,
        next_attempt_at=iso(delivery.next_attempt_at),
        error=delivery.last_error,
        created_at=iso(delivery.created_at) or "",
    )


# ---- cursors -----------------------------------------------------------------------------------
# Standard base64 of (microseconds since the epoch, the delivery's UUID bytes): opaque, and it can
# contain "+", which a client must send as %2B (§8.3) — a bare "+" arrives as a space and is a 400.

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_CURSOR = struct.Struct(">q16s")


def encode_cursor(created_at: datetime, delivery_id: str) -> str:
    micros = (created_at - _EPOCH) // timedelta(microseconds=1)
    return base64.b64encode(_CURSOR.pack(micros, uuid.UUID(delivery_id).bytes)).decode()


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    if " " in cursor:
        raise ValidationFailed(["cursor: a '+' in a cursor must be sent URL-encoded as %2B"])
    try:
        raw = base64.b64decode(cursor, validate=True)
        micros, id_bytes = _CURSOR.unpack(raw)
        return _EPOCH + timedelta(microseconds=micros), str(uuid.UUID(bytes=id_bytes))
    except (binascii.Error, struct.error, ValueError, OverflowError) as exc:
        raise ValidationFailed(["cursor: not a cursor this service returned"]) from exc
