"""GDELT articles and Google News entries → ``NewsItem``; merging the two (connectors reference §7).

Pure: no HTTP, no clock. Type drift is absorbed here: an article or entry without a title, a link or a
readable date is skipped (counted by the caller), never an error.

- **Domains** lose a leading ``www.``: GDELT writes ``thegrocer.example``, a Google News ``<source>``
  says ``https://www.thegrocer.example``, and breaking-story detection counts distinct domains.
- **Google News titles** end with `` - {publisher}``; that suffix is cut so the same article found by
  both sources has one title. Its ``<description>`` is only a link to the title (and the publisher),
  so it becomes a summary only when it says more.
- **Keywords** of an item are those of the query it mentions (title and summary, whole words, any
  case; both sources match the article's full text, which we do not see: an item that names none of
  them in what we see carries all of the query's keywords), then the words of its headline that can
  name a story (``analysis.breaking.headline_terms``): what the agents' news scan groups articles by.
- **Merging**: the same URL is one item; so is the same title from the same domain across the two
  sources (Google News links are redirects, GDELT's the publisher's: the publisher's link is kept).
"""

from __future__ import annotations

import html
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from reelscope.analysis.breaking import headline_terms
from reelscope.collectors.base import NewsItem

_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")
_NOT_WORD = re.compile(r"[^\w]+", re.UNICODE)
SEENDATE_FORMATS = ("%Y%m%dT%H%M%SZ", "%Y%m%d%H%M%S", "%Y-%m-%dT%H:%M:%SZ")


def clean_keywords(keywords: Iterable[str]) -> list[str]:
    """Trimmed, without quotes (they would break the quoted query), deduplicated case-insensitively."""
    seen: dict[str, str] = {}
    for raw in keywords:
        word = " ".join(str(raw).replace('"', " ").split())
        if word:
            seen.setdefault(word.casefold(), word)
    return list(seen.values())


def domain_of(url: str | None) -> str | None:
    """The host of a URL or of a bare domain name, lower case, without ``www.``."""
    if not url:
        return None
    host = (urlsplit(url if "//" in url else f"//{url}").hostname or "").lower()
    host = host.removeprefix("www.")
    return host or None


def plain_text(markup: str | None) -> str:
    """HTML → text: tags removed, entities decoded, whitespace collapsed."""
    if not markup:
        return ""
    return _SPACE.sub(" ", html.unescape(_TAG.sub(" ", markup))).strip()


def title_key(title: str) -> str:
    """What makes two titles the same: letters and digits, any case, any punctuation and spacing."""
    return " ".join(_NOT_WORD.sub(" ", title.casefold()).split())


def matched(keywords: Sequence[str], *texts: str | None) -> tuple[str, ...]:
    """The keywords named in ``texts`` as whole words (any case); all of them when none is."""
    haystack = " ".join(t for t in texts if t).casefold()
    found = tuple(
        k for k in keywords if re.search(rf"(?<!\w){re.escape(k.casefold())}(?!\w)", haystack) is not None
    )
    return found or tuple(keywords)


def _keywords(keywords: Sequence[str], title: str, *more: str | None) -> tuple[str, ...]:
    return tuple(dict.fromkeys((*matched(keywords, title, *more), *headline_terms(title))))


def _seendate(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    for layout in SEENDATE_FORMATS:
        try:
            return datetime.strptime(value.strip(), layout).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def gdelt_article(article: Any, keywords: Sequence[str], fetched_at: datetime) -> NewsItem | None:
    """One element of GDELT's ``articles``; None when it lacks a title, a URL or a readable date."""
    if not isinstance(article, Mapping):
        return None
    title = plain_text(str(article.get("title") or ""))
    url = article.get("url") or article.get("url_mobile")
    published = _seendate(article.get("seendate"))
    if not title or not isinstance(url, str) or not url.startswith(("http://", "https://")):
        return None
    if published is None:
        return None
    domain = article.get("domain")
    return NewsItem(
        title=title,
        url=url,
        domain=(domain_of(domain) if isinstance(domain, str) else None) or domain_of(url) or "",
        published_at=published,
        fetched_at=fetched_at,
        summary=None,
        keywords=_keywords(keywords, title),
    )


def _struct_time(value: Any) -> datetime | None:
    if not isinstance(value, time.struct_time):
        return None
    try:
        return datetime(*value[:6], tzinfo=UTC)
    except ValueError:
        return None


def rss_entry(entry: Mapping[str, Any], keywords: Sequence[str], fetched_at: datetime) -> NewsItem | None:
    """One feedparser entry of a Google News feed; None when it lacks a title, a link or a date."""
    title = plain_text(entry.get("title"))
    link = entry.get("link")
    published = _struct_time(entry.get("published_parsed")) or _struct_time(entry.get("updated_parsed"))
    if not title or not isinstance(link, str) or not link.startswith(("http://", "https://")):
        return None
    if published is None:
        return None
    source = entry.get("source") if isinstance(entry.get("source"), Mapping) else {}
    publisher = plain_text(source.get("title")) if source else ""
    if publisher and title.endswith(f" - {publisher}") and len(title) > len(publisher) + 3:
        title = title[: -len(publisher) - 3].rstrip()
    summary = plain_text(entry.get("summary"))
    said = title_key(summary)
    # Google's description is the title as a link, then the publisher: nothing more to say
    if not said or said in {title_key(title), title_key(f"{title} {publisher}")}:
        summary = ""
    return NewsItem(
        title=title,
        url=link,
        domain=domain_of(source.get("href") if source else None) or domain_of(link) or "",
        published_at=published,
        fetched_at=fetched_at,
        summary=summary or None,
        keywords=_keywords(keywords, title, summary),
    )


def merge(
    gdelt: Iterable[NewsItem], rss: Iterable[NewsItem], since: datetime, until: datetime
) -> list[NewsItem]:
    """Both sources' items in [since, until), deduplicated (see the module's doc), newest first."""
    by_url: dict[str, NewsItem] = {}
    by_title: dict[tuple[str, str], str] = {}  # (title key, domain) → the URL the item is kept under
    for item in (*gdelt, *rss):
        if not since <= item.published_at < until:
            continue
        url = item.url if item.url in by_url else by_title.get((title_key(item.title), item.domain))
        if url is None:
            by_url[item.url] = item
            by_title[(title_key(item.title), item.domain)] = item.url
            continue
        known = by_url[url]
        by_url[url] = replace(
            known,
            summary=known.summary or item.summary,
            published_at=min(known.published_at, item.published_at),
            keywords=tuple(dict.fromkeys((*known.keywords, *item.keywords))),
        )
    return sorted(by_url.values(), key=lambda i: (-i.published_at.timestamp(), i.url))
