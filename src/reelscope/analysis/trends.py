"""Trend detection: what is breaking out in a region's recent videos (ARCHITECTURE §8, spec §4.3).

The model (ADR 0051). A run at ``now`` looks at one region's videos of the last ``recent`` window (24
hours) and a ``baseline`` before it: the 6 days before the day before the recent window (that ``gap`` day
is in neither window, so a story that builds over two days is not its own baseline). Every *feature* of a
recent video is a candidate: a hashtag, an uploader tag (ADR 0026), a shared sound, a word or 2–3 word
phrase of the title (the caption's first line), a 2–3 word phrase of the rest of the caption, and a
capitalised name in a title ("Meghan Markle", an *entity*). Each feature ``f`` is used at its own rate
per video of the region; a window of ``n`` videos then holds Poisson(rate · ``n``) uses of it — the
region's volume, which varies by day and weekday, is the exposure. "The rate did not change" is tested
exactly between the baseline (``b`` uses among ``N`` videos) and the recent window (``c`` among ``n``):
given ``b + c``, ``c`` is Binomial(``b + c``, ``n / (N + n)``) (``rate_change_chance``). Where the history
covers the same hours a week before (weekday seasonality: a Sunday fixture, a Monday show), the rate that
week-ago window shows is the null when it is higher; a numbered label's series ("Week #") likewise.

A run tests every feature of its recent window, thousands in a dense region. Features on the same recent
videos with the same baseline are one test (a caption template's words). The tests that can reach
significance at all are counted (Tarone), and the false discovery rate is held at ``fdr`` over the
stories a person is shown: Benjamini–Hochberg's line rises with the distinct stories among the tests up
to a rank, not with their words (``story_discoveries``). A feature reported must also be a breakout, not
a big feature's modest rise (its count ``min_ratio``× its expectation), and be written by at least
``min_count`` videos, counting each uploader at most ``per_creator_cap`` times (one channel's series is
not a story). Reported features that share videos are one trend (on the share of the smaller one's
videos), so a story told in different words is one trend; a word that separate stories carry (two
groups each holding a hashtag, tag, sound or name) never joins them (``_cluster``). The trend is named
by its most specific shared words (``_display_name``) and its description says what was counted.

Everything here is pure: plain records in, plain values out; no database, no clock.
"""

from __future__ import annotations

import math
import re
import statistics
import unicodedata
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from reelscope.analysis.text import CALL_TO_ACTION_WORDS, STOPWORDS, normalize_hashtag, phrases

HASHTAG = "hashtag"
TAG = "tag"
SOUND = "sound"
PHRASE = "phrase"
ENTITY = "entity"
# the order in which a trend picks its name among features reaching as many of its videos: a label a
# person chose (hashtag, tag) or a name as titles write it, then a sound, then a phrase
_NAME_PREFERENCE = {HASHTAG: 0, TAG: 1, ENTITY: 1, SOUND: 2, PHRASE: 3}


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
    key: str  # "hashtag:glassskin", "sound:<id>", "phrase:glass skin", "entity:meghan markle"
    label: str


@dataclass(frozen=True)
class Burst:
    feature: Feature
    recent_count: int
    expected: float  # the null's mean count in the recent window
    z: float
    ratio: float
    views_ratio: float
    video_ids: frozenset[str]
    # the probability of a count this high under the feature's baseline rate (``chance_of``): its p-value
    chance: float
    # the baseline the null comes from: the feature's uses among that many videos
    baseline_uses: int = 0
    baseline_videos: int = 0

    @property
    def score(self) -> float:
        surprise = -math.log10(max(self.chance, 1e-300))
        return surprise * (1.0 + math.log1p(self.ratio)) * (1.0 + 0.25 * math.log1p(self.views_ratio))


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
    # the span before the recent window a run reads; its last ``gap`` is not counted in the baseline
    baseline: timedelta = timedelta(days=7)
    # a story that builds over two days must not be its own baseline: the day before the recent window
    # is in neither window (a guard band), so the baseline is the 6 days before it
    gap: timedelta = timedelta(hours=24)
    # the false discovery rate a run controls across every feature it tests (Benjamini–Hochberg)
    fdr: float = 0.01
    # a trend is at least this many videos (each uploader counted up to per_creator_cap times)
    min_count: int = 3
    # one uploader's videos count at most this many times towards a feature's recent count
    per_creator_cap: int = 2
    # a breakout, not a rise: the count is at least this many times its expectation ((c+1)/(e+1))
    min_ratio: float = 2.5
    # a burst joins a group of bursts when this share of the smaller one's videos also carry the other
    # (never bridging two groups that are separate stories: ``_cluster``)
    containment: float = 0.35
    max_trends: int = 50
    # phrase sizes of the caption beyond its title, and word sizes of the title
    phrase_sizes: tuple[int, ...] = (2, 3)
    title_sizes: tuple[int, ...] = (1, 2, 3)


_DIGITS = re.compile(r"\d+")


def series_key(key: str) -> str:
    """A numbered label's series: 'tag:week 5' and 'tag:week 6' are 'tag:week #' (episodes, weeks)."""
    return _DIGITS.sub("#", key)


def discoveries(chances: Sequence[float], tested: int, fdr: float) -> int:
    """How many of the smallest p-values Benjamini–Hochberg rejects at ``fdr`` among ``tested`` tests
    (``chances`` sorted ascending; the tests not listed have larger p-values)."""
    found = 0
    for rank, chance in enumerate(chances, start=1):
        if chance <= rank * fdr / max(tested, 1):
            found = rank
    return found


def story_discoveries(
    chances: Sequence[float], videos: Sequence[frozenset[str]], tested: int, fdr: float, containment: float
) -> int:
    """How many of the smallest p-values to reject so that the false discovery rate holds over the
    stories a person is shown rather than over features (``chances`` ascending, ``videos`` each test's
    recent videos). One story is many features with overlapping videos (a caption template's words,
    its hashtags, the sound): counted one by one they raise Benjamini–Hochberg's line (``rank · fdr /
    tested``) by their number, and a chance tail tag gets under it beside a big story. Here the line at
    a rank rises with the stories among the tests up to it — groups linked by sharing ``containment``
    of the smaller one's videos, as trends are grouped — so the chance ones stay about ``fdr`` of the
    stories shown. The largest rank ``r`` with p ≤ stories(r) · fdr / tested: a self-consistent rule
    (Blanchard & Roquain 2008) that rejects no more than Benjamini–Hochberg does."""
    limit = discoveries(chances, tested, fdr)
    parent = list(range(limit))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    found = stories = 0
    for rank in range(limit):
        own = videos[rank]
        joined = False
        for other in range(rank):
            seen = videos[other]
            if len(own & seen) >= containment * min(len(own), len(seen)):
                a, b = root(rank), root(other)
                if a != b:
                    parent[a] = b
                    if joined:
                        stories -= 1  # it links two stories told apart so far
                joined = True
        stories += not joined
        if chances[rank] <= stories * fdr / max(tested, 1):
            found = rank + 1
    return found


# combining marks (Indic vowel signs, viramas, accents written apart) belong to the word they mark:
# ``\w`` alone splits "ప్రదీప్" into pieces
_MARKS = "".join(chr(c) for c in range(0x300, 0x10000) if unicodedata.category(chr(c)) in ("Mn", "Mc", "Me"))
_TOKEN = re.compile(rf"[^\W_](?:[^\W_]|[{re.escape(_MARKS)}])*(?:'[^\W_]+)?", re.UNICODE)
_HASHTAG_TEXT = re.compile(r"#[^\W_][\w]*", re.UNICODE)
# dates in titles ("Releasing on 17 November", "Jan 2018"): when, not what; every title of a month
# writes its name, so months would burst at each month's turn and weekdays every week
_CALENDAR = frozenset(
    """
    january february march april may june july august september october november december jan feb mar
    apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday
    janvier février mars avril mai juin juillet août septembre octobre novembre décembre lundi mardi
    mercredi jeudi vendredi samedi dimanche today tonight yesterday tomorrow week weekend year 1st 2nd
    3rd
    """.split()
)
_EMPTY = frozenset(STOPWORDS | CALL_TO_ACTION_WORDS | _CALENDAR)
_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th|er|e|ème)")


def title_of(caption: str) -> tuple[str, str]:
    """The caption's first non-empty line (a video's title, a post's hook) and the rest."""
    head, _, rest = caption.strip().partition("\n")
    return head, rest


def _tokens(text: str) -> list[str]:
    """The words of a text; a possessive is its noun ("Alabama's Election" counts "alabama", as
    "Alabama Senate" does; a curly "’s" already splits there)."""
    return [w[:-2] if w[-2:] in ("'s", "'S") else w for w in _TOKEN.findall(_HASHTAG_TEXT.sub(" ", text))]


def _meaningful(word: str) -> bool:
    """A word that can stand for a subject: not a function word or call to action, not a number, and
    three letters or more (two in scripts whose syllables are letters with marks)."""
    if word in _EMPTY or word.isdigit() or _ORDINAL.fullmatch(word):
        return False
    return len(word) >= 3 or (len(word) == 2 and not word.isascii())


def title_grams(title: str, sizes: Sequence[int]) -> set[str]:
    """The title's words and phrases (case-folded): a word that means something, or a run of 2–3
    words with a meaningful word at each end and no call to action."""
    words = [w.casefold() for w in _tokens(title)]
    found: set[str] = set()
    for size in sizes:
        for start in range(len(words) - size + 1):
            gram = words[start : start + size]
            if not (_meaningful(gram[0]) and _meaningful(gram[-1])):
                continue
            if any(w in CALL_TO_ACTION_WORDS for w in gram):
                continue
            found.add(" ".join(gram))
    return found


def title_names(title: str) -> list[str]:
    """Runs of 2–4 capitalised words in a title, as written ('Meghan Markle', 'Prince Harry'): names.
    A title in Title Case capitalises every word, so it says nothing about names and gives none."""
    words = _tokens(title)
    cased = [w for w in words if w[:1].isalpha() and w[:1].upper() != w[:1].lower()]
    if not cased or sum(w[:1].isupper() for w in cased) / len(cased) > 0.75:
        return []
    names: list[str] = []
    run: list[str] = []
    for word in [*words, ""]:
        if word[:1].isupper() and word.casefold() not in _EMPTY:
            run.append(word)
            continue
        if len(run) >= 2:
            names.append(" ".join(run[:4]))
        run = []
    return names


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
    title, rest = title_of(post.caption)
    for name in title_names(title):
        key = f"{ENTITY}:{name.casefold()}"
        found.setdefault(key, Feature(ENTITY, key, name))
    for gram in title_grams(title, params.title_sizes):
        key = f"{PHRASE}:{gram}"
        found[key] = Feature(PHRASE, key, gram)
    for phrase in phrases(rest, sizes=params.phrase_sizes):
        key = f"{PHRASE}:{phrase}"
        if key not in found and not CALL_TO_ACTION_WORDS.intersection(phrase.split()):
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
        # posts taken in, by time; [_head, _gap) is the baseline window, [_week_start, _week_end)
        # the week-ago window inside it, [_gap, _recent) the guard day before the recent window (in
        # neither), [_recent, len) the recent window
        self._posts: list[Post] = []
        self._times: list[datetime] = []
        self._head = self._week_start = self._week_end = self._gap = self._recent = 0
        self.recent_videos: dict[str, set[str]] = {}
        self.recent_creators: dict[str, dict[str, int]] = {}
        self.recent_views: dict[str, int] = {}
        self.recent_posts: dict[str, Post] = {}
        # each recent feature as the run reports it
        self.labels: dict[str, Feature] = {}
        self.baseline_count: dict[str, int] = {}
        self.baseline_views: dict[str, int] = {}
        self.week_ago_count: dict[str, int] = {}
        # keys used by at least min_count recent videos: the only ones a run can report
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
        return self._times[self._head] if self._head < self._gap else None

    @property
    def baseline_videos(self) -> int:
        """Videos in the baseline window: the exposure its counts are per."""
        return self._gap - self._head

    @property
    def week_ago_videos(self) -> int:
        """Videos in the same hours a week before the run (inside the baseline)."""
        return self._week_end - self._week_start

    def covers_week_ago(self) -> bool:
        """Whether the history reaches back over the same hours a week before (within a quarter of
        the recent window): only then is the week-ago window a weekday's pace."""
        earliest = self.earliest
        if earliest is None or self.now is None:
            return False
        return earliest <= self.now - timedelta(days=7) - self.params.recent * 0.75

    def add(self, posts: Iterable[Post]) -> None:
        self._pending.extend(posts)

    def _bounds(self, now: datetime) -> tuple[datetime, datetime, datetime, datetime, datetime]:
        """Window edges (each exclusive below, inclusive above): baseline start, week-ago start and end
        (clipped to the baseline), baseline end (the guard day's start), recent start."""
        params = self.params
        recent_start = now - params.recent
        baseline_start = recent_start - params.baseline
        baseline_end = max(baseline_start, recent_start - params.gap)
        week_start = max(baseline_start, recent_start - timedelta(days=7))
        week_end = min(now - timedelta(days=7), baseline_end)
        return baseline_start, week_start, max(week_start, week_end), baseline_end, recent_start

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
        old = (self._head, self._week_start, self._week_end, self._gap, self._recent, len(self._posts))
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
        for lo, hi in sorted((old[i], new[i]) for i in range(len(old)) if new[i] > old[i]):
            for i in range(max(lo, done), hi):
                self._move(self._posts[i], self._where(i, old), self._where(i, new))
            done = max(done, hi)
        self._head, self._week_start, self._week_end, self._gap, self._recent = new[:5]
        self.now = now
        if self._head > 4096 and self._head * 2 > len(self._posts):
            del self._posts[: self._head], self._times[: self._head]
            self._week_start -= self._head
            self._week_end -= self._head
            self._gap -= self._head
            self._recent -= self._head
            self._head = 0

    @staticmethod
    def _where(i: int, edges: tuple[int, ...]) -> tuple[bool, bool, bool]:
        """(in the baseline, in the week-ago window, in the recent window) of post ``i``."""
        head, week_start, week_end, gap, recent, end = edges
        return head <= i < gap, week_start <= i < week_end, recent <= i < end

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
        floor = self.params.min_count
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
        floor = self.params.min_count
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


def rate_change_chance(count: int, uses: int, share: float) -> float:
    """The probability of ``count`` or more of a feature's ``count + uses`` uses falling in the recent
    window when its rate per video did not change: the exact conditional test of two Poisson counts
    (given their total, the recent one is Binomial(total, ``share``), ``share`` = the recent window's
    share of the videos). Summed in log space from ``count`` up; 1.0 at or under the mean."""
    total = count + uses
    if count <= 0 or count <= total * share:
        return 1.0
    if share >= 1.0:
        return 1.0
    log_s, log_f = math.log(share), math.log1p(-share)
    base = math.lgamma(total + 1)
    log_first = base - math.lgamma(count + 1) - math.lgamma(uses + 1) + count * log_s + uses * log_f
    # P(k + 1) / P(k) = (total − k) / (k + 1) · share / (1 − share), below 1 past the mean
    odds = share / (1.0 - share)
    sum_terms = term = 1.0
    k = count
    while k < total and term > 1e-12 * sum_terms:
        term *= (total - k) / (k + 1) * odds
        sum_terms += term
        k += 1
    return min(1.0, math.exp(log_first + math.log(sum_terms)))


def tarone_tested(log_least: Sequence[float], fdr: float) -> float:
    """The limit on a test's least attainable p-value for it to count as tested (Tarone; Gilbert's
    FDR form): the smallest K with at most K tests able to reach ``fdr / K``. A feature used twice in
    all its history cannot reach a p-value a run could report, whatever its split, so it does not
    dilute the others' correction. ``log_least`` sorted ascending; returns log(fdr / K)."""
    for k in range(1, len(log_least) + 1):
        limit = math.log(fdr / k)
        if bisect_right(log_least, limit) <= k:
            return limit
    return math.log(fdr / max(1, len(log_least)))


def find_bursts(
    posts: Iterable[Post],
    now: datetime,
    params: DetectionParams,
    features: FeatureMemo | None = None,
) -> list[Burst]:
    """Features whose recent use is beyond what their own baseline explains, strongest first (one run
    over ``posts``; ``bursts_at`` for a sequence of runs)."""
    windows = FeatureWindows(params, features)
    windows.add(posts)
    windows.advance(now)
    return bursts_at(windows)


@dataclass(frozen=True)
class _Null:
    """A feature's null hypothesis: its rate per video is its ``uses`` among ``videos`` earlier ones."""

    uses: int
    videos: int


def _null_of(windows: FeatureWindows, key: str, weekday: bool) -> _Null:
    """The feature's baseline: its uses among the baseline's videos; for a numbered label ("Week 5",
    "Ep 45") the series' uses under any number; and where the history covers it, the same hours a week
    before when their rate per video is higher (weekday seasonality: a Sunday fixture is compared with
    last Sunday, not with the week's mean)."""
    series = windows.features.series(key)
    uses = max(windows.baseline_count.get(key, 0), windows.baseline_count.get(series, 0))
    videos = windows.baseline_videos
    week_videos = windows.week_ago_videos
    if weekday and week_videos:
        week_uses = max(windows.week_ago_count.get(key, 0), windows.week_ago_count.get(series, 0))
        if week_uses * videos > uses * week_videos:
            return _Null(week_uses, week_videos)
    return _Null(uses, videos)


_Test = tuple[float, float, str, int, _Null, list[str]]


def _tests(windows: FeatureWindows) -> tuple[int, list[_Test]]:
    """The run's tests (``bursts_at``): how many count (Tarone), and those that can be reported —
    (p-value, log least p-value, first key, capped count, null, the features it stands for) — ordered
    by p-value."""
    params = windows.params
    recent = max(1, len(windows.recent_posts))
    weekday = windows.covers_week_ago()
    # one test per distinct (recent videos, null): the features it stands for
    tests: dict[tuple[frozenset[str], int, int], list[str]] = {}
    nulls: dict[str, _Null] = {}
    for key, videos in windows.recent_videos.items():
        null = nulls[key] = _null_of(windows, key, weekday)
        tests.setdefault((frozenset(videos), null.uses, null.videos), []).append(key)
    log_least: list[float] = []
    scored: list[_Test] = []
    for (members, uses, baseline), keys in tests.items():
        share = recent / (recent + baseline)
        least = (len(members) + uses) * math.log(share)
        log_least.append(least)
        key = min(keys)
        if key not in windows.candidates:
            continue  # under min_count videos: tested, never reported
        count = sum(min(n, params.per_creator_cap) for n in windows.recent_creators[key].values())
        if count < params.min_count:
            continue  # one uploader's series, not a story
        chance = rate_change_chance(count, uses, share)
        if chance < 1.0:
            scored.append((chance, least, key, count, nulls[key], keys))
    log_least.sort()
    limit = tarone_tested(log_least, params.fdr)
    tested = bisect_right(log_least, limit)
    scored = sorted((s for s in scored if s[1] <= limit), key=lambda s: (s[0], s[2]))
    return tested, scored


def bursts_at(windows: FeatureWindows) -> list[Burst]:
    """The bursts of the run ``windows`` stands at, strongest first (the model: module docstring).

    Every feature of the recent window is tested. Features on the same recent videos with the same
    baseline ("glass", "skin", "glass skin" of one caption template; "Meghan Markle" and "Prince
    Harry" in the same four titles) are one test: their counts are the same data, and counting each
    copy as a test of its own both inflated the number of tests (Tarone's rule then left a small story
    out) and the number of discoveries (Benjamini–Hochberg's line rose with a big story's copies,
    letting chance tail tags under it). A test's least attainable p-value (all its uses in the recent
    window) decides whether it counts among the tests (``tarone_tested``); those counted are corrected
    together by Benjamini–Hochberg at ``fdr``, and every feature of a rejected test is a burst."""
    return _bursts(windows)[0]


def _bursts(windows: FeatureWindows) -> tuple[list[Burst], list[Burst]]:
    """The run's bursts (``bursts_at``) and the features beside them that are beyond chance on their
    own (p-value under ``fdr`` before any correction, a breakout): not reported, but a trend they are
    part of may take its name from them (``trends_at``)."""
    params = windows.params
    if windows.now is None:
        return [], []
    recent = max(1, len(windows.recent_posts))
    tested, scored = _tests(windows)
    rejected = story_discoveries(
        [s[0] for s in scored],
        [frozenset(windows.recent_videos[s[2]]) for s in scored],
        tested,
        params.fdr,
        params.containment,
    )
    found: list[Burst] = []
    nominal: list[Burst] = []
    for rank, (chance, _, _, count, null, keys) in enumerate(scored):
        if rank >= rejected and chance > params.fdr:
            break
        exposure = max(null.videos, 1) / recent
        expected = null.uses / exposure
        ratio = (count + 1.0) / (expected + 1.0)
        if ratio < params.min_ratio:
            continue  # beyond chance, but a big feature's rise, not a breakout
        for key in keys:
            views_ratio = (windows.recent_views[key] + 1.0) / (
                windows.baseline_views.get(key, 0) / exposure + 1.0
            )
            (found if rank < rejected else nominal).append(
                Burst(
                    feature=windows.labels[key],
                    recent_count=len(windows.recent_videos[key]),
                    expected=expected,
                    z=(count - expected) / math.sqrt(expected + 1.0),
                    ratio=ratio,
                    views_ratio=views_ratio,
                    video_ids=frozenset(windows.recent_videos[key]),
                    chance=chance,
                    baseline_uses=null.uses,
                    baseline_videos=null.videos,
                )
            )
    found.sort(key=lambda b: (-b.score, b.feature.key))
    return found, nominal


# the kinds of feature a person chose or a title names: a group holding one is a story of its own
_ANCHORS = frozenset({HASHTAG, TAG, SOUND, ENTITY})
# a word is what separate stories share when two of them each make up this share of its videos
_STORY_SHARE = 0.2


def _cluster(bursts: Sequence[Burst], containment: float) -> list[list[Burst]]:
    """The trends of a run's bursts: groups of bursts telling one story.

    Bursts are placed narrowest first. One sharing ``containment`` of the smaller set's videos with a
    group is part of it (another wording, a wider word for the same videos, a part of the story). One
    holding that much of two or more groups joins them into one — the parts of one story told apart,
    its word over most videos — unless two of them hold a label a person chose or a title's name
    (hashtag, tag, sound, entity), each make up a fifth of its videos and together half of them: those
    are separate stories, and the word they carry ("thing", "hurricane" over two hurricanes) says what
    they have in common. It is left out, never bridging them."""
    groups: list[list[Burst]] = []
    videos: list[set[str]] = []
    for burst in sorted(bursts, key=lambda b: (len(b.video_ids), b.feature.key)):
        own = burst.video_ids
        linked = [
            i
            for i, seen in enumerate(videos)
            if (shared := len(own & seen)) and shared >= containment * min(len(own), len(seen))
        ]
        # the stories among them that make up a good share of this burst's own videos
        anchored = [
            i
            for i in linked
            if len(own & videos[i]) >= _STORY_SHARE * len(own)
            and any(b.feature.kind in _ANCHORS for b in groups[i])
        ]
        if len(anchored) >= 2 and 2 * len(own & set().union(*(videos[i] for i in anchored))) >= len(own):
            continue  # what separate stories share, not a story
        if not linked:
            groups.append([burst])
            videos.append(set(own))
            continue
        first, *rest = linked
        groups[first].append(burst)
        videos[first] |= own
        for i in rest:
            groups[first].extend(groups[i])
            videos[first] |= videos[i]
        groups = [g for i, g in enumerate(groups) if i not in rest]
        videos = [v for i, v in enumerate(videos) if i not in rest]
    return groups


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


def _describe(name: str, members: Sequence[Burst], posts: Sequence[Post], window: timedelta) -> str:
    """What was counted: the videos, since when, and the baseline they are measured against."""
    lead = members[0]
    hours = int(window.total_seconds() // 3600)
    since = min(p.posted_at for p in posts).strftime("%Y-%m-%d %H:%M UTC")
    baseline = (
        f"{lead.baseline_uses} of the {lead.baseline_videos} videos before"
        if lead.baseline_videos
        else "no history before"
    )
    text = (
        f"{len(posts)} videos on {name} in the last {hours} hours, the first at {since}; "
        f"{lead.expected:.1f} expected at its usual rate ({baseline})"
    )
    others = [b.feature.label for b in members if _compact(b.feature.label) != _compact(name)][:3]
    if others:
        text += "; also written " + ", ".join(others)
    return text + "."


def _compact(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def _says_something(label: str) -> bool:
    """A name must carry a subject: not only function words, calls to action and numbers."""
    return any(_meaningful(w.casefold()) for w in _tokens(label.lstrip("#"))) or not _tokens(label)


def _display_name(members: Sequence[Burst], posts: Sequence[Post]) -> tuple[str, str]:
    """The name a person would give the story and the kind of feature that names it (ADR 0027, 0051).

    Its most specific shared words: the words of a member feature — a hashtag, a tag, a name and a
    phrase saying the same words are one candidate ('#HurricaneMilton', 'Hurricane Milton', 'hurricane
    milton') — carried by at least half as many of the trend's videos as the widest, then the preferred
    kind (hashtag, tag or a title's name, sound, phrase), then the one that reads most like a name
    (capitalized words: 'Liam Payne' over 'music news'), then the more words, then the rarer before
    (the baseline's uses), then the stronger. Candidates made only of function words or calls to action
    never name a trend while another is there. Spelled as an uploader's tag writes it when one has
    spaces, else as the captions and titles write a phrase, else as the hashtag or sound is labelled."""
    total = max(1, len({v for b in members for v in b.video_ids}))
    groups: dict[str, list[Burst]] = defaultdict(list)
    for burst in members:
        groups[_compact(burst.feature.label)].append(burst)
    meaningful = [g for g in groups.values() if _says_something(g[0].feature.label)]
    candidates = meaningful or list(groups.values())

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
        named = next((b.feature.label for b in group if b.feature.kind == ENTITY), None)
        if named is not None:
            return _spelling(named.casefold(), posts)
        phrase = next((b.feature.label for b in group if b.feature.kind == PHRASE), None)
        hashtag = next((b.feature.label for b in group if b.feature.kind == HASHTAG), None)
        if phrase is not None and (hashtag is None or " " in phrase):
            return _spelling(phrase, posts)  # one word that is also a hashtag is written as the hashtag
        return min(group, key=lambda b: (_NAME_PREFERENCE[b.feature.kind], -b.score)).feature.label

    def kind_of(group: list[Burst]) -> str:
        kind = min((b.feature.kind for b in group), key=_NAME_PREFERENCE.__getitem__)
        if _compact(group[0].feature.label) in written and _NAME_PREFERENCE[kind] > _NAME_PREFERENCE[TAG]:
            return TAG
        return kind

    coverage = {id(g): len({v for b in g for v in b.video_ids}) / total for g in candidates}
    widest = max(coverage.values())

    def reach(group: list[Burst]) -> tuple[bool, int]:
        # words on at least half as many of the trend's videos as the widest are shared words: among
        # them the more specific name ('Meghan Markle' on 3 of 4 videos over 'Meghan' on 4)
        return coverage[id(group)] * 2 < widest, _NAME_PREFERENCE[kind_of(group)]

    def reads(group: list[Burst]) -> tuple[float, int, int, float]:
        text = spelled(group).lstrip("#")
        words = text.split() or [text]
        capitals = sum(w[:1].isupper() for w in words) / len(words)
        rarity = min(b.baseline_uses for b in group)
        return -capitals, -len(words), rarity, -max(b.score for b in group)

    # the spelling scans the captions: only the groups that reach the most videos in the preferred kind
    # are spelled, to choose among them
    reaches = {id(group): reach(group) for group in candidates}
    most = min(reaches.values())
    best = min((g for g in candidates if reaches[id(g)] == most), key=reads)
    kind = kind_of(best)
    return spelled(best), PHRASE if kind == ENTITY else kind


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
    bursts, nominal = _bursts(windows)
    by_id = windows.recent_posts
    trends: list[DetectedTrend] = []
    for members in _cluster(bursts, params.containment):
        members.sort(key=lambda b: (-b.score, b.feature.key))
        lead = members[0]
        videos = sorted(
            {v for b in members for v in b.video_ids},
            key=lambda v: (-by_id[v].views, v),
        )
        member_posts = [by_id[v] for v in videos]
        per_platform: dict[str, int] = defaultdict(int)
        for post in member_posts:
            per_platform[post.platform] += 1
        # the words of the story beyond chance on their own, though not reported: they may name it
        inside = set(videos)
        words = [b for b in nominal if 2 * len(b.video_ids & inside) > len(b.video_ids)]
        name, trend_type = _display_name([*members, *words], member_posts)
        trends.append(
            DetectedTrend(
                key=lead.feature.key,
                feature_keys=frozenset(b.feature.key for b in members),
                name=name,
                description=_describe(name, members, member_posts, params.recent),
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
    """The id of an already-known trend that ``trend`` is a sighting of (dedupe, §4.3): among those
    holding its lead feature or half its features, the one sharing most.

    One shared feature is not enough: a word two stories on following days both carry ("trailer" of
    two films, a generic title word) would give the second the first one's identity and name."""
    best: tuple[int, str] | None = None
    for trend_id, keys in known.items():
        shared = len(trend.feature_keys & keys)
        if not (trend.key in keys or 2 * shared >= len(trend.feature_keys)):
            continue
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
