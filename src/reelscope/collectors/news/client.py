"""HTTP to GDELT DOC 2.0 and Google News RSS, their failures as typed errors (connectors reference §7, §10).

Neither needs a key; both ask for politeness, kept across processes through the ledger (source ``news``):

- **GDELT** takes one request per 5 s from an address. Its bucket has a ``min_interval`` of 6 s (a second
  of margin for clocks and the network), so each request holds it in every process; a call whose slot is
  taken waits for it, up to ``GDELT_MAX_WAIT`` in all, else gives up with ``RateLimited``. Throttled, GDELT
  answers with a line of plain text, on HTTP 429 or on 200: a body is parsed only once it proves to be
  JSON, and the text reply pauses the bucket (``RateLimited``, ``GDELT_THROTTLED``). There is no cursor:
  a full page (250 articles) is followed by the window before its oldest article, up to ``GDELT_PAGES``.
- **Google News RSS**: a feed is read at most once a minute; within a minute the same feed is answered
  from the last reading (per connector: a job builds its own). HTTP 429 pauses the ``rss`` bucket until
  ``Retry-After`` (or ``RSS_BACKOFF``); any other non-2xx, or a body that is not a feed, is a retryable
  ``UpstreamError``. The bytes are parsed by feedparser, which never fetches anything itself.
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any

import feedparser
import httpx

from reelscope.collectors import tls
from reelscope.collectors.base import ConnectorError, RateLimited, UpstreamError
from reelscope.collectors.budget import Bucket
from reelscope.collectors.ledger import Ledger
from reelscope.kit.clock import Clock, as_utc
from reelscope.kit.logging import get_logger

log = get_logger(__name__)

SOURCE = "news"
GDELT = Bucket("gdelt", min_interval=timedelta(seconds=6))
RSS = Bucket("rss")
GDELT_MAX_WAIT = timedelta(seconds=15)
GDELT_THROTTLED = timedelta(seconds=10)
GDELT_MAX_RECORDS = 250
GDELT_PAGES = 2
# GDELT DOC searches the last three months; an older start is an error there
GDELT_REACH = timedelta(days=89)
GDELT_TIME = "%Y%m%d%H%M%S"
RSS_EVERY = timedelta(minutes=1)
RSS_BACKOFF = timedelta(minutes=15)
RSS_MAX_BACKOFF = timedelta(hours=6)
USER_AGENT = "Mozilla/5.0 (compatible; Reelscope)"

Sleep = Callable[[float], Awaitable[None]]


def http_client(timeout: float, transport: httpx.AsyncBaseTransport | None) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        timeout=timeout,
        transport=transport,
        follow_redirects=False,
        headers={"User-Agent": USER_AGENT},
        verify=tls.context(),
    )


async def get(
    what: str, url: str, params: dict[str, str], seconds: float, transport: httpx.AsyncBaseTransport | None
) -> httpx.Response:
    """One GET taking at most ``seconds`` per phase; a timeout or a broken connection is a retryable
    ``UpstreamError`` naming ``what`` (never the URL)."""
    try:
        async with http_client(seconds, transport) as http:
            return await http.get(url, params=params)
    except httpx.TimeoutException:
        raise UpstreamError(f"{what}: timed out", retryable=True) from None
    except httpx.HTTPError as exc:
        raise UpstreamError(f"{what}: {type(exc).__name__}", retryable=True) from None


def any_of(keywords: Sequence[str]) -> str:
    """``"a" OR "b"``: each keyword a quoted phrase (``clean_keywords`` took the quotes out of them)."""
    return " OR ".join(f'"{k}"' for k in keywords)


def gdelt_query(keywords: Sequence[str]) -> str:
    """``"a"`` or ``("a" OR "b")``: GDELT wants OR'ed terms in parentheses."""
    return any_of(keywords) if len(keywords) == 1 else f"({any_of(keywords)})"


class Gdelt:
    """GDELT DOC 2.0 ``artlist`` searches, paced (see the module's doc)."""

    def __init__(
        self,
        base_url: str,
        *,
        clock: Clock,
        ledger: Ledger | None,
        timeout: float,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.base_url, self.clock, self.ledger = base_url, clock, ledger
        self.timeout, self.transport, self.sleep = timeout, transport, sleep
        self._slot_lock = asyncio.Lock()
        self._next_slot: datetime | None = None  # without a ledger: this process's pacing

    async def articles(self, keywords: Sequence[str], since: datetime, until: datetime) -> list[Any]:
        """Articles mentioning any keyword seen in [since, until), newest first (raw JSON objects)."""
        now = self.clock.now()
        since, until = max(since, now - GDELT_REACH), min(until, now)
        if since >= until:
            return []
        found: list[Any] = []
        seen: set[str] = set()
        end = until
        for page in range(1, GDELT_PAGES + 1):
            batch = await self._search(
                {
                    "query": gdelt_query(keywords),
                    "mode": "artlist",
                    "format": "json",
                    "sort": "DateDesc",
                    "maxrecords": str(GDELT_MAX_RECORDS),
                    "startdatetime": since.strftime(GDELT_TIME),
                    "enddatetime": end.strftime(GDELT_TIME),
                }
            )
            fresh = [a for a in batch if isinstance(a, dict) and a.get("url") not in seen]
            seen.update(str(a.get("url")) for a in fresh)
            found.extend(fresh)
            oldest = min((str(a.get("seendate") or "") for a in fresh), default="")
            if len(batch) < GDELT_MAX_RECORDS or not fresh:
                break
            try:
                older = datetime.strptime(oldest, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
            except ValueError:
                break
            if older >= end or older <= since:
                break  # the window no longer narrows: another page would repeat this one
            end = older
            if page == GDELT_PAGES:
                log.info("collectors.news.gdelt_page_cap", pages=page, articles=len(found))
        return found

    async def check(self) -> None:
        """One small request: GDELT answers JSON."""
        await self._search(
            {"query": '"news"', "mode": "artlist", "format": "json", "maxrecords": "1", "timespan": "1h"}
        )

    async def _search(self, params: dict[str, str]) -> list[Any]:
        await self._take_slot()
        response = await get("gdelt", self.base_url, params, self.timeout, self.transport)
        body = response.content.strip()
        if response.status_code == 429 or (response.status_code == 200 and not body.startswith(b"{")):
            raise await self._throttled(body)
        if response.status_code >= 500 or 300 <= response.status_code < 400:
            raise UpstreamError(f"gdelt: HTTP {response.status_code}", retryable=True)
        if response.status_code != 200:
            raise UpstreamError(f"gdelt: HTTP {response.status_code}", retryable=False)
        try:
            # GDELT's JSON may carry raw control characters inside strings
            data = json.loads(body.decode("utf-8", errors="replace"), strict=False)
        except ValueError:
            raise UpstreamError("gdelt: malformed JSON", retryable=True) from None
        if not isinstance(data, dict):
            raise UpstreamError("gdelt: unexpected JSON shape", retryable=True)
        articles = data.get("articles", [])  # no match: GDELT answers {}
        if not isinstance(articles, list):
            raise UpstreamError("gdelt: unexpected JSON shape", retryable=True)
        return articles

    async def _throttled(self, body: bytes) -> ConnectorError:
        text = body[:200].decode("utf-8", errors="replace").lower()
        # the text reply that is not a throttle: a query GDELT refuses (our bug, not a wait)
        if "too short" in text or "too long" in text or "invalid" in text:
            return UpstreamError("gdelt: the query was refused", retryable=False)
        until = self.clock.now() + GDELT_THROTTLED
        if self.ledger is not None:
            await self.ledger.pause(SOURCE, GDELT, until, "gdelt throttled (plain-text reply)")
        else:
            self._next_slot = until
        return RateLimited("gdelt: throttled", retry_at=until)

    async def _take_slot(self) -> None:
        """Wait for the next free slot (at most ``GDELT_MAX_WAIT`` in all), then take it."""
        waited = 0.0
        async with self._slot_lock:
            while True:
                try:
                    return await self._take()
                except RateLimited as exc:
                    wait = max((exc.retry_at - self.clock.now()).total_seconds(), 0.0)
                    if waited + wait > GDELT_MAX_WAIT.total_seconds():
                        raise
                    waited += wait
                    await self.sleep(wait)

    async def _take(self) -> None:
        if self.ledger is not None:
            await self.ledger.spend(SOURCE, GDELT)
            return
        now = self.clock.now()
        if self._next_slot is not None and self._next_slot > now:
            raise RateLimited(f"gdelt: {GDELT.pacing}", retry_at=self._next_slot)
        self._next_slot = now + (GDELT.min_interval or timedelta(0))


class GoogleNewsRss:
    """Google News RSS search feeds (see the module's doc). ``language``/``country``: ``hl``/``gl``."""

    def __init__(
        self,
        base_url: str,
        *,
        language: str,
        country: str,
        clock: Clock,
        ledger: Ledger | None,
        timeout: float,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url, self.clock, self.ledger = base_url, clock, ledger
        self.timeout, self.transport = timeout, transport
        self.edition = edition(language, country)
        self._read: dict[str, tuple[datetime, list[Any]]] = {}
        self._paused_until: datetime | None = None  # without a ledger: this process's pause

    async def search(self, keywords: Sequence[str], since: datetime, now: datetime) -> list[Any]:
        """Entries of the search feed for any of ``keywords`` covering ``since`` (``when:1d`` or ``7d``:
        the caller keeps what falls in its window)."""
        when = "1d" if now - since <= timedelta(days=1) else "7d"
        query = f"{any_of(keywords)} when:{when}"
        return await self._feed(f"{self.base_url}/search", {"q": query, **self.edition})

    async def check(self) -> None:
        """One request: the edition's top stories are a feed."""
        await self._feed(self.base_url, dict(self.edition))

    async def _feed(self, url: str, params: dict[str, str]) -> list[Any]:
        key = str(httpx.URL(url, params=params))
        now = self.clock.now()
        last = self._read.get(key)
        if last is not None and now - last[0] < RSS_EVERY:
            return last[1]
        await self._spend(now)
        response = await get("google news", url, params, self.timeout, self.transport)
        if response.status_code == 429:
            raise await self._throttled(response)
        if not 200 <= response.status_code < 300:
            raise UpstreamError(f"google news: HTTP {response.status_code}", retryable=True)
        parsed = await asyncio.to_thread(
            feedparser.parse,
            io.BytesIO(response.content),
            response_headers={"content-location": url, **dict(response.headers)},
        )
        if not parsed.get("version"):
            raise UpstreamError("google news: the answer is not a feed", retryable=True)
        entries = list(parsed.get("entries", []))
        self._read[key] = (now, entries)
        return entries

    async def _spend(self, now: datetime) -> None:
        if self.ledger is not None:
            await self.ledger.spend(SOURCE, RSS)
        elif self._paused_until is not None and self._paused_until > now:
            raise RateLimited("google news: throttled", retry_at=self._paused_until)

    async def _throttled(self, response: httpx.Response) -> RateLimited:
        now = self.clock.now()
        until = now + retry_after(response.headers.get("retry-after"), now)
        if self.ledger is not None:
            await self.ledger.pause(SOURCE, RSS, until, "google news throttled (HTTP 429)")
        else:
            self._paused_until = until
        return RateLimited("google news: throttled (HTTP 429)", retry_at=until)


def retry_after(value: str | None, now: datetime) -> timedelta:
    """``Retry-After`` (seconds or an HTTP date) → a wait, ``RSS_BACKOFF`` when absent or unreadable,
    kept between a minute and ``RSS_MAX_BACKOFF``."""
    wait = RSS_BACKOFF
    if value:
        try:
            wait = timedelta(seconds=int(value.strip()))
        except ValueError:
            try:
                wait = as_utc(parsedate_to_datetime(value)) - now
            except (TypeError, ValueError):
                wait = RSS_BACKOFF
    return min(max(wait, timedelta(minutes=1)), RSS_MAX_BACKOFF)


def edition(language: str, country: str) -> dict[str, str]:
    """Google News ``hl``, ``gl`` and ``ceid``, consistent: ``en-US`` + ``US`` → ``US:en``. A region or
    script part that is not the country (``es-419``, ``zh-Hant``) stays in ``ceid``."""
    gl = country.strip().upper()
    hl = language.strip()
    primary, _, rest = hl.partition("-")
    ceid_language = primary if not rest or rest.upper() == gl else hl
    return {"hl": hl, "gl": gl, "ceid": f"{gl}:{ceid_language}"}
