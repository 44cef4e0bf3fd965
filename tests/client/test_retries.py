"""Retries exactly as §7 says, against the real app behind an ASGI wrapper that injects failures:
4xx terminal except 408 and 429 (``Retry-After`` honoured), 5xx with exponential backoff and jitter, and
one ``Idempotency-Key`` per call, reused on every retry, so a charge whose answer was lost is not charged
twice (ADR 0004)."""

from __future__ import annotations

import random

import httpx
import pytest

from reelscope.client import AsyncReelscope, InvalidRequest, RateLimited, RetryPolicy, ServiceUnavailable
from reelscope.collectors.sandbox.creators import handle_of
from reelscope.config import Settings
from reelscope.kit.platforms import Platform
from tests.client.conftest import Fault, Faults, Sleeps
from tests.conftest import TeamKey

HANDLE = handle_of(Settings().sandbox_seed, Platform.TIKTOK, 123)


class TestRetried:
    async def test_a_lost_answer_to_a_charge_is_retried_with_the_same_key_and_charged_once(
        self, api: AsyncReelscope, faults: Faults
    ) -> None:
        faults.plan = [Fault(503, after_app=True)]  # the app created and charged; the 201 was lost
        created = await api.create_tracked_creator(platform="tiktok", handle=HANDLE)
        assert created.meta.attempts == 2
        assert faults.keys[0] is not None and faults.keys == [faults.keys[0]] * 2
        assert created.meta.idempotency_key == faults.keys[0]
        assert created.meta.replayed  # the stored first answer, not a second creation
        balance = await api.get_account_balance()
        assert balance.data.credits_remaining == 1000 - 25  # §4.7 tracking creation, once
        assert len((await api.list_tracked_creators()).data) == 1

    async def test_each_call_has_its_own_key(self, api: AsyncReelscope, faults: Faults) -> None:
        await api.create_tracked_creator(platform="tiktok", handle=HANDLE)
        await api.create_tracked_creator(
            platform="tiktok", handle=handle_of(Settings().sandbox_seed, Platform.TIKTOK, 7)
        )
        assert len(set(faults.keys)) == 2

    async def test_a_read_carries_no_key_but_a_get_that_starts_paid_work_does(
        self, api: AsyncReelscope, faults: Faults
    ) -> None:
        await api.get_account_balance()
        job = await api.lookup_creator("tiktok", HANDLE)
        assert faults.keys[0] is None
        assert faults.keys[1] is not None and job.meta.idempotency_key == faults.keys[1]

    async def test_a_429_waits_what_retry_after_says(
        self, api: AsyncReelscope, faults: Faults, sleeps: Sleeps
    ) -> None:
        faults.plan = [Fault(429, headers={"Retry-After": "7"})]
        digest = await api.get_videos_digest(limit=1)
        assert sleeps.seconds == [7.0]
        assert digest.meta.attempts == 2

    async def test_a_408_is_retried(self, api: AsyncReelscope, faults: Faults, sleeps: Sleeps) -> None:
        faults.plan = [Fault(408)]
        assert (await api.get_account_balance()).meta.attempts == 2
        assert len(sleeps.seconds) == 1

    async def test_5xx_back_off_exponentially_with_jitter_then_raise(
        self, transport: httpx.ASGITransport, team: TeamKey, faults: Faults, sleeps: Sleeps
    ) -> None:
        faults.plan = [Fault(503)] * 4
        policy = RetryPolicy(max_retries=3, backoff_base=0.5, backoff_cap=30.0)
        async with AsyncReelscope(
            "http://testserver",
            team.api_key,
            transport=transport,
            retry_policy=policy,
            sleep=sleeps,
            rng=random.Random(4),
        ) as client:
            with pytest.raises(ServiceUnavailable) as raised:
                await client.get_account_balance()
        assert raised.value.code == "service_unavailable"
        assert len(faults.keys) == 4  # the first attempt and 3 retries
        for retry, delay in enumerate(sleeps.seconds):
            ceiling = 0.5 * 2**retry
            assert ceiling / 2 <= delay <= ceiling
        assert len(set(sleeps.seconds)) == 3


class TestNotRetried:
    async def test_a_400_is_final(self, api: AsyncReelscope, faults: Faults, sleeps: Sleeps) -> None:
        with pytest.raises(InvalidRequest):
            await api.get_videos_digest(limit=0)
        assert len(faults.keys) == 1
        assert sleeps.seconds == []

    async def test_a_429_asking_for_longer_than_the_client_sleeps_is_raised_at_once(
        self, api: AsyncReelscope, faults: Faults, sleeps: Sleeps
    ) -> None:
        faults.plan = [Fault(429, headers={"Retry-After": "3600"})]  # the hour window (§8.1)
        with pytest.raises(RateLimited) as raised:
            await api.get_videos_digest()
        assert raised.value.code == "rate_limit_exceeded"
        assert sleeps.seconds == []
