"""A fake GDELT and Google News behind ``httpx.MockTransport`` (connectors reference §7 payloads, dated
around the manual clock's start), and a sleep that moves the manual clock instead of waiting."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import httpx
import pytest

from reelscope.collectors.ledger import Ledger
from reelscope.collectors.news.client import Sleep
from reelscope.collectors.news.connector import NewsConnector, from_settings
from reelscope.config import Settings
from reelscope.kit.clock import ManualClock

GDELT_URL = "https://gdelt.test/api/v2/doc/doc"
RSS_URL = "https://news.test/rss"

# the clock starts 2026-11-21 12:00:30 UTC; these were seen that morning and the day before
GDELT_JSON = b"""{"articles": [
  {"url": "https://www.thegrocer.example/news/flour-prices", "url_mobile": "",
   "title": "Flour prices jump ahead of winter", "seendate": "20261121T093000Z",
   "socialimage": "https://www.thegrocer.example/img/flour.jpg", "domain": "thegrocer.example",
   "language": "English", "sourcecountry": "United Kingdom"},
  {"url": "https://bakers.example/sourdough-boom", "url_mobile": "", "title": "The sourdough boom goes on",
   "seendate": "20261120T180000Z", "socialimage": "", "domain": "bakers.example", "language": "English",
   "sourcecountry": "United States"}]}"""

RSS_XML = b"""<rss version="2.0"><channel><title>"sourdough" - Google News</title>
<link>https://news.google.com/search?q=sourdough</link>
<item><title>Flour prices jump ahead of winter - The Grocer</title>
<link>https://news.google.com/rss/articles/CBMiFlourExample?oc=5</link>
<guid isPermaLink="false">CBMiFlourExample</guid>
<pubDate>Sat, 21 Nov 2026 09:15:00 GMT</pubDate>
<description>&lt;a href="https://news.google.com/rss/articles/CBMiFlourExample?oc=5"&gt;Flour prices jump
ahead of winter&lt;/a&gt;&amp;nbsp;&amp;nbsp;&lt;font color="#6f6f6f"&gt;The Grocer&lt;/font&gt;</description>
<source url="https://www.thegrocer.example">The Grocer</source></item>
<item><title>Bread makers rush to hire - Daily Loaf</title>
<link>https://news.google.com/rss/articles/CBMiBreadExample?oc=5</link>
<guid isPermaLink="false">CBMiBreadExample</guid>
<pubDate>Sat, 21 Nov 2026 11:00:00 GMT</pubDate>
<description>Bakeries in three cities say sourdough orders doubled.</description>
<source url="https://dailyloaf.example">Daily Loaf</source></item>
</channel></rss>"""

THROTTLE = b"Please wait 5 seconds between requests.\n"
HTML_429 = b"<html><body>Our systems have detected unusual traffic</body></html>"

Answer = httpx.Response | Exception


@dataclass
class Upstream:
    """Queued answers per service (the last one repeats); every request is recorded."""

    gdelt: list[Answer] = field(default_factory=list)
    rss: list[Answer] = field(default_factory=list)
    requests: list[httpx.Request] = field(default_factory=list)

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        queue = self.gdelt if request.url.host == "gdelt.test" else self.rss
        answer = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(answer, Exception):
            raise answer
        return answer

    def to(self, host: str) -> list[httpx.Request]:
        return [r for r in self.requests if r.url.host == host]


def gdelt_json(body: bytes = GDELT_JSON, status: int = 200) -> httpx.Response:
    return httpx.Response(status, content=body, headers={"content-type": "application/json; charset=utf-8"})


def text(body: bytes, status: int, content_type: str = "text/plain", **headers: str) -> httpx.Response:
    return httpx.Response(status, content=body, headers={"content-type": content_type, **headers})


def rss_xml(body: bytes = RSS_XML) -> httpx.Response:
    return httpx.Response(200, content=body, headers={"content-type": "application/xml; charset=UTF-8"})


@pytest.fixture
def upstream() -> Upstream:
    return Upstream(gdelt=[gdelt_json()], rss=[rss_xml()])


@pytest.fixture
def sleeps(clock: ManualClock) -> list[float]:
    """The waits the connector asked for (the fake sleep below records them)."""
    return []


@pytest.fixture
def fake_sleep(clock: ManualClock, sleeps: list[float]) -> Sleep:
    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        clock.advance(timedelta(seconds=seconds))

    return sleep


@pytest.fixture
def news_settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", gdelt_base_url=GDELT_URL, news_rss_base_url=RSS_URL)


MakeNews = Callable[..., NewsConnector]


@pytest.fixture
def make_news(news_settings: Settings, clock: ManualClock, upstream: Upstream, fake_sleep: Sleep) -> MakeNews:
    """A news connector on the fake upstream; ``ledger`` None by default (no database)."""

    def make(ledger: Ledger | None = None, settings: Settings | None = None) -> NewsConnector:
        return from_settings(
            settings or news_settings,
            clock,
            ledger,
            transport=httpx.MockTransport(upstream.handle),
            sleep=fake_sleep,
        )

    return make


@pytest.fixture
def news(make_news: MakeNews) -> NewsConnector:
    return make_news()
