"""The news source: GDELT DOC 2.0 and Google News RSS through httpx.MockTransport (issue 26 item 3;
connectors reference §7, §10)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from reelscope.collectors.base import Capability, Connector, RateLimited, Unavailable, UpstreamError
from reelscope.collectors.ledger import Ledger
from reelscope.collectors.news.client import GDELT, SOURCE
from reelscope.collectors.news.connector import NewsConnector
from reelscope.collectors.registry import build_sources
from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from reelscope.runtime import Runtime
from tests.collectors.news.conftest import (
    HTML_429,
    RSS_XML,
    THROTTLE,
    MakeNews,
    Upstream,
    gdelt_json,
    rss_xml,
    text,
)

KEYWORDS = ["sourdough", "flour prices"]


@pytest.fixture
def window(clock: ManualClock) -> tuple[datetime, datetime]:
    """The breaking scan's window: the last 48 hours."""
    return clock.now() - timedelta(hours=48), clock.now()


def article(n: int, seen: datetime) -> dict[str, str]:
    return {
        "url": f"https://site{n}.example/story-{n}",
        "title": f"Sourdough story {n}",
        "seendate": seen.strftime("%Y%m%dT%H%M%SZ"),
        "domain": f"site{n}.example",
    }


class TestAnswer:
    async def test_merges_both_sources_newest_first(
        self, news: NewsConnector, window: tuple[datetime, datetime], clock: ManualClock
    ) -> None:
        items = await news.news(KEYWORDS, *window)

        assert [i.title for i in items] == [
            "Bread makers rush to hire",
            "Flour prices jump ahead of winter",
            "The sourdough boom goes on",
        ]
        bread, flour, boom = items
        # the same article from both: the publisher's link (GDELT's), the earlier date (Google's)
        assert flour.url == "https://www.thegrocer.example/news/flour-prices"
        assert flour.published_at == datetime(2026, 11, 21, 9, 15, tzinfo=UTC)
        assert flour.domain == "thegrocer.example"
        # the query's keyword it names, then its headline's words (what the news scan groups by)
        assert flour.keywords == ("flour prices", "flour", "prices", "jump", "ahead", "winter")
        assert flour.summary is None  # Google's description only repeats the title and publisher
        assert bread.url == "https://news.google.com/rss/articles/CBMiBreadExample?oc=5"
        assert bread.domain == "dailyloaf.example"
        assert bread.summary == "Bakeries in three cities say sourdough orders doubled."
        assert bread.keywords == ("sourdough", "bread", "makers", "rush", "hire")
        assert boom.keywords == ("sourdough", "boom", "goes")
        assert {i.fetched_at for i in items} == {clock.now()}

    async def test_asks_gdelt_for_the_keywords_ored_and_quoted_in_the_window(
        self, news: NewsConnector, upstream: Upstream, window: tuple[datetime, datetime]
    ) -> None:
        await news.news(KEYWORDS, *window)

        (request,) = upstream.to("gdelt.test")
        assert request.url.path == "/api/v2/doc/doc"
        assert dict(request.url.params) == {
            "query": '("sourdough" OR "flour prices")',
            "mode": "artlist",
            "format": "json",
            "sort": "DateDesc",
            "maxrecords": "250",
            "startdatetime": "20261119120030",
            "enddatetime": "20261121120030",
        }

    async def test_one_keyword_is_one_quoted_phrase(
        self, news: NewsConnector, upstream: Upstream, window: tuple[datetime, datetime]
    ) -> None:
        await news.news(['sour"dough'], *window)

        assert upstream.to("gdelt.test")[0].url.params["query"] == '"sour dough"'

    async def test_asks_google_news_in_one_consistent_edition(
        self, news: NewsConnector, upstream: Upstream, window: tuple[datetime, datetime]
    ) -> None:
        await news.news(KEYWORDS, *window)

        (request,) = upstream.to("news.test")
        assert request.url.path == "/rss/search"
        assert dict(request.url.params) == {
            "q": '"sourdough" OR "flour prices" when:7d',
            "hl": "en-US",
            "gl": "US",
            "ceid": "US:en",
        }

    async def test_a_day_or_less_asks_for_the_last_day(
        self, news: NewsConnector, upstream: Upstream, clock: ManualClock
    ) -> None:
        await news.news(KEYWORDS, clock.now() - timedelta(hours=6), clock.now())

        assert upstream.to("news.test")[0].url.params["q"].endswith(" when:1d")

    @pytest.mark.parametrize(
        ("language", "country", "ceid"),
        [("de", "DE", "DE:de"), ("en-GB", "gb", "GB:en"), ("es-419", "MX", "MX:es-419")],
    )
    async def test_the_edition_follows_language_and_country(
        self,
        make_news: MakeNews,
        news_settings: Settings,
        upstream: Upstream,
        window: tuple[datetime, datetime],
        language: str,
        country: str,
        ceid: str,
    ) -> None:
        settings = news_settings.model_copy(update={"news_language": language, "news_country": country})

        await make_news(settings=settings).news(KEYWORDS, *window)

        params = upstream.to("news.test")[0].url.params
        assert (params["hl"], params["gl"], params["ceid"]) == (language, country.upper(), ceid)

    async def test_items_outside_the_window_are_left_out(
        self, news: NewsConnector, clock: ManualClock
    ) -> None:
        items = await news.news(KEYWORDS, clock.now() - timedelta(hours=3), clock.now())

        assert [i.title for i in items] == ["Bread makers rush to hire", "Flour prices jump ahead of winter"]

    async def test_an_item_naming_no_keyword_carries_them_all(
        self, news: NewsConnector, upstream: Upstream, window: tuple[datetime, datetime]
    ) -> None:
        strike = {**article(1, window[1] - timedelta(hours=1)), "title": "Bakers strike"}
        upstream.gdelt = [gdelt_json(json.dumps({"articles": [strike]}).encode())]

        items = await news.news(KEYWORDS, *window)

        strike = next(i for i in items if i.title == "Bakers strike")
        assert strike.keywords == ("sourdough", "flour prices", "bakers", "strike")

    async def test_no_keywords_asks_nothing(
        self, news: NewsConnector, upstream: Upstream, window: tuple[datetime, datetime]
    ) -> None:
        assert await news.news(["  ", '""'], *window) == []
        assert upstream.requests == []

    async def test_no_match_is_an_empty_answer(
        self, news: NewsConnector, upstream: Upstream, window: tuple[datetime, datetime]
    ) -> None:
        upstream.gdelt = [gdelt_json(b"{}")]
        upstream.rss = [rss_xml(b'<rss version="2.0"><channel><title>none</title></channel></rss>')]

        assert await news.news(KEYWORDS, *window) == []


class TestTypeDrift:
    async def test_unreadable_articles_and_entries_are_skipped(
        self, news: NewsConnector, upstream: Upstream, window: tuple[datetime, datetime]
    ) -> None:
        seen = window[1] - timedelta(hours=2)
        upstream.gdelt = [
            gdelt_json(
                json.dumps(
                    {
                        "articles": [
                            {**article(1, seen), "seendate": None},
                            {**article(2, seen), "title": ""},
                            {**article(3, seen), "url": 42},
                            "not an object",
                            {**article(4, seen), "seendate": seen.strftime("%Y%m%d%H%M%S")},
                            {**article(5, seen), "domain": None},
                        ]
                    }
                ).encode()
            )
        ]
        upstream.rss = [
            rss_xml(
                b'<rss version="2.0"><channel><title>t</title>'
                b"<item><title>Undated sourdough</title><link>https://news.google.com/rss/articles/x</link>"
                b"</item></channel></rss>"
            )
        ]

        items = await news.news(KEYWORDS, *window)

        assert sorted(i.url for i in items) == [
            "https://site4.example/story-4",
            "https://site5.example/story-5",
        ]
        assert next(i for i in items if i.url.endswith("story-5")).domain == "site5.example"

    async def test_control_characters_inside_gdelt_strings_are_read(
        self, news: NewsConnector, upstream: Upstream, window: tuple[datetime, datetime]
    ) -> None:
        seen = (window[1] - timedelta(hours=1)).strftime("%Y%m%dT%H%M%SZ")
        body = (
            '{"articles": [{"url": "https://a.example/1", "title": "Sourdough\tday", '
            f'"seendate": "{seen}", "domain": "a.example"}}]}}'
        )
        upstream.gdelt = [gdelt_json(body.encode())]

        items = await news.news(KEYWORDS, *window)

        assert "https://a.example/1" in [i.url for i in items]


class TestFailures:
    async def test_gdelt_throttling_on_200_leaves_the_google_answer(
        self, news: NewsConnector, upstream: Upstream, window: tuple[datetime, datetime]
    ) -> None:
        upstream.gdelt = [text(THROTTLE, 200)]

        items = await news.news(KEYWORDS, *window)

        assert [i.title for i in items] == ["Bread makers rush to hire", "Flour prices jump ahead of winter"]

    @pytest.mark.parametrize("status", [200, 429])
    async def test_both_failing_with_gdelt_throttled_is_rate_limited(
        self,
        news: NewsConnector,
        upstream: Upstream,
        window: tuple[datetime, datetime],
        clock: ManualClock,
        status: int,
    ) -> None:
        upstream.gdelt = [text(THROTTLE, status)]
        upstream.rss = [text(b"<html>down</html>", 503, "text/html")]

        with pytest.raises(RateLimited) as raised:
            await news.news(KEYWORDS, *window)

        assert raised.value.retry_at >= clock.now() + timedelta(seconds=5)

    async def test_google_429_is_rate_limited_until_retry_after(
        self, news: NewsConnector, upstream: Upstream, window: tuple[datetime, datetime], clock: ManualClock
    ) -> None:
        upstream.gdelt = [gdelt_json(b"oops", 500)]
        upstream.rss = [text(HTML_429, 429, "text/html", **{"retry-after": "1800"})]

        with pytest.raises(RateLimited) as raised:
            await news.news(KEYWORDS, *window)

        assert raised.value.retry_at == clock.now() + timedelta(seconds=1800)

    async def test_google_answering_html_is_a_retryable_failure(
        self, news: NewsConnector, upstream: Upstream, window: tuple[datetime, datetime]
    ) -> None:
        upstream.gdelt = [gdelt_json(b"oops", 502)]
        upstream.rss = [text(b"<html><body>consent</body></html>", 200, "text/html")]

        with pytest.raises(UpstreamError) as raised:
            await news.news(KEYWORDS, *window)

        assert raised.value.retryable
        assert "not a feed" in str(raised.value)

    async def test_a_redirect_is_not_followed(
        self, news: NewsConnector, upstream: Upstream, window: tuple[datetime, datetime]
    ) -> None:
        upstream.gdelt = [gdelt_json(b"oops", 503)]
        upstream.rss = [text(b"", 302, location="https://consent.google.com/ml")]

        with pytest.raises(UpstreamError):
            await news.news(KEYWORDS, *window)

        assert {r.url.host for r in upstream.requests} == {"gdelt.test", "news.test"}

    async def test_feedparser_is_handed_bytes_and_fetches_nothing(
        self, news: NewsConnector, upstream: Upstream, window: tuple[datetime, datetime]
    ) -> None:
        upstream.gdelt = [gdelt_json(b"oops", 503)]
        upstream.rss = [text(b"https://news.test/rss/elsewhere", 200)]

        with pytest.raises(UpstreamError):
            await news.news(KEYWORDS, *window)

        assert len(upstream.to("news.test")) == 1

    async def test_a_retryable_failure_speaks_over_a_permanent_one(
        self, news: NewsConnector, upstream: Upstream, window: tuple[datetime, datetime]
    ) -> None:
        upstream.gdelt = [gdelt_json(b"bad request", 400)]
        upstream.rss = [text(b"", 500)]

        with pytest.raises(UpstreamError) as raised:
            await news.news(KEYWORDS, *window)

        assert raised.value.retryable
        assert "gdelt" in str(raised.value) and "google news" in str(raised.value)

    async def test_a_refused_query_is_not_retryable_nor_a_throttle(
        self, news: NewsConnector, upstream: Upstream, window: tuple[datetime, datetime]
    ) -> None:
        upstream.gdelt = [text(b"The specified phrase is too short.", 200)]
        upstream.rss = [text(b"", 500)]

        with pytest.raises(UpstreamError) as raised:
            await news.news(["ab"], *window)

        assert raised.value.retryable  # Google's 500 is the more hopeful of the two

    async def test_timeouts_are_retryable(
        self, news: NewsConnector, upstream: Upstream, window: tuple[datetime, datetime]
    ) -> None:
        upstream.gdelt = [httpx.ReadTimeout("slow")]
        upstream.rss = [httpx.ConnectError("refused")]

        with pytest.raises(UpstreamError) as raised:
            await news.news(KEYWORDS, *window)

        assert raised.value.retryable
        assert "gdelt.test" not in str(raised.value)

    async def test_gdelt_json_of_another_shape_is_a_retryable_failure(
        self, news: NewsConnector, upstream: Upstream, window: tuple[datetime, datetime]
    ) -> None:
        upstream.gdelt = [gdelt_json(b'{"articles": {"url": "x"}}')]
        upstream.rss = [text(b"", 500)]

        with pytest.raises(UpstreamError) as raised:
            await news.news(KEYWORDS, *window)

        assert raised.value.retryable


class TestPaging:
    async def test_a_full_page_is_followed_by_the_window_before_its_oldest_article(
        self,
        news: NewsConnector,
        upstream: Upstream,
        window: tuple[datetime, datetime],
        clock: ManualClock,
    ) -> None:
        start = clock.now()
        full = [article(n, start - timedelta(minutes=n)) for n in range(1, 251)]
        older = [article(n, start - timedelta(hours=30, minutes=n)) for n in range(251, 261)]
        upstream.gdelt = [
            gdelt_json(json.dumps({"articles": full}).encode()),
            gdelt_json(json.dumps({"articles": older}).encode()),
        ]

        items = await news.news(["sourdough"], *window)

        first, second = upstream.to("gdelt.test")
        assert second.url.params["enddatetime"] == (start - timedelta(minutes=250)).strftime("%Y%m%d%H%M%S")
        assert second.url.params["startdatetime"] == first.url.params["startdatetime"]
        assert len([i for i in items if i.domain.startswith("site")]) == 260

    async def test_paging_stops_at_the_cap(
        self, news: NewsConnector, upstream: Upstream, window: tuple[datetime, datetime], clock: ManualClock
    ) -> None:
        pages = [
            gdelt_json(
                json.dumps(
                    {
                        "articles": [
                            article(p * 1000 + n, clock.now() - timedelta(hours=p + 1)) for n in range(250)
                        ]
                    }
                ).encode()
            )
            for p in range(5)
        ]
        upstream.gdelt = pages

        await news.news(["sourdough"], *window)

        assert len(upstream.to("gdelt.test")) == 2

    async def test_a_page_that_does_not_narrow_the_window_ends_paging(
        self, news: NewsConnector, upstream: Upstream, window: tuple[datetime, datetime], clock: ManualClock
    ) -> None:
        # GDELT has no cursor: the same 250 articles again would be an endless loop
        same = [article(n, clock.now() - timedelta(hours=1)) for n in range(250)]
        upstream.gdelt = [gdelt_json(json.dumps({"articles": same}).encode())]

        await news.news(["sourdough"], *window)

        assert len(upstream.to("gdelt.test")) == 2


class TestPoliteness:
    async def test_a_second_gdelt_request_waits_for_its_slot(
        self,
        news: NewsConnector,
        upstream: Upstream,
        window: tuple[datetime, datetime],
        sleeps: list[float],
    ) -> None:
        await news.news(KEYWORDS, *window)
        await news.news(["rye"], *window)

        assert sleeps == [6.0]
        assert len(upstream.to("gdelt.test")) == 2

    async def test_google_is_asked_for_a_feed_at_most_once_a_minute(
        self, news: NewsConnector, upstream: Upstream, window: tuple[datetime, datetime], clock: ManualClock
    ) -> None:
        await news.news(KEYWORDS, *window)
        first = await news.news(KEYWORDS, *window)
        clock.advance(timedelta(seconds=61))
        await news.news(KEYWORDS, clock.now() - timedelta(hours=48), clock.now())

        assert len(upstream.to("news.test")) == 2
        assert "Bread makers rush to hire" in [i.title for i in first]

    async def test_after_a_throttle_the_next_request_waits_it_out(
        self,
        news: NewsConnector,
        upstream: Upstream,
        window: tuple[datetime, datetime],
        sleeps: list[float],
    ) -> None:
        upstream.gdelt = [text(THROTTLE, 200), gdelt_json()]
        await news.news(KEYWORDS, *window)

        items = await news.news(["rye", "sourdough"], *window)

        assert sleeps == [10.0]
        assert "The sourdough boom goes on" in [i.title for i in items]


@pytest.mark.both_databases
class TestAcrossProcesses:
    async def test_gdelt_pacing_holds_for_another_process(
        self,
        make_news: MakeNews,
        runtime: Runtime,
        clock: ManualClock,
        upstream: Upstream,
        sleeps: list[float],
    ) -> None:
        one, other = make_news(Ledger(runtime.db, clock)), make_news(Ledger(runtime.db, clock))
        window = (clock.now() - timedelta(hours=48), clock.now())

        await one.news(KEYWORDS, *window)
        await other.news(KEYWORDS, *window)

        assert sleeps == [6.0]
        assert len(upstream.to("gdelt.test")) == 2

    async def test_a_long_gdelt_pause_is_not_waited_for(
        self,
        make_news: MakeNews,
        runtime: Runtime,
        clock: ManualClock,
        upstream: Upstream,
        sleeps: list[float],
    ) -> None:
        ledger = Ledger(runtime.db, clock)
        await ledger.pause(SOURCE, GDELT, clock.now() + timedelta(minutes=5), "throttled")

        items = await make_news(ledger).news(KEYWORDS, clock.now() - timedelta(hours=48), clock.now())

        assert sleeps == []
        assert upstream.to("gdelt.test") == []
        assert [i.title for i in items] == ["Bread makers rush to hire", "Flour prices jump ahead of winter"]

    async def test_gdelt_throttling_pauses_its_bucket_for_every_process(
        self, make_news: MakeNews, runtime: Runtime, clock: ManualClock, upstream: Upstream
    ) -> None:
        ledger = Ledger(runtime.db, clock)
        upstream.gdelt = [text(THROTTLE, 429), gdelt_json()]
        window = (clock.now() - timedelta(hours=48), clock.now())

        await make_news(ledger).news(KEYWORDS, *window)

        with pytest.raises(RateLimited) as raised:
            await ledger.spend(SOURCE, GDELT)
        assert raised.value.retry_at >= clock.now() + timedelta(seconds=5)

    async def test_google_throttling_stops_every_process_until_it_ends(
        self, make_news: MakeNews, runtime: Runtime, clock: ManualClock, upstream: Upstream
    ) -> None:
        upstream.rss = [text(HTML_429, 429, "text/html"), rss_xml(RSS_XML)]
        window = (clock.now() - timedelta(hours=48), clock.now())
        await make_news(Ledger(runtime.db, clock)).news(KEYWORDS, *window)

        clock.advance(timedelta(minutes=5))
        await make_news(Ledger(runtime.db, clock)).news(
            ["rye"], clock.now() - timedelta(hours=48), clock.now()
        )
        asked_while_paused = len(upstream.to("news.test"))
        clock.advance(timedelta(minutes=11))
        items = await make_news(Ledger(runtime.db, clock)).news(
            ["rye"], clock.now() - timedelta(hours=48), clock.now()
        )

        assert asked_while_paused == 1
        assert len(upstream.to("news.test")) == 2
        assert "Bread makers rush to hire" in [i.title for i in items]


class TestSource:
    def test_is_a_connector_offering_news_only(self, news: NewsConnector) -> None:
        assert isinstance(news, Connector)
        assert news.capabilities == {Capability.NEWS: frozenset()}
        assert news.platforms == frozenset()

    async def test_operations_it_lacks_are_unavailable(self, news: NewsConnector) -> None:
        with pytest.raises(Unavailable, match="news does not offer video"):
            await news.video(Platform.YOUTUBE, "Zt3kQ9vLm0A")

    async def test_check_asks_each_sub_source_once(self, news: NewsConnector, upstream: Upstream) -> None:
        await news.check()

        assert [r.url.host for r in upstream.requests] == ["news.test", "gdelt.test"]
        assert upstream.to("news.test")[0].url.path == "/rss"
        assert upstream.to("gdelt.test")[0].url.params["maxrecords"] == "1"

    async def test_check_reports_a_failure(self, news: NewsConnector, upstream: Upstream) -> None:
        upstream.gdelt = [text(THROTTLE, 200)]

        with pytest.raises(RateLimited):
            await news.check()

    async def test_the_registry_routes_news_to_it(
        self, news_settings: Settings, clock: ManualClock, upstream: Upstream
    ) -> None:
        settings = news_settings.model_copy(update={"connectors": "news,sandbox"})
        sources = build_sources(settings, clock, None, transport=httpx.MockTransport(upstream.handle))

        items = await sources.news(KEYWORDS, clock.now() - timedelta(hours=48), clock.now())

        assert [c.name for c in sources.offering(Capability.NEWS)] == ["news", "sandbox"]
        assert "Bread makers rush to hire" in [i.title for i in items]
