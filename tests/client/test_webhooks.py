"""The webhook receiver helper against deliveries as the server builds them (webhook/transport.py):
signature and shared header checked, gzip undone, duplicates dropped on ``id``, events handed over in
``created_at`` order (§6.1)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from reelscope.client import InvalidWebhook, WebhookReceiver
from reelscope.webhook.transport import DeliveryPolicy, Message, encode_body, new_secret, request_headers

SECRET = new_secret()
AT = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


async def delivery(
    delivery_id: str, created_at: datetime = AT, *, data_size: int = 10, custom: dict[str, str] | None = None
) -> tuple[dict[str, str], bytes]:
    """The headers and body the server sends for one attempt, signed at ``AT``."""
    message = Message(
        url="https://receiver.test/hook",
        custom_headers=custom or {},
        secret=SECRET,
        delivery_id=delivery_id,
        event_type="tracking.paused",
        event_created_at=created_at,
        data={"tracking_id": "t1", "note": "x" * data_size},
    )
    body = message.body()
    payload = await encode_body(body, DeliveryPolicy())
    return dict(request_headers(message, body, payload, AT)), payload.content


def receiver(**options: object) -> WebhookReceiver:
    return WebhookReceiver(secret=SECRET, clock=lambda: AT.timestamp(), **options)  # type: ignore[arg-type]


class TestVerify:
    async def test_a_signed_delivery_is_accepted(self) -> None:
        headers, body = await delivery("d1")
        event = receiver().verify(headers, body)
        assert (event.id, event.event, event.created_at) == ("d1", "tracking.paused", AT)
        assert event.data["tracking_id"] == "t1"

    async def test_a_gzipped_delivery_is_checked_over_its_uncompressed_body(self) -> None:
        headers, body = await delivery("d1", data_size=5000)
        assert headers["Content-Encoding"] == "gzip"  # §6.1: above 1 KB
        assert len(receiver().verify(headers, body).data["note"]) == 5000

    async def test_a_changed_body_is_refused(self) -> None:
        headers, body = await delivery("d1")
        with pytest.raises(InvalidWebhook):
            receiver().verify(headers, body.replace(b"t1", b"t2"))

    async def test_another_endpoints_secret_is_refused(self) -> None:
        headers, body = await delivery("d1")
        with pytest.raises(InvalidWebhook):
            WebhookReceiver(secret=new_secret(), clock=lambda: AT.timestamp()).verify(headers, body)

    async def test_an_old_signature_is_refused(self) -> None:
        headers, body = await delivery("d1")
        later = WebhookReceiver(secret=SECRET, clock=lambda: (AT + timedelta(minutes=10)).timestamp())
        with pytest.raises(InvalidWebhook):
            later.verify(headers, body)

    async def test_the_shared_header_of_section_5_6_can_be_required(self) -> None:
        headers, body = await delivery("d1", custom={"X-Shared": "s3cret"})
        assert receiver(shared_headers={"x-shared": "s3cret"}).verify(headers, body).id == "d1"
        with pytest.raises(InvalidWebhook):
            receiver(shared_headers={"X-Shared": "other"}).verify(headers, body)


class TestReceive:
    async def test_duplicates_are_dropped_and_events_come_out_oldest_first(self) -> None:
        hook = receiver()
        newer = await delivery("d2", AT + timedelta(seconds=5))
        older = await delivery("d1", AT)
        assert hook.receive(*newer) is not None
        assert hook.receive(*older) is not None
        assert hook.receive(*newer) is None  # a retry of the same delivery (§6.1)
        assert [event.id for event in hook.drain()] == ["d1", "d2"]
        assert hook.drain() == []
