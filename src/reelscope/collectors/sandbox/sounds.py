"""Sounds of the sandbox world: a licensed catalogue per platform, creators' original sounds, and each
trend theme's sound; usage counts grow over time (bursts push their theme's sound)."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta, tzinfo
from functools import lru_cache

import numpy as np

from reelscope.collectors.base import CreatorRecord, SoundRecord, UsagePoint
from reelscope.collectors.sandbox import hashing as hs
from reelscope.collectors.sandbox.creators import PLATFORM_CODE, display_name, handle_of
from reelscope.collectors.sandbox.trends import Burst, bursts_of_week, week_of
from reelscope.collectors.sandbox.vocab import ARTIST_NAMES, SOUND_WORDS_A, SOUND_WORDS_B, THEMES
from reelscope.kit.platforms import Platform

LICENSED, ORIGINAL, THEME = 1, 2, 3
LICENSED_POOL = 600
DAY = 86_400.0
RELEASED_FROM = datetime(2023, 1, 1, tzinfo=UTC).timestamp()
RELEASE_SPAN = 3 * 365 * DAY
# popularity of the licensed catalogue: Zipf over the pool
POPULARITY = hs.cumulative([1.0 / (rank + 5) ** 1.1 for rank in range(LICENSED_POOL)])


def sound_number(seed: int, platform: Platform, kind: int, idx: int) -> int:
    if kind == ORIGINAL:
        check = hs.scalar_h(seed, hs.label("original_sound"), PLATFORM_CODE[platform], idx) & 0xFFFF
    else:
        check = hs.scalar_h(seed, hs.label("sound_id"), PLATFORM_CODE[platform], kind, idx) & 0xFFFF
    return (kind << 60) | (idx << 16) | check


def sound_id(seed: int, platform: Platform, kind: int, idx: int) -> str:
    return str(sound_number(seed, platform, kind, idx))


def parse_sound_id(seed: int, platform: Platform, external_id: str) -> tuple[int, int] | None:
    if not external_id.isdigit() or len(external_id) > 20:
        return None
    number = int(external_id)
    kind, idx = number >> 60, (number >> 16) & ((1 << 44) - 1)
    limit = {LICENSED: LICENSED_POOL, ORIGINAL: 24_000, THEME: len(THEMES)}.get(kind)
    if limit is None or idx >= limit or sound_number(seed, platform, kind, idx) != number:
        return None
    return kind, idx


def _licensed_usage(seed: int, platform: Platform, idx: int, t: float) -> int:
    code = PLATFORM_CODE[platform]
    released = RELEASED_FROM + hs.scalar_u(seed, hs.label("released"), code, idx) * RELEASE_SPAN
    if t < released:
        return 0
    peak = 400_000.0 / (idx + 5) ** 1.1 * 30
    tau = (30 + 370 * hs.scalar_u(seed, hs.label("sound_tau"), code, idx)) * DAY
    return 1 + int(peak * (1 - math.exp(-(t - released) / tau)))


def _theme_usage(seed: int, platform: Platform, idx: int, t: float) -> int:
    """A usage count is cumulative (videos ever made with the sound), so it never falls: every burst of
    the theme so far adds to it. Counting only the last 56 days' bursts made it drop when a burst left
    that window (issue 32 item 5: a history falling the day after a sound was first seen)."""
    base = 2_000 + int(18_000 * hs.scalar_u(seed, hs.label("theme_base"), PLATFORM_CODE[platform], idx))
    boosted = sum(b.count(platform) * b.cdf(t) * 40 for b in _theme_bursts(seed, idx, t))
    return base + int(boosted)


def _theme_bursts(seed: int, idx: int, t: float) -> list[Burst]:
    """The theme's bursts begun before ``t``, from the first week of the world on."""
    return [b for b in _theme_bursts_to_week(seed, idx, week_of(t)) if b.start < t]


@lru_cache(maxsize=4096)
def _theme_bursts_to_week(seed: int, idx: int, week: int) -> tuple[Burst, ...]:
    """The theme's bursts of weeks 0 to ``week`` (each week's are cached, so a history is cheap)."""
    return tuple(b for w in range(max(week, -1) + 1) for b in bursts_of_week(seed, w) if b.theme_index == idx)


def usage_count(seed: int, platform: Platform, kind: int, idx: int, t: float) -> int:
    if kind == LICENSED:
        return _licensed_usage(seed, platform, idx, t)
    if kind == THEME:
        return _theme_usage(seed, platform, idx, t)
    return 1 + (hs.scalar_h(seed, hs.label("original_sound"), PLATFORM_CODE[platform], idx) >> 24) % 5


def sound_record(
    seed: int, platform: Platform, kind: int, idx: int, at: datetime, *, history_days: int = 0
) -> SoundRecord:
    """One sound as of ``at``; with ``history_days`` its daily usage counts up to ``at``."""
    code = PLATFORM_CODE[platform]
    t = at.timestamp()
    external = sound_id(seed, platform, kind, idx)
    duration = 10 + hs.scalar_h(seed, hs.label("sound_dur"), code, kind, idx) % 50
    if kind == ORIGINAL:
        duration = 10 + (hs.scalar_h(seed, hs.label("original_sound"), code, idx) >> 16) % 50
    owner_handle: str | None
    if kind == ORIGINAL:
        owner_handle = handle_of(seed, platform, idx)
        title, nickname, commerce = f"original sound - {owner_handle}", display_name(owner_handle), False
    elif kind == THEME:
        theme = THEMES[idx]
        owner_handle = None
        nickname = ARTIST_NAMES[hs.scalar_h(seed, hs.label("theme_artist"), idx) % len(ARTIST_NAMES)]
        title, commerce = theme.sound_title.title(), True
    else:
        a = SOUND_WORDS_A[hs.scalar_h(seed, hs.label("sound_a"), code, idx) % len(SOUND_WORDS_A)]
        b = SOUND_WORDS_B[hs.scalar_h(seed, hs.label("sound_b"), code, idx) % len(SOUND_WORDS_B)]
        owner_handle = None
        nickname = ARTIST_NAMES[hs.scalar_h(seed, hs.label("sound_artist"), code, idx) % len(ARTIST_NAMES)]
        title, commerce = f"{a} {b}", hs.scalar_u(seed, hs.label("commerce"), code, idx) < 0.6
    youtube = platform is Platform.YOUTUBE
    history = tuple(
        UsagePoint(at=day, usage_count=usage_count(seed, platform, kind, idx, day.timestamp()))
        for day in (at - timedelta(days=d) for d in range(history_days - 1, -1, -1))
    )
    return SoundRecord(
        platform=platform,
        external_id=external,
        title=title,
        duration=None if youtube else int(duration),  # §2.2: null on YouTube
        cover_url=f"covers/{platform.value}/{external}.jpg",
        is_original=kind == ORIGINAL,
        usage_count=None if youtube else usage_count(seed, platform, kind, idx, t),  # §2.2
        owner_handle=owner_handle,
        owner_nickname=nickname,
        is_commerce_music=commerce,
        usage=history,
        fetched_at=at,
    )


def kept_sound_record(seed: int, platform: Platform, kind: int, idx: int, at: datetime) -> SoundRecord:
    """``sound_record`` without history, kept: every batch of videos asked at one moment (an agent's
    searches, a catalog's pages) carries the same few hundred sounds, and a usage count costs a walk
    over the theme's bursts. Records are frozen, so sharing one between answers is safe."""
    # equal instants in two time zones are equal keys; the zone is part of the key so that the record's
    # fetched_at is always the ``at`` asked with
    return _kept_sound_record(seed, platform, kind, idx, at, at.tzinfo)


@lru_cache(maxsize=8192)
def _kept_sound_record(
    seed: int, platform: Platform, kind: int, idx: int, at: datetime, _zone: tzinfo | None
) -> SoundRecord:
    return sound_record(seed, platform, kind, idx, at)


def original_sound(
    seed: int, platform: Platform, idx: int, creator: CreatorRecord, at: datetime
) -> SoundRecord:
    """Same as ``sound_record(..., ORIGINAL, idx, at)`` but cheaper: the creator is already known."""
    h = hs.scalar_h(seed, hs.label("original_sound"), PLATFORM_CODE[platform], idx)
    external = str((ORIGINAL << 60) | (idx << 16) | (h & 0xFFFF))
    return SoundRecord(
        platform=platform,
        external_id=external,
        title=f"original sound - {creator.handle}",
        duration=None if platform is Platform.YOUTUBE else 10 + (h >> 16) % 50,
        cover_url=f"covers/{platform.value}/{external}.jpg",
        is_original=True,
        usage_count=None if platform is Platform.YOUTUBE else 1 + (h >> 24) % 5,
        owner_handle=creator.handle,
        owner_nickname=creator.display_name,
        is_commerce_music=False,
        fetched_at=at,
    )


def choose(seed: int, platform: Platform, key: hs.U64, is_burst: hs.I64) -> tuple[hs.I64, hs.I64]:
    """Per post: the sound kind (0 = no sound) and index. Reels and Shorts usually carry none (§2.1)."""
    u = hs.uniform(seed, key, hs.label("sound"))
    u2 = hs.uniform(seed, key, hs.label("sound_kind"))
    licensed = hs.weighted(POPULARITY, hs.uniform(seed, key, hs.label("sound_pick")))
    has = u >= (0.03 if platform is Platform.TIKTOK else 0.85)
    burst = is_burst.astype(bool)
    if platform is Platform.YOUTUBE:
        kind = np.where(has, np.where(burst & (u2 < 0.7), THEME, LICENSED), 0)
    else:
        kind = np.where(has, np.where(burst & (u2 < 0.7), THEME, np.where(u2 < 0.5, ORIGINAL, LICENSED)), 0)
    return kind.astype(np.int64), licensed
