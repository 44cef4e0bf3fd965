"""TikTok Research's daily request quota through the ledger (connectors reference §2.4, §10; issue 27
item 1): every research call counted before it is sent (token requests are not research calls), a spent
quota refusing until 00:00 UTC in every process, counters kept across a restart, background work held to
its share, and the quota shown in the collector status."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from reelscope.collectors import status
from reelscope.collectors.base import RateLimited
from reelscope.collectors.budget import background
from reelscope.collectors.ledger import Ledger
from reelscope.collectors.routing import Sources
from reelscope.kit.clock import ManualClock
from reelscope.kit.db import Database, create_database
from reelscope.kit.platforms import Platform
from tests.collectors.tiktok_research import payloads
from tests.collectors.tiktok_research.conftest import MakeConnector
from tests.collectors.tiktok_research.fake import FakeTikTok

pytestmark = pytest.mark.both_databases

TT = Platform.TIKTOK
NEXT_RESET = datetime(2026, 11, 22, tzinfo=UTC)  # 00:00 UTC after START (2026-11-21 12:00:30)


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Database]:
    database = create_database(database_url)
    yield database
    await database.dispose()


@pytest.fixture
def ledger(db: Database, clock: ManualClock) -> Ledger:
    return Ledger(db, clock)


@pytest.fixture
def videos(fake: FakeTikTok, clock: ManualClock) -> list[str]:
    fake.users["crumblab"] = payloads.USER_INFO["data"]
    return fake.add_videos(
        *(payloads.video(clock.now() - timedelta(minutes=10 * (n + 1)), n) for n in range(250))
    )


async def used(ledger: Ledger) -> tuple[int, int]:
    """(used, used in the background) of the requests bucket, as stored."""
    await ledger.flush()
    buckets, _sources = await ledger.rows()
    (row,) = [r for r in buckets if r.source == "tiktok_research"]
    assert row.bucket == "requests"
    return row.used, row.used_background


class TestCounting:
    async def test_every_page_is_counted_and_the_token_is_not(
        self,
        make_connector: MakeConnector,
        ledger: Ledger,
        fake: FakeTikTok,
        videos: list[str],
        clock: ManualClock,
    ) -> None:
        connector = make_connector(ledger)
        found = await connector.search_videos(
            TT, "sourdough", clock.now() - timedelta(days=2), clock.now(), limit=250
        )
        assert len(found) == 250
        assert len(fake.calls("oauth/token")) == 1
        assert await used(ledger) == (3, 0)  # pages of 100, 100, 50
        await connector.videos_stats(TT, videos[:150])
        assert await used(ledger) == (5, 0)  # 100 ids a call

    async def test_a_spent_quota_refuses_before_sending_until_midnight_utc(
        self,
        make_connector: MakeConnector,
        ledger: Ledger,
        fake: FakeTikTok,
        videos: list[str],
        clock: ManualClock,
    ) -> None:
        connector = make_connector(ledger, tiktok_daily_request_limit=2)
        await connector.creator(TT, "crumblab")
        await connector.creator(TT, "crumblab")
        with pytest.raises(RateLimited) as raised:
            await connector.creator(TT, "crumblab")
        assert raised.value.retry_at == NEXT_RESET
        assert len(fake.calls("user/info")) == 2
        clock.set(NEXT_RESET)  # a new day's quota
        await connector.creator(TT, "crumblab")
        assert await used(ledger) == (1, 0)

    async def test_the_vendors_quota_error_pauses_every_process_until_midnight_utc(
        self,
        make_connector: MakeConnector,
        ledger: Ledger,
        fake: FakeTikTok,
        videos: list[str],
        clock: ManualClock,
    ) -> None:
        fake.fail("user/info", 429, payloads.QUOTA_SPENT)
        with pytest.raises(RateLimited):
            await make_connector(ledger).creator(TT, "crumblab")
        other = make_connector(Ledger(ledger.db, clock))  # another job, another process's ledger
        for call in (other.videos_stats(TT, videos[:3]), other.comments(TT, videos[0]), other.check()):
            with pytest.raises(RateLimited) as raised:
                await call
            assert raised.value.retry_at == NEXT_RESET
        assert len(fake.calls("user/info")) == 1 and fake.calls("video/query") == []
        clock.set(NEXT_RESET)
        assert len(await other.videos_stats(TT, videos[:3])) == 3

    async def test_counters_survive_a_restart(
        self,
        make_connector: MakeConnector,
        ledger: Ledger,
        database_url: str,
        fake: FakeTikTok,
        videos: list[str],
        clock: ManualClock,
    ) -> None:
        await make_connector(ledger, tiktok_daily_request_limit=3).videos_stats(TT, videos[:200])  # 2 calls
        await ledger.flush()
        restarted = create_database(database_url)
        try:
            connector = make_connector(Ledger(restarted, clock), tiktok_daily_request_limit=3)
            await connector.creator(TT, "crumblab")
            with pytest.raises(RateLimited):
                await connector.creator(TT, "crumblab")
        finally:
            await restarted.dispose()
        assert len(fake.calls("user/info")) == 1

    async def test_background_work_keeps_to_its_share(
        self, make_connector: MakeConnector, ledger: Ledger, fake: FakeTikTok, videos: list[str]
    ) -> None:
        connector = make_connector(ledger, tiktok_daily_request_limit=10, tiktok_background_share=0.6)
        with background():
            for _ in range(6):
                await connector.creator(TT, "crumblab")
            with pytest.raises(RateLimited):
                await connector.creator(TT, "crumblab")
        for _ in range(4):
            await connector.creator(TT, "crumblab")
        with pytest.raises(RateLimited):
            await connector.creator(TT, "crumblab")
        assert await used(ledger) == (10, 6)


class TestStatus:
    async def test_the_status_shows_the_quota_and_a_missing_secret(
        self,
        make_connector: MakeConnector,
        ledger: Ledger,
        fake: FakeTikTok,
        videos: list[str],
        clock: ManualClock,
    ) -> None:
        await make_connector(ledger).creator(TT, "crumblab")
        await ledger.flush()
        (found,) = await status.status(Sources([make_connector(ledger)], ledger), clock.now())
        assert found.state == "ok"
        (bucket,) = found.buckets
        assert (bucket.name, bucket.daily_limit, bucket.used, bucket.left) == ("requests", 1000, 1, 999)
        assert bucket.resets_at == NEXT_RESET
        (missing,) = await status.status(
            Sources([make_connector(ledger, tiktok_client_secret=None)], ledger), clock.now()
        )
        assert missing.state == "unavailable"
        assert missing.reason is not None and "REELSCOPE_TIKTOK_CLIENT_SECRET" in missing.reason
