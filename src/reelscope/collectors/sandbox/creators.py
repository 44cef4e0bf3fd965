"""Creators of the sandbox world: one vectorised skeleton per (seed, platform), records on demand.

The skeleton holds a handful of numpy columns per creator (niche, country, followers, reach, posting
cadence); it costs a few milliseconds to build and is cached. Handles end in the creator's index, so a
handle is decoded without any lookup table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache

import numpy as np

from reelscope.collectors.base import CreatorRecord
from reelscope.collectors.sandbox import hashing as hs
from reelscope.collectors.sandbox.vocab import (
    AGE_BRACKETS,
    COUNTRIES,
    FIRST_NAMES,
    GENDERS,
    NICHE_WEIGHTS,
    NICHE_WORDS,
    NICHES,
)
from reelscope.kit.platforms import Platform

CREATORS_PER_PLATFORM = 24_000
PLATFORM_CODE = {Platform.YOUTUBE: 0, Platform.TIKTOK: 1, Platform.INSTAGRAM: 2}
DAY = 86_400.0
# creators joined between these instants; nothing of the world exists before JOIN_FROM
JOIN_FROM = datetime(2023, 1, 1, tzinfo=UTC).timestamp()
JOIN_SPAN = 3 * 365 * DAY
# a Pareto tail: P(followers > x) = (1000 / x) ** FOLLOWER_ALPHA → ~82% nano, ~15% micro, ~3% mid, ~0.5% macro
FOLLOWER_ALPHA = 0.75
MIN_FOLLOWERS = 1_000
_HANDLE = re.compile(r"^@?([a-z]+?)(\d+)$")


@dataclass(frozen=True)
class Skeleton:
    """Per-creator columns of one platform."""

    platform: Platform
    code: int
    niche: hs.I64
    country: hs.I64
    language: list[str]
    followers: hs.F64
    reach: hs.F64  # standard-normal-ish creator effect on views
    interval: hs.F64  # seconds between posts
    phase: hs.F64
    joined: hs.F64
    slideshow_interval: hs.F64  # 0 = posts no slideshows
    by_country: dict[int, hs.I64]


@lru_cache(maxsize=16)
def skeleton(seed: int, platform: Platform) -> Skeleton:
    n = CREATORS_PER_PLATFORM
    code = PLATFORM_CODE[platform]
    idx = np.arange(n, dtype=np.int64)
    key = hs.label("creator")
    niche_weights = hs.cumulative([NICHE_WEIGHTS[n] for n in NICHES])
    niche = hs.weighted(niche_weights, hs.uniform(seed, key, code, idx, hs.label("niche")))
    weights = hs.cumulative([c.weight for c in COUNTRIES])
    country = hs.weighted(weights, hs.uniform(seed, key, code, idx, hs.label("country")))
    lang_u = hs.uniform(seed, key, code, idx, hs.label("language"))
    language = []
    for ci, u in zip(country.tolist(), lang_u.tolist(), strict=True):
        home = COUNTRIES[ci].language
        # a share of US creators post in Spanish; a share of everyone else posts in English
        if home == "en":
            language.append("es" if COUNTRIES[ci].code == "us" and u < 0.06 else "en")
        else:
            language.append("en" if u < 0.12 else home)
    u_f = hs.uniform(seed, key, code, idx, hs.label("followers"))
    followers = np.minimum(MIN_FOLLOWERS * (1.0 - u_f) ** (-1.0 / FOLLOWER_ALPHA), 150_000_000.0)
    # bigger accounts reach more viewers: log-followers (exponential) standardised, blended with noise
    zf = np.log(followers / MIN_FOLLOWERS) * FOLLOWER_ALPHA - 1.0
    reach = 0.6 * zf + 0.8 * hs.normal(seed, key, code, idx, hs.label("reach"))
    # posting cadence: log-uniform between 3 and 40 days → ~2,850 posts a day over 24,000 creators
    u_i = hs.uniform(seed, key, code, idx, hs.label("interval"))
    interval = np.exp(np.log(3 * DAY) + u_i * (np.log(40 * DAY) - np.log(3 * DAY)))
    phase = hs.uniform(seed, key, code, idx, hs.label("phase")) * interval
    joined = JOIN_FROM + hs.uniform(seed, key, code, idx, hs.label("joined")) * JOIN_SPAN
    if platform is Platform.YOUTUBE:
        slideshow_interval = np.zeros(n)
    else:
        makes = hs.uniform(seed, key, code, idx, hs.label("slideshows")) < 0.15
        slideshow_interval = np.where(makes, interval * 2.5, 0.0)
    by_country = {ci: np.flatnonzero(country == ci).astype(np.int64) for ci in range(len(COUNTRIES))}
    return Skeleton(
        platform=platform,
        code=code,
        niche=niche,
        country=country,
        language=language,
        followers=followers,
        reach=reach,
        interval=interval,
        phase=phase,
        joined=joined,
        slideshow_interval=slideshow_interval,
        by_country=by_country,
    )


def tier(followers: float) -> str:
    """nano < 10K ≤ micro < 100K ≤ mid < 1M ≤ macro."""
    if followers < 10_000:
        return "nano"
    if followers < 100_000:
        return "micro"
    if followers < 1_000_000:
        return "mid"
    return "macro"


def handles(seed: int, platform: Platform, idx: hs.I64) -> list[str]:
    """Handles of creators ``idx``: a first name, a niche word and the index (so they decode)."""
    code = PLATFORM_CODE[platform]
    sk = skeleton(seed, platform)
    first = hs.pick(seed, len(FIRST_NAMES), hs.label("handle"), code, idx, 1).tolist()
    word = hs.hash64(seed, hs.label("handle"), code, idx, 2).tolist()
    out = []
    for i, f, w in zip(idx.tolist(), first, word, strict=True):
        words = NICHE_WORDS[NICHES[int(sk.niche[i])]]
        out.append(f"{FIRST_NAMES[f]}{words[w % len(words)]}{i}")
    return out


def handle_of(seed: int, platform: Platform, idx: int) -> str:
    return handles(seed, platform, np.array([idx], dtype=np.int64))[0]


def index_of(seed: int, platform: Platform, handle: str) -> int | None:
    """The creator index a handle names, or None when no creator of this world has that handle."""
    match = _HANDLE.match(handle.strip().lower())
    if match is None:
        return None
    idx = int(match.group(2))
    if idx >= CREATORS_PER_PLATFORM or handle_of(seed, platform, idx) != f"{match.group(1)}{idx}":
        return None
    return idx


def platform_user_ids(seed: int, platform: Platform, idx: hs.I64) -> list[str]:
    h = hs.hash64(seed, hs.label("user_id"), PLATFORM_CODE[platform], idx).tolist()
    if platform is Platform.YOUTUBE:
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
        return ["UC" + "".join(alphabet[(x >> (i * 3)) % 64] for i in range(21)) + "w" for x in h]
    if platform is Platform.TIKTOK:
        return [str(6_800_000_000_000_000_000 + x % 400_000_000_000_000_000) for x in h]
    return [str(1_000_000_000 + x % 60_000_000_000) for x in h]


def display_name(handle: str) -> str:
    return _display_name(re.sub(r"\d+$", "", handle))


@lru_cache(maxsize=4096)
def _display_name(name: str) -> str:
    """Kept per name: handles are a first name and a niche word, so a few thousand names recur."""
    for first in FIRST_NAMES:
        if name.startswith(first):
            return f"{first.capitalize()} {name[len(first) :].capitalize()}"
    return name.capitalize()


def creator_records(
    seed: int, platform: Platform, idx: hs.I64, at: datetime, median_views: hs.F64
) -> list[CreatorRecord]:
    """Profiles of creators ``idx`` as of ``at``; ``median_views`` is each creator's typical reach."""
    sk = skeleton(seed, platform)
    t = at.timestamp()
    code = sk.code
    years = np.maximum(0.0, (t - sk.joined[idx]) / (365 * DAY))
    followers = (sk.followers[idx] * (0.6 + 0.4 * np.minimum(1.0, years))).astype(np.int64)
    videos = np.maximum(0, np.floor((t - sk.joined[idx]) / sk.interval[idx])).astype(np.int64)
    like_share = 0.02 + 0.06 * hs.uniform(seed, hs.label("likeshare"), code, idx)
    verified_u = hs.uniform(seed, hs.label("verified"), code, idx)
    verified = verified_u < np.where(followers >= 1_000_000, 0.8, np.where(followers >= 100_000, 0.2, 0.01))
    following = (20 + hs.uniform(seed, hs.label("following"), code, idx) * 1500).astype(np.int64)
    names = handles(seed, platform, idx)
    user_ids = platform_user_ids(seed, platform, idx)
    reached = videos * median_views
    columns = zip(
        names,
        user_ids,
        sk.country[idx].tolist(),
        sk.niche[idx].tolist(),
        followers.tolist(),
        following.tolist(),
        (reached * like_share).astype(np.int64).tolist(),
        reached.astype(np.int64).tolist(),
        videos.tolist(),
        verified.tolist(),
        strict=True,
    )
    out = []
    for handle, user_id, country_index, niche_index, fans, follows, likes, views, count, tick in columns:
        country = COUNTRIES[country_index]
        out.append(
            CreatorRecord(
                platform=platform,
                handle=handle,
                display_name=display_name(handle),
                platform_user_id=user_id,
                followers=fans,
                following=follows,
                total_likes=likes,
                total_views=views,
                video_count=count,
                verified=tick,
                avatar_url=f"https://sandbox.reelscope.local/{platform.value}/avatars/{handle}.jpg",
                bio=f"{NICHES[niche_index].capitalize()} | {country.name} | new videos every week",
                country=country.code.upper(),
                fetched_at=at,
            )
        )
    return out


@dataclass(frozen=True)
class AudienceTruth:
    """Who watches and comments on a creator: the distributions comment authors are drawn from."""

    countries: dict[str, float]
    languages: dict[str, float]
    age_brackets: dict[str, float]
    genders: dict[str, float]


_NICHE_AGE = {  # mean age-bracket index by niche
    "gaming": 1.2,
    "comedy": 1.5,
    "beauty": 1.7,
    "fashion": 1.7,
    "music": 1.6,
    "sports": 2.0,
    "fitness": 2.0,
    "food": 2.4,
    "tech": 2.1,
    "finance": 2.5,
    "travel": 2.3,
    "education": 2.0,
    "pets": 2.3,
    "parenting": 2.6,
    "home": 2.7,
    "cars": 2.3,
}
_NICHE_FEMALE = {
    "beauty": 0.82,
    "fashion": 0.75,
    "parenting": 0.78,
    "home": 0.65,
    "food": 0.6,
    "pets": 0.62,
    "fitness": 0.52,
    "travel": 0.55,
    "comedy": 0.5,
    "education": 0.48,
    "music": 0.5,
    "tech": 0.3,
    "finance": 0.35,
    "gaming": 0.28,
    "sports": 0.25,
    "cars": 0.18,
}


def audience_truth(seed: int, platform: Platform, idx: int) -> AudienceTruth:
    sk = skeleton(seed, platform)
    code = sk.code
    home = int(sk.country[idx])
    niche = NICHES[int(sk.niche[idx])]
    home_share = 0.45 + 0.4 * hs.scalar_u(seed, hs.label("aud_home"), code, idx)
    countries: dict[str, float] = {}
    rest = sum(c.weight for i, c in enumerate(COUNTRIES) if i != home)
    for i, c in enumerate(COUNTRIES):
        countries[c.code] = home_share if i == home else (1 - home_share) * c.weight / rest
    languages: dict[str, float] = {}
    for c in COUNTRIES:
        languages[c.language] = languages.get(c.language, 0.0) + countries[c.code]
    center = _NICHE_AGE[niche] + 0.8 * (hs.scalar_u(seed, hs.label("aud_age"), code, idx) - 0.5)
    raw = [float(np.exp(-((i - center) ** 2) / 1.6)) for i in range(len(AGE_BRACKETS))]
    ages = {b: w / sum(raw) for b, w in zip(AGE_BRACKETS, raw, strict=True)}
    female = min(
        0.95, max(0.05, _NICHE_FEMALE[niche] + 0.2 * (hs.scalar_u(seed, hs.label("aud_g"), code, idx) - 0.5))
    )
    genders = {GENDERS[0]: female * 0.98, GENDERS[1]: (1 - female) * 0.98, GENDERS[2]: 0.02}
    return AudienceTruth(countries=countries, languages=languages, age_brackets=ages, genders=genders)
