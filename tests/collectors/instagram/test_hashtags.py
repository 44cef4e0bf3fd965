"""Instagram's 30 unique hashtags per rolling 7 days, kept in the database (connectors reference §3.4;
issue 27 item 2; ADR 0045): a place taken by a hashtag's first search and held 7 days, repeats free and
not restarting them, a 31st hashtag refused until the earliest place frees, places given back when the
search surely did not happen, Meta's own count merged in, one budget for every process, and the places
shown in the collector status."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest

from reelscope.collectors import status
from reelscope.collectors.base import NotFound, RateLimited
from reelscope.collectors.instagram import InstagramConnector
from reelscope.collectors.instagram.hashtags import HashtagBudget
from reelscope.collectors.ledger import Ledger
from reelscope.collectors.routing import Sources
from reelscope.kit.clock import ManualClock
from reelscope.kit.db import Database, create_database
from reelscope.kit.platforms import Platform
from tests.collectors.instagram import payloads
from tests.collectors.instagram.conftest import MakeConnector
from tests.collectors.instagram.fake import FakeInstagram

pytestmark = pytest.mark.both_databases

IG = Platform.INSTAGRAM
WEEK = timedelta(days=7)


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Database]:
    database = create_database(database_url)
    yield database
    await database.dispose()


@pytest.fixture
def ledger(db: Database, clock: ManualClock) -> Ledger:
    return Ledger(db, clock)


@pytest.fixture
def tags(fake: FakeInstagram, clock: ManualClock) -> list[str]:
    """40 hashtags, each with one Reel."""
    names = [f"bread{n:02d}" for n in range(40)]
    for n, name in enumerate(names):
        fake.add_hashtag(name, [payloads.media(n, clock.now() - timedelta(hours=1))])
    return names


@pytest.fixture
def connector(make_connector: MakeConnector, ledger: Ledger) -> InstagramConnector:
    return make_connector(ledger)


async def search(connector: InstagramConnector, tag: str) -> int:
    return len(await connector.hashtag_videos(IG, tag))


class TestPlaces:
    async def test_thirty_hashtags_then_refused_until_the_first_frees(
        self, connector: InstagramConnector, fake: FakeInstagram, tags: list[str], clock: ManualClock
    ) -> None:
        first_at = clock.now()
        for n, tag in enumerate(tags[:30]):
            assert await search(connector, tag) == 1
            clock.advance(timedelta(minutes=10 if n else 60))
        with pytest.raises(RateLimited) as raised:
            await search(connector, tags[30])
        assert raised.value.retry_at == first_at + WEEK
        assert "30 unique hashtags" in str(raised.value)
        assert len(fake.calls("hashtag_search")) == 30  # the 31st was never asked
        clock.set(first_at + WEEK)
        assert await search(connector, tags[30]) == 1

    async def test_a_repeat_is_free_needs_no_search_and_keeps_its_seven_days(
        self,
        make_connector: MakeConnector,
        ledger: Ledger,
        fake: FakeInstagram,
        tags: list[str],
        clock: ManualClock,
    ) -> None:
        connector = make_connector(ledger)
        for tag in tags[:30]:
            await search(connector, tag)
        clock.advance(timedelta(days=3))
        later = make_connector(ledger)  # another job: the budget is in the database
        assert await search(later, tags[0]) == 1
        assert len(fake.calls("hashtag_search")) == 30  # its id was kept: no search at all
        clock.advance(timedelta(days=4))  # 7 days after the first search, not after the repeat
        assert await search(later, tags[30]) == 1

    async def test_an_expired_place_is_taken_anew(
        self,
        connector: InstagramConnector,
        ledger: Ledger,
        fake: FakeInstagram,
        tags: list[str],
        clock: ManualClock,
    ) -> None:
        await search(connector, tags[0])
        clock.advance(WEEK)
        await search(connector, tags[0])
        usage = await HashtagBudget(ledger.db, clock, payloads.ACCOUNT).usage()
        assert usage is not None and (usage.used, usage.frees_at) == (1, clock.now() + WEEK)

    async def test_a_throttled_search_gives_its_place_back(
        self,
        connector: InstagramConnector,
        ledger: Ledger,
        fake: FakeInstagram,
        tags: list[str],
        clock: ManualClock,
    ) -> None:
        fake.fail("hashtag_search", 400, payloads.THROTTLED)
        with pytest.raises(RateLimited):
            await search(connector, tags[0])
        usage = await HashtagBudget(ledger.db, clock, payloads.ACCOUNT).usage()
        assert usage is not None and usage.used == 0

    async def test_a_hashtag_instagram_answered_keeps_its_place_found_or_not(
        self, connector: InstagramConnector, ledger: Ledger, clock: ManualClock
    ) -> None:
        with pytest.raises(NotFound):
            await search(connector, "nosuchtag")
        usage = await HashtagBudget(ledger.db, clock, payloads.ACCOUNT).usage()
        assert usage is not None and usage.used == 1

    async def test_two_workers_never_both_take_the_thirtieth(
        self, ledger: Ledger, database_url: str, clock: ManualClock
    ) -> None:
        budget = HashtagBudget(ledger.db, clock, payloads.ACCOUNT)
        for n in range(29):
            await budget.take(f"tag{n}")
        other = create_database(database_url)
        try:
            outcomes = await asyncio.gather(
                budget.take("left"),
                HashtagBudget(other, clock, payloads.ACCOUNT).take("right"),
                return_exceptions=True,
            )
        finally:
            await other.dispose()
        assert sorted(type(o).__name__ for o in outcomes) == ["Place", "RateLimited"]

    async def test_accounts_have_budgets_of_their_own(self, ledger: Ledger, clock: ManualClock) -> None:
        ours, theirs = (HashtagBudget(ledger.db, clock, a) for a in (payloads.ACCOUNT, "17841400000000002"))
        for n in range(30):
            await ours.take(f"tag{n}")
        await theirs.take("tag0")
        with pytest.raises(RateLimited):
            await ours.take("tag30")


class TestReconcile:
    async def test_meta_s_count_is_merged_before_a_new_hashtag_takes_a_place(
        self, connector: InstagramConnector, fake: FakeInstagram, tags: list[str], clock: ManualClock
    ) -> None:
        fake.recently_searched = [
            {"id": str(17849000000000000 + n), "name": f"Elsewhere{n}"} for n in range(28)
        ]
        fake.recently_searched.append({"id": "17849999999999999"})  # named by its id only
        assert await search(connector, tags[0]) == 1  # the 30th place
        with pytest.raises(RateLimited):
            await search(connector, tags[1])
        assert len(fake.calls("recent")) == 1  # once per connector
        assert fake.calls("recent")[0].url.path == f"/v25.0/{payloads.ACCOUNT}/recently_searched_hashtags"

    async def test_a_failing_reconciliation_does_not_fail_the_search(
        self, connector: InstagramConnector, fake: FakeInstagram, tags: list[str]
    ) -> None:
        fake.fail("recent", 500, payloads.error(1))
        assert await search(connector, tags[0]) == 1


class TestStatus:
    async def test_the_places_show_in_the_collector_status(
        self, connector: InstagramConnector, ledger: Ledger, tags: list[str], clock: ManualClock
    ) -> None:
        first_at = clock.now()
        for tag in tags[:3]:
            await search(connector, tag)
            clock.advance(timedelta(hours=1))
        await ledger.flush()
        (found,) = await status.status(Sources([connector], ledger), clock.now())
        assert found.state == "ok"
        buckets = {b.name: b for b in found.buckets}
        hashtags = buckets["hashtags_7d"]
        assert (hashtags.daily_limit, hashtags.used, hashtags.left) == (30, 3, 27)
        assert hashtags.resets_at == first_at + WEEK
        assert buckets["calls"].used == 7  # 3 searches, 3 edges, 1 reconciliation

    async def test_all_places_held_shows_rate_limited(
        self, connector: InstagramConnector, ledger: Ledger, clock: ManualClock
    ) -> None:
        budget = HashtagBudget(ledger.db, clock, payloads.ACCOUNT)
        for n in range(30):
            await budget.take(f"tag{n}")
        (found,) = await status.status(Sources([connector], ledger), clock.now())
        assert found.state == "rate_limited" and found.state_until == clock.now() + WEEK
