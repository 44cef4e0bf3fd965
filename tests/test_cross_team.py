"""Another team's resource is 404 ``not_found`` with no data, for every team-owned resource type the API
has (spec §7; issue 14). The resource types are registered in tests/team_resources.py, which says how a
new family adds its own; a /v1 route with an id in its path that no registration covers and that is
not public fails ``TestRegistry``.

Runs on both databases: isolation is a property of the SQL.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi.routing import APIRoute

from reelscope.kit.clock import ManualClock
from reelscope.main import create_app
from reelscope.runtime import Runtime
from reelscope.webhook.network import StaticResolver
from reelscope.worker.engine import JobEngine
from tests.conftest import MakeTeam
from tests.kit.test_errors import assert_error
from tests.team_resources import HOOK_HOST, PUBLIC_ROUTES, RESOURCES, TeamResource, World

pytestmark = pytest.mark.both_databases

PARAMETER = re.compile(r"\{(\w+)\}")


@pytest.fixture
async def client(runtime: Runtime) -> AsyncIterator[httpx.AsyncClient]:
    """The app, resolving the webhook host to a public address without DNS."""
    runtime.resolver = StaticResolver({HOOK_HOST: ["93.184.215.14"]})
    app = create_app(runtime=runtime)
    transport = httpx.ASGITransport(app=app, client=("203.0.113.7", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http


@pytest.fixture
def world(client: httpx.AsyncClient, runtime: Runtime, clock: ManualClock, jobs: JobEngine) -> World:
    """``jobs`` binds the job engine in immediate mode: a job runs once its creation commits."""
    return World(client=client, runtime=runtime, clock=clock)


def fill(route: str, ids: dict[str, str]) -> tuple[str, str]:
    method, template = route.split(" ", 1)
    return method, PARAMETER.sub(lambda m: ids[m.group(1)], template)


class TestRegistry:
    def test_every_route_with_an_id_is_registered_or_public(self, client: httpx.AsyncClient) -> None:
        transport = client._transport
        assert isinstance(transport, httpx.ASGITransport)
        routes = {
            f"{method} {route.path}"
            for route in transport.app.router.routes  # type: ignore[attr-defined]
            if isinstance(route, APIRoute) and route.path.startswith("/v1/") and PARAMETER.search(route.path)
            for method in route.methods or ()
        }
        registered = {route for resource in RESOURCES for route in resource.routes}
        assert registered <= routes, "a registration names a route the API does not have"
        unregistered = routes - registered - PUBLIC_ROUTES
        assert not unregistered, f"register these in tests/team_resources.py: {sorted(unregistered)}"


@pytest.mark.parametrize("resource", RESOURCES, ids=lambda resource: resource.name)
async def test_another_teams_resource_is_404_with_no_data(
    world: World, make_team: MakeTeam, resource: TeamResource
) -> None:
    owner, other = await make_team(1000), await make_team(1000)
    ids = await resource.make(world, owner)
    for route in resource.routes:
        method, path = fill(route, ids)
        response = await world.client.request(
            method, path, json=resource.bodies.get(route), headers=other.headers
        )
        body = assert_error(response, 404, "not_found")
        assert set(body) == {"statusCode", "code", "error", "message"}, route
        for value in (*ids.values(), resource.secret):
            if value:
                assert value not in str(body["message"]).replace(path, ""), route
    if resource.check is not None:
        await resource.check(world, ids, owner, other)
    # the owner still reaches it, unchanged by the probes: the 404s were about the team, not the id
    for route in resource.routes:
        method, path = fill(route, ids)
        if method == "GET":
            mine = await world.client.get(path, headers=owner.headers)
            assert mine.status_code == 200, (route, mine.text)
    balance = await world.client.get("/v1/account/balance", headers=other.headers)
    assert balance.json()["data"]["credits_remaining"] == 1000
