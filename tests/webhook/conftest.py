"""Webhook fixtures: a real HTTPS receiver on 127.0.0.1 trusted through REELSCOPE_WEBHOOK_CA_BUNDLE,
the loopback network allowed through REELSCOPE_WEBHOOK_ALLOWED_NETWORKS, and a delivery client."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from reelscope.kit.ids import new_id
from reelscope.main import create_app
from reelscope.runtime import Runtime
from reelscope.webhook.delivery import DeliveryReport, deliver_due, fan_out
from reelscope.webhook.network import AddressGuard, StaticResolver, guard_from_settings
from reelscope.webhook.transport import DeliveryClient, policy_from_settings
from tests.conftest import TeamKey
from tests.webhook.receiver import RECEIVER_HOST, Receiver, ReceiverServer, TlsFiles, make_tls

# names the tests resolve by hand: the receiver's, and one that points into a private network
RESOLVER = StaticResolver(
    {
        RECEIVER_HOST: ["127.0.0.1"],
        "rebind.test": ["10.1.2.3"],
        "public.test": ["93.184.215.14"],
        "wrong.test": ["127.0.0.1"],
    }
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "delivery_timeout(seconds): the test delivery client's timeout")


@pytest.fixture(scope="session")
def tls(tmp_path_factory: pytest.TempPathFactory) -> TlsFiles:
    return make_tls(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="session")
def receiver_server(tls: TlsFiles) -> Iterator[Receiver]:
    server = ReceiverServer(tls)
    receiver = server.start()
    yield receiver
    server.stop()


@pytest.fixture
def receiver(receiver_server: Receiver) -> Iterator[Receiver]:
    receiver_server.reset()
    yield receiver_server
    receiver_server.release.set()


@pytest.fixture
def settings(data_dir: Path, database_url: str, redis_url: str | None, tls: TlsFiles) -> Settings:
    return Settings(
        data_dir=data_dir,
        database_url=database_url,
        redis_url=redis_url,
        webhook_allowed_networks="127.0.0.0/8",
        webhook_ca_bundle=tls.ca,
    )


@pytest.fixture
def guard(settings: Settings) -> AddressGuard:
    return guard_from_settings(settings.webhook_allowed_networks, RESOLVER)


@pytest.fixture
async def client(runtime: Runtime, guard: AddressGuard) -> AsyncIterator[httpx.AsyncClient]:
    runtime.resolver = guard.resolver
    app = create_app(runtime=runtime)
    transport = httpx.ASGITransport(app=app, client=("203.0.113.7", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http


@pytest.fixture
async def sender(settings: Settings, request: pytest.FixtureRequest) -> AsyncIterator[DeliveryClient]:
    """The delivery client. Its timeout is 10 s, not 30 s: long enough that 16 concurrent TLS attempts
    on a busy 2-core machine are not cut short (a test counting what the receiver got would then see
    fewer), short enough for a test that waits on it. A test about timeouts sets its own with
    ``@pytest.mark.delivery_timeout(seconds)``."""
    marker = request.node.get_closest_marker("delivery_timeout")
    timeout = float(marker.args[0]) if marker else 10.0
    policy = replace(policy_from_settings(settings), timeout_seconds=timeout)
    http = DeliveryClient.from_settings(settings, resolver=RESOLVER, policy=policy)
    yield http
    await http.aclose()


CreateWebhook = Callable[..., Awaitable[dict[str, Any]]]


@pytest.fixture
def create_webhook(client: httpx.AsyncClient, receiver: Receiver) -> CreateWebhook:
    """POST /v1/webhooks for a team; defaults to the receiver's /hook and one team event."""

    async def create(team: TeamKey, **fields: Any) -> dict[str, Any]:
        body = {"url": receiver.url("/hook"), "enabled_events": ["satellite.lookup.completed"], **fields}
        response = await client.post("/v1/webhooks", json=body, headers=team.headers)
        assert response.status_code == 201, response.text
        created: dict[str, Any] = response.json()
        return created

    return create


Publish = Callable[..., Awaitable[str]]


@pytest.fixture
def publish(runtime: Runtime, clock: ManualClock) -> Publish:
    """What the outbox worker will do: fan an event out in a transaction of its own."""

    async def publish(
        event: str,
        data: dict[str, Any] | None = None,
        *,
        team_id: str | None = None,
        event_id: str | None = None,
    ) -> str:
        event_id = event_id or new_id()
        async with runtime.db.transaction() as session:
            await fan_out(session, event_id, event, data or {"run_id": event_id}, team_id, clock.now())
        return event_id

    return publish


Deliver = Callable[[], Awaitable[DeliveryReport]]


@pytest.fixture
def deliver(runtime: Runtime, clock: ManualClock, sender: DeliveryClient) -> Deliver:
    """What the periodic job will do: attempt every due delivery."""

    async def deliver() -> DeliveryReport:
        return await deliver_due(runtime.db, clock, sender)

    return deliver


ReadLog = Callable[..., Awaitable[list[dict[str, Any]]]]


@pytest.fixture
def read_log(client: httpx.AsyncClient) -> ReadLog:
    """The first page of a webhook's delivery log, through HTTP."""

    async def read(team: TeamKey, hook_id: str) -> list[dict[str, Any]]:
        response = await client.get(
            f"/v1/webhooks/{hook_id}/deliveries", params={"limit": 100}, headers=team.headers
        )
        assert response.status_code == 200, response.text
        deliveries: list[dict[str, Any]] = response.json()["deliveries"]
        return deliveries

    return read
