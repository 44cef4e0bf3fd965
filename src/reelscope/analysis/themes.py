"""Themes of a set of videos (spec §4.4 analysis, §6.3 themes): pure, local and deterministic.

A video becomes a bag of terms (caption and transcript words, its hashtags as ``#tag``, its sound as
``~sound:<id>``); TF-IDF weighs them and average-linkage agglomerative clustering on cosine distance
groups the videos. A cluster of at least ``min_size`` videos is a theme; the rest are excluded with a
reason. A theme's ``stable_key`` is carried over from the earlier theme of the same agent whose videos
it kept, or failing that whose top terms it shares (``match_keys``), else derived from the theme's own
top terms, so the same theme keeps its key across runs, also when the autopilot's keywords bring new
videos and shift its terms.

Nothing here is invented: every sentence is a number read from the videos (views against the agent's
own baseline, engagement, posting hours, durations, shared hashtags and sounds).
"""

from __future__ import annotations

import hashlib
import math
import statistics
from collections import Counter
from collections.abc import Sequence, Set
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from reelscope.analysis.text import CALL_TO_ACTION_WORDS, STOPWORDS, normalize_hashtag, words

# platform-wide tags that say nothing about a theme (§2.3 keeps them; themes ignore them)
GENERIC_TAGS = frozenset({"fyp", "foryou", "foryoupage", "viral", "trending", "explore", "reels", "shorts"})
# words that never describe a theme: function words and calls to action ("follow for part 2")
NOT_TOPICAL = STOPWORDS | CALL_TO_ACTION_WORDS
SOUND_PREFIX = "~sound:"
# how many times a hashtag counts against a caption word (benchmarks/agent_analysis.py: purity 0.65 at 1,
# 0.94 at 3, 0.99 at 5 on the sandbox's labelled topics)
HASHTAG_WEIGHT = 5
# cosine distance under which average linkage still merges two groups
DISTANCE_THRESHOLD = 0.85
# the most videos one analysis clusters (the most viewed); the rest are excluded as over capacity
MAX_VIDEOS = 2000
# how many top terms describe a theme, and how much two themes' terms must overlap to be one theme
TERMS_KEPT = 8
SAME_THEME_JACCARD = 0.3
# the share of an earlier theme's videos a theme must keep to be that theme by its videos (and each must
# be the other's best match); the catalog's videos persist, so consecutive runs share most of them
SAME_THEME_MEMBERS = 1 / 3


@dataclass(frozen=True, slots=True)
class Doc:
    """One video as the analysis reads it."""

    id: str
    text: str
    hashtags: tuple[str, ...]
    sound_id: str | None
    views: int
    likes: int
    comments: int
    shares: int | None
    published_at: datetime
    duration: int | None
    platform: str


@dataclass(frozen=True, slots=True)
class PastTheme:
    """A theme of an earlier run of the same agent, as a later run matches it: its key, top terms and the
    ids of its videos (empty when they were not kept)."""

    stable_key: str
    terms: Sequence[str]
    member_ids: Set[str] = frozenset()


@dataclass(slots=True)
class Theme:
    stable_key: str
    name: str
    terms: list[str]
    members: list[Doc]
    cohesion: float
    why_it_works: str = ""
    tactics: list[str] = field(default_factory=list)
    confidence: float = 0.0
    median_views: float = 0.0
    views_lift: float | None = None
    stats: dict[str, object] = field(default_factory=dict)


def terms_of(doc: Doc) -> list[str]:
    """The bag of terms of one video: its content words once each (a caption repeated in the transcript
    counts once), its non-generic hashtags ``HASHTAG_WEIGHT`` times (the creator's own topic label is
    the strongest topical signal; words also carry the hook's wording, which is format, not topic), and
    its sound. Function words and calls to action (``NOT_TOPICAL``) are left out, as words and as tags:
    the top terms name the theme."""
    found = list(
        dict.fromkeys(w for w in words(doc.text) if len(w) >= 3 and w not in NOT_TOPICAL and not w.isdigit())
    )
    for tag in dict.fromkeys(normalize_hashtag(t) for t in doc.hashtags):
        if tag and tag not in GENERIC_TAGS and tag not in CALL_TO_ACTION_WORDS:
            found.extend(["#" + tag] * HASHTAG_WEIGHT)
    if doc.sound_id:
        found.append(SOUND_PREFIX + doc.sound_id)
    return found


def _identity(terms: list[str]) -> list[str]:
    return terms


def cluster(docs: Sequence[Doc], *, min_size: int = 3) -> tuple[list[Theme], dict[str, str]]:
    """Themes (largest first) and the excluded videos with why: ``no_text`` (no terms at all),
    ``no_theme`` (in no cluster of at least ``min_size``)."""
    excluded: dict[str, str] = {}
    bags: list[list[str]] = []
    kept: list[Doc] = []
    for doc in docs:
        bag = terms_of(doc)
        if not bag:
            excluded[doc.id] = "no_text"
            continue
        bags.append(bag)
        kept.append(doc)
    if len(kept) < min_size:
        excluded.update({d.id: "no_theme" for d in kept})
        return [], excluded
    # scikit-learn imported here, not with the module: it costs every process (API, CLI, read workers) over
    # a second to start, and only the jobs that cluster use it
    from sklearn.cluster import AgglomerativeClustering
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(analyzer=_identity, min_df=2, sublinear_tf=True, norm="l2")
    try:
        matrix = vectorizer.fit_transform(bags)
    except ValueError:  # no term is shared by two videos: nothing to group
        excluded.update({d.id: "no_theme" for d in kept})
        return [], excluded
    vocabulary = np.array(vectorizer.get_feature_names_out())
    dense = matrix.toarray()
    empty = dense.sum(axis=1) == 0
    rows = np.flatnonzero(~empty)
    for i in np.flatnonzero(empty).tolist():
        excluded[kept[i].id] = "no_theme"
    if len(rows) < min_size:
        excluded.update({kept[i].id: "no_theme" for i in rows.tolist()})
        return [], excluded
    labels = AgglomerativeClustering(
        n_clusters=None, metric="cosine", linkage="average", distance_threshold=DISTANCE_THRESHOLD
    ).fit_predict(dense[rows])
    themes: list[Theme] = []
    for label in sorted(set(labels.tolist())):
        member_rows = rows[labels == label]
        members = [kept[i] for i in member_rows.tolist()]
        if len(members) < min_size:
            excluded.update({d.id: "no_theme" for d in members})
            continue
        centroid = dense[member_rows].mean(axis=0)
        norm = float(np.linalg.norm(centroid))
        cohesion = float((dense[member_rows] @ (centroid / norm)).mean()) if norm else 0.0
        # ties in weight break on the term itself, so the order never depends on the input order
        order = sorted(range(len(vocabulary)), key=lambda j: (-round(float(centroid[j]), 9), vocabulary[j]))
        top = [str(vocabulary[j]) for j in order[:TERMS_KEPT] if centroid[j] > 0]
        members.sort(key=lambda d: (-d.views, d.id))
        themes.append(
            Theme(stable_key=key_of(top), name=name_of(top), terms=top, members=members, cohesion=cohesion)
        )
    themes.sort(key=lambda t: (-len(t.members), t.stable_key))
    return themes, excluded


def key_of(terms: Sequence[str]) -> str:
    """A key derived from a theme's three strongest terms (order-free)."""
    digest = hashlib.sha256("|".join(sorted(terms[:3])).encode()).hexdigest()
    return "th_" + digest[:12]


def display_term(term: str) -> str:
    if term.startswith(SOUND_PREFIX):
        return "a shared sound"
    return term


def name_of(terms: Sequence[str]) -> str:
    """The theme's strongest hashtag, then its strongest two words: e.g. ``#sourdough · starter, crumb``."""
    tags = [t for t in terms if t.startswith("#")]
    plain = [t for t in terms if not t.startswith(("#", SOUND_PREFIX))]
    parts = tags[:1] + ([", ".join(plain[:2])] if plain else [])
    return " · ".join(parts) if parts else display_term(terms[0]) if terms else "untitled"


def jaccard(a: Sequence[str], b: Sequence[str]) -> float:
    sa, sb = set(a), set(b)
    return len(sa & sb) / len(sa | sb) if sa | sb else 0.0


def match_keys(themes: list[Theme], earlier: Sequence[PastTheme]) -> None:
    """Give each theme the key of the earlier theme (newest first; the newest of each key counts) that is
    the same theme. First by videos: a theme and an earlier theme match when each is the other's best
    match (no other theme of this run holds more of the earlier theme's videos, and the theme shares no
    more videos with any other earlier theme) and the theme kept at least ``SAME_THEME_MEMBERS`` of the
    earlier theme's videos. This survives the autopilot's keywords, whose videos shift a theme's terms
    while its videos stay, and leaves a splinter of a theme its own key. Then by terms, for the themes
    and keys left: the best Jaccard overlap of top terms first, at least ``SAME_THEME_JACCARD``; each
    earlier key goes to one theme at most. Themes matching none keep their own derived key."""
    known: dict[str, PastTheme] = {}
    for past in earlier:
        known.setdefault(past.stable_key, past)
    matched: dict[int, str] = {}
    shared: dict[tuple[int, str], int] = {}
    for i, theme in enumerate(themes):
        ids = {d.id for d in theme.members}
        for key, past in known.items():
            if n := len(ids & past.member_ids):
                shared[i, key] = n
    # each theme's best earlier theme and each earlier theme's best theme; ties go to the first in
    # (theme, key) order: the larger theme, the smaller key
    best_key: dict[int, str] = {}
    best_theme: dict[str, int] = {}
    for (i, key), n in sorted(shared.items()):
        if i not in best_key or n > shared[i, best_key[i]]:
            best_key[i] = key
        if key not in best_theme or n > shared[best_theme[key], key]:
            best_theme[key] = i
    for i, key in best_key.items():
        if best_theme[key] == i and shared[i, key] >= SAME_THEME_MEMBERS * len(known[key].member_ids):
            matched[i] = key
    taken_keys = set(matched.values())
    pairs = sorted(
        (-overlap, i, key)
        for i, theme in enumerate(themes)
        if i not in matched
        for key, past in known.items()
        if key not in taken_keys and (overlap := jaccard(theme.terms, past.terms)) >= SAME_THEME_JACCARD
    )
    for _, i, key in pairs:
        if i in matched or key in taken_keys:
            continue
        matched[i] = key
        taken_keys.add(key)
    for i, key in matched.items():
        themes[i].stable_key = key
    # two themes of one run never share a key
    used = {t.stable_key for i, t in enumerate(themes) if i in matched}
    for i, theme in enumerate(themes):
        if i in matched:
            continue
        key, n = theme.stable_key, 1
        while key in used:
            n += 1
            key = f"{theme.stable_key}_{n}"
        theme.stable_key = key
        used.add(key)


# --- statistics the explanations read ----------------------------------------------------------


def engagement_rate(doc: Doc) -> float | None:
    if doc.views <= 0:
        return None
    return (doc.likes + doc.comments + (doc.shares or 0)) / doc.views


def median(values: Sequence[float]) -> float | None:
    return float(statistics.median(values)) if values else None


def duration_band(seconds: int | None) -> str | None:
    if seconds is None:
        return None
    if seconds < 15:
        return "under 15 s"
    if seconds < 30:
        return "15-30 s"
    if seconds < 60:
        return "30-60 s"
    return "60 s and over"


def hour_block(hour: int) -> str:
    start = hour // 3 * 3
    return f"{start:02d}:00-{start + 3:02d}:00 UTC"


def compact(n: float) -> str:
    for size, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "K")):
        if abs(n) >= size:
            return f"{n / size:.1f}".rstrip("0").rstrip(".") + suffix
    return f"{n:.0f}"


def _share(counter: Counter[str], total: int) -> tuple[str, float] | None:
    if not counter or total == 0:
        return None
    value, count = min(counter.items(), key=lambda kv: (-kv[1], kv[0]))
    return value, count / total


def explain(theme: Theme, baseline_views: float | None, baseline_engagement: float | None) -> None:
    """Fill ``why_it_works``, ``tactics``, ``confidence`` and ``stats`` from the theme's own videos."""
    docs = theme.members
    n = len(docs)
    views = median([d.views for d in docs]) or 0.0
    rates = [r for d in docs if (r := engagement_rate(d)) is not None]
    rate = median(rates)
    lift = views / baseline_views if baseline_views else None
    hours: Counter[str] = Counter(hour_block(d.published_at.hour) for d in docs)
    durations: Counter[str] = Counter(b for d in docs if (b := duration_band(d.duration)) is not None)
    platforms: Counter[str] = Counter(d.platform for d in docs)
    tags: Counter[str] = Counter()
    sounds: Counter[str] = Counter()
    for d in docs:
        tags.update({"#" + k for t in d.hashtags if (k := normalize_hashtag(t)) and k not in GENERIC_TAGS})
        if d.sound_id:
            sounds[d.sound_id] += 1
    sentences = [f"{n} videos with a median of {compact(views)} views"]
    if lift is not None and baseline_views:
        sentences[0] += f", {lift:.1f}x the agent's median of {compact(baseline_views)}"
    if rate is not None:
        line = f"median engagement {rate * 100:.1f}%"
        if baseline_engagement:
            line += f" against {baseline_engagement * 100:.1f}% for all of the agent's videos"
        sentences.append(line)
    top_hour = _share(hours, n)
    if top_hour and top_hour[1] >= 0.3:
        sentences.append(f"{top_hour[1] * 100:.0f}% posted {top_hour[0]}")
    theme.why_it_works = "; ".join(sentences) + "."
    tactics: list[str] = []
    for tag, count in sorted(tags.items(), key=lambda kv: (-kv[1], kv[0]))[:3]:
        if count / n >= 0.3:
            tactics.append(f"uses {tag} ({count} of {n} videos)")
    top_sound = _share(Counter(sounds), n)
    if top_sound and top_sound[1] >= 0.3:
        tactics.append(f"shares one sound ({top_sound[1] * 100:.0f}% of videos, sound {top_sound[0]})")
    top_duration = _share(durations, n)
    if top_duration and top_duration[1] >= 0.4:
        tactics.append(f"runs {top_duration[0]} ({top_duration[1] * 100:.0f}% of videos)")
    if top_hour and top_hour[1] >= 0.3:
        tactics.append(f"posts {top_hour[0]} ({top_hour[1] * 100:.0f}% of videos)")
    top_platform = _share(platforms, n)
    if top_platform and top_platform[1] >= 0.6 and len(platforms) > 1:
        tactics.append(f"mostly on {top_platform[0]} ({top_platform[1] * 100:.0f}% of videos)")
    theme.tactics = tactics
    # more videos and a tighter cluster give more confidence: cohesion x (1 - 1/sqrt(n)), in [0, 1]
    theme.confidence = round(max(0.0, min(1.0, theme.cohesion * (1 - 1 / math.sqrt(n)))), 3)
    theme.median_views, theme.views_lift = views, None if lift is None else round(lift, 3)
    theme.stats = {
        "median_views": views,
        "median_engagement_rate": None if rate is None else round(rate, 5),
        "views_lift": None if lift is None else round(lift, 3),
        "platforms": dict(sorted(platforms.items())),
        "top_hashtags": [t for t, _ in sorted(tags.items(), key=lambda kv: (-kv[1], kv[0]))[:5]],
        "terms": [display_term(t) for t in theme.terms],
    }
