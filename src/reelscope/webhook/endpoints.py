"""/v1/webhooks (spec §4.6; paths the spec leaves open from ARCHITECTURE §6). All free.

These responses are the object or array itself, not wrapped in ``{data}`` (§1).
"""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from fastapi import Body, Depends, Query, Request, Response

from reelscope.contract import (
    CallDep,
    ClockDep,
    PrincipalDep,
    SessionDep,
    idempotency,
    prepared_by,
    runtime_of,
    small_read,
    v1_router,
)
from reelscope.kit.schemas import errors
from reelscope.webhook import service as webhook_service
from reelscope.webhook.network import (
    AddressGuard,
    BlockedAddress,
    LoopResolver,
    RememberingResolver,
    guard_from_settings,
    host_and_port,
    url_problems,
)
from reelscope.webhook.schemas import (
    DeliveryLog,
    DeliveryLogQuery,
    DeliveryOut,
    TestEventRequest,
    WebhookCreate,
    WebhookEndpointOut,
    WebhookUpdate,
)

router = v1_router(prefix="/webhooks", tags=["webhooks"])


async def get_address_guard(request: Request) -> AddressGuard:
    """The §4.6 host rules with the operator's allowed networks and the runtime's resolver (the one of
    ``resolve_ahead``, holding its answer, when it ran)."""
    runtime = runtime_of(request)
    resolver = getattr(request.state, "webhook_resolver", None) or runtime.resolver
    return guard_from_settings(runtime.settings.webhook_allowed_networks, resolver)


async def resolve_ahead(request: Request) -> None:
    """Resolve the body's ``url`` host before the request's write transaction (issue 31): with an
    Idempotency-Key, the key's lookup begins that transaction, and a slow resolver waited on inside it
    would hold every other writer (SQLite's one write lock). The endpoint's check then reads the answer
    from memory. A body without a well-formed ``url`` resolves nothing; the endpoint says why it is bad."""
    body = await idempotency.json_body(request)
    url = body.get("url") if isinstance(body, dict) else None
    if not isinstance(url, str) or url_problems(url):
        return
    runtime = runtime_of(request)
    resolver = RememberingResolver(runtime.resolver or LoopResolver())
    request.state.webhook_resolver = resolver
    host, port = host_and_port(url)
    try:
        await guard_from_settings(runtime.settings.webhook_allowed_networks, resolver).resolve(host, port)
    except BlockedAddress:
        resolver.unresolved(host, port)  # a timeout left no answer: the endpoint's check fails at once


GuardDep = Annotated[AddressGuard, Depends(get_address_guard)]


@router.post("", status_code=201, responses=errors(400, 409))
@prepared_by(resolve_ahead)
async def create_webhook(
    body: WebhookCreate,
    session: SessionDep,
    principal: PrincipalDep,
    clock: ClockDep,
    guard: GuardDep,
    call: CallDep,
) -> WebhookEndpointOut:
    """Create a webhook endpoint (free). At most 5 switched on per team; the body returned carries the
    signing secret for the Standard Webhooks `webhook-signature` header."""
    endpoint = await webhook_service.create_endpoint(
        session, guard, principal, body, clock.now(), outside=call.outside_transaction
    )
    return webhook_service.render_endpoint(endpoint)


@router.get("", responses=errors(400))
@small_read
async def list_webhooks(session: SessionDep, principal: PrincipalDep) -> list[WebhookEndpointOut]:
    """Every webhook of the team, newest first, not paged, `inactive` ones included (free)."""
    endpoints = await webhook_service.list_endpoints(session, principal.team_id)
    return [webhook_service.render_endpoint(e) for e in endpoints]


@router.get("/{webhook_id}", responses=errors(400, 404))
@small_read
async def get_webhook(webhook_id: UUID, session: SessionDep, principal: PrincipalDep) -> WebhookEndpointOut:
    """One webhook endpoint (free)."""
    endpoint = await webhook_service.get_endpoint(session, principal.team_id, str(webhook_id))
    return webhook_service.render_endpoint(endpoint)


@router.patch("/{webhook_id}", responses=errors(400, 404, 409))
@prepared_by(resolve_ahead)
async def update_webhook(
    webhook_id: UUID,
    body: WebhookUpdate,
    session: SessionDep,
    principal: PrincipalDep,
    clock: ClockDep,
    guard: GuardDep,
    call: CallDep,
) -> WebhookEndpointOut:
    """Change any create field (free); `is_active: false` switches it off and frees a slot."""
    endpoint = await webhook_service.update_endpoint(
        session,
        guard,
        principal.team_id,
        str(webhook_id),
        body,
        clock.now(),
        outside=call.outside_transaction,
    )
    return webhook_service.render_endpoint(endpoint)


@router.delete("/{webhook_id}", status_code=204, response_class=Response, responses=errors(400, 404))
async def delete_webhook(
    webhook_id: UUID, session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Response:
    """Delete a webhook (free): it stops receiving events and stays listed as `inactive`."""
    await webhook_service.delete_endpoint(session, principal.team_id, str(webhook_id), clock.now())
    return Response(status_code=204)


@router.post("/{webhook_id}/enable", responses=errors(400, 404, 409))
async def enable_webhook(
    webhook_id: UUID, session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> WebhookEndpointOut:
    """Re-enable a webhook (free): `status` back to `active`, `consecutive_failures` reset to 0."""
    endpoint = await webhook_service.enable_endpoint(session, principal.team_id, str(webhook_id), clock.now())
    return webhook_service.render_endpoint(endpoint)


@router.post("/{webhook_id}/deliveries/{delivery_id}/retry", status_code=202, responses=errors(400, 404, 409))
async def retry_webhook_delivery(
    webhook_id: UUID, delivery_id: UUID, session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> DeliveryOut:
    """Resend a delivery now with the same `id` (free); 409 for `payload_too_large`."""
    delivery = await webhook_service.retry_delivery(
        session, principal.team_id, str(webhook_id), str(delivery_id), clock.now()
    )
    return webhook_service.render_delivery(delivery)


@router.post("/{webhook_id}/test", status_code=202, responses=errors(400, 404, 409))
async def send_webhook_test(
    webhook_id: UUID,
    session: SessionDep,
    principal: PrincipalDep,
    clock: ClockDep,
    body: Annotated[TestEventRequest | None, Body()] = None,
) -> DeliveryOut:
    """Send a realistic sample message of any event to this webhook (free): `event` (or `event_type`)
    names it; `{}` or no body sends `orbit.run.completed`."""
    event = (body or TestEventRequest()).name
    delivery = await webhook_service.send_test_event(session, principal, str(webhook_id), event, clock.now())
    return webhook_service.render_delivery(delivery)


@router.get("/{webhook_id}/deliveries", responses=errors(400, 404))
@small_read
async def list_webhook_deliveries(
    webhook_id: UUID,
    query: Annotated[DeliveryLogQuery, Query()],
    session: SessionDep,
    principal: PrincipalDep,
) -> DeliveryLog:
    """The delivery log, newest first (free). Send `next_cursor` back as `cursor` (URL-encode `+` as
    `%2B`) until it is null; the last page can be empty."""
    return await webhook_service.delivery_log(
        session, principal.team_id, str(webhook_id), query.limit, query.cursor
    )
