"""Delivery to a real HTTPS receiver on 127.0.0.1 (spec §3, §6.1), under the manual clock."""

from __future__ import annotations

import asyncio
import base64
import os
import socket
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from reelscope.runtime import Runtime
from reelscope.webhook.delivery import deliver_due
from reelscope.webhook.network import StaticResolver
from reelscope.webhook.transport import DeliveryClient, Message
from tests.conftest import MakeTeam, TeamKey
from tests.kit.test_errors import assert_error
from tests.webhook.conftest import RESOLVER, CreateWebhook, Deliver, Publish, ReadLog
from tests.webhook.receiver import RECEIVER_HOST, Receiver

pytestmark = pytest.mark.both_databases

LOOKUP = "satellite.lookup.completed"
SCHEDULE = [timedelta(seconds=s) for s in (30, 120, 600, 3600, 21600, 86400)]


def body_length(data: dict[str, Any]) -> int:
    """The length of the JSON body carrying ``data`` (ids are UUIDs, so their value does not matter)."""
    message = Message(
        "https://x/", {}, "whsec_AA==", "0" * 36, LOOKUP, datetime(2026, 11, 21, tzinfo=UTC), data
    )
    return len(message.body())


def padded(total: int) -> dict[str, Any]:
    """``data`` whose message body is exactly ``total`` bytes."""
    return {"pad": "x" * (total - body_length({"pad": ""}))}


async def run_schedule(deliver: Deliver, clock: ManualClock, rounds: int = 9) -> None:
    """Attempt, then let a day pass, ``rounds`` times: longer than any gap of the schedule."""
    for _ in range(rounds):
        await deliver()
        clock.advance(timedelta(days=1, seconds=1))


class TestMessage:
    async def test_body_and_headers(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        deliver: Deliver,
        receiver: Receiver,
        read_log: ReadLog,
        client: httpx.AsyncClient,
    ) -> None:
        """§6.1: POST {id, event, created_at, data} with the documented headers and the custom ones."""
        hook = await create_webhook(team, headers={"X-Shared-Secret": "s3cret"})
        await publish(LOOKUP, {"run_id": "r-1", "status": "success"}, team_id=team.team_id)
        report = await deliver()
        assert (report.attempted, report.delivered) == (1, 1)
        [got] = receiver.at("/hook")
        body = got.json()
        assert set(body) == {"id", "event", "created_at", "data"}
        assert body["event"] == LOOKUP
        assert body["created_at"] == "2026-11-21T12:00:30Z"
        assert body["data"] == {"run_id": "r-1", "status": "success"}
        assert got.headers["content-type"] == "application/json"
        assert got.headers["user-agent"] == "Reelscope-Webhooks/1.0"
        assert got.headers["service-event-type"] == LOOKUP
        assert got.headers["service-event-id"] == body["id"]
        assert got.headers["webhook-id"] == body["id"]
        assert got.headers["x-shared-secret"] == "s3cret"
        assert "content-encoding" not in got.headers
        [entry] = await read_log(team, hook["id"])
        assert entry["id"] == body["id"]
        assert (entry["event_type"], entry["status"], entry["attempts"]) == (LOOKUP, "delivered", 1)
        assert (entry["response_status"], entry["last_attempt_at"]) == (200, "2026-11-21T12:00:30Z")
        endpoint = (await client.get(f"/v1/webhooks/{hook['id']}", headers=team.headers)).json()
        assert (endpoint["last_success_at"], endpoint["consecutive_failures"]) == ("2026-11-21T12:00:30Z", 0)

    @pytest.mark.parametrize(
        ("size", "gzipped"), [(200, False), (1024, False), (1025, True), (300_000, True)]
    )
    async def test_gzip_only_above_1_kb(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        deliver: Deliver,
        receiver: Receiver,
        size: int,
        gzipped: bool,
    ) -> None:
        """§6.1, §8.3: Content-Encoding gzip only when the body is over 1 KB."""
        await create_webhook(team)
        data = padded(size)
        await publish(LOOKUP, data, team_id=team.team_id)
        await deliver()
        [got] = receiver.at("/hook")
        assert ("content-encoding" in got.headers) is gzipped
        if gzipped:
            assert got.headers["content-encoding"] == "gzip"
            assert len(got.raw) < size
        assert len(got.body) == size
        assert got.json()["data"] == data

    @pytest.mark.parametrize("size", [300, 5000])
    async def test_standard_webhooks_signature_verifies(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        deliver: Deliver,
        receiver: Receiver,
        clock: ManualClock,
        size: int,
    ) -> None:
        """Beyond the spec: webhook-id/-timestamp/-signature over the uncompressed body verify with the
        reference `standardwebhooks` library (which checks the timestamp against the wall clock)."""
        clock.set(datetime.now(UTC))
        hook = await create_webhook(team)
        await publish(LOOKUP, padded(size), team_id=team.team_id)
        await deliver()
        [got] = receiver.at("/hook")
        assert got.headers["webhook-timestamp"] == str(int(clock.now().timestamp()))
        verified = Webhook(hook["secret"]).verify(got.body, got.headers)
        assert verified["id"] == got.headers["service-event-id"]
        with pytest.raises(WebhookVerificationError):
            Webhook(hook["secret"]).verify(got.body.replace(b"xxx", b"yyy", 1), got.headers)
        other_secret = "whsec_" + base64.b64encode(os.urandom(24)).decode()
        with pytest.raises(WebhookVerificationError):
            Webhook(other_secret).verify(got.body, got.headers)


class TestOutcomes:
    @pytest.mark.parametrize("status", [500, 502, 503, 504, 408, 429])
    async def test_retryable_answers_get_all_7_attempts_then_dead(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        deliver: Deliver,
        receiver: Receiver,
        clock: ManualClock,
        read_log: ReadLog,
        status: int,
    ) -> None:
        """§6.1: 408, 429 and 5xx get all 7 attempts, then the delivery is `dead`."""
        hook = await create_webhook(team, url=receiver.url(f"/status/{status}"))
        await publish(LOOKUP, team_id=team.team_id)
        await run_schedule(deliver, clock)
        requests = receiver.at(f"/status/{status}")
        assert len(requests) == 7
        assert len({r.headers["service-event-id"] for r in requests}) == 1  # §6.1: retries reuse the id
        [entry] = await read_log(team, hook["id"])
        assert (entry["status"], entry["attempts"], entry["response_status"]) == ("dead", 7, status)
        assert entry["next_attempt_at"] is None

    @pytest.mark.parametrize("status", [400, 401, 403, 404, 410, 422, 301, 302, 307])
    async def test_other_answers_get_one_more_try_then_failed(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        deliver: Deliver,
        receiver: Receiver,
        clock: ManualClock,
        read_log: ReadLog,
        status: int,
    ) -> None:
        """§3, §6.1: any other non-2xx (redirects and 404 included) gets one more try, then `failed`."""
        hook = await create_webhook(team, url=receiver.url(f"/status/{status}"))
        await publish(LOOKUP, team_id=team.team_id)
        await run_schedule(deliver, clock)
        assert len(receiver.at(f"/status/{status}")) == 2
        [entry] = await read_log(team, hook["id"])
        assert (entry["status"], entry["attempts"], entry["response_status"]) == ("failed", 2, status)

    async def test_redirect_is_not_followed(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        deliver: Deliver,
        receiver: Receiver,
        read_log: ReadLog,
    ) -> None:
        """§6.1: redirects are not followed."""
        hook = await create_webhook(team, url=receiver.url("/redirect"))
        await publish(LOOKUP, team_id=team.team_id)
        await deliver()
        assert len(receiver.at("/redirect")) == 1
        assert receiver.at("/ok") == []
        [entry] = await read_log(team, hook["id"])
        assert (entry["status"], entry["response_status"]) == ("pending", 302)

    @pytest.mark.delivery_timeout(1.0)
    async def test_timeout_is_retryable(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        deliver: Deliver,
        receiver: Receiver,
        read_log: ReadLog,
    ) -> None:
        """§6.1: a receiver that does not answer in time is a timeout (the test's limit is 1 s, not 30 s)."""
        hook = await create_webhook(team, url=receiver.url("/hang"))
        await publish(LOOKUP, team_id=team.team_id)
        report = await deliver()
        receiver.release.set()
        assert (report.attempted, report.failed_attempts) == (1, 1)
        [entry] = await read_log(team, hook["id"])
        assert (entry["status"], entry["response_status"], entry["error"]) == ("pending", None, "timeout")
        assert entry["next_attempt_at"] == "2026-11-21T12:01:00Z"

    async def test_network_error_is_retryable_to_the_end(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        deliver: Deliver,
        clock: ManualClock,
        read_log: ReadLog,
    ) -> None:
        """§6.1: network errors (here: connection refused) get all 7 attempts, then `dead`."""
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            closed_port = probe.getsockname()[1]
        hook = await create_webhook(team, url=f"https://127.0.0.1:{closed_port}/hook")
        await publish(LOOKUP, team_id=team.team_id)
        await run_schedule(deliver, clock)
        [entry] = await read_log(team, hook["id"])
        assert (entry["status"], entry["attempts"], entry["response_status"]) == ("dead", 7, None)
        assert entry["error"].startswith("network error")

    async def test_full_schedule_counted_from_the_previous_attempt(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        deliver: Deliver,
        receiver: Receiver,
        clock: ManualClock,
    ) -> None:
        """§6.1: attempt 1 at once, then 30 s, 2 min, 10 min, 1 h, 6 h, 24 h after the previous one."""
        await create_webhook(team, url=receiver.url("/status/503"))
        await publish(LOOKUP, team_id=team.team_id)
        await deliver()
        assert len(receiver.at("/status/503")) == 1
        for number, gap in enumerate(SCHEDULE, start=2):
            clock.advance(gap - timedelta(seconds=1))
            await deliver()
            assert len(receiver.at("/status/503")) == number - 1, f"attempt {number} came early"
            clock.advance(timedelta(seconds=1))
            await deliver()
            assert len(receiver.at("/status/503")) == number, f"attempt {number} did not come on time"
        clock.advance(timedelta(days=30))
        await deliver()
        assert len(receiver.at("/status/503")) == 7

    async def test_receiver_down_for_an_hour_gets_every_event(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        deliver: Deliver,
        receiver: Receiver,
        clock: ManualClock,
        read_log: ReadLog,
    ) -> None:
        """Issue §6: a receiver down for an hour receives every event once it recovers within the schedule."""
        hook = await create_webhook(team, url=receiver.url("/switch"))
        receiver.switch_status = 503
        sent = [await publish(LOOKUP, {"n": n}, team_id=team.team_id) for n in range(3)]
        start = clock.now()
        while clock.now() - start < timedelta(hours=1):
            await deliver()
            clock.advance(timedelta(seconds=30))
        failed_before = len(receiver.at("/switch"))
        assert failed_before == 3 * 4  # attempts 1 to 4 of each fall within the hour
        receiver.switch_status = 200
        await run_schedule(deliver, clock, rounds=3)
        after = receiver.at("/switch")[failed_before:]
        assert sorted(r.json()["data"]["n"] for r in after) == [0, 1, 2]
        entries = await read_log(team, hook["id"])
        assert len(entries) == len(sent)
        assert {e["status"] for e in entries} == {"delivered"}

    async def test_payload_over_the_cap_is_never_sent(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        receiver: Receiver,
        runtime: Runtime,
        clock: ManualClock,
        settings: Settings,
        read_log: ReadLog,
        client: httpx.AsyncClient,
    ) -> None:
        """§6.1: over 10 MB compressed it is never sent, `payload_too_large`, and cannot be retried
        (the test uses a 4 KB cap instead of 10 MB)."""
        policy = replace(DeliveryClient.from_settings(settings).policy, max_body_bytes=4096)
        small_cap = DeliveryClient.from_settings(settings, resolver=RESOLVER, policy=policy)
        hook = await create_webhook(team)
        await publish(LOOKUP, {"blob": base64.b64encode(os.urandom(8000)).decode()}, team_id=team.team_id)
        await publish(LOOKUP, {"small": True}, team_id=team.team_id)
        report = await deliver_due(runtime.db, clock, small_cap)
        await small_cap.aclose()
        assert report.delivered == 1
        assert [r.json()["data"] for r in receiver.at("/hook")] == [{"small": True}]
        entries = {e["status"]: e for e in await read_log(team, hook["id"])}
        too_large = entries["payload_too_large"]
        assert (too_large["attempts"], too_large["response_status"]) == (0, None)
        retry = await client.post(
            f"/v1/webhooks/{hook['id']}/deliveries/{too_large['id']}/retry", headers=team.headers
        )
        assert_error(retry, 409, "conflict")
        endpoint = (await client.get(f"/v1/webhooks/{hook['id']}", headers=team.headers)).json()
        assert endpoint["consecutive_failures"] == 0


class TestSlowReceivers:
    @pytest.mark.delivery_timeout(30.0)  # the hanging attempt outlasts the test's bound below
    async def test_an_event_committed_while_a_receiver_hangs_goes_out_before_it_answers(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        make_team: MakeTeam,
        publish: Publish,
        runtime: Runtime,
        clock: ManualClock,
        sender: DeliveryClient,
        receiver: Receiver,
    ) -> None:
        """§6.1's first attempt is immediate: a pump whose slots wait on a hanging receiver (up to the
        30 s timeout) looks again for due work every second, after fanning out what was committed
        meanwhile (ADR 0053), rather than after the slowest answer."""
        await create_webhook(team, url=receiver.url("/hang"))
        other = await make_team()
        await create_webhook(other, url=receiver.url("/hook"))
        await publish(LOOKUP, team_id=team.team_id)
        later: list[str] = []  # events "committed" after the pump began, fanned out by its refill

        async def refill() -> None:
            while later:
                await publish(LOOKUP, team_id=later.pop())

        pumping = asyncio.ensure_future(deliver_due(runtime.db, clock, sender, refill=refill))
        try:
            assert await asyncio.to_thread(receiver.arrived.wait, 30), "the first attempt never left"
            later.append(other.team_id)
            # a bound, not a pause: before the fix the second event waited for the hanging answer
            for _ in range(200):
                if receiver.at("/hook"):
                    break
                await asyncio.sleep(0.05)
            assert receiver.at("/hook") and not pumping.done()
        finally:
            receiver.release.set()
        report = await pumping
        assert (report.attempted, report.delivered) == (2, 2)


class TestAddressChecks:
    async def test_connection_is_made_to_the_checked_address_with_tls_for_the_name(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        deliver: Deliver,
        receiver: Receiver,
    ) -> None:
        """ARCHITECTURE §6: the name resolves through the guard, the connection goes to that address,
        and the certificate is verified for the name (CA from REELSCOPE_WEBHOOK_CA_BUNDLE)."""
        await create_webhook(team, url=receiver.url("/named", host=RECEIVER_HOST))
        await publish(LOOKUP, team_id=team.team_id)
        assert (await deliver()).delivered == 1
        [got] = receiver.at("/named")
        assert got.headers["host"] == f"{RECEIVER_HOST}:{receiver.port}"

    async def test_certificate_for_another_name_is_a_network_error(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        deliver: Deliver,
        receiver: Receiver,
        read_log: ReadLog,
    ) -> None:
        hook = await create_webhook(team, url=receiver.url("/wrong", host="wrong.test"))
        await publish(LOOKUP, team_id=team.team_id)
        assert (await deliver()).failed_attempts == 1
        assert receiver.at("/wrong") == []
        [entry] = await read_log(team, hook["id"])
        assert (entry["status"], entry["error"][:13]) == ("pending", "network error")

    async def test_untrusted_ca_is_refused(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        receiver: Receiver,
        runtime: Runtime,
        clock: ManualClock,
        settings: Settings,
    ) -> None:
        """Without REELSCOPE_WEBHOOK_CA_BUNDLE the test CA is not trusted."""
        await create_webhook(team)
        await publish(LOOKUP, team_id=team.team_id)
        untrusting = DeliveryClient.from_settings(settings.model_copy(update={"webhook_ca_bundle": None}))
        report = await deliver_due(runtime.db, clock, untrusting)
        await untrusting.aclose()
        assert (report.attempted, report.failed_attempts) == (1, 1)
        assert receiver.at("/hook") == []

    async def test_address_is_checked_again_at_every_attempt(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        receiver: Receiver,
        runtime: Runtime,
        clock: ManualClock,
        settings: Settings,
        read_log: ReadLog,
    ) -> None:
        """§6.1 / ARCHITECTURE §6: a name that now resolves to a private address is not contacted."""
        hook = await create_webhook(team, url=receiver.url("/hook", host=RECEIVER_HOST))
        await publish(LOOKUP, team_id=team.team_id)
        rebound = DeliveryClient.from_settings(
            settings, resolver=StaticResolver({RECEIVER_HOST: ["10.9.8.7"]})
        )
        report = await deliver_due(runtime.db, clock, rebound)
        await rebound.aclose()
        assert report.failed_attempts == 1
        assert receiver.at("/hook") == []
        [entry] = await read_log(team, hook["id"])
        assert "does not resolve to a public address" in entry["error"]

    async def test_loopback_needs_the_operator_allowance(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        receiver: Receiver,
        runtime: Runtime,
        clock: ManualClock,
        settings: Settings,
    ) -> None:
        """REELSCOPE_WEBHOOK_ALLOWED_NETWORKS is what lets 127.0.0.1 through; without it, refused."""
        await create_webhook(team)
        await publish(LOOKUP, team_id=team.team_id)
        strict = DeliveryClient.from_settings(settings.model_copy(update={"webhook_allowed_networks": ""}))
        report = await deliver_due(runtime.db, clock, strict)
        await strict.aclose()
        assert report.failed_attempts == 1
        assert receiver.at("/hook") == []


class TestEndpointHealth:
    async def test_disabled_by_the_system_at_20_consecutive_failures(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        deliver: Deliver,
        receiver: Receiver,
        clock: ManualClock,
        read_log: ReadLog,
        client: httpx.AsyncClient,
    ) -> None:
        """§3, §6.1: every failed attempt adds 1; at 20 the endpoint is `disabled_by_system`, waiting
        retries are marked failed, and new events are neither sent nor logged."""
        hook = await create_webhook(team, url=receiver.url("/status/500"))
        for n in range(19):
            await publish(LOOKUP, {"n": n}, team_id=team.team_id)
        await deliver()
        endpoint = (await client.get(f"/v1/webhooks/{hook['id']}", headers=team.headers)).json()
        assert (endpoint["status"], endpoint["consecutive_failures"]) == ("active", 19)
        assert endpoint["last_failure_at"] == "2026-11-21T12:00:30Z"
        await publish(LOOKUP, {"n": 19}, team_id=team.team_id)
        await deliver()
        endpoint = (await client.get(f"/v1/webhooks/{hook['id']}", headers=team.headers)).json()
        assert (endpoint["status"], endpoint["is_active"], endpoint["consecutive_failures"]) == (
            "disabled_by_system",
            True,
            20,
        )
        entries = await read_log(team, hook["id"])
        assert len(entries) == 20
        assert {e["status"] for e in entries} == {"failed"}
        await publish(LOOKUP, {"n": 20}, team_id=team.team_id)
        await run_schedule(deliver, clock, rounds=2)
        assert len(receiver.at("/status/500")) == 20
        assert len(await read_log(team, hook["id"])) == 20
        test = await client.post(
            f"/v1/webhooks/{hook['id']}/test", json={"event": LOOKUP}, headers=team.headers
        )
        assert_error(test, 409, "conflict")

    async def test_re_enable_resets_and_delivers_again(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        deliver: Deliver,
        receiver: Receiver,
        client: httpx.AsyncClient,
    ) -> None:
        """§3: disabled_by_system → re-enable → active, consecutive_failures 0, events flow again."""
        hook = await create_webhook(team, url=receiver.url("/switch"))
        receiver.switch_status = 500
        for n in range(20):
            await publish(LOOKUP, {"n": n}, team_id=team.team_id)
        await deliver()
        path = f"/v1/webhooks/{hook['id']}"
        assert (await client.get(path, headers=team.headers)).json()["status"] == "disabled_by_system"
        enabled = await client.post(f"{path}/enable", headers=team.headers)
        assert enabled.status_code == 200
        assert (enabled.json()["status"], enabled.json()["consecutive_failures"]) == ("active", 0)
        receiver.switch_status = 200
        await publish(LOOKUP, {"n": "after"}, team_id=team.team_id)
        assert (await deliver()).delivered == 1
        assert receiver.at("/switch")[-1].json()["data"] == {"n": "after"}

    async def test_success_resets_the_count(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        deliver: Deliver,
        receiver: Receiver,
        client: httpx.AsyncClient,
    ) -> None:
        """§3: any success resets consecutive_failures to 0."""
        hook = await create_webhook(team, url=receiver.url("/switch"))
        receiver.switch_status = 503
        for _ in range(3):
            await publish(LOOKUP, team_id=team.team_id)
        await deliver()
        path = f"/v1/webhooks/{hook['id']}"
        assert (await client.get(path, headers=team.headers)).json()["consecutive_failures"] == 3
        receiver.switch_status = 204
        await publish(LOOKUP, team_id=team.team_id)
        await deliver()
        endpoint = (await client.get(path, headers=team.headers)).json()
        assert (endpoint["consecutive_failures"], endpoint["last_success_at"]) == (0, "2026-11-21T12:00:30Z")

    async def test_switching_off_fails_waiting_retries(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        deliver: Deliver,
        receiver: Receiver,
        clock: ManualClock,
        read_log: ReadLog,
        client: httpx.AsyncClient,
    ) -> None:
        hook = await create_webhook(team, url=receiver.url("/status/503"))
        await publish(LOOKUP, team_id=team.team_id)
        await deliver()
        await client.patch(f"/v1/webhooks/{hook['id']}", json={"is_active": False}, headers=team.headers)
        await run_schedule(deliver, clock, rounds=2)
        assert len(receiver.at("/status/503")) == 1
        [entry] = await read_log(team, hook["id"])
        assert entry["status"] == "failed"


class TestRetryAndTest:
    async def test_retry_of_a_dead_delivery_keeps_its_id(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        deliver: Deliver,
        receiver: Receiver,
        clock: ManualClock,
        read_log: ReadLog,
        client: httpx.AsyncClient,
    ) -> None:
        """§3: a dead delivery can be resent with Retry delivery (202); it keeps its id."""
        hook = await create_webhook(team, url=receiver.url("/switch"))
        receiver.switch_status = 503
        await publish(LOOKUP, team_id=team.team_id)
        await run_schedule(deliver, clock)
        [dead] = await read_log(team, hook["id"])
        assert dead["status"] == "dead"
        receiver.switch_status = 200
        path = f"/v1/webhooks/{hook['id']}/deliveries/{dead['id']}/retry"
        response = await client.post(path, headers=team.headers)
        assert response.status_code == 202
        assert (response.json()["id"], response.json()["status"]) == (dead["id"], "pending")
        assert_error(await client.post(path, headers=team.headers), 409, "conflict")
        assert (await deliver()).delivered == 1
        last = receiver.at("/switch")[-1]
        assert last.headers["service-event-id"] == dead["id"]
        [entry] = await read_log(team, hook["id"])
        assert (entry["status"], entry["attempts"], entry["response_status"]) == ("delivered", 8, 200)

    async def test_retry_needs_an_active_endpoint_and_a_finished_delivery(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        publish: Publish,
        deliver: Deliver,
        read_log: ReadLog,
        client: httpx.AsyncClient,
    ) -> None:
        hook = await create_webhook(team)
        await publish(LOOKUP, team_id=team.team_id)
        [waiting] = await read_log(team, hook["id"])
        path = f"/v1/webhooks/{hook['id']}/deliveries/{waiting['id']}/retry"
        assert_error(await client.post(path, headers=team.headers), 409, "conflict")  # still pending
        await deliver()
        resend = await client.post(path, headers=team.headers)  # a delivered one can be resent
        assert (resend.status_code, resend.json()["status"]) == (202, "pending")
        await client.patch(f"/v1/webhooks/{hook['id']}", json={"is_active": False}, headers=team.headers)
        [entry] = await read_log(team, hook["id"])
        assert entry["status"] == "failed"  # switched off while waiting
        assert_error(await client.post(path, headers=team.headers), 409, "conflict")  # endpoint inactive

    async def test_retry_of_an_unknown_delivery_is_not_found(
        self, create_webhook: CreateWebhook, team: TeamKey, client: httpx.AsyncClient
    ) -> None:
        hook = await create_webhook(team)
        path = f"/v1/webhooks/{hook['id']}/deliveries/00000000-0000-4000-8000-000000000000/retry"
        assert_error(await client.post(path, headers=team.headers), 404, "not_found")

    async def test_sample_of_every_event(
        self,
        create_webhook: CreateWebhook,
        team: TeamKey,
        deliver: Deliver,
        receiver: Receiver,
        client: httpx.AsyncClient,
    ) -> None:
        """The test endpoint sends a §6.3-shaped sample of any named event (202)."""
        from reelscope.webhook import events

        hook = await create_webhook(team)
        for name in events.EVENT_NAMES:
            response = await client.post(
                f"/v1/webhooks/{hook['id']}/test", json={"event": name}, headers=team.headers
            )
            assert response.status_code == 202
            assert (response.json()["event_type"], response.json()["status"]) == (name, "pending")
        assert (await deliver()).delivered == len(events.EVENT_NAMES)
        by_event = {r.json()["event"]: r.json()["data"] for r in receiver.at("/hook")}
        assert set(by_event) == set(events.EVENT_NAMES)
        assert by_event["satellite.lookup.completed"]["team_id"] == team.team_id
        assert {"trend_group_id", "date", "region", "trends"} <= set(by_event["trends.daily.completed"])
        assert "team_id" not in by_event["trends.region.completed"]
        assert by_event["tracking.paused"]["reason"] in ("insufficient_credits", "max_failures_reached")
        assert "comet" in by_event["comet.run.completed"]
        assert "orbit" in by_event["orbit.run.completed"]
        assert 0 <= by_event["content_research_agent.event.detected"]["salience"] <= 10

    async def test_test_event_validation(
        self, create_webhook: CreateWebhook, team: TeamKey, client: httpx.AsyncClient
    ) -> None:
        hook = await create_webhook(team)
        path = f"/v1/webhooks/{hook['id']}/test"
        assert_error(
            await client.post(path, json={"event": "nope"}, headers=team.headers), 400, "unknown_event_type"
        )
        # issue 28: event_type is the same as event; both sent must agree
        assert_error(
            await client.post(
                path, json={"event": LOOKUP, "event_type": "tracking.paused"}, headers=team.headers
            ),
            400,
            "validation_error",
        )
        assert_error(
            await client.post(path, json={"event": 5}, headers=team.headers), 400, "validation_error"
        )
        await client.delete(f"/v1/webhooks/{hook['id']}", headers=team.headers)
        assert_error(await client.post(path, json={"event": LOOKUP}, headers=team.headers), 409, "conflict")


class TestFanOut:
    async def test_trend_events_reach_every_team_others_only_their_own(
        self,
        create_webhook: CreateWebhook,
        make_team: MakeTeam,
        publish: Publish,
        deliver: Deliver,
        receiver: Receiver,
        read_log: ReadLog,
    ) -> None:
        """§6.1: trend events are public and go to every subscribed endpoint; the others are team-scoped.
        Two webhooks receiving the same event get different ids."""
        a, b, c = await make_team(), await make_team(), await make_team()
        both = ["trends.daily.completed", LOOKUP]
        hook_a = await create_webhook(a, url=receiver.url("/a"), enabled_events=both)
        hook_b = await create_webhook(b, url=receiver.url("/b"), enabled_events=both)
        await create_webhook(c, url=receiver.url("/c"), enabled_events=["tracking.paused"])
        await create_webhook(b, url=receiver.url("/b-off"), enabled_events=both, is_active=False)
        trend = await publish("trends.daily.completed", {"region": "global"})
        await publish(LOOKUP, {"mine": "a"}, team_id=a.team_id)
        await publish(
            LOOKUP, {"mine": "a"}, team_id=a.team_id, event_id=trend
        )  # a repeated fan-out adds nothing
        await deliver()
        assert [r.json()["event"] for r in receiver.at("/a")].count("trends.daily.completed") == 1
        assert sorted(r.json()["event"] for r in receiver.at("/a")) == [LOOKUP, "trends.daily.completed"]
        assert [r.json()["event"] for r in receiver.at("/b")] == ["trends.daily.completed"]
        assert receiver.at("/c") == [] and receiver.at("/b-off") == []
        id_a = next(r for r in receiver.at("/a") if r.json()["event"] == "trends.daily.completed").json()[
            "id"
        ]
        id_b = receiver.at("/b")[0].json()["id"]
        assert id_a != id_b
        assert len(await read_log(a, hook_a["id"])) == 2
        assert len(await read_log(b, hook_b["id"])) == 1

    async def test_team_event_without_a_team_reaches_nobody(
        self, create_webhook: CreateWebhook, team: TeamKey, publish: Publish, read_log: ReadLog
    ) -> None:
        hook = await create_webhook(team)
        await publish(LOOKUP, team_id=None)
        assert await read_log(team, hook["id"]) == []
