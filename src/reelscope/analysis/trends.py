"""Trend detection: what is breaking out in a region's recent videos (ARCHITECTURE §8, spec §4.3).

A run looks at the videos of one region posted in the last ``recent`` window and compares every
feature — hashtag, uploader tag (ADR 0026), sound, caption/title phrase — with its own baseline over the
preceding ``baseline`` window. A feature bursts when its use is well above what its baseline predicts
(a Poisson z-score and a ratio), its views rise with it, and its count is unlikely to be chance once the
number of features tested in the run is accounted for (ADR 0034). Bursting features that share videos
are one trend.

The thresholds are relative to the region's density (ADR 0027): the minimum count grows with the log of
the region's videos per day (5 in a feed of ~150 a day, 8 from ~1,000 a day), and the z-score needed
shrinks with it, so a story reaching 5 videos from a baseline near zero breaks out in a small national
feed while the sandbox's ~10,000 a day keep their margin. A feature's baseline is scaled to the part of
the baseline window the catalog actually covers (the first days of an imported history have less).
Uploads are counted per uploader, at most ``per_creator_cap`` each: one channel's series or a
recurring show posting many clips is not a story.

A run tests thousands of features (every hashtag, tag, sound and phrase of the window), each against a
baseline of a few uses, so some rare ones reach the minimum count by luck. ``chance_of`` is the
probability of a count at least this high if the feature kept its baseline pace — a Poisson count whose
rate is known only through the baseline's own count (a negative binomial) — and a burst needs it below
``family_error / features tested`` (Bonferroni): a run reports a chance burst with probability at most
``family_error``, however many features it looks at (ADR 0034).

Everything here is pure: plain records in, plain values out; no database, no clock.
"""

from __future__ import annotations

import math
import re
import statistics
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from reelscope.analysis.text import normalize_hashtag, phrases

HASHTAG = "hashtag"
TAG = "tag"
SOUND = "sound"
PHRASE = "phrase"
# the order in which a trend picks its name: a hashtag reads best, then an uploader's tag, a sound, a phrase
_NAME_PREFERENCE = {HASHTAG: 0, TAG: 1, SOUND: 2, PHRASE: 3}
# features a person chose as labels: a trend with one of them is "tagged" (see untagged_z_factor)
_LABELS = frozenset({HASHTAG, TAG})


@dataclass(frozen=True)
class Post:
    """One video as detection sees it."""

    video_id: str
    platform: str
    posted_at: datetime
    views: int
    hashtags: tuple[str, ...] = ()  # normalized: lower case, no '#'
    hashtag_labels: tuple[str, ...] = ()  # display forms, same order as hashtags
    sound_id: str | None = None
    sound_title: str | None = None
    sound_is_original: bool = False
    caption: str = ""
    # the uploader's keyword tags (yt-dlp ``tags``) as written; not hashtags (ADR 0026)
    tags: tuple[str, ...] = ()
    # the uploader (catalog creator id); None counts the video as its own uploader
    creator_id: str | None = None


def tag_key(tag: str) -> str:
    """An uploader tag's key: case-folded, spaces collapsed ('Hurricane  Milton' = 'hurricane milton')."""
    return " ".join(normalize_hashtag(tag).split())


@dataclass(frozen=True)
class Feature:
    kind: str
    key: str  # "hashtag:glassskin", "sound:<id>", "phrase:glass skin"
    label: str


@dataclass(frozen=True)
class Burst:
    feature: Feature
    recent_count: int
    expected: float
    z: float
    ratio: float
    views_ratio: float
    video_ids: frozenset[str]
    # the probability of a count this high at the baseline's pace (``chance_of``), before correction
    chance: float

    @property
    def score(self) -> float:
        return self.z * (1.0 + math.log1p(self.ratio)) * (1.0 + 0.25 * math.log1p(self.views_ratio))


@dataclass(frozen=True)
class DetectedTrend:
    key: str  # the lead feature's key; stable across runs while the lead stays the lead
    feature_keys: frozenset[str]
    name: str
    description: str
    trend_type: str
    score: float
    z: float
    ratio: float
    exemplar_ids: tuple[str, ...]  # recent videos of the trend, by views descending
    count_recent: int
    median_views: int
    per_platform: dict[str, int]
    velocity_band: str  # breaking | accelerating | sustained | fading
    bursts: tuple[Burst, ...] = field(default=(), repr=False)


@dataclass(frozen=True)
class DetectionParams:
    recent: timedelta = timedelta(hours=24)
    baseline: timedelta = timedelta(days=7)
    # the minimum count and z of a dense region; a sparser one scales both down (``for_volume``)
    min_count: int = 8
    min_z: float = 5.0
    # the minimum count never goes below this, however sparse the region
    min_count_floor: int = 4
    # minimum count = round(volume_slope * log10(videos per day) - volume_offset), within the bounds
    volume_slope: float = 2.5
    volume_offset: float = 0.5
    # one uploader's videos count at most this many times towards a feature's recent count
    per_creator_cap: int = 2
    # a weekly show or fixture (NFL Sundays) expects at least this share of its use in the same hours
    # a week before
    weekly_weight: float = 0.5
    min_ratio: float = 2.5
    min_views_ratio: float = 1.2
    # two bursts are one trend when this share of the smaller one's videos also carry the other
    containment: float = 0.35
    # a trend with no hashtag among its features needs this many times min_z: caption phrases are far
    # more numerous than hashtags, so chance bursts among them are too (a multiple-comparisons margin)
    untagged_z_factor: float = 2.0
    # the chance that a run reports any burst its baseline explains, whatever the number of features
    # tested: each feature's chance must be under family_error / features tested (ADR 0034)
    family_error: float = 0.05
    max_trends: int = 50
    phrase_sizes: tuple[int, ...] = (2, 3)


_DIGITS = re.compile(r"\d+")


def series_key(key: str) -> str:
    """A numbered label's series: 'tag:week 5' and 'tag:week 6' are 'tag:week #' (episodes, weeks)."""
    return _DIGITS.sub("#", key)


def min_count_for(volume_per_day: float, params: DetectionParams) -> int:
    """The minimum recent count for a region posting ``volume_per_day`` videos a day (ADR 0027)."""
    if volume_per_day <= 1:
        return params.min_count_floor
    wanted = round(params.volume_slope * math.log10(volume_per_day) - params.volume_offset)
    return max(params.min_count_floor, min(params.min_count, wanted))


@dataclass(frozen=True)
class Thresholds:
    """The thresholds of one run, from its region's density."""

    min_count: int
    min_z: float
    volume_per_day: float


def thresholds_for(volume_per_day: float, params: DetectionParams) -> Thresholds:
    """A sparse region's minimum count is lower; its z threshold falls in proportion, so a feature at
    the minimum count from a baseline near zero passes in any region, as it does in a dense one."""
    count = min_count_for(volume_per_day, params)
    return Thresholds(count, params.min_z * count / params.min_count, volume_per_day)


# the uses a feature's baseline is credited with beyond those seen: Jeffreys' prior for a Poisson rate,
# the usual uninformative choice (it reads the same whatever unit the rate is counted in; ADR 0034)
_PRIOR_USES = 0.5


def chance_of(count: int, expected: float, windows: float) -> float:
    """The probability that a feature expected ``expected`` times in the recent window is used ``count``
    times or more there by chance, its baseline covering ``windows`` recent windows (ADR 0034).

    Its pace is known only through the baseline's count, ``expected × windows`` uses, so the recent
    count is Poisson with a rate that is itself uncertain: with Jeffreys' prior (half a use more than
    seen: a feature never seen is credited with half a use among the baseline's videos, a floor per
    video that follows the region's density) the rate is Gamma(expected·windows + ½, windows) and the
    count negative binomial. Five uses in a day after a silent week: 8·10⁻⁶; after a week with one: 8·10⁻⁵.
    Summed in log space; a count at or under the mean is not unusual (1.0)."""
    if count <= 0:
        return 1.0
    shape = expected * windows + _PRIOR_USES
    recent_share = 1.0 / (windows + 1.0)
    if count <= shape / windows:  # the negative binomial's mean
        return 1.0
    log_first = (
        math.lgamma(count + shape)
        - math.lgamma(shape)
        - math.lgamma(count + 1)
        + shape * math.log1p(-recent_share)
        + count * math.log(recent_share)
    )
    # P(X = k + 1) / P(X = k) = (k + shape) / (k + 1) · recent_share, below 1 past the mean
    total = term = 1.0
    k = count
    while term > 1e-12 * total:
        term *= (k + shape) / (k + 1) * recent_share
        total += term
        k += 1
    return min(1.0, math.exp(log_first + math.log(total)))


def features_of(post: Post, params: DetectionParams) -> list[Feature]:
    found: dict[str, Feature] = {}
    labels = post.hashtag_labels if len(post.hashtag_labels) == len(post.hashtags) else post.hashtags
    for tag, label in zip(post.hashtags, labels, strict=True):
        if tag:
            found[f"{HASHTAG}:{tag}"] = Feature(HASHTAG, f"{HASHTAG}:{tag}", "#" + label.lstrip("#"))
    for label in post.tags:
        # a tag repeating a hashtag is its own feature too: its count is the tag's, and the two
        # bursts share their videos, so they cluster into one trend
        key = tag_key(label)
        if key:
            found.setdefault(f"{TAG}:{key}", Feature(TAG, f"{TAG}:{key}", " ".join(label.split())))
    # an original sound belongs to one creator; only shared sounds can trend
    if post.sound_id and not post.sound_is_original:
        key = f"{SOUND}:{post.sound_id}"
        found[key] = Feature(SOUND, key, post.sound_title or "an unnamed sound")
    for phrase in phrases(post.caption, sizes=params.phrase_sizes):
        key = f"{PHRASE}:{phrase}"
        found[key] = Feature(PHRASE, key, phrase)
    return list(found.values())


class FeatureMemo:
    """Features of posts computed once for many runs (a run sequence moves each post through several
    windows): each post's features by video id, each feature object shared, each key's numbered series.
    Keep one per run sequence; ``keep`` forgets the posts that left the window."""

    def __init__(self, params: DetectionParams) -> None:
        self.params = params
        self._by_post: dict[str, tuple[Feature, ...]] = {}
        self._shared: dict[str, Feature] = {}
        self._series: dict[str, str] = {}
        # by video id: its features' keys, and those keys with each numbered series after them (what a
        # baseline counts)
        self._keys: dict[str, tuple[str, ...]] = {}
        self._counted: dict[str, tuple[str, ...]] = {}

    def __len__(self) -> int:
        return len(self._by_post)

    def __call__(self, post: Post) -> Sequence[Feature]:
        found = self._by_post.get(post.video_id)
        if found is None:
            shared = self._shared
            found = tuple(shared.setdefault(f.key, f) for f in features_of(post, self.params))
            self._by_post[post.video_id] = found
        return found

    def series(self, key: str) -> str:
        found = self._series.get(key)
        if found is None:
            found = self._series[key] = series_key(key)
        return found

    def keys(self, post: Post) -> tuple[str, ...]:
        found = self._keys.get(post.video_id)
        if found is None:
            found = self._keys[post.video_id] = tuple(f.key for f in self(post))
        return found

    def counted(self, post: Post) -> tuple[str, ...]:
        found = self._counted.get(post.video_id)
        if found is None:
            keys = self.keys(post)
            found = keys + tuple(s for k, s in zip(keys, map(self.series, keys), strict=True) if s != k)
            self._counted[post.video_id] = found
        return found

    def keep(self, video_ids: set[str]) -> None:
        self._by_post = {v: f for v, f in self._by_post.items() if v in video_ids}
        self._shared = {f.key: f for found in self._by_post.values() for f in found}
        self._series = {k: v for k, v in self._series.items() if k in self._shared}
        self._keys = {v: k for v, k in self._keys.items() if v in video_ids}
        self._counted = {v: k for v, k in self._counted.items() if v in video_ids}


class FeatureWindows:
    """One region's posts in the windows of a run at ``now`` and what each window counts per feature,
    kept up to date as ``now`` moves forward: the recent window (its videos, uploaders and views per
    feature), the baseline before it (uses and views per feature and per numbered series) and, inside the
    baseline, the same hours a week before the run (uses). A sequence of runs in time order moves each
    post into and out of each window once, instead of counting the whole 8 days again at every run; a
    single run is the same object advanced once. ``bursts_at`` and ``trends_at`` read the counts.

    Posts are ``add``-ed before the ``advance`` that takes them in (any order; a post older than the
    last ``advance`` is ignored: its runs are past). Every post of the region must be added, once.
    """

    def __init__(self, params: DetectionParams, features: FeatureMemo | None = None) -> None:
        self.params = params
        # one object per feature key (the memo's)
        self.features = features if features is not None else FeatureMemo(params)
        self.now: datetime | None = None
        self._pending: list[Post] = []
        # posts taken in, by time; [_head, _recent) is the baseline window, [_week_start, _week_end)
        # the week-ago window inside it, [_recent, len) the recent window
        self._posts: list[Post] = []
        self._times: list[datetime] = []
        self._head = self._week_start = self._week_end = self._recent = 0
        self.recent_videos: dict[str, set[str]] = {}
        self.recent_creators: dict[str, dict[str, int]] = {}
        self.recent_views: dict[str, int] = {}
        self.recent_posts: dict[str, Post] = {}
        # each recent feature as the run reports it
        self.labels: dict[str, Feature] = {}
        self.baseline_count: dict[str, int] = {}
        self.baseline_views: dict[str, int] = {}
        self.week_ago_count: dict[str, int] = {}
        # keys used by at least min_count_floor recent videos: the only ones a run can report
        self.candidates: set[str] = set()

    def __len__(self) -> int:
        """Posts in the run's whole window (baseline and recent)."""
        return len(self._posts) - self._head

    def video_ids(self) -> set[str]:
        """The posts held: in the window, or added and waiting for their run."""
        return {p.video_id for p in self._posts[self._head :]} | {p.video_id for p in self._pending}

    @property
    def earliest(self) -> datetime | None:
        """The oldest post of the baseline window."""
        return self._times[self._head] if self._head < self._recent else None

    def add(self, posts: Iterable[Post]) -> None:
        self._pending.extend(posts)

    def _bounds(self, now: datetime) -> tuple[datetime, datetime, datetime, datetime]:
        """Window edges (each exclusive below, inclusive above): baseline start, week-ago start and end
        (clipped to the baseline), recent start."""
        params = self.params
        recent_start = now - params.recent
        baseline_start = recent_start - params.baseline
        week_start = max(baseline_start, recent_start - timedelta(days=7))
        week_end = min(now - timedelta(days=7), recent_start)
        return baseline_start, week_start, max(week_start, week_end), recent_start

    def advance(self, now: datetime) -> None:
        """Move the windows to a run at ``now`` (no earlier than the previous run)."""
        if self.now is not None and now < self.now:
            raise ValueError("runs must come in time order")
        since = self.now
        fresh = [p for p in self._pending if p.posted_at <= now and (since is None or p.posted_at > since)]
        # a feature is labelled as the first recent post to write it, in the order the posts were added
        # (the memo shares that post's feature object with the posts after it)
        recent_start = now - self.params.recent
        for post in fresh:
            if post.posted_at > recent_start:
                self.features(post)
        taken = sorted(fresh, key=lambda p: p.posted_at)
        self._pending = [p for p in self._pending if p.posted_at > now]
        old = (self._head, self._week_start, self._week_end, self._recent, len(self._posts))
        self._posts += taken
        self._times += [p.posted_at for p in taken]
        # each edge's first post past it; every edge only moves forward
        new = (
            *(
                bisect_right(self._times, edge, lo=lo)
                for edge, lo in zip(self._bounds(now), old, strict=False)
            ),
            len(self._posts),
        )
        # a post changes windows only where an edge moved past it
        done = 0
        for lo, hi in sorted((old[i], new[i]) for i in range(5) if new[i] > old[i]):
            for i in range(max(lo, done), hi):
                self._move(self._posts[i], self._where(i, old), self._where(i, new))
            done = max(done, hi)
        self._head, self._week_start, self._week_end, self._recent = new[:4]
        self.now = now
        if self._head > 4096 and self._head * 2 > len(self._posts):
            del self._posts[: self._head], self._times[: self._head]
            self._week_start -= self._head
            self._week_end -= self._head
            self._recent -= self._head
            self._head = 0

    @staticmethod
    def _where(i: int, edges: tuple[int, ...]) -> tuple[bool, bool, bool]:
        """(in the baseline, in the week-ago window, in the recent window) of post ``i``."""
        head, week_start, week_end, recent, end = edges
        return head <= i < recent, week_start <= i < week_end, recent <= i < end

    def _move(self, post: Post, was: tuple[bool, bool, bool], now: tuple[bool, bool, bool]) -> None:
        if now[0] != was[0]:
            by = now[0] - was[0]
            _count(self.baseline_count, self.features.counted(post), by)
            _count(self.baseline_views, self.features.keys(post), by * post.views)
        if now[1] != was[1]:
            _count(self.week_ago_count, self.features.counted(post), now[1] - was[1])
        if now[2] and not was[2]:
            self._enter_recent(post)
        elif was[2] and not now[2]:
            self._leave_recent(post)

    def _enter_recent(self, post: Post) -> None:
        video_id, views = post.video_id, post.views
        uploader = post.creator_id or video_id
        self.recent_posts[video_id] = post
        floor = self.params.min_count_floor
        all_videos, all_creators, all_views = self.recent_videos, self.recent_creators, self.recent_views
        for feature in self.features(post):
            key = feature.key
            videos = all_videos.get(key)
            if videos is None:
                videos = all_videos[key] = set()
                all_creators[key] = {}
                all_views[key] = 0
                self.labels[key] = feature
            videos.add(video_id)
            if len(videos) == floor:
                self.candidates.add(key)
            creators = all_creators[key]
            creators[uploader] = creators.get(uploader, 0) + 1
            all_views[key] += views

    def _leave_recent(self, post: Post) -> None:
        video_id, views = post.video_id, post.views
        uploader = post.creator_id or video_id
        del self.recent_posts[video_id]
        floor = self.params.min_count_floor
        all_videos, all_creators, all_views = self.recent_videos, self.recent_creators, self.recent_views
        for key in self.features.keys(post):
            videos = all_videos[key]
            videos.discard(video_id)
            if len(videos) < floor:
                self.candidates.discard(key)
            if not videos:
                del all_videos[key], all_creators[key], all_views[key], self.labels[key]
                continue
            creators = all_creators[key]
            left = creators[uploader] - 1
            if left:
                creators[uploader] = left
            else:
                del creators[uploader]
            all_views[key] -= views


def _count(counts: dict[str, int], keys: Sequence[str], by: int) -> None:
    """Add ``by`` to each key's count; a count back at zero leaves the dict, which stays the window's
    size."""
    get = counts.get
    for key in keys:
        value = get(key, 0) + by
        if value:
            counts[key] = value
        else:
            counts.pop(key, None)


def find_bursts(
    posts: Iterable[Post],
    now: datetime,
    params: DetectionParams,
    thresholds: Thresholds | None = None,
    features: FeatureMemo | None = None,
) -> list[Burst]:
    """Features whose recent use and views are far above their own baseline, strongest first (one run
    over ``posts``; ``bursts_at`` for a sequence of runs)."""
    windows = FeatureWindows(params, features)
    windows.add(posts)
    windows.advance(now)
    return bursts_at(windows, thresholds)


def bursts_at(windows: FeatureWindows, thresholds: Thresholds | None = None) -> list[Burst]:
    """The bursts of the run ``windows`` stands at, strongest first.

    Without ``thresholds`` they come from the region's own volume: its videos in the recent window."""
    params = windows.params
    if windows.now is None:
        return []
    if thresholds is None:
        thresholds = thresholds_for(len(windows.recent_posts) / (params.recent / timedelta(days=1)), params)
    recent_start = windows.now - params.recent
    # the baseline is the part of its window the posts cover (a history imported a few days ago has
    # less than a week); under one recent window it counts as one
    earliest = windows.earliest
    covered = recent_start - earliest if earliest is not None else params.baseline
    scale = params.recent / max(covered, params.recent)
    # every feature of the window is tested, reported or not (Bonferroni over the run's features)
    chance_limit = params.family_error / max(1, len(windows.recent_videos))
    baseline_count, week_ago_count = windows.baseline_count, windows.week_ago_count

    found: list[Burst] = []
    for key in windows.candidates:
        videos = windows.recent_videos[key]
        if len(videos) < thresholds.min_count:
            continue
        count = sum(min(n, params.per_creator_cap) for n in windows.recent_creators[key].values())
        if count < thresholds.min_count:
            continue  # one uploader's series, not a story
        # the feature's own baseline: its mean pace, its use a week before (weekly shows), and for a
        # numbered label ("Week 5", "Ep 45") the series' use under any number
        series = windows.features.series(key)
        expected = max(
            max(baseline_count.get(key, 0), baseline_count.get(series, 0)) * scale,
            max(week_ago_count.get(key, 0), week_ago_count.get(series, 0)) * params.weekly_weight,
        )
        z = (count - expected) / math.sqrt(expected + 1.0)
        ratio = (count + 1.0) / (expected + 1.0)
        views_ratio = (windows.recent_views[key] + 1.0) / (windows.baseline_views.get(key, 0) * scale + 1.0)
        if z < thresholds.min_z or ratio < params.min_ratio or views_ratio < params.min_views_ratio:
            continue
        # an expectation from the weekly or series rule counts as that many baseline uses
        chance = chance_of(count, expected, 1.0 / scale)
        if chance > chance_limit:
            continue  # one of the many rare features that reach this count by luck on some day
        found.append(
            Burst(
                feature=windows.labels[key],
                recent_count=len(videos),
                expected=expected,
                z=z,
                ratio=ratio,
                views_ratio=views_ratio,
                video_ids=frozenset(videos),
                chance=chance,
            )
        )
    found.sort(key=lambda b: (-b.score, b.feature.key))
    return found


def _cluster(bursts: Sequence[Burst], containment: float) -> list[list[Burst]]:
    parent = list(range(len(bursts)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(bursts)):
        for j in range(i + 1, len(bursts)):
            a, b = bursts[i].video_ids, bursts[j].video_ids
            shared = len(a & b)
            if shared and shared / min(len(a), len(b)) >= containment:
                parent[root(j)] = root(i)
    groups: dict[int, list[Burst]] = defaultdict(list)
    for i, burst in enumerate(bursts):
        groups[root(i)].append(burst)
    return list(groups.values())


def _velocity_band(posted: Sequence[datetime], now: datetime, window: timedelta) -> str:
    """Compare the newer half of the window with the older half."""
    half = now - window / 2
    newer = sum(1 for t in posted if t > half)
    older = len(posted) - newer
    if older == 0 or newer >= 3 * older:
        return "breaking"
    if newer >= 1.5 * older:
        return "accelerating"
    if newer * 1.5 <= older:
        return "fading"
    return "sustained"


def _describe(name: str, members: Sequence[Burst], count: int, ratio: float, window: timedelta) -> str:
    others = [b.feature.label for b in members if b.feature.label != name][:3]
    hours = int(window.total_seconds() // 3600)
    text = f"{count} videos around {name} in the last {hours} hours, {ratio:.0f}x their usual pace"
    if others:
        text += "; often with " + ", ".join(others)
    return text + "."


def _compact(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def _display_name(members: Sequence[Burst], posts: Sequence[Post]) -> tuple[str, str]:
    """The name a person would give the story and the kind of feature that names it (ADR 0027).

    The words of a member feature — a hashtag, a tag and a phrase saying the same words are one name
    ('#HurricaneMilton', 'Hurricane Milton', 'hurricane milton') — carried by the most of the trend's
    videos (to the nearest tenth), then the preferred kind (hashtag, tag, sound, phrase), then the
    one that reads most like a name (capitalized words: 'Liam Payne' over 'music news'), then the
    longer, then the stronger. Spelled as an uploader's tag writes it when one has spaces, else as
    the captions and titles write a phrase, else as the hashtag or sound is labelled."""
    total = max(1, len({v for b in members for v in b.video_ids}))
    groups: dict[str, list[Burst]] = defaultdict(list)
    for burst in members:
        groups[_compact(burst.feature.label)].append(burst)

    # the uploaders' own tags on the trend's videos, bursting or not: a phrase an uploader also wrote
    # as a tag is a label a person chose ('Squid Game'), spelled as they wrote it
    written: dict[str, str] = {}
    for post in posts:
        for tag in post.tags:
            written.setdefault(_compact(tag), " ".join(tag.split()))

    def spelled(group: list[Burst]) -> str:
        tags = [b.feature.label for b in group if b.feature.kind == TAG and " " in b.feature.label]
        if tags:
            return tags[0]
        key = _compact(group[0].feature.label)
        if " " in written.get(key, ""):
            return written[key]
        phrase = next((b.feature.label for b in group if b.feature.kind == PHRASE), None)
        if phrase is not None:
            return _spelling(phrase, posts)
        return min(group, key=lambda b: (_NAME_PREFERENCE[b.feature.kind], -b.score)).feature.label

    def kind_of(group: list[Burst]) -> str:
        kind = min((b.feature.kind for b in group), key=_NAME_PREFERENCE.__getitem__)
        if _compact(group[0].feature.label) in written and _NAME_PREFERENCE[kind] > _NAME_PREFERENCE[TAG]:
            return TAG
        return kind

    def reach(group: list[Burst]) -> tuple[float, int]:
        coverage = len({v for b in group for v in b.video_ids}) / total
        return -round(coverage, 1), _NAME_PREFERENCE[kind_of(group)]

    def reads(group: list[Burst]) -> tuple[float, int, float]:
        text = spelled(group).lstrip("#")
        words = text.split() or [text]
        capitals = sum(w[:1].isupper() for w in words) / len(words)
        return -capitals, -len(words), -max(b.score for b in group)

    # the spelling scans the captions: only the groups that reach the most videos in the preferred kind
    # are spelled, to choose among them
    reaches = {id(group): reach(group) for group in groups.values()}
    most = min(reaches.values())
    best = min((g for g in groups.values() if reaches[id(g)] == most), key=reads)
    return spelled(best), kind_of(best)


def _spelling(phrase: str, posts: Sequence[Post]) -> str:
    """How the captions and titles write a (case-folded) phrase most often; among equals, with most
    capitals (titles capitalize names)."""
    words = r"\W+".join(re.escape(w) for w in phrase.split())
    pattern = re.compile(r"(?<!\w)" + words + r"(?!\w)", re.IGNORECASE)
    spellings: dict[str, int] = defaultdict(int)
    for post in posts:
        for found in pattern.finditer(post.caption):
            spellings[" ".join(found.group(0).split())] += 1
    if not spellings:
        return phrase
    return max(spellings, key=lambda text: (spellings[text], sum(c.isupper() for c in text), text))


def detect(
    posts: Iterable[Post],
    now: datetime,
    params: DetectionParams | None = None,
    features: FeatureMemo | None = None,
) -> list[DetectedTrend]:
    """Named trends breaking out among ``posts`` at ``now``, strongest first (one run; a sequence of runs
    keeps a ``FeatureWindows`` per region and reads ``trends_at``)."""
    windows = FeatureWindows(params or DetectionParams(), features)
    windows.add(posts)
    windows.advance(now)
    return trends_at(windows)


def trends_at(windows: FeatureWindows) -> list[DetectedTrend]:
    """The named trends of the run ``windows`` stands at, strongest first."""
    params, now = windows.params, windows.now
    if now is None:
        return []
    volume = len(windows.recent_posts) / (params.recent / timedelta(days=1))
    thresholds = thresholds_for(volume, params)
    bursts = bursts_at(windows, thresholds)
    by_id = windows.recent_posts
    trends: list[DetectedTrend] = []
    for members in _cluster(bursts, params.containment):
        members.sort(key=lambda b: (-b.score, b.feature.key))
        lead = members[0]
        tagged = any(b.feature.kind in _LABELS for b in members)
        if not tagged and lead.z < thresholds.min_z * params.untagged_z_factor:
            continue
        videos = sorted(
            {v for b in members for v in b.video_ids},
            key=lambda v: (-by_id[v].views, v),
        )
        member_posts = [by_id[v] for v in videos]
        per_platform: dict[str, int] = defaultdict(int)
        for post in member_posts:
            per_platform[post.platform] += 1
        name, trend_type = _display_name(members, member_posts)
        trends.append(
            DetectedTrend(
                key=lead.feature.key,
                feature_keys=frozenset(b.feature.key for b in members),
                name=name,
                description=_describe(name, members, len(videos), lead.ratio, params.recent),
                trend_type=trend_type,
                score=sum(b.score for b in members[:3]),
                z=lead.z,
                ratio=lead.ratio,
                exemplar_ids=tuple(videos),
                count_recent=len(videos),
                median_views=int(statistics.median(p.views for p in member_posts)),
                per_platform=dict(per_platform),
                velocity_band=_velocity_band([p.posted_at for p in member_posts], now, params.recent),
                bursts=tuple(members),
            )
        )
    trends.sort(key=lambda t: (-t.score, t.key))
    return trends[: params.max_trends]


def match_known(trend: DetectedTrend, known: dict[str, frozenset[str]]) -> str | None:
    """The id of an already-known trend of the day sharing a feature with ``trend`` (dedupe, §4.3)."""
    best: tuple[int, str] | None = None
    for trend_id, keys in known.items():
        shared = len(trend.feature_keys & keys)
        if shared and (best is None or shared > best[0]):
            best = (shared, trend_id)
    return best[1] if best else None


@dataclass(frozen=True)
class Promotion:
    """A trend found independently in several countries, promoted to the global list (§2.5)."""

    trend: DetectedTrend
    origin_regions: tuple[str, ...]
    confidence: float


def promote(by_region: Mapping[str, Sequence[DetectedTrend]], *, min_regions: int = 2) -> list[Promotion]:
    """Group country trends that share a feature; those seen in ``min_regions`` or more are promoted.

    Confidence grows with the number of countries and with how strong the weakest sighting is.
    """
    sightings: list[tuple[str, DetectedTrend]] = [(r, t) for r, trends in by_region.items() for t in trends]
    groups: list[list[tuple[str, DetectedTrend]]] = []
    for region, trend in sightings:
        for group in groups:
            if any(trend.feature_keys & other.feature_keys for _, other in group):
                group.append((region, trend))
                break
        else:
            groups.append([(region, trend)])
    promotions: list[Promotion] = []
    for group in groups:
        regions = tuple(sorted({r for r, _ in group}))
        if len(regions) < min_regions:
            continue
        strongest = max((t for _, t in group), key=lambda t: t.score)
        weakest_z = min(t.z for _, t in group)
        breadth = 1.0 - 0.5 ** len(regions)
        strength = 1.0 - math.exp(-weakest_z / 10.0)
        promotions.append(
            Promotion(trend=strongest, origin_regions=regions, confidence=round(breadth * strength, 4))
        )
    promotions.sort(key=lambda p: (-p.confidence, -p.trend.score))
    return promotions
