"""``GET /dashboard/{token}``: a tracked item's page, opened by a signed, expiring link without an API key
(issue 20 item 6; ADR 0023), and the BokehJS file it loads. Plain routes outside the /v1 contract.

Drawing the charts costs about half a second of CPU: it runs off the event loop, and the page is kept
for what it was drawn from (its inputs' hash, ``Runtime.caches``), so opening it again redraws nothing
until a cycle, a post or an audience snapshot changes them (ADR 0038)."""

from __future__ import annotations

import asyncio
import hashlib
from functools import partial
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse

from reelscope.audience import service as audience_service
from reelscope.contract import runtime_of
from reelscope.dashboard import page
from reelscope.dashboard.links import PATH, LinkExpired, LinkInvalid, links_for
from reelscope.kit.clock import as_utc
from reelscope.kit.errors import Forbidden, NotFound
from reelscope.kit.pages import content_security_policy
from reelscope.tracking import service as tracking_service


async def get_dashboard(token: str, request: Request) -> HTMLResponse:
    runtime = runtime_of(request)
    links = links_for(runtime.settings, runtime.clock)
    try:
        target = links.read(token)
    except LinkExpired:
        raise Forbidden("This dashboard link has expired; ask the API for a new one") from None
    except LinkInvalid:
        raise NotFound("No dashboard at this address") from None
    now = runtime.clock.now()
    async with runtime.db.transaction(write=False) as session:
        try:
            data = await tracking_service.dashboard_data(
                session, target.team_id, target.kind, target.item_id, now
            )
        except NotFound:
            raise NotFound("No dashboard at this address") from None
        item = data.item
        audience = None
        if item.kind == tracking_service.CREATOR:
            latest = await audience_service.part(session, item, "geography", now)
            if latest.snapshot_id is not None:
                audience = {
                    "geography": latest.geography or {},
                    "sample_size": latest.sample_size,
                    "confidence_level": latest.confidence_level,
                }
        issued = links.serializer.loads(token, return_timestamp=True)[1]
        inputs: dict[str, Any] = {
            "item": {
                "id": item.id,
                "kind": item.kind,
                "platform": item.platform,
                "handle": item.handle,
                "title": item.title,
                "status": item.status,
            },
            "snapshots": data.snapshots,
            "outliers": [post.model_dump() for post in data.outliers],
            "by_weekday": data.cadence.by_weekday,
            "audience": audience,
            "expires_at": as_utc(issued) + links.lifetime,
        }
    drawn_from = hashlib.sha256(orjson.dumps(inputs, option=orjson.OPT_NON_STR_KEYS)).hexdigest()
    found, body = runtime.caches.lookup(("dashboard", item.id), drawn_from)
    if not found:
        body = await asyncio.to_thread(partial(page.render, **inputs))
        runtime.caches.keep(("dashboard", item.id), drawn_from, body)
    return HTMLResponse(
        body,
        headers={
            "Cache-Control": "private, no-store",
            "Referrer-Policy": "no-referrer",
            "Content-Security-Policy": content_security_policy(body),
        },
    )


async def get_dashboard_asset(name: str) -> FileResponse:
    path = page.asset_file(name)
    if path is None:
        raise NotFound(f"No dashboard asset named {name}")
    return FileResponse(
        path, media_type="text/javascript", headers={"Cache-Control": "public, max-age=86400"}
    )


def add_dashboard_routes(app: FastAPI) -> None:
    """Plain routes, outside the /v1 contract: the signed link is the only credential."""
    app.add_api_route(
        page.ASSETS_PATH + "/{name}", get_dashboard_asset, methods=["GET"], include_in_schema=False
    )
    app.add_api_route(PATH + "/{token}", get_dashboard, methods=["GET"], include_in_schema=False)
