"""/v1/webhooks through HTTP: shapes, slots, state changes and §4.6 validation."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import httpx
import pytest

from reelscope.auth.service import Principal
from reelscope.kit.clock import ManualClock
from reelscope.kit.errors import Conflict
from reelscope.kit.ids import new_id
from reelscope.runtime import Runtime
from reelscope.webhook import events
from reelscope.webhook import repository as webhook_repository
from reelscope.webhook import service as webhook_service
from reelscope.webhook.network import AddressGuard
from reelscope.webhook.schemas import WebhookCreate
from tests.conftest import MakeTeam, TeamKey
from tests.kit.test_errors import assert_error
from tests.webhook.conftest import CreateWebhook
from tests.webhook.receiver import Receiver

pytestmark = pytest.mark.both_databases


class TestCreate:
    async def test_returns_the_object_itself_with_a_secret(
        self, client: httpx.AsyncClient, team: TeamKey, receiver: Receiver
    ) -> None:
        """§4.6: 201 with the webhook object, not wrapped (§1); free (§8.2); §2.7 fields."""
        body = {
            "url": receiver.url("/hook"),
            "enabled_events": ["satellite.lookup.completed", "trends.daily.completed"],
            "headers": {"X-Shared-Secret": "s3cret"},
            "description": "lookups",
        }
        response = await client.post("/v1/webhooks", json=body, headers=team.headers)
        assert response.status_code == 201
        assert response.headers["X-Cost"] == "0.00"
        hook = response.json()
        fields = "id team_id url description enabled_events headers is_active status consecutive_failures"
        fields += " last_success_at last_failure_at created_by created_at updated_at secret"
        assert set(hook) == set(fields.split())
        assert hook["team_id"] == team.team_id
        assert hook["url"] == body["url"]
        assert hook["enabled_events"] == body["enabled_events"]
        assert hook["headers"] == {"X-Shared-Secret": "s3cret"}
        assert hook["is_active"] is True
        assert hook["status"] == "active"
        assert hook["consecutive_failures"] == 0
        assert hook["last_success_at"] is None
        assert hook["created_at"] == "2026-11-21T12:00:30Z"
        assert hook["secret"].startswith("whsec_")
        got = await client.get(f"/v1/webhooks/{hook['id']}", headers=team.headers)
        assert got.status_code == 200
        assert got.json() == hook

    async def test_switched_off_at_creation(self, create_webhook: CreateWebhook, team: TeamKey) -> None:
        hook = await create_webhook(team, is_active=False)
        assert (hook["is_active"], hook["status"]) == (False, "inactive")

    async def test_defaults(self, create_webhook: CreateWebhook, team: TeamKey) -> None:
        hook = await create_webhook(team)
        assert (hook["description"], hook["headers"]) == ("", {})


class TestList:
    async def test_plain_array_newest_first_with_inactive(
        self, client: httpx.AsyncClient, create_webhook: CreateWebhook, team: TeamKey, clock: ManualClock
    ) -> None:
        """§4.6: a plain array, newest first, not paged, `inactive` ones included."""
        first = await create_webhook(team, description="first")
        clock.advance(timedelta(seconds=1))
        second = await create_webhook(team, description="second")
        assert (await client.delete(f"/v1/webhooks/{first['id']}", headers=team.headers)).status_code == 204
        response = await client.get("/v1/webhooks", headers=team.headers)
        assert response.status_code == 200
        listed = response.json()
        assert [h["id"] for h in listed] == [second["id"], first["id"]]
        assert listed[1]["status"] == "inactive"
        assert listed[1]["is_active"] is False

    async def test_only_the_teams_own(
        self, client: httpx.AsyncClient, create_webhook: CreateWebhook, make_team: MakeTeam
    ) -> None:
        mine, theirs = await make_team(), await make_team()
        await create_webhook(theirs)
        assert (await client.get("/v1/webhooks", headers=mine.headers)).json() == []


class TestSlots:
    async def test_sixth_switched_on_is_a_conflict(
        self, client: httpx.AsyncClient, create_webhook: CreateWebhook, team: TeamKey, receiver: Receiver
    ) -> None:
        """§4.6: 409 `conflict` when the team already has 5 switched-on webhooks."""
        for _ in range(5):
            await create_webhook(team)
        body = {"url": receiver.url(), "enabled_events": ["tracking.paused"]}
        response = await client.post("/v1/webhooks", json=body, headers=team.headers)
        assert_error(response, 409, "conflict")
        # a switched-off one does not take a slot
        off = await client.post("/v1/webhooks", json={**body, "is_active": False}, headers=team.headers)
        assert off.status_code == 201
        # and cannot be switched on while 5 are on
        on = await client.patch(
            f"/v1/webhooks/{off.json()['id']}", json={"is_active": True}, headers=team.headers
        )
        assert_error(on, 409, "conflict")
        assert_error(
            await client.post(f"/v1/webhooks/{off.json()['id']}/enable", headers=team.headers),
            409,
            "conflict",
        )

    async def test_delete_and_switch_off_free_a_slot(
        self, client: httpx.AsyncClient, create_webhook: CreateWebhook, team: TeamKey
    ) -> None:
        hooks = [await create_webhook(team) for _ in range(5)]
        assert (
            await client.delete(f"/v1/webhooks/{hooks[0]['id']}", headers=team.headers)
        ).status_code == 204
        await create_webhook(team)
        patched = await client.patch(
            f"/v1/webhooks/{hooks[1]['id']}", json={"is_active": False}, headers=team.headers
        )
        assert (patched.status_code, patched.json()["status"]) == (200, "inactive")
        await create_webhook(team)

    async def test_disabled_by_system_still_counts(
        self, client: httpx.AsyncClient, create_webhook: CreateWebhook, team: TeamKey, runtime: Any
    ) -> None:
        """§3: a system-disabled endpoint still counts toward the limit of 5."""
        from reelscope.webhook import repository

        hooks = [await create_webhook(team) for _ in range(5)]
        async with runtime.db.transaction() as session:
            assert await repository.disable_by_system(session, hooks[0]["id"], runtime.clock.now())
        response = await client.post(
            "/v1/webhooks",
            json={"url": hooks[0]["url"], "enabled_events": ["tracking.paused"]},
            headers=team.headers,
        )
        assert_error(response, 409, "conflict")


class TestSlotRace:
    async def test_a_create_waits_for_a_concurrent_one(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        runtime: Runtime,
        guard: AddressGuard,
        receiver: Receiver,
    ) -> None:
        """Two creates for the fifth slot in overlapping transactions: the second waits for the first
        (team row lock on PostgreSQL, the single writer on SQLite) and then sees no free slot."""
        for _ in range(4):
            await create_webhook(team)
        principal = Principal(team_id=team.team_id, user_id=new_id(), key_id=team.key_id, scope="full")
        body = WebhookCreate(url=receiver.url(), enabled_events=["tracking.paused"])

        async def second() -> None:
            async with runtime.db.transaction() as session:
                await webhook_service.create_endpoint(session, guard, principal, body, runtime.clock.now())

        async with runtime.db.transaction() as session:
            await webhook_service.create_endpoint(session, guard, principal, body, runtime.clock.now())
            racer = asyncio.create_task(second())
            await asyncio.sleep(0.2)  # room for the second to run ahead, were it not made to wait
        with pytest.raises(Conflict):
            await racer
        async with runtime.db.transaction() as session:
            assert await webhook_repository.count_switched_on(session, team.team_id) == 5


class TestChanges:
    async def test_patch_changes_given_fields_only(
        self, client: httpx.AsyncClient, create_webhook: CreateWebhook, team: TeamKey, clock: ManualClock
    ) -> None:
        hook = await create_webhook(team, description="before", headers={"X-A": "1"})
        clock.advance(timedelta(minutes=1))
        response = await client.patch(
            f"/v1/webhooks/{hook['id']}",
            json={"description": "after", "enabled_events": ["tracking.paused", "comet.run.completed"]},
            headers=team.headers,
        )
        assert response.status_code == 200
        changed = response.json()
        assert changed["description"] == "after"
        assert changed["enabled_events"] == ["tracking.paused", "comet.run.completed"]
        assert changed["headers"] == {"X-A": "1"}
        assert changed["url"] == hook["url"]
        assert changed["updated_at"] == "2026-11-21T12:01:30Z"
        assert changed["created_at"] == hook["created_at"]

    async def test_patch_validates_like_create(
        self, client: httpx.AsyncClient, create_webhook: CreateWebhook, team: TeamKey
    ) -> None:
        hook = await create_webhook(team)
        path = f"/v1/webhooks/{hook['id']}"
        assert_error(
            await client.patch(path, json={"url": "http://x.example"}, headers=team.headers),
            400,
            "validation_error",
        )
        assert_error(
            await client.patch(path, json={"enabled_events": ["nope"]}, headers=team.headers),
            400,
            "unknown_event_type",
        )
        assert_error(
            await client.patch(path, json={"url": None}, headers=team.headers), 400, "validation_error"
        )
        assert_error(
            await client.patch(path, json={"colour": "red"}, headers=team.headers), 400, "validation_error"
        )

    async def test_delete_is_204_and_final(
        self, client: httpx.AsyncClient, create_webhook: CreateWebhook, team: TeamKey
    ) -> None:
        hook = await create_webhook(team)
        response = await client.delete(f"/v1/webhooks/{hook['id']}", headers=team.headers)
        assert response.status_code == 204
        assert response.content == b""
        got = (await client.get(f"/v1/webhooks/{hook['id']}", headers=team.headers)).json()
        assert (got["status"], got["is_active"]) == ("inactive", False)
        assert (await client.delete(f"/v1/webhooks/{hook['id']}", headers=team.headers)).status_code == 204
        assert_error(
            await client.patch(f"/v1/webhooks/{hook['id']}", json={"is_active": True}, headers=team.headers),
            409,
            "conflict",
        )

    async def test_switch_back_on(
        self, client: httpx.AsyncClient, create_webhook: CreateWebhook, team: TeamKey
    ) -> None:
        hook = await create_webhook(team, is_active=False)
        response = await client.post(f"/v1/webhooks/{hook['id']}/enable", headers=team.headers)
        assert response.status_code == 200
        assert (response.json()["status"], response.json()["is_active"]) == ("active", True)

    async def test_patch_cannot_silently_keep_a_system_disabled_webhook_off(
        self, client: httpx.AsyncClient, create_webhook: CreateWebhook, team: TeamKey, runtime: Any
    ) -> None:
        """is_active stays true after a system shutdown (§2.7): PATCH is_active true is a 409 pointing
        at the re-enable operation, not a 200 that changes nothing."""
        from reelscope.webhook import repository

        hook = await create_webhook(team)
        async with runtime.db.transaction() as session:
            assert await repository.disable_by_system(session, hook["id"], runtime.clock.now())
        response = await client.patch(
            f"/v1/webhooks/{hook['id']}", json={"is_active": True}, headers=team.headers
        )
        body = assert_error(response, 409, "conflict")
        assert "/enable" in str(body["message"])
        enabled = await client.post(f"/v1/webhooks/{hook['id']}/enable", headers=team.headers)
        assert enabled.json()["status"] == "active"


class TestIdsAndTeams:
    async def test_malformed_id_is_a_validation_error(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        """§4.6: a malformed ID is 400 validation_error."""
        for method, path in [
            ("GET", "/v1/webhooks/not-a-uuid"),
            ("PATCH", "/v1/webhooks/123"),
            ("DELETE", "/v1/webhooks/abc"),
            ("POST", "/v1/webhooks/abc/enable"),
            ("GET", "/v1/webhooks/abc/deliveries"),
            ("POST", "/v1/webhooks/00000000-0000-4000-8000-000000000000/deliveries/xyz/retry"),
        ]:
            response = await client.request(
                method, path, json={} if method == "PATCH" else None, headers=team.headers
            )
            assert_error(response, 400, "validation_error")

    async def test_another_teams_webhook_is_not_found(
        self, client: httpx.AsyncClient, create_webhook: CreateWebhook, make_team: MakeTeam
    ) -> None:
        """§4.6, §5.4: another team's webhook or delivery is 404 not_found."""
        owner, other = await make_team(), await make_team()
        hook = await create_webhook(owner)
        base = f"/v1/webhooks/{hook['id']}"
        any_id = "00000000-0000-4000-8000-000000000000"
        for method, path, body in [
            ("GET", base, None),
            ("PATCH", base, {"description": "mine now"}),
            ("DELETE", base, None),
            ("POST", f"{base}/enable", None),
            ("POST", f"{base}/test", {"event": "tracking.paused"}),
            ("GET", f"{base}/deliveries", None),
            ("POST", f"{base}/deliveries/{any_id}/retry", None),
        ]:
            response = await client.request(method, path, json=body, headers=other.headers)
            assert_error(response, 404, "not_found")
        assert (await client.get(base, headers=owner.headers)).json()["status"] == "active"

    async def test_unknown_id_is_not_found(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        response = await client.get("/v1/webhooks/00000000-0000-4000-8000-000000000000", headers=team.headers)
        assert_error(response, 404, "not_found")


REJECTED_URLS = [
    ("http://public.test/hook", "must start with https://"),
    ("ftp://public.test/hook", "must start with https://"),
    ("https://public.test/" + "a" * 2030, "at most 2048"),
    ("https://localhost/hook", "not public"),
    ("https://LOCALHOST./hook", "not public"),
    ("https://api.localhost/hook", "not public"),
    ("https://printer.local/hook", "not public"),
    ("https://hooks.corp.internal/hook", "not public"),
    ("https://10.0.0.8/hook", "public address"),
    ("https://172.16.4.4/hook", "public address"),
    ("https://192.168.1.20/hook", "public address"),
    ("https://169.254.169.254/latest/meta-data", "public address"),
    ("https://100.64.0.1/hook", "public address"),
    ("https://0.0.0.0/hook", "public address"),
    ("https://224.0.0.1/hook", "public address"),
    ("https://240.0.0.1/hook", "public address"),
    ("https://[::1]/hook", "public address"),
    ("https://[fd00::1]/hook", "public address"),
    ("https://[fe80::1]/hook", "public address"),
    ("https://[::ffff:10.0.0.1]/hook", "public address"),
    ("https://[2002:a00:1::]/hook", "public address"),
    ("https://rebind.test/hook", "public address"),
    ("https://nowhere.test/hook", "does not resolve"),
    ("https://user:pw@public.test/hook", "credentials"),
    ("https://public.test:99999/hook", "port"),
    ("https://public.test:0/hook", "port must be a number from 1 to 65535"),  # issue 31
    ("https://93.184.216.34:00/hook", "port must be a number from 1 to 65535"),
    ("https:///hook", "host"),
    ("https://public.test/a b", "spaces"),
]


class TestValidation:
    @pytest.mark.parametrize(("url", "reason"), REJECTED_URLS)
    async def test_rejected_urls(
        self, client: httpx.AsyncClient, team: TeamKey, url: str, reason: str
    ) -> None:
        """§4.6: https only, at most 2048 characters, public hosts only (also after resolution)."""
        body = {"url": url, "enabled_events": ["tracking.paused"]}
        response = await client.post("/v1/webhooks", json=body, headers=team.headers)
        assert_error(response, 400, "validation_error")
        assert reason in " ".join(response.json()["message"])

    async def test_public_url_of_2048_characters_is_accepted(
        self, client: httpx.AsyncClient, team: TeamKey
    ) -> None:
        url = "https://public.test/"
        url += "a" * (2048 - len(url))
        body = {"url": url, "enabled_events": ["tracking.paused"]}
        assert (await client.post("/v1/webhooks", json=body, headers=team.headers)).status_code == 201

    async def test_unknown_event_lists_accepted_names(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        """§4.6, §7: 400 unknown_event_type, the message lists the accepted names, legacy ones included."""
        body = {"url": "https://public.test/", "enabled_events": ["tracking.paused", "video.exploded"]}
        response = await client.post("/v1/webhooks", json=body, headers=team.headers)
        assert_error(response, 400, "unknown_event_type")
        message = response.json()["message"]
        assert "video.exploded" in message
        for name in events.EVENT_NAMES:
            assert name in message
        assert "orbit.run.completed" in message and "comet.run.completed" in message

    async def test_every_catalogue_name_is_accepted(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        body = {"url": "https://public.test/", "enabled_events": list(events.EVENT_NAMES)}
        assert (await client.post("/v1/webhooks", json=body, headers=team.headers)).status_code == 201

    @pytest.mark.parametrize(
        "body",
        [
            {"url": "https://public.test/", "enabled_events": []},
            {"url": "https://public.test/"},
            {"enabled_events": ["tracking.paused"]},
            {"url": "https://public.test/", "enabled_events": ["tracking.paused"], "secret": "mine"},
            {"url": "https://public.test/", "enabled_events": ["tracking.paused"], "description": "d" * 257},
            {"url": "https://public.test/", "enabled_events": "tracking.paused"},
            {"url": "https://public.test/", "enabled_events": ["tracking.paused"], "is_active": "maybe"},
        ],
        ids=[
            "empty-events",
            "no-events",
            "no-url",
            "unknown-field",
            "long-description",
            "events-not-list",
            "is-active-not-bool",
        ],
    )
    async def test_rejected_bodies(
        self, client: httpx.AsyncClient, team: TeamKey, body: dict[str, Any]
    ) -> None:
        response = await client.post("/v1/webhooks", json=body, headers=team.headers)
        assert_error(response, 400, "validation_error")

    async def test_description_of_256_is_accepted(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        body = {
            "url": "https://public.test/",
            "enabled_events": ["tracking.paused"],
            "description": "d" * 256,
        }
        assert (await client.post("/v1/webhooks", json=body, headers=team.headers)).status_code == 201

    @pytest.mark.parametrize(
        "headers",
        [
            {f"X-H{i}": "v" for i in range(6)},
            {"Authorization": "Bearer x"},
            {"content-type": "text/plain"},
            {"CONTENT-ENCODING": "br"},
            {"Content-Length": "1"},
            {"host": "evil.example"},
            {"User-Agent": "me"},
            {"Service-Event-Id": "x"},
            {"service-anything": "x"},
            {"Webhook-Signature": "v1,forged"},
            {"webhook-id": "x"},
            {"Transfer-Encoding": "chunked"},
            {"X_Underscore": "x"},
            {"X Space": "x"},
            {"": "x"},
            {"X-" + "a" * 63: "x"},
            {"X-Long": "v" * 257},
            {"X-Inject": "a\r\nHost: evil"},
            {"X-A": "1", "x-a": "2"},
        ],
        ids=[
            "six",
            "authorization",
            "content-type",
            "content-encoding",
            "content-length",
            "host",
            "user-agent",
            "service-event-id",
            "service-prefix",
            "webhook-signature",
            "webhook-id",
            "transfer-encoding",
            "underscore",
            "space",
            "empty-name",
            "name-65",
            "value-257",
            "crlf",
            "duplicate",
        ],
    )
    async def test_rejected_headers(
        self, client: httpx.AsyncClient, team: TeamKey, headers: dict[str, str]
    ) -> None:
        """§4.6: up to 5; names letters/digits/dashes up to 64; values up to 256; reserved in any case."""
        body = {"url": "https://public.test/", "enabled_events": ["tracking.paused"], "headers": headers}
        response = await client.post("/v1/webhooks", json=body, headers=team.headers)
        assert_error(response, 400, "validation_error")

    async def test_header_limits_are_inclusive(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        headers = {f"X-H{i}": "v" for i in range(4)} | {"X-" + "a" * 62: "v" * 256}
        body = {"url": "https://public.test/", "enabled_events": ["tracking.paused"], "headers": headers}
        response = await client.post("/v1/webhooks", json=body, headers=team.headers)
        assert response.status_code == 201
        assert response.json()["headers"] == headers
