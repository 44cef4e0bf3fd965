"""The ``iter_*`` methods over each pagination style of §8.3, against the real app: a ``pagination``
block, a cursor, offsets, pages shorter than the limit, and pages read until one is empty (with
repeats skipped)."""

from __future__ import annotations

from typing import Any

from reelscope.client import AsyncReelscope
from reelscope.client.pagination import PageStyle, iterate
from reelscope.collectors.sandbox.creators import handle_of
from reelscope.config import Settings
from reelscope.kit.platforms import Platform
from tests.client.conftest import HOOK_URL, Sleeps

SEED = Settings().sandbox_seed


class TestStyles:
    async def test_a_pagination_block_is_followed_by_has_next_page(self, api: AsyncReelscope) -> None:
        for index in (3, 4, 5):
            await api.create_tracked_creator(
                platform="tiktok", handle=handle_of(SEED, Platform.TIKTOK, index)
            )
        ids = [item.id async for item in api.iter_tracked_creators(limit=2)]
        assert len(ids) == len(set(ids)) == 3

    async def test_a_cursor_is_sent_back_until_null(self, api: AsyncReelscope) -> None:
        hook = await api.create_webhook(url=HOOK_URL, enabled_events=["tracking.paused"])
        for _ in range(3):
            await api.send_webhook_test(hook.id, event="tracking.paused")
        deliveries = [d.id async for d in api.iter_webhook_deliveries(hook.id, limit=2)]
        assert len(deliveries) == len(set(deliveries)) == 3

    async def test_offsets_advance_while_has_more(self, api: AsyncReelscope, sleeps: Sleeps) -> None:
        for index in (10, 11, 12):
            await api.lookup_creator("tiktok", handle_of(SEED, Platform.TIKTOK, index))
        runs = [run.run_id async for run in api.iter_satellite_runs(limit=2)]
        assert len(runs) == len(set(runs)) == 3

    async def test_short_pages_end_the_agent_list(self, api: AsyncReelscope) -> None:
        for name in ("a", "b", "c"):
            await api.create_agent(name=name, keywords=[name + "bread"], is_recurring=True, cadence="weekly")
        names = [agent.name async for agent in api.iter_agents(limit=2)]
        assert sorted(names) == ["a", "b", "c"]

    async def test_an_agents_videos_are_read_until_an_empty_page(
        self, api: AsyncReelscope, sleeps: Sleeps
    ) -> None:
        created = await api.create_agent(keywords=["sourdough"], platforms=["tiktok"])
        await api.wait_for_agent(created.data.id)
        first = await api.list_agent_videos(created.data.id, limit=100, platforms=["tiktok"])
        everything = [
            v["id"] async for v in api.iter_agent_videos(created.data.id, limit=30, platforms=["tiktok"])
        ]
        assert len(everything) == len(set(everything)) == first.data.total > 30


class TestRepeats:
    def test_ids_seen_on_an_earlier_page_are_skipped_where_pages_can_repeat(self) -> None:
        pages = {1: ["a", "b"], 2: ["b", "c"], 3: []}  # §8.3: items can repeat across pages

        def fetch(page: int = 1) -> Any:
            return _Body(_Data(page=page, limit=2, videos=[{"id": i} for i in pages[page]]))

        assert [v["id"] for v in iterate(fetch, PageStyle("empty_page", "videos"))] == ["a", "b", "c"]

    def test_creator_outliers_are_told_apart_by_creator_id(self) -> None:
        pages = {1: ["x", "y"], 2: ["y"], 3: []}

        def fetch(page: int = 1) -> Any:
            return _Body(_Data(page=page, limit=2, creators=[{"creator_id": i} for i in pages[page]]))

        found = [c["creator_id"] for c in iterate(fetch, PageStyle("empty_page", "creators"))]
        assert found == ["x", "y"]


class _Data:
    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)


class _Body:
    def __init__(self, data: _Data) -> None:
        self.data = data
