"""The ad library, the news feed and comments of the sandbox world."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import numpy as np

from reelscope.collectors.base import AdRecord, CommentRecord, NewsItem
from reelscope.collectors.sandbox import hashing as hs
from reelscope.collectors.sandbox.creators import AudienceTruth
from reelscope.collectors.sandbox.trends import bursts_between
from reelscope.collectors.sandbox.vocab import (
    AD_PAGE_WORDS,
    AGE_BRACKETS,
    COUNTRIES,
    FIRST_NAMES,
    GENDERS,
    NEWS_DOMAINS,
)
from reelscope.kit.platforms import Platform

DAY = 86_400.0
WEEK = 7 * DAY
AD_WEEKS = 8  # ads started in the last 8 weeks may still run


def _norm(keyword: str) -> str:
    return " ".join(keyword.lower().replace("#", " ").split())


def ads(seed: int, keyword: str, at: datetime, limit: int) -> list[AdRecord]:
    """Ads mentioning ``keyword`` running at ``at``: a few new ones start every week."""
    kw = _norm(keyword)
    if not kw:
        return []
    kw_key = hs.label(kw)
    t = at.timestamp()
    this_week = int(t // WEEK)
    found: list[AdRecord] = []
    for week in range(this_week, this_week - AD_WEEKS, -1):
        count = int(hs.scalar_h(seed, hs.label("ads"), kw_key, week) % 6)
        for j in range(count):
            u = [hs.scalar_u(seed, hs.label("ad"), kw_key, week, j, f) for f in range(6)]
            start = week * WEEK + u[0] * WEEK
            stop = start + (7 + 60 * u[1]) * DAY
            if start > t or stop < t - 30 * DAY:
                continue
            page_no = int(u[2] * 40)
            brand = f"{kw.split()[0].capitalize()} {AD_PAGE_WORDS[page_no % len(AD_PAGE_WORDS)]}"
            number = hs.scalar_h(seed, hs.label("ad_id"), kw_key, week, j) % 10**15
            bodies = (
                f"The {kw} everyone is talking about. Try it today.",
                f"New {kw} drop: limited stock, free shipping this week.",
            )[: 1 + int(u[3] * 2)]
            found.append(
                AdRecord(
                    external_id=str(10**15 + number),
                    page_id=str(10**14 + (hs.scalar_h(seed, hs.label("page"), kw_key, page_no) % 10**13)),
                    page_name=brand,
                    bodies=bodies,
                    start_date=datetime.fromtimestamp(start, UTC),
                    stop_date=None if stop > t else datetime.fromtimestamp(stop, UTC),
                    publisher_platforms=("facebook", "instagram") if u[4] < 0.7 else ("instagram",),
                    snapshot_url=f"https://www.facebook.com/ads/library/?id={10**15 + number}",
                    page_likes=int(500 * np.exp(8 * u[5])),
                    keyword=keyword,
                    languages=("en",),
                    fetched_at=at,
                )
            )
    found.sort(key=lambda a: a.start_date, reverse=True)
    return found[:limit]


def news(
    seed: int, keywords: Sequence[str], since: datetime, until: datetime, at: datetime
) -> list[NewsItem]:
    """News for ``keywords``: a trickle of general items, plus items that precede planted bursts."""
    wanted = [_norm(k) for k in keywords if _norm(k)]
    if not wanted:
        return []
    t0, t1 = since.timestamp(), min(until, at).timestamp()
    items: dict[str, NewsItem] = {}
    # items announcing a burst appear news_lead before it starts
    for burst in bursts_between(seed, t0 - 3 * DAY, t1 + 3 * DAY):
        if burst.news_lead is None:
            continue
        theme = burst.theme
        terms = [theme.name.lower(), *(tag.lower() for tag in theme.tags), *theme.phrases]
        if not any(w in term or term in w for w in wanted for term in terms):
            continue
        for j in range(2):
            when = burst.start - burst.news_lead + j * 3 * 3600
            if not t0 <= when < t1:
                continue
            domain = NEWS_DOMAINS[(burst.slot + j) % len(NEWS_DOMAINS)]
            slug = theme.name.lower().replace(" ", "-")
            url = f"https://{domain}/{burst.week}/{slug}-{burst.country}-{j}"
            country = next(c.name for c in COUNTRIES if c.code == burst.country)
            items[url] = NewsItem(
                title=f"{theme.name}: the new craze taking over {country}"
                if j == 0
                else f"Why everyone is trying {theme.name}",
                url=url,
                domain=domain,
                published_at=datetime.fromtimestamp(when, UTC),
                fetched_at=at,
                summary=f"{theme.description}. Creators in {country} are starting to post about it.",
                keywords=tuple(tag.lower() for tag in theme.tags),
            )
    # general coverage: up to two items per keyword per day
    day = int(t0 // DAY)
    while day * DAY < t1 and day <= int(t0 // DAY) + 60:
        for kw in wanted:
            for j in range(int(hs.scalar_h(seed, hs.label("news"), hs.label(kw), day) % 3)):
                when = day * DAY + hs.scalar_u(seed, hs.label("news_t"), hs.label(kw), day, j) * DAY
                if not t0 <= when < t1:
                    continue
                domain = NEWS_DOMAINS[(day + j) % len(NEWS_DOMAINS)]
                url = f"https://{domain}/{day}/{kw.replace(' ', '-')}-{j}"
                items[url] = NewsItem(
                    title=f"What's next for {kw}: {('trends', 'creators', 'brands')[j % 3]} to watch",
                    url=url,
                    domain=domain,
                    published_at=datetime.fromtimestamp(when, UTC),
                    fetched_at=at,
                    summary=f"A look at {kw} on short-form video this week.",
                    keywords=(kw,),
                )
        day += 1
    return sorted(items.values(), key=lambda n: n.published_at, reverse=True)


_COMMENTS = {
    "en": (
        "this is so true",
        "need part 2",
        "where is this from?",
        "saving this",
        "ok but why is this me",
        "the {kw} part got me",
        "trying this tonight",
        "underrated",
        "finally someone said it",
    ),
    "es": ("necesito la parte 2", "esto es muy cierto", "lo voy a intentar", "me encanta"),
    "pt": ("preciso da parte 2", "muito verdade", "vou testar hoje", "amei isso"),
    "de": ("brauche teil 2", "so wahr", "probiere ich heute", "richtig gut"),
    "fr": ("besoin de la partie 2", "tellement vrai", "je teste ce soir", "trop bien"),
}


def comments(
    seed: int,
    platform: Platform,
    video_external_id: str,
    published_at: datetime,
    total: int,
    audience: AudienceTruth,
    keyword: str,
    at: datetime,
    limit: int,
) -> list[CommentRecord]:
    """Up to ``limit`` of the video's comments; authors follow the creator's audience (truth queryable)."""
    n = min(total, limit)
    if n <= 0:
        return []
    vid = hs.label(f"{platform.value}:{video_external_id}")
    idx = np.arange(n, dtype=np.int64)
    countries = list(audience.countries)
    country_pick = hs.weighted(
        hs.cumulative(list(audience.countries.values())), hs.uniform(seed, vid, idx, 1)
    )
    age_pick = hs.weighted(hs.cumulative(list(audience.age_brackets.values())), hs.uniform(seed, vid, idx, 2))
    gender_pick = hs.weighted(hs.cumulative(list(audience.genders.values())), hs.uniform(seed, vid, idx, 3))
    lang_u = hs.uniform(seed, vid, idx, 4).tolist()
    text_pick = hs.hash64(seed, vid, idx, 5).tolist()
    # comments arrive fast after posting: ages are exponential with a 10 hour scale, never in the future
    span = max(1.0, (at - published_at).total_seconds())
    ages = np.minimum(-np.log1p(-hs.uniform(seed, vid, idx, 6)) * 36_000, span)
    likes = np.floor(np.exp(3 * hs.uniform(seed, vid, idx, 7)) - 1).astype(np.int64).tolist()
    out = []
    for i in range(n):
        code = countries[int(country_pick[i])]
        home_lang = next(c.language for c in COUNTRIES if c.code == code)
        lang = home_lang if lang_u[i] < 0.85 else "en"
        texts = _COMMENTS[lang]
        first = FIRST_NAMES[text_pick[i] % len(FIRST_NAMES)]
        out.append(
            CommentRecord(
                platform=platform,
                external_id=f"{video_external_id}-{i}",
                video_external_id=video_external_id,
                author_handle=f"{first}_{text_pick[i] % 100_000}",
                text=texts[(text_pick[i] >> 20) % len(texts)].format(kw=keyword),
                posted_at=published_at + timedelta(seconds=float(ages[i])),
                fetched_at=at,
                language=lang,
                country=code.upper(),
                likes=likes[i],
                author_age_bracket=AGE_BRACKETS[int(age_pick[i])],
                author_gender=GENDERS[int(gender_pick[i])],
            )
        )
    out.sort(key=lambda c: c.posted_at, reverse=True)
    return out
