"""Posts of the sandbox world: when they happen, their ids, and their counters at any moment.

Three streams, all lazily enumerable for any time window:

- kind 0, regular videos: creator ``c`` posts once per cadence slot ``k`` at
  ``phase[c] + (k + u(c, k)) * interval[c]``;
- kind 1, slideshows: the same on a slower cadence, for the TikTok/Instagram creators who make them;
- kind 2, burst videos: the extra videos of a planted trend, posted along its triangle.

An external id encodes the posting second, the stream and who posted it, so ``video_stats(id)``
regenerates exactly one post. Views follow ``final * growth(age)`` and freeze 7 days after posting.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from reelscope.collectors.sandbox import hashing as hs
from reelscope.collectors.sandbox.creators import Skeleton, skeleton
from reelscope.collectors.sandbox.trends import Burst, bursts_between, bursts_of_week, week_of
from reelscope.collectors.sandbox.vocab import COUNTRY_INDEX
from reelscope.kit.platforms import Platform

VIDEO, SLIDESHOW, BURST = 0, 1, 2
FREEZE_AFTER = 7 * 86_400.0  # views freeze about a week after posting (§2.3)
GROWTH_TAU = 20 * 3_600.0


@dataclass(frozen=True)
class ViewShape:
    """How one platform's frozen views are spread: a log-normal body and a Pareto breakout tail.

    A video's *body* is its creator's typical reach times log-normal noise; with probability
    ``breakout_share`` the feed pushes it beyond the creator's audience and it freezes at
    ``max(body, breakout)`` where ``P(breakout > x) = (breakout_floor / x) ** breakout_alpha``, capped.
    """

    median: float  # frozen median over all videos (ARCHITECTURE §7)
    sigma_video: float  # log-normal spread of one video around its creator's typical reach
    breakout_share: float
    breakout_floor: float
    breakout_alpha: float
    cap: float


# Real short-form views are a body of small numbers with a power-law tail: most videos stay near their
# creator's audience (hundreds to low thousands on Shorts), while the feed carries a few to tens of
# millions. The world samples ~3,000 posts a day per platform out of millions, so that sample must hold
# what a collector sees: a 48-hour top 100 in the millions on every platform, the best tens of millions.
# - TikTok: the For You feed tests every video beyond its followers, so the body is already high
#   (median 39K, σ 1.0) and 10% break out from 500K.
# - Reels: a follower-bound body (median 3.8K, wider spread: σ 1.3) and 14% pushed by Explore/Reels
#   from 400K.
# - Shorts: the widest body (median 1K, σ 1.5: many Shorts get tens of views, some of a channel's get
#   thousands) and 16% picked up by the Shorts feed from 400K, as Shorts with millions of views come
#   from small channels as often as from large ones.
# The shares are high because the world samples only ~3,000 posts a day per platform: for the 100th of
# two days to be in the millions, ~4-5% of all videos must end above 1M. Every tail index is 1.3 (a
# Zipf-like tail, steep enough that a two-day top reaches tens of millions, not billions). The caps
# (150M / 80M / 120M) stand for a platform's reach for one video over a week (ADR 0033).
VIEW_SHAPES = {
    Platform.TIKTOK: ViewShape(39_000.0, 1.0, 0.10, 500_000.0, 1.3, 150_000_000.0),
    Platform.INSTAGRAM: ViewShape(3_800.0, 1.3, 0.14, 400_000.0, 1.3, 80_000_000.0),
    Platform.YOUTUBE: ViewShape(1_000.0, 1.5, 0.16, 400_000.0, 1.3, 120_000_000.0),
}
SIGMA_CREATOR = 0.9
LIKE_RATE = {Platform.TIKTOK: 0.08, Platform.INSTAGRAM: 0.05, Platform.YOUTUBE: 0.035}
_CHECK = 0x1FFF
_YT_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


@dataclass(frozen=True)
class Posts:
    """A batch of posts of one platform, as columns."""

    platform: Platform
    kind: hs.I64
    creator: hs.I64
    ts: hs.I64  # posting instant, unix seconds
    key: hs.U64  # identity hash every other property derives from
    seq: hs.I64  # a burst video's number within its burst, -1 for the other streams
    burst: list[Burst | None]

    def __len__(self) -> int:
        return len(self.ts)

    def take(self, positions: hs.I64 | list[int]) -> Posts:
        pos = np.asarray(positions, dtype=np.int64)
        return Posts(
            self.platform,
            self.kind[pos],
            self.creator[pos],
            self.ts[pos],
            self.key[pos],
            self.seq[pos],
            [self.burst[i] for i in pos.tolist()],
        )

    @staticmethod
    def concat(platform: Platform, parts: list[Posts]) -> Posts:
        parts = [p for p in parts if len(p)]
        if not parts:
            return empty(platform)
        return Posts(
            platform,
            np.concatenate([p.kind for p in parts]),
            np.concatenate([p.creator for p in parts]),
            np.concatenate([p.ts for p in parts]),
            np.concatenate([p.key for p in parts]),
            np.concatenate([p.seq for p in parts]),
            [b for p in parts for b in p.burst],
        )


def empty(platform: Platform) -> Posts:
    z = np.zeros(0, dtype=np.int64)
    return Posts(platform, z, z, z, np.zeros(0, dtype=np.uint64), z, [])


def _slot_key(seed: int, code: int, kind: int, creator: hs.I64, slot: hs.I64) -> hs.U64:
    return hs.hash64(seed, hs.label("post"), code, kind, creator, slot)


def slot_posts(
    seed: int, platform: Platform, kind: int, since: float, until: float, creators: hs.I64 | None = None
) -> Posts:
    """Regular posts (kind 0) or slideshows (kind 1) posted in [since, until)."""
    sk = skeleton(seed, platform)
    idx = np.arange(len(sk.interval), dtype=np.int64) if creators is None else creators
    interval = (sk.interval if kind == VIDEO else sk.slideshow_interval)[idx]
    active = interval > 0
    idx, interval = idx[active], interval[active]
    phase = sk.phase[idx] if kind == VIDEO else sk.phase[idx] * 2.5
    k0 = np.floor((since - phase) / interval).astype(np.int64)
    k1 = np.floor((until - phase) / interval).astype(np.int64)
    counts = k1 - k0 + 1
    total = int(counts.sum())
    rep = np.repeat(np.arange(len(idx)), counts)
    offsets = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    slot = k0[rep] + offsets
    creator = idx[rep]
    key = _slot_key(seed, sk.code, kind, creator, slot)
    when = phase[rep] + (slot + hs.uniform(seed, key, hs.label("when"))) * interval[rep]
    keep = (when >= since) & (when < until) & (when >= sk.joined[creator])
    n = int(keep.sum())
    return Posts(
        platform,
        np.full(n, kind, dtype=np.int64),
        creator[keep],
        when[keep].astype(np.int64),
        key[keep],
        np.full(n, -1, dtype=np.int64),
        [None] * n,
    )


def _burst_key(seed: int, code: int, burst: Burst, seq: hs.I64) -> hs.U64:
    return hs.hash64(seed, hs.label("burst_post"), code, burst.week, burst.slot, seq)


def _burst_times(seed: int, code: int, burst: Burst, n: int, seq: hs.I64) -> tuple[hs.F64, hs.U64]:
    key = _burst_key(seed, code, burst, seq)
    q = (seq + hs.uniform(seed, key, hs.label("when"))) / n
    return np.array([burst.inverse_cdf(float(x)) for x in q]), key


def burst_posts(
    seed: int, platform: Platform, since: float, until: float, region: int | None = None
) -> Posts:
    """The extra videos of planted bursts posted in [since, until), optionally of one country."""
    sk = skeleton(seed, platform)
    parts: list[Posts] = []
    for burst in bursts_between(seed, since, until):
        country = COUNTRY_INDEX[burst.country]
        if region is not None and country != region:
            continue
        n = burst.count(platform)
        if n == 0:
            continue
        lo = max(0, int(np.floor(n * burst.cdf(since))) - 1)
        hi = min(n, int(np.ceil(n * burst.cdf(until))) + 1)
        seq = np.arange(lo, hi, dtype=np.int64)
        when, key = _burst_times(seed, sk.code, burst, n, seq)
        keep = (when >= since) & (when < until)
        pool = sk.by_country[country]
        creator = pool[(key[keep] % np.uint64(len(pool))).astype(np.int64)]
        m = int(keep.sum())
        parts.append(
            Posts(
                platform,
                np.full(m, BURST, dtype=np.int64),
                creator,
                when[keep].astype(np.int64),
                key[keep],
                seq[keep],
                [burst] * m,
            )
        )
    return Posts.concat(platform, parts)


def feed(seed: int, platform: Platform, since: float, until: float, region: int | None = None) -> Posts:
    """Every video (regular and burst) posted in [since, until), oldest first."""
    creators = None if region is None else skeleton(seed, platform).by_country[region]
    posts = Posts.concat(
        platform,
        [
            slot_posts(seed, platform, VIDEO, since, until, creators),
            burst_posts(seed, platform, since, until, region),
        ],
    )
    return posts.take(np.argsort(posts.ts, kind="stable"))


def creator_posts(
    seed: int, platform: Platform, creator: int, until: float, limit: int, kind: int = VIDEO
) -> Posts:
    """A creator's last ``limit`` posts before ``until``, newest first."""
    sk = skeleton(seed, platform)
    interval = float((sk.interval if kind == VIDEO else sk.slideshow_interval)[creator])
    if interval <= 0:
        return empty(platform)
    since = max(float(sk.joined[creator]), until - interval * (limit + 1))
    posts = slot_posts(seed, platform, kind, since, until, np.array([creator], dtype=np.int64))
    order = np.argsort(-posts.ts, kind="stable")[:limit]
    return posts.take(order)


# --- ids -------------------------------------------------------------------------------------------


def external_ids(posts: Posts) -> list[str]:
    """Each post's id: posting second, stream, creator (or burst and sequence) and check bits."""
    out = []
    for ts, kind, creator, seq, key, burst in zip(
        posts.ts.tolist(),
        posts.kind.tolist(),
        posts.creator.tolist(),
        posts.seq.tolist(),
        posts.key.tolist(),
        posts.burst,
        strict=True,
    ):
        payload = creator if burst is None else ((burst.week & 1) << 16) | (burst.slot << 11) | seq
        out.append(render_id(posts.platform, (ts << 32) | (kind << 30) | (payload << 13) | (key & _CHECK)))
    return out


def render_id(platform: Platform, number: int) -> str:
    if platform is Platform.YOUTUBE:
        return base64.urlsafe_b64encode(number.to_bytes(8, "big")).decode().rstrip("=")
    return str(number)


def parse_id(platform: Platform, external_id: str) -> int | None:
    try:
        if platform is Platform.YOUTUBE:
            if len(external_id) != 11:
                return None
            return int.from_bytes(base64.urlsafe_b64decode(external_id + "="), "big")
        if not external_id.isdigit() or len(external_id) > 20:
            return None
        return int(external_id)
    except ValueError:
        return None


def shortcode(number: int) -> str:
    """Instagram's link code for a numeric media id (base 64 over its own alphabet)."""
    chars = []
    while number:
        number, r = divmod(number, 64)
        chars.append(_YT_ALPHABET[r])
    return "".join(reversed(chars)) or "A"


def locate_many(seed: int, platform: Platform, external_ids: list[str]) -> tuple[Posts, list[str]]:
    """The posts a list of ids names (unknown ids left out), and the ids found, in the same order.

    Regular videos, the bulk of any list, are located in one vectorised pass.
    """
    sk = skeleton(seed, platform)
    numbers = [parse_id(platform, e) for e in external_ids]
    regular = [
        i for i, n in enumerate(numbers)
        if n is not None and n < 1 << 64 and (n >> 30) & 3 == VIDEO and (n >> 13) & 0x1FFFF < len(sk.interval)
    ]  # fmt: skip
    parts: list[Posts] = []
    positions: list[int] = []
    if regular:
        nums = np.array([numbers[i] for i in regular], dtype=np.uint64)
        ts = (nums >> np.uint64(32)).astype(np.int64)
        creator = ((nums >> np.uint64(13)) & np.uint64(0x1FFFF)).astype(np.int64)
        check = (nums & np.uint64(_CHECK)).astype(np.int64)
        interval, phase = sk.interval[creator], sk.phase[creator]
        first = np.floor((ts - phase) / interval).astype(np.int64)
        for slot in (first, first + 1):
            key = _slot_key(seed, sk.code, VIDEO, creator, slot)
            when = phase + (slot + hs.uniform(seed, key, hs.label("when"))) * interval
            hit = (when.astype(np.int64) == ts) & ((key & np.uint64(_CHECK)).astype(np.int64) == check)
            hit &= when >= sk.joined[creator]
            rows = np.flatnonzero(hit)
            n = len(rows)
            parts.append(
                Posts(
                    platform,
                    np.zeros(n, dtype=np.int64),
                    creator[rows],
                    ts[rows],
                    key[rows],
                    np.full(n, -1, dtype=np.int64),
                    [None] * n,
                )
            )
            positions.extend(regular[r] for r in rows.tolist())
    regular_set = set(regular)
    for i, external in enumerate(external_ids):
        if i not in regular_set:
            post = locate(seed, platform, external)
            if post is not None:
                parts.append(post)
                positions.append(i)
    order = np.argsort(np.array(positions, dtype=np.int64), kind="stable")
    return Posts.concat(platform, parts).take(order), [external_ids[positions[j]] for j in order.tolist()]


def locate(seed: int, platform: Platform, external_id: str) -> Posts | None:
    """The one post an external id names, or None when no post of this world has it."""
    number = parse_id(platform, external_id)
    if number is None or number >= 1 << 64:
        return None
    ts = number >> 32
    kind = (number >> 30) & 3
    payload = (number >> 13) & 0x1FFFF
    check = number & _CHECK
    sk = skeleton(seed, platform)
    code = sk.code
    if kind in (VIDEO, SLIDESHOW):
        if payload >= len(sk.interval):
            return None
        found = slot_posts(seed, platform, kind, ts - 1.0, ts + 1.0, np.array([payload], dtype=np.int64))
        for i in range(len(found)):
            if int(found.ts[i]) == ts and int(found.key[i]) & _CHECK == check:
                return found.take([i])
        return None
    if kind != BURST:
        return None
    parity, slot, seq = payload >> 16, (payload >> 11) & 0x1F, payload & 0x7FF
    for week in (week_of(ts), week_of(ts) - 1):
        if week < 0 or week & 1 != parity:
            continue
        bursts = bursts_of_week(seed, week)
        if slot >= len(bursts):
            continue
        burst = bursts[slot]
        n = burst.count(platform)
        if seq >= n:
            continue
        seqs = np.array([seq], dtype=np.int64)
        when, key = _burst_times(seed, code, burst, n, seqs)
        if int(when[0]) != ts or int(key[0]) & _CHECK != check:
            continue
        pool = sk.by_country[COUNTRY_INDEX[burst.country]]
        creator = pool[(key % np.uint64(len(pool))).astype(np.int64)]
        return Posts(platform, np.array([BURST]), creator, np.array([ts]), key, seqs, [burst])
    return None


# --- counters --------------------------------------------------------------------------------------


@lru_cache(maxsize=16)
def _calibration(seed: int, platform: Platform) -> float:
    """The log-noise quantile that puts the frozen-view median on the platform's target.

    Breakouts all land above the median, so the median of all videos is the body's
    ``0.5 / (1 - breakout_share)`` quantile.
    """
    shape = VIEW_SHAPES[platform]
    sk = skeleton(seed, platform)
    sample = np.arange(len(sk.reach), dtype=np.uint64)
    noise = SIGMA_CREATOR * sk.reach + shape.sigma_video * hs.normal(seed, hs.label("calib"), sample)
    return float(np.quantile(noise, 0.5 / (1.0 - shape.breakout_share)))


def creator_median_views(seed: int, platform: Platform, creators: hs.I64) -> hs.F64:
    sk = skeleton(seed, platform)
    median = VIEW_SHAPES[platform].median
    return median * np.exp(SIGMA_CREATOR * sk.reach[creators] - _calibration(seed, platform))


def final_views(seed: int, posts: Posts) -> hs.F64:
    """Views a post freezes at, a week after posting (``ViewShape``)."""
    shape = VIEW_SHAPES[posts.platform]
    sk: Skeleton = skeleton(seed, posts.platform)
    k = posts.key
    log_v = (
        np.log(shape.median)
        - _calibration(seed, posts.platform)
        + SIGMA_CREATOR * sk.reach[posts.creator]
        + shape.sigma_video * hs.normal(seed, k, hs.label("views"))
    )
    is_burst = posts.kind == BURST
    log_v = log_v + np.where(is_burst, 0.9 + 0.5 * hs.normal(seed, k, hs.label("burst_x")), 0.0)
    u = hs.uniform(seed, k, hs.label("breakout_x"))
    breakout = np.where(
        hs.uniform(seed, k, hs.label("breakout")) < shape.breakout_share,
        shape.breakout_floor * (1.0 - u) ** (-1.0 / shape.breakout_alpha),
        0.0,
    )
    views: hs.F64 = np.clip(np.maximum(np.exp(log_v), breakout), 12.0, shape.cap)
    return views


def growth(seed: int, posts: Posts, at: float) -> hs.F64:
    """Share of the final views reached at ``at``: rises fast, exactly 1 from a week on."""
    age = np.maximum(at - posts.ts.astype(np.float64), 0.0)
    tau = GROWTH_TAU * np.exp(0.3 * hs.normal(seed, posts.key, hs.label("tau")))
    full = 1.0 - np.exp(-FREEZE_AFTER / tau)
    return np.where(age >= FREEZE_AFTER, 1.0, (1.0 - np.exp(-age / tau)) / full)


@dataclass(frozen=True)
class Counters:
    views: hs.I64
    likes: hs.I64
    comments: hs.I64
    shares: hs.I64  # -1 = not reported
    bookmarks: hs.I64


def counters(seed: int, posts: Posts, at: float) -> Counters:
    """Views, likes, comments, shares and bookmarks at ``at``, with the per-platform gaps of §2.1."""
    k = posts.key
    views = np.floor(final_views(seed, posts) * growth(seed, posts, at))
    like_rate = np.minimum(LIKE_RATE[posts.platform] * np.exp(0.4 * hs.normal(seed, k, hs.label("lr"))), 0.3)
    likes = np.floor(views * like_rate)
    comments = np.floor(likes * (0.01 + 0.04 * hs.uniform(seed, k, hs.label("cr"))))
    shares = np.floor(views * 0.004 * np.exp(0.5 * hs.normal(seed, k, hs.label("sr"))))
    bookmarks = np.floor(views * 0.006 * np.exp(0.5 * hs.normal(seed, k, hs.label("br"))))
    gap = hs.uniform(seed, k, hs.label("gaps"))
    if posts.platform is Platform.YOUTUBE:
        likes = np.where(gap < 0.35, 0, likes)  # hidden like counts read as 0 (§2.1)
        comments = np.where(hs.uniform(seed, k, hs.label("cgap")) < 0.08, 0, comments)
    if posts.platform is Platform.TIKTOK:
        shares = np.where(gap < 0.04, -1, shares)
        bookmarks = np.where(gap < 0.04, -1, bookmarks)
    else:
        shares = np.full(len(views), -1.0)
        bookmarks = np.full(len(views), -1.0)
    return Counters(
        views.astype(np.int64),
        likes.astype(np.int64),
        comments.astype(np.int64),
        shares.astype(np.int64),
        bookmarks.astype(np.int64),
    )
