"""The ``wait_for_*`` helpers against the real app and job engine (§2.6, §3, §8.4): each polls a free
status read until the resource is finalized (or its status is terminal), sleeping what the resource
suggests. The injected sleep runs the queued jobs, so work advances exactly while the client waits."""

from __future__ import annotations

import asyncio

import pytest

from reelscope.client import AsyncReelscope, Reelscope, WaitTimeout
from reelscope.collectors.sandbox.creators import handle_of
from reelscope.config import Settings
from reelscope.kit.platforms import Platform
from tests.client.conftest import Sleeps

SEED = Settings().sandbox_seed


class TestLookups:
    async def test_a_creator_lookup_is_polled_every_retry_after_seconds_until_finalized(
        self, api: AsyncReelscope, sleeps: Sleeps
    ) -> None:
        started = await api.lookup_creator("tiktok", handle_of(SEED, Platform.TIKTOK, 123))
        assert started.data.status == "processing" and not started.data.finalized
        done = await api.wait_for_lookup(started.data)
        assert done.data.finalized and done.data.status == "completed"
        assert done.data.result is not None
        assert sleeps.seconds == [float(started.data.retry_after_seconds or 0)] == [15.0]  # §8.4
        assert done.meta.cost == 0  # polling is free

    async def test_a_wait_longer_than_max_wait_raises(self, api: AsyncReelscope, sleeps: Sleeps) -> None:
        started = await api.lookup_creator("tiktok", handle_of(SEED, Platform.TIKTOK, 124))
        with pytest.raises(WaitTimeout):
            await api.wait_for_lookup(started.data, max_wait=10)
        assert sleeps.seconds == []  # the first wait (15 s) would already pass the bound

    async def test_the_sync_client_waits_alike(self, sync_api: Reelscope) -> None:
        def lookup() -> str:
            started = sync_api.lookup_hashtag("tiktok", "baking")
            return sync_api.wait_for_lookup(started.data).data.status

        assert await asyncio.to_thread(lookup) == "completed"


class TestAgentsAndTracking:
    async def test_an_agent_run_is_waited_for_until_finalized(
        self, api: AsyncReelscope, sleeps: Sleeps
    ) -> None:
        created = await api.create_agent(keywords=["sourdough"], platforms=["tiktok"])
        assert created.data.run_id is not None
        run = await api.wait_for_agent_run(created.data.id, created.data.run_id)
        assert run.data.finalized and run.data.status in {"completed", "partial_failure"}
        assert sleeps.seconds and all(s > 0 for s in sleeps.seconds)
        slept = len(sleeps.seconds)
        agent = await api.wait_for_agent(created.data.id)
        assert agent.data.finalized
        assert len(sleeps.seconds) == slept  # already final: answered without a sleep

    async def test_a_deep_post_collection_is_waited_for(self, api: AsyncReelscope, sleeps: Sleeps) -> None:
        tracked = await api.create_tracked_creator(
            platform="tiktok", handle=handle_of(SEED, Platform.TIKTOK, 2)
        )
        collection = await api.collect_creator_posts(tracked.data.id, depth="deep")
        assert collection.meta.cost == 1  # §4.7: deep, 200 videos, $1.00
        done = await api.wait_for_post_collection(tracked.data.id, collection.data.collection_id)
        assert done.data.status == "completed"
        assert done.data.videos_collected
        assert sleeps.seconds == [15.0]
