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
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial

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


FeaturesOf = Callable[[Post], Sequence[Feature]]


class FeatureMemo:
    """Features of posts computed once for many runs (a period of runs reads each post ~70 times):
    each post's features by video id, each feature object shared. Keep one per run sequence; ``keep``
    forgets the posts that left the window."""

    def __init__(self, params: DetectionParams) -> None:
        self.params = params
        self._by_post: dict[str, tuple[Feature, ...]] = {}
        self._shared: dict[str, Feature] = {}

    def __len__(self) -> int:
        return len(self._by_post)

    def __call__(self, post: Post) -> Sequence[Feature]:
        found = self._by_post.get(post.video_id)
        if found is None:
            shared = self._shared
            found = tuple(shared.setdefault(f.key, f) for f in features_of(post, self.params))
            self._by_post[post.video_id] = found
        return found

    def keep(self, video_ids: set[str]) -> None:
        self._by_post = {v: f for v, f in self._by_post.items() if v in video_ids}
        self._shared = {f.key: f for found in self._by_post.values() for f in found}


def find_bursts(
    posts: Iterable[Post],
    now: datetime,
    params: DetectionParams,
    thresholds: Thresholds | None = None,
    features: FeaturesOf | None = None,
) -> list[Burst]:
    """Features whose recent use and views are far above their own baseline, strongest first.

    Without ``thresholds`` they come from the region's own volume: its videos in the recent window."""
    if features is None:
        features = partial(features_of, params=params)
    recent_start = now - params.recent
    baseline_start = recent_start - params.baseline
    week_ago_start, week_ago_end = recent_start - timedelta(days=7), now - timedelta(days=7)
    recent_videos: dict[str, set[str]] = defaultdict(set)
    recent_creators: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    recent_views: dict[str, int] = defaultdict(int)
    baseline_count: dict[str, int] = defaultdict(int)
    baseline_views: dict[str, int] = defaultdict(int)
    week_ago_count: dict[str, int] = defaultdict(int)
    labels: dict[str, Feature] = {}
    recent_posts = 0
    earliest: datetime | None = None
    for post in posts:
        if recent_start < post.posted_at <= now:
            recent_posts += 1
            uploader = post.creator_id or post.video_id
            for feature in features(post):
                labels.setdefault(feature.key, feature)
                recent_videos[feature.key].add(post.video_id)
                recent_creators[feature.key][uploader] += 1
                recent_views[feature.key] += post.views
        elif baseline_start < post.posted_at <= recent_start:
            earliest = post.posted_at if earliest is None or post.posted_at < earliest else earliest
            week_ago = week_ago_start < post.posted_at <= week_ago_end
            for feature in features(post):
                baseline_count[feature.key] += 1
                baseline_views[feature.key] += post.views
                if week_ago:
                    week_ago_count[feature.key] += 1
                series = series_key(feature.key)
                if series != feature.key:
                    baseline_count[series] += 1
                    if week_ago:
                        week_ago_count[series] += 1
    if thresholds is None:
        thresholds = thresholds_for(recent_posts / (params.recent / timedelta(days=1)), params)
    # the baseline is the part of its window the posts cover (a history imported a few days ago has
    # less than a week); under one recent window it counts as one
    covered = recent_start - earliest if earliest is not None else params.baseline
    scale = params.recent / max(covered, params.recent)
    # every feature of the window is tested, reported or not (Bonferroni over the run's features)
    chance_limit = params.family_error / max(1, len(recent_videos))

    bursts: list[Burst] = []
    for key, videos in recent_videos.items():
        if len(videos) < thresholds.min_count:
            continue
        count = sum(min(n, params.per_creator_cap) for n in recent_creators[key].values())
        if count < thresholds.min_count:
            continue  # one uploader's series, not a story
        # the feature's own baseline: its mean pace, its use a week before (weekly shows), and for a
        # numbered label ("Week 5", "Ep 45") the series' use under any number
        series = series_key(key)
        expected = max(
            max(baseline_count[key], baseline_count[series]) * scale,
            max(week_ago_count[key], week_ago_count[series]) * params.weekly_weight,
        )
        z = (count - expected) / math.sqrt(expected + 1.0)
        ratio = (count + 1.0) / (expected + 1.0)
        views_ratio = (recent_views[key] + 1.0) / (baseline_views[key] * scale + 1.0)
        if z < thresholds.min_z or ratio < params.min_ratio or views_ratio < params.min_views_ratio:
            continue
        # an expectation from the weekly or series rule counts as that many baseline uses
        chance = chance_of(count, expected, 1.0 / scale)
        if chance > chance_limit:
            continue  # one of the many rare features that reach this count by luck on some day
        bursts.append(
            Burst(
                feature=labels[key],
                recent_count=len(videos),
                expected=expected,
                z=z,
                ratio=ratio,
                views_ratio=views_ratio,
                video_ids=frozenset(videos),
                chance=chance,
            )
        )
    bursts.sort(key=lambda b: (-b.score, b.feature.key))
    return bursts


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

    def rank(group: list[Burst]) -> tuple[float, int, float, int, float]:
        coverage = len({v for b in group for v in b.video_ids}) / total
        text = spelled(group).lstrip("#")
        words = text.split() or [text]
        capitals = sum(w[:1].isupper() for w in words) / len(words)
        kind = _NAME_PREFERENCE[kind_of(group)]
        return (-round(coverage, 1), kind, -capitals, -len(words), -max(b.score for b in group))

    best = min(groups.values(), key=rank)
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
    posts: Sequence[Post],
    now: datetime,
    params: DetectionParams | None = None,
    features: FeaturesOf | None = None,
) -> list[DetectedTrend]:
    """Named trends breaking out among ``posts`` at ``now``, strongest first (``features``: a
    ``FeatureMemo`` when many runs read the same posts)."""
    params = params or DetectionParams()
    recent_start = now - params.recent
    volume = sum(1 for p in posts if recent_start < p.posted_at <= now) / (params.recent / timedelta(days=1))
    thresholds = thresholds_for(volume, params)
    bursts = find_bursts(posts, now, params, thresholds, features)
    by_id = {p.video_id: p for p in posts}
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
