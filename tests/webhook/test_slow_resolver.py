"""A webhook's creation or change resolves its URL's host outside the request's write transaction
(issue 31 item 4; contract/calls.py ``outside_transaction``): while one team's resolver is slow, every
other writer of the process goes on. Before, the check ran inside the process's SQLite write gate, and a
resolver that took its full timeout (5 s) held every charged write of every team behind it. With an
Idempotency-Key, whose lookup begins the transaction, the host is resolved before it (contract
``prepared_by``, webhook/endpoints.py ``resolve_ahead``). SQLite only:
the gate is SQLite's (PostgreSQL writers never waited on it)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

import httpx
import pytest

from reelscope.runtime import Runtime
from reelscope.webhook.network import IPAddress
from tests.conftest import MakeTeam, TeamKey
from tests.kit.test_errors import assert_error
from tests.webhook.conftest import RESOLVER

SLOW = "slow.test"
EVENTS = ["satellite.lookup.completed"]


class SlowResolver:
    """Resolves ``slow.test`` to a public address once the test lets it, every other name at once."""

    def __init__(self) -> None:
        self.waiting = asyncio.Event()
        self.release = asyncio.Event()

    async def resolve(self, host: str, port: int) -> list[IPAddress]:
        if host == SLOW:
            self.waiting.set()
            await self.release.wait()
            return await RESOLVER.resolve("public.test", port)
        return await RESOLVER.resolve(host, port)


@pytest.fixture
def resolver(runtime: Runtime, client: httpx.AsyncClient) -> SlowResolver:
    slow = SlowResolver()
    runtime.resolver = slow  # read per request (webhook/endpoints.py)
    return slow


async def create(
    client: httpx.AsyncClient, team: TeamKey, host: str, headers: dict[str, str] | None = None
) -> httpx.Response:
    body = {"url": f"https://{host}/hook", "enabled_events": EVENTS}
    return await client.post("/v1/webhooks", json=body, headers={**team.headers, **(headers or {})})


async def holds_no_other_writer(
    client: httpx.AsyncClient, resolver: SlowResolver, other: TeamKey, slow: Awaitable[httpx.Response]
) -> httpx.Response:
    """Start ``slow``; while its host resolves, another team's write completes; then let it finish."""
    waiting = asyncio.ensure_future(slow)
    await asyncio.wait_for(resolver.waiting.wait(), 10)
    # a bound, not a pause: before the fix this never completed until the slow resolver answered
    done = await asyncio.wait_for(create(client, other, "public.test"), 10)
    assert done.status_code == 201, done.text
    assert not waiting.done()
    resolver.release.set()
    return await waiting


async def test_a_creation_waiting_on_its_resolver_holds_no_other_writer(
    client: httpx.AsyncClient, make_team: MakeTeam, resolver: SlowResolver
) -> None:
    first, second = await make_team(), await make_team()
    created = await holds_no_other_writer(client, resolver, second, create(client, first, SLOW))
    assert created.status_code == 201, created.text
    assert created.json()["url"] == f"https://{SLOW}/hook"


async def test_a_change_of_url_waiting_on_its_resolver_holds_no_other_writer(
    client: httpx.AsyncClient, make_team: MakeTeam, resolver: SlowResolver
) -> None:
    first, second = await make_team(), await make_team()
    hook = (await create(client, first, "public.test")).json()
    change = client.patch(
        f"/v1/webhooks/{hook['id']}", json={"url": f"https://{SLOW}/new"}, headers=first.headers
    )
    changed = await holds_no_other_writer(client, resolver, second, change)
    assert changed.status_code == 200, changed.text
    assert changed.json()["url"] == f"https://{SLOW}/new"


async def test_with_an_idempotency_key_the_resolver_holds_no_other_writer_either(
    client: httpx.AsyncClient, make_team: MakeTeam, resolver: SlowResolver
) -> None:
    """The key's lookup begins the write transaction: the host is resolved before it (the contract's
    ``prepared_by`` step), and the endpoint's check reads that answer. A replay answers the same."""
    first, second = await make_team(), await make_team()
    key = {"Idempotency-Key": "create-slow-hook"}
    created = await holds_no_other_writer(client, resolver, second, create(client, first, SLOW, key))
    assert created.status_code == 201, created.text
    replay = await create(client, first, SLOW, key)
    assert replay.status_code == 201
    assert replay.json()["id"] == created.json()["id"]
    listed = await client.get("/v1/webhooks", headers=first.headers)
    assert [hook["id"] for hook in listed.json()] == [created.json()["id"]]


async def test_with_an_idempotency_key_a_change_of_url_holds_no_other_writer(
    client: httpx.AsyncClient, make_team: MakeTeam, resolver: SlowResolver
) -> None:
    first, second = await make_team(), await make_team()
    hook = (await create(client, first, "public.test")).json()
    headers = {**first.headers, "Idempotency-Key": "move-hook"}
    change = client.patch(f"/v1/webhooks/{hook['id']}", json={"url": f"https://{SLOW}/new"}, headers=headers)
    changed = await holds_no_other_writer(client, resolver, second, change)
    assert changed.status_code == 200, changed.text
    assert changed.json()["url"] == f"https://{SLOW}/new"


async def test_a_private_host_resolved_ahead_is_still_refused(
    client: httpx.AsyncClient, team: TeamKey, resolver: SlowResolver
) -> None:
    """§4.6: the answer found before the transaction is checked by the endpoint as before."""
    for host in ("rebind.test", "nowhere.test"):  # a private address; no address at all
        refused = await create(client, team, host, {"Idempotency-Key": f"hook-{host}"})
        assert_error(refused, 400, "validation_error")
