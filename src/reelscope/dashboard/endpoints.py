"""``GET /dashboard/{token}``: a tracked item's page, opened by a signed, expiring link without an API key
(issue 20 item 6; ADR 0023), and the BokehJS file it loads. Plain routes outside the /v1 contract.

Drawing the charts costs about half a second of CPU, and Bokeh's import a second more in a fresh process.
The page is kept for what it was drawn from (its inputs' hash): in the process (``Runtime.caches``, ADR
0038) and in the database, where the job that changes its inputs draws it again ahead of the next open
(``dashboard.service``, ADR 0061). A request draws it (off the event loop) only when neither has it.
The link's expiry is put in per request (``page.for_link``)."""

from __future__ import annotations

import asyncio
from functools import partial

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse

from reelscope.contract import runtime_of
from reelscope.dashboard import page
from reelscope.dashboard import service as dashboard_service
from reelscope.dashboard.links import PATH, LinkExpired, LinkInvalid, links_for
from reelscope.kit.clock import as_utc
from reelscope.kit.errors import Forbidden, NotFound
from reelscope.kit.pages import content_security_policy


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
            inputs = await dashboard_service.inputs_of(
                session, target.team_id, target.kind, target.item_id, now
            )
        except NotFound:
            raise NotFound("No dashboard at this address") from None
        item_id = inputs["item"]["id"]
        drawn_from = dashboard_service.drawn_from(inputs)
        found, body = runtime.caches.lookup(("dashboard", item_id), drawn_from)
        if not found:
            body = await dashboard_service.kept_page(session, target.team_id, item_id, drawn_from)
    if body is None:
        body = await asyncio.to_thread(partial(page.render, **inputs))
        async with runtime.db.transaction() as session:
            await dashboard_service.keep_page(
                session, target.team_id, target.kind, item_id, drawn_from, body, now
            )
    if not found:
        runtime.caches.keep(("dashboard", item_id), drawn_from, body)
    issued = links.serializer.loads(token, return_timestamp=True)[1]
    served = page.for_link(body, as_utc(issued) + links.lifetime)
    return HTMLResponse(
        served,
        headers={
            "Cache-Control": "private, no-store",
            "Referrer-Policy": "no-referrer",
            "Content-Security-Policy": content_security_policy(served),
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
