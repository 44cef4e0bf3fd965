"""Breaking stories between a recurring agent's runs (spec §4.4 /events, §6.2, §6.3
``content_research_agent.event.detected``), pure: articles and term counts in, stories out (ADR 0032).

Two sources:

- **news_scan**: news articles about the agent's keywords, grouped by the terms they bring that the
  agent does not search yet (an article only about the agent's own keywords is coverage, not a story).
  Corroborated (two domains or more) it is confirmed at once; a single article is a candidate.
- **corpus_burst**: a term of the agent's domain (its keywords and the hashtags of its videos) carried
  by far more of the catalog's newest videos (the last ``RECENT``) than its daily baseline over the
  ``BASELINE_DAYS`` before: ``ratio = (recent + 1) / (baseline per day + 1)``. A strong burst is
  confirmed at once; a weaker one is a candidate, confirmed if it still bursts at a later scan.

Lifecycle (§6.3): candidate → confirmed | dismissed | expired; confirmed → expired. A candidate whose
signal is gone at a later scan is dismissed (a burst that subsided; a news candidate never is, it waits
for corroboration); anything past ``expires_at`` (``TTL`` after detection) is expired.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from reelscope.analysis.autopilot import key
from reelscope.analysis.text import STOPWORDS
from reelscope.analysis.themes import GENERIC_TAGS

Source = Literal["news_scan", "corpus_burst"]
Status = Literal["candidate", "confirmed", "dismissed", "expired"]
ACTIVE: frozenset[str] = frozenset({"candidate", "confirmed"})

# how long a story stays active, from its detection; its short-lived keywords leave with it
TTL = timedelta(hours=72)
# a later scan: one at least this long after the detection
HOLDS_AFTER = timedelta(minutes=45)
# an ended story is not detected again for this long
COOLDOWN = timedelta(days=7)
# news read by each scan
NEWS_WINDOW = timedelta(hours=48)
# the newest videos, and the days before them that make the baseline
RECENT = timedelta(hours=24)
BASELINE_DAYS = 7
# a burst: at least this many recent videos and this ratio; confirmed at once from the strong values
BURST_VIDEOS, BURST_RATIO = 5, 3.0
STRONG_VIDEOS, STRONG_RATIO = 10, 5.0
# terms of a story offered as keywords, and evidence items kept
STORY_KEYWORDS = 3
EVIDENCE = 3
# the terms a headline brings at most (headline_terms)
HEADLINE_TERMS = 8
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
# words of news headlines that name no story
HEADLINE_STOPWORDS = frozenset(
    """
    says said say after over amid report reports reported could would should first last year years week
    weeks day days today video videos watch live update updates latest here why what how who where when
    gets set sets make makes made take takes back still big top best world news breaking exclusive
    """.split()
)


@dataclass(frozen=True)
class Article:
    title: str
    url: str
    domain: str
    published_at: datetime
    summary: str | None
    keywords: tuple[str, ...]


@dataclass(frozen=True)
class Evidence:
    title: str
    url: str
    domain: str


@dataclass(frozen=True)
class Story:
    """One detection: ``topic`` names it across scans (the same story found again is the same event)."""

    source: Source
    topic: str
    title: str
    summary: str
    salience: float
    keywords: tuple[str, ...]
    evidence: tuple[Evidence, ...]
    # strong enough to confirm without waiting for a later scan
    strong: bool


def headline_terms(title: str) -> tuple[str, ...]:
    """The words of a news headline that can name its story: lower case, at least three letters, no
    function word or headline filler, the publisher's `` - Name`` suffix (Google News) left out; at most
    ``HEADLINE_TERMS``, in order. Articles about one event, worded differently, share some of them."""
    head, sep, tail = title.rpartition(" - ")
    if sep and head and len(tail.split()) <= 5:
        title = head
    words = (w.casefold() for w in _WORD.findall(title))
    kept = (
        w
        for w in words
        if len(w) >= 3 and not w.isdigit() and w not in STOPWORDS and w not in HEADLINE_STOPWORDS
    )
    return tuple(dict.fromkeys(kept))[:HEADLINE_TERMS]


@dataclass
class _Group:
    core: tuple[str, ...]  # the new terms of its first article: what names it across scans
    articles: list[tuple[Article, frozenset[str]]]

    def takes(self, terms: frozenset[str]) -> bool:
        """An article is about this story when it shares two of the core's terms (one, where either side
        has only one): the same event told in other words still shares its names."""
        core = {key(t) for t in self.core}
        return len(core & terms) >= min(2, len(core), len(terms))

    def keywords(self) -> tuple[str, ...]:
        """The core's terms the group's articles share (all of them for a single article)."""
        if len(self.articles) < 2:
            return self.core[:STORY_KEYWORDS]
        counts = {key(t): sum(key(t) in terms for _a, terms in self.articles) for t in self.core}
        return tuple(t for t in self.core if counts[key(t)] >= 2)[:STORY_KEYWORDS]


def news_stories(articles: Iterable[Article], agent_keywords: Sequence[str]) -> list[Story]:
    """Articles grouped by the new terms they bring (``_Group.takes``: shared terms, so one event told in
    other words is one story), oldest first; salience ``4 + 2 x (domains - 1) + (articles - 1)`` up to 10,
    so one article is 4 and two domains with two articles 7."""
    own = {key(k) for k in agent_keywords}
    groups: list[_Group] = []
    for article in sorted(articles, key=lambda a: (a.published_at, a.url)):
        new = tuple(
            dict.fromkeys(
                t.lstrip("#")
                for t in article.keywords
                if key(t) and key(t) not in own and key(t) not in GENERIC_TAGS
            )
        )
        if not new:
            continue
        terms = frozenset(key(t) for t in new)
        group = next((g for g in groups if g.takes(terms)), None)
        if group is None:
            groups.append(_Group(new, [(article, terms)]))
        else:
            group.articles.append((article, terms))
    stories = []
    for group in groups:
        found = [a for a, _terms in group.articles]
        domains = {a.domain for a in found}
        first = found[0]
        stories.append(
            Story(
                source="news_scan",
                topic="+".join(sorted({key(t) for t in group.core})),
                title=first.title,
                summary=first.summary or first.title,
                salience=float(min(10, 4 + 2 * (len(domains) - 1) + (len(found) - 1))),
                keywords=group.keywords(),
                evidence=tuple(Evidence(a.title, a.url, a.domain) for a in found[:EVIDENCE]),
                strong=len(domains) >= 2,
            )
        )
    stories.sort(key=lambda s: (-s.salience, s.topic))
    return stories


@dataclass(frozen=True)
class TermActivity:
    """How many catalog videos carried ``term`` in the last ``RECENT`` and in the baseline days before,
    the recent ones' evidence (most viewed first) and the tags most used alongside it recently."""

    term: str
    recent: int
    baseline: int
    evidence: tuple[Evidence, ...] = ()
    co_terms: tuple[str, ...] = ()


def burst_ratio(activity: TermActivity) -> float:
    return (activity.recent + 1) / (activity.baseline / BASELINE_DAYS + 1)


def bursting(activity: TermActivity) -> bool:
    """Generic tags (#fyp and friends) ride on every burst: never a story of their own."""
    if key(activity.term) in GENERIC_TAGS:
        return False
    return activity.recent >= BURST_VIDEOS and burst_ratio(activity) >= BURST_RATIO


def bursts(activity: Iterable[TermActivity]) -> list[Story]:
    """Terms bursting against their baseline; salience ``2 log2(ratio) + 0.5 log2(1 + recent)`` up to 10."""
    stories = []
    for term in activity:
        if not bursting(term):
            continue
        ratio = burst_ratio(term)
        per_day = term.baseline / BASELINE_DAYS
        salience = min(10.0, 2 * math.log2(ratio) + 0.5 * math.log2(1 + term.recent))
        stories.append(
            Story(
                source="corpus_burst",
                topic=key(term.term),
                title=f"#{term.term} is surging: {term.recent} new videos in a day",
                summary=f"#{term.term} is on {term.recent} videos of the last 24 hours against "
                f"{per_day:.1f} a day over the {BASELINE_DAYS} days before ({ratio:.1f}x).",
                salience=round(salience, 1),
                keywords=(term.term, *term.co_terms)[:STORY_KEYWORDS],
                evidence=term.evidence[:EVIDENCE],
                strong=term.recent >= STRONG_VIDEOS and ratio >= STRONG_RATIO,
            )
        )
    stories.sort(key=lambda s: (-s.salience, s.topic))
    return stories


def advance(
    status: Status,
    *,
    source: Source,
    seen: bool,
    strong: bool,
    now: datetime,
    detected_at: datetime,
    expires_at: datetime,
) -> Status:
    """The next status of a known event at a scan that did (``seen``) or did not find it again. Only a
    scan at least ``HOLDS_AFTER`` after the detection confirms by persistence or dismisses, so a scan
    repeated at once changes nothing."""
    if status in ("dismissed", "expired"):
        return status
    if now >= expires_at:
        return "expired"
    if status == "confirmed":
        return status
    if seen and strong:
        return "confirmed"
    if now - detected_at < HOLDS_AFTER:
        return status
    if seen:
        # a burst found again at a later scan holds up; a news story waits for a second domain
        return "confirmed" if source == "corpus_burst" else "candidate"
    return "dismissed" if source == "corpus_burst" else "candidate"


def first_status(story: Story) -> Status:
    return "confirmed" if story.strong else "candidate"
