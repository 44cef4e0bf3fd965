"""Calls through ``reelscope.client`` against the real app: typed results, what each call cost (§8.2),
and errors as exceptions by ``code`` (§7)."""

from __future__ import annotations

import asyncio
from decimal import Decimal

import httpx
import pytest

from reelscope.client import (
    AsyncReelscope,
    AuthenticationFailed,
    InsufficientCredits,
    InvalidRequest,
    NoContent,
    NotFound,
    Reelscope,
)
from reelscope.client.models import VideoOut, WebhookEndpointOut
from tests.client.conftest import HOOK_URL
from tests.conftest import MakeTeam


class TestResults:
    async def test_a_paid_read_is_typed_and_says_what_it_cost(self, api: AsyncReelscope) -> None:
        digest = await api.get_videos_digest(limit=5)
        assert all(isinstance(video, VideoOut) for video in digest.data)
        assert digest.meta.status == 200
        assert digest.meta.cost == Decimal("0.25")  # §4.1
        assert digest.meta.credits_used == 25
        assert digest.meta.credits_remaining == 975
        assert digest.meta.balance_remaining == Decimal("9.75")
        assert digest.meta.request_id
        assert digest.meta.rate_limit is not None and digest.meta.rate_limit.limit == 50  # §8.1 per minute

    async def test_a_free_read_costs_nothing_and_has_no_remaining_credits(self, api: AsyncReelscope) -> None:
        balance = await api.get_account_balance()
        assert balance.meta.cost == Decimal("0.00")
        assert balance.meta.credits_remaining is None  # only on charged responses (§8.2)
        assert balance.data.credits_remaining == 1000

    async def test_the_webhook_endpoints_answer_plain_objects_and_arrays(self, api: AsyncReelscope) -> None:
        created = await api.create_webhook(url=HOOK_URL, enabled_events=["tracking.paused"])
        assert isinstance(created, WebhookEndpointOut)
        assert created.meta.status == 201
        listed = await api.list_webhooks()
        assert [endpoint.id for endpoint in listed] == [created.id]
        deleted = await api.delete_webhook(created.id)
        assert isinstance(deleted, NoContent)
        assert deleted.meta.status == 204
        assert (await api.get_webhook(created.id)).status == "inactive"  # §4.6: deleted ones stay listed

    async def test_the_sync_client_makes_the_same_calls(self, sync_api: Reelscope) -> None:
        digest = await asyncio.to_thread(sync_api.get_platform_videos_digest, "tiktok", limit=3)
        assert len(digest.data) <= 3
        assert all(video.type == "tiktok" for video in digest.data)
        assert digest.meta.cost == Decimal("0.25")


class TestErrors:
    async def test_a_bad_parameter_is_invalid_request_with_the_message_array(
        self, api: AsyncReelscope
    ) -> None:
        with pytest.raises(InvalidRequest) as raised:
            await api.get_videos_digest(limit=0)
        assert raised.value.status == 400
        assert raised.value.code == "validation_error"
        assert isinstance(raised.value.message, list)
        assert raised.value.request_id

    async def test_an_unknown_region_keeps_its_own_code(self, api: AsyncReelscope) -> None:
        with pytest.raises(InvalidRequest) as raised:
            await api.list_trends(region="atlantis")
        assert raised.value.code == "unknown_region"

    async def test_another_teams_resource_is_not_found(self, api: AsyncReelscope) -> None:
        with pytest.raises(NotFound) as raised:
            await api.get_agent("00000000-0000-0000-0000-000000000000")
        assert raised.value.code == "not_found"

    async def test_too_little_credit_is_insufficient_credits_with_the_amounts(
        self, transport: httpx.ASGITransport, make_team: MakeTeam
    ) -> None:
        poor = await make_team(credits=10)
        async with AsyncReelscope("http://testserver", poor.api_key, transport=transport) as client:
            with pytest.raises(InsufficientCredits) as raised:
                await client.get_videos_digest()
        assert raised.value.code == "insufficient_credits"
        assert raised.value.required_credits == 25
        assert raised.value.remaining_credits == 10

    async def test_a_wrong_key_is_authentication_failed(self, transport: httpx.ASGITransport) -> None:
        async with AsyncReelscope("http://testserver", "reelscope_tkn_nope", transport=transport) as client:
            with pytest.raises(AuthenticationFailed) as raised:
                await client.get_account_balance()
        assert raised.value.code == "invalid_api_key"
