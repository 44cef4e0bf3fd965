"""The Meta Ad Library connector against the fake library (connectors reference §4; issue 27 item 3):
the query it sends, string bounds and both date formats coerced, the token in ``ad_snapshot_url`` never
stored or logged, paging and its caps, identity confirmation and throttling as typed errors, and the
throttle shared through the ledger (both databases)."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from reelscope.collectors.base import Capability, RateLimited, Unavailable, UpstreamError
from reelscope.collectors.ledger import Ledger
from reelscope.collectors.meta_ads import MetaAdsConnector
from reelscope.collectors.meta_ads.client import countries
from reelscope.collectors.meta_ads.connector import PAGES
from reelscope.kit.clock import ManualClock
from reelscope.kit.db import Database, create_database
from tests.collectors.meta_ads import payloads
from tests.collectors.meta_ads.conftest import MakeConnector
from tests.collectors.meta_ads.fake import TOKEN, FakeAdLibrary


class TestAds:
    async def test_the_reference_fixture(
        self, connector: MetaAdsConnector, fake: FakeAdLibrary, caplog: pytest.LogCaptureFixture
    ) -> None:
        caplog.set_level(logging.DEBUG)
        fake.fail(200, payloads.ADS)
        fake.fail(200, {"data": []})
        first, second = await connector.ads("sourdough bakery")
        assert (first.external_id, first.page_id, first.page_name) == (
            "902114477553311",
            "104400998877665",
            "Crumb Lab",
        )
        assert first.bodies == (
            "Fresh sourdough delivered by 8am. #sourdough",
            "Crumb Lab Bakery",
            "crumblab.example",
        )
        assert first.start_date == datetime(2026, 10, 1, tzinfo=UTC) and first.stop_date is None
        assert first.publisher_platforms == ("facebook", "instagram") and first.languages == ("en",)
        assert first.reach == 84210 and first.impressions is None and first.spend is None
        assert first.keyword == "sourdough bakery"
        assert second.start_date == datetime(2026, 9, 28, 10, 15, tzinfo=UTC)
        assert second.stop_date == datetime(2026, 10, 3, 23, 59, tzinfo=UTC)
        assert (second.impressions, second.spend, second.currency) == ((10000, 14999), (200, 299), "EUR")
        # the snapshot link is rebuilt: the vendor's carries the access token
        assert first.snapshot_url == "https://www.facebook.com/ads/library/?id=902114477553311"
        assert "access_token" not in repr([first, second]) and "access_token=REDACTED" not in caplog.text

    async def test_the_query(self, connector: MetaAdsConnector, fake: FakeAdLibrary) -> None:
        fake.ads = [payloads.ad(n) for n in range(3)]
        assert len(await connector.ads("  Fresh   sourdough ")) == 3
        (call,) = fake.requests
        assert call.url.path == "/v25.0/ads_archive"
        params = dict(call.url.params)
        assert params.pop("access_token") == TOKEN
        fields = params.pop("fields").split(",")
        assert params == {
            "search_terms": "Fresh sourdough",
            "ad_reached_countries": '["ALL"]',
            "ad_type": "ALL",
            "ad_active_status": "ALL",
            "limit": "50",
        }
        assert "ad_snapshot_url" not in fields
        assert {"id", "ad_creative_bodies", "ad_delivery_start_time", "impressions", "spend"} <= set(fields)

    async def test_countries_are_a_setting(self, make_connector: MakeConnector, fake: FakeAdLibrary) -> None:
        await make_connector(meta_ads_countries="gb, de,FR").ads("bread")
        assert json.loads(fake.requests[0].url.params["ad_reached_countries"]) == ["GB", "DE", "FR"]

    @pytest.mark.parametrize(("setting", "sent"), [("", ["ALL"]), ("ALL", ["ALL"]), ("GB,Germany", ["ALL"])])
    def test_unreadable_countries_search_everywhere(self, setting: str, sent: list[str]) -> None:
        assert countries(setting) == sent

    async def test_pages_follow_the_after_cursor_up_to_the_cap(
        self, connector: MetaAdsConnector, fake: FakeAdLibrary
    ) -> None:
        fake.ads = [payloads.ad(n) for n in range(500)]
        found = await connector.ads("sourdough", limit=500)
        assert len(found) == PAGES * 50 and len({a.external_id for a in found}) == PAGES * 50
        afters = [r.url.params.get("after") for r in fake.requests]
        assert afters == [None, "c50", "c100", "c150"]

    async def test_a_repeated_page_ends_the_walk(
        self, connector: MetaAdsConnector, fake: FakeAdLibrary
    ) -> None:
        page = {"data": [payloads.ad(1)], "paging": {"cursors": {"after": "AAA"}}}
        fake.fail(200, page)
        fake.fail(200, page | {"paging": {"cursors": {"after": "BBB"}}})
        assert len(await connector.ads("sourdough", limit=200)) == 1
        assert len(fake.requests) == 2

    @pytest.mark.parametrize(
        ("drift", "expected"),
        [
            ({"ad_delivery_start_time": None}, datetime(2026, 11, 1, tzinfo=UTC)),
            ({"ad_delivery_start_time": "2026-11-02T08:00:00+0000"}, datetime(2026, 11, 2, 8, tzinfo=UTC)),
            (
                {"ad_delivery_start_time": "garbage", "ad_creation_time": "2026-10-30"},
                datetime(2026, 10, 30, tzinfo=UTC),
            ),
        ],
    )
    async def test_either_date_format_and_the_creation_time_fallback(
        self, connector: MetaAdsConnector, fake: FakeAdLibrary, drift: dict[str, object], expected: datetime
    ) -> None:
        fake.fail(200, {"data": [payloads.ad(1) | drift]})
        (found,) = await connector.ads("sourdough")
        assert found.start_date == expected

    async def test_open_and_odd_bounds(self, connector: MetaAdsConnector, fake: FakeAdLibrary) -> None:
        odd = payloads.ad(1) | {
            "impressions": {"lower_bound": "1000000"},
            "spend": {"lower_bound": "not a number", "upper_bound": "99"},
            "eu_total_reach": "84210",
        }
        fake.fail(200, {"data": [odd]})
        (found,) = await connector.ads("sourdough")
        assert (found.impressions, found.spend, found.reach) == ((1_000_000, None), None, 84210)

    async def test_an_ad_without_id_or_dates_is_skipped(
        self, connector: MetaAdsConnector, fake: FakeAdLibrary
    ) -> None:
        broken = [
            payloads.ad(1) | {"id": None},
            payloads.ad(2) | {"ad_delivery_start_time": None, "ad_creation_time": None},
        ]
        fake.fail(200, {"data": [*broken, payloads.ad(3)]})
        assert [a.external_id for a in await connector.ads("sourdough")] == ["902114477550003"]


class TestErrors:
    async def test_identity_confirmation_missing_is_unavailable_saying_so(
        self, connector: MetaAdsConnector, fake: FakeAdLibrary
    ) -> None:
        fake.fail(400, payloads.IDENTITY)
        with pytest.raises(Unavailable, match="identity confirmation"):
            await connector.ads("sourdough")

    async def test_an_expired_token_is_unavailable(
        self, connector: MetaAdsConnector, fake: FakeAdLibrary
    ) -> None:
        fake.fail(
            400,
            {"error": {"message": "expired", "type": "OAuthException", "code": 190, "error_subcode": 463}},
        )
        with pytest.raises(Unavailable, match="REELSCOPE_META_ACCESS_TOKEN"):
            await connector.ads("sourdough")

    async def test_throttling_is_rate_limited(
        self, connector: MetaAdsConnector, fake: FakeAdLibrary, clock: ManualClock
    ) -> None:
        fake.fail(400, payloads.THROTTLED)
        with pytest.raises(RateLimited) as raised:
            await connector.ads("sourdough")
        assert raised.value.retry_at == clock.now() + timedelta(minutes=10)

    async def test_a_transient_fault_is_retryable(
        self, connector: MetaAdsConnector, fake: FakeAdLibrary
    ) -> None:
        fake.fail(500, {"error": {"message": "An unknown error occurred", "code": 1}})
        with pytest.raises(UpstreamError) as raised:
            await connector.ads("sourdough")
        assert raised.value.retryable

    async def test_no_token_is_unavailable_and_nothing_is_sent(
        self, make_connector: MakeConnector, fake: FakeAdLibrary
    ) -> None:
        connector = make_connector(meta_access_token=None)
        assert (
            connector.unavailable_reason is not None
            and "REELSCOPE_META_ACCESS_TOKEN" in connector.unavailable_reason
        )
        for call in (connector.ads("sourdough"), connector.check()):
            with pytest.raises(Unavailable, match="REELSCOPE_META_ACCESS_TOKEN"):
                await call
        assert fake.requests == []

    async def test_the_token_reaches_no_log(
        self, connector: MetaAdsConnector, fake: FakeAdLibrary, caplog: pytest.LogCaptureFixture
    ) -> None:
        caplog.set_level(logging.DEBUG)
        fake.ads = [payloads.ad(n) for n in range(120)]  # its paging.next links carry the token
        await connector.ads("sourdough", limit=120)
        fake.fail(400, payloads.IDENTITY)
        with pytest.raises(Unavailable) as raised:
            await connector.ads("sourdough")
        assert any("access_token=***" in r.getMessage() for r in caplog.records)
        assert TOKEN not in caplog.text and TOKEN not in str(raised.value)


class TestDeclarations:
    def test_ads_and_nothing_else(self, connector: MetaAdsConnector) -> None:
        assert connector.name == "meta_ads"
        assert connector.capabilities == {Capability.ADS: frozenset()}
        assert connector.platforms == frozenset()

    async def test_check_is_one_small_call(self, connector: MetaAdsConnector, fake: FakeAdLibrary) -> None:
        await connector.check()
        (call,) = fake.requests
        assert call.url.params["limit"] == "1"


@pytest.mark.both_databases
class TestThrottleShared:
    @pytest.fixture
    async def db(self, database_url: str) -> AsyncIterator[Database]:
        database = create_database(database_url)
        yield database
        await database.dispose()

    async def test_a_throttle_pauses_every_process_and_calls_are_counted(
        self, make_connector: MakeConnector, db: Database, fake: FakeAdLibrary, clock: ManualClock
    ) -> None:
        ledger = Ledger(db, clock)
        fake.ads = [payloads.ad(n) for n in range(3)]
        await make_connector(ledger).ads("sourdough")
        fake.fail(400, payloads.THROTTLED)
        with pytest.raises(RateLimited):
            await make_connector(ledger).ads("sourdough")
        other = make_connector(Ledger(db, clock))
        with pytest.raises(RateLimited) as raised:
            await other.ads("sourdough")
        assert raised.value.retry_at == clock.now() + timedelta(minutes=10)
        assert len(fake.requests) == 2
        clock.advance(timedelta(minutes=10))
        assert len(await other.ads("sourdough")) == 3
        await ledger.flush()
        buckets, _ = await ledger.rows()
        (calls,) = [b for b in buckets if b.source == "meta_ads"]
        assert (calls.bucket, calls.used) == ("calls", 3)

    async def test_usage_near_the_limit_pauses_before_meta_refuses(
        self, make_connector: MakeConnector, db: Database, fake: FakeAdLibrary, clock: ManualClock
    ) -> None:
        ledger = Ledger(db, clock)
        usage = {"123": [{"type": "ads_archive", "call_count": 96, "total_cputime": 10, "total_time": 10,
                          "estimated_time_to_regain_access": 15}]}  # fmt: skip
        fake.fail(200, {"data": [payloads.ad(1)]}, headers={"X-Business-Use-Case-Usage": json.dumps(usage)})
        assert len(await make_connector(ledger).ads("sourdough")) == 1  # this answer is kept
        with pytest.raises(RateLimited) as raised:
            await make_connector(ledger).ads("sourdough")
        assert raised.value.retry_at == clock.now() + timedelta(minutes=15)
        assert len(fake.requests) == 1
