"""Intent matching (spec §2.6 ``intent_match {matches, reasoning}``): does one video or slideshow serve
what the agent's ``intent`` asks for? Pure, local and explainable.

The intent becomes its topic terms: its content words without stopwords and without the words that say
what to look for rather than what about ("find", "videos", "hooks", "creators" …), lightly stemmed
(``routines`` and ``routine`` are one term). An item's evidence is read from four places, each named in
the reasoning: its caption, its transcript (a slideshow's panel text), its hashtags (listed, or written in
the caption; a compound tag is split into the words the items and the intent use: ``#SkincareRoutine``
holds ``skincare`` and ``routine``, not ``care``) and its Data Intelligence topic and keywords.

An item matches when it shows at least two of the intent's terms (the one term of a one-term intent)
and the terms it shows weigh at least ``MATCH_AT`` of the intent's terms. A term's weight is its
specificity among the items judged together (smoothed inverse document frequency), so the words every
collected item shares (the agent's own keyword) count for less than the qualifier that singles out what
the user asked for. The reasoning lists exactly the terms found and where, and the terms missing:
nothing is inferred that the item does not show.

Measured on labelled sandbox posts and a hand-written real-shaped set (benchmarks/intent_match.py,
results/intent_match.md): equal weights at 0.5 gave F1 0.87 / 0.73, IDF weights at 0.25 0.94 / 0.82,
and splitting compound tags into words (rather than finding a term anywhere inside) 0.97 / 0.82. The
threshold was chosen on those same sets (there is no held-out set).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from reelscope.analysis.text import STOPWORDS, hashtags_in, normalize_hashtag, words

# words of a research request that say what to look for or how, not what the content is about
REQUEST_WORDS = frozenset(
    """
    find finding show showing look looking search searching want need track tracking monitor monitoring
    research researching discover discovering collect collecting gather explore understand see spot
    video videos clip clips short shorts reel reels post posts content contents creator creators
    influencer influencers account accounts channel channels tiktok tiktoks instagram youtube
    hook hooks trend trends trending viral idea ideas example examples inspiration format formats
    about around related regarding featuring using use people someone anyone things thing stuff kind
    type types work works working perform performs performing sell sells selling best top good great
    popular latest recent new engaging engagement audience audiences brand brands niche space topic
    topics any some every each other also only very really help helps
    """.split()
)
# the share of the intent's term weight an item must show to match, and the fewest terms (capped at the
# intent's own count) it must show (benchmarks/intent_match.py)
MATCH_AT = 0.25
MIN_TERMS = 2
# a term this short matches a compound hashtag only at its start ("ai" in #aitools, not in #hair)
SHORT_TERM = 3
# the longest tag split into words (the split costs the cube of its length); real tags are far
# shorter, a longer one (spam, a pasted block after '#') is searched whole
SPLIT_UP_TO = 100
EVIDENCE_ORDER = ("caption", "transcript", "panel text", "hashtags", "topic")


def stem(word: str) -> str:
    """A light English stem: plural and -ing/-ed endings off, so inflections meet."""
    w = word.casefold()
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("sses", "shes", "ches", "xes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suffix in ("ing", "ed"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            w = w[: -len(suffix)]
            if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiousl":
                w = w[:-1]  # running → run, prepped → prep
            break
    if len(w) > 4 and w.endswith("e"):
        w = w[:-1]  # automate → automat, as automated
    return w


def intent_terms(intent: str | None) -> dict[str, str]:
    """The stemmed topic terms of an intent, in order, each with the word the intent wrote it as."""
    found: dict[str, str] = {}
    for word in words(intent or ""):
        if word in STOPWORDS or word in REQUEST_WORDS or word.isdigit() or len(word) < 2:
            continue
        found.setdefault(stem(word), word)
    return found


@dataclass(frozen=True, slots=True)
class IntentItem:
    """What one item offers as evidence."""

    caption: str | None
    spoken: str | None  # the transcript of a video, the panel text of a slideshow
    hashtags: Sequence[str]
    intelligence: Mapping[str, Any] | None = None
    slideshow: bool = False


@dataclass(frozen=True, slots=True)
class IntentMatch:
    matches: bool
    score: float
    reasoning: str
    found: dict[str, list[str]]  # term → where it was found

    def as_object(self) -> dict[str, Any]:
        """The §2.6 object."""
        return {"matches": self.matches, "reasoning": self.reasoning}


def _places(item: IntentItem) -> dict[str, set[str]]:
    """Stemmed words per evidence place; hashtags stay whole (compound tags are searched inside)."""
    places = {
        "caption": {stem(w) for w in words(item.caption or "")},
        ("panel text" if item.slideshow else "transcript"): {stem(w) for w in words(item.spoken or "")},
    }
    intel = item.intelligence or {}
    topics = [
        intel.get("primary_topic"),
        *(intel.get("secondary_topics") or ()),
        *(intel.get("keywords") or ()),
    ]
    places["topic"] = {stem(w) for t in topics if isinstance(t, str) for w in words(t.replace("#", " "))}
    return places


def segment(tag: str, vocabulary: Collection[str]) -> list[tuple[str, bool]]:
    """The tag split into words, ``(part, known)``: as much of it as possible covered by words of the
    vocabulary, then the fewest parts (``#skincareroutine`` → skincare, routine, not skin, care, …);
    what no known word covers stays as unknown parts. A tag longer than ``SPLIT_UP_TO`` stays whole."""
    if len(tag) > SPLIT_UP_TO:
        return [(tag, False)]
    # best[i]: (uncovered letters, parts, the parts) for tag[:i]
    best: list[tuple[int, int, list[tuple[str, bool]]]] = [(0, 0, [])]
    for end in range(1, len(tag) + 1):
        options = []
        for start in range(end):
            uncovered, count, parts = best[start]
            piece = tag[start:end]
            if end - start >= 2 and piece in vocabulary:
                options.append((uncovered, count + 1, [*parts, (piece, True)]))
            else:
                options.append((uncovered + end - start, count + 1, [*parts, (piece, False)]))
        best.append(min(options, key=lambda o: (o[0], o[1])))
    return best[len(tag)][2]


def _in_tag(term: str, tag: str, parts: Sequence[tuple[str, bool]]) -> bool:
    """A tag shows a term when it is the term, when a known word it splits into (``parts``) is, or when
    a part no known word covers holds it (at the part's start for a short term)."""
    if stem(tag) == term:
        return True
    for part, known in parts:
        if known and stem(part) == term:
            return True
        if not known and (part.startswith(term) if len(term) <= SHORT_TERM else term in part):
            return True
    return False


Splitter = Callable[[str], Sequence[tuple[str, bool]]]


def _unsplit(tag: str) -> list[tuple[str, bool]]:
    return [(tag, False)]


def evidence(terms: Collection[str], item: IntentItem, split: Splitter = _unsplit) -> dict[str, list[str]]:
    """Each intent term the item shows → the places it shows it (in ``EVIDENCE_ORDER``); ``split`` cuts
    a compound hashtag into words (``segment`` over a vocabulary; by default tags stay whole)."""
    places = _places(item)
    # the item's tags and those written in its caption (whose words leave #tags out): real posts often
    # carry them only there (§2.1: no tags may be [] or null)
    written = [*item.hashtags, *hashtags_in(item.caption or "")]
    tags = {t: split(t) for t in dict.fromkeys(normalize_hashtag(h) for h in written) if t}
    found: dict[str, list[str]] = {}
    for term in terms:
        where = [name for name in EVIDENCE_ORDER if name in places and term in places[name]]
        if any(_in_tag(term, tag, parts) for tag, parts in tags.items()):
            where.append("hashtags")
        if where:
            found[term] = sorted(set(where), key=EVIDENCE_ORDER.index)
    return found


def term_weights(terms: Collection[str], shown: Sequence[Mapping[str, object]]) -> dict[str, float]:
    """Smoothed IDF of each term over the items judged together, ``ln((1 + n) / (1 + df)) + 1``, where
    ``shown`` holds what each item shows (``evidence``)."""
    n = len(shown)
    return {t: math.log((1 + n) / (1 + sum(t in found for found in shown))) + 1 for t in terms}


def _reasoning(terms: dict[str, str], found: dict[str, list[str]], matches: bool, score: float) -> str:
    if not found:
        return (
            f"None of the intent's terms ({', '.join(terms.values())}) appears in the caption, "
            "transcript, hashtags or topic."
        )
    shown = "; ".join(f"'{word}' in {' and '.join(found[t])}" for t, word in terms.items() if t in found)
    missing = [word for t, word in terms.items() if t not in found]
    verdict = "Matches" if matches else "Does not match"
    line = f"{verdict} the intent ({round(score * 100)}% of its terms' weight): {shown}"
    if missing:
        line += f"; not found: {', '.join(missing)}"
    return line + "."


def match_all(intent: str | None, items: Sequence[IntentItem]) -> list[IntentMatch | None]:
    """Each item judged against the intent (None for all when the intent names no topic terms)."""
    terms = intent_terms(intent)
    if not terms:
        return [None] * len(items)
    # what compound hashtags split into: the items' words of 3+ letters (shorter ones would cut any tag
    # into pieces) and the intent's own words, as written and stemmed
    vocabulary = {w for word in words(intent or "") for w in (word, stem(word))}
    for item in items:
        vocabulary.update(w for w in words(f"{item.caption or ''} {item.spoken or ''}") if len(w) >= 3)
    splits: dict[str, Sequence[tuple[str, bool]]] = {}

    def split(tag: str) -> Sequence[tuple[str, bool]]:
        if tag not in splits:
            splits[tag] = segment(tag, vocabulary)
        return splits[tag]

    shown = [evidence(terms, item, split) for item in items]
    weights = term_weights(terms, shown)
    total = sum(weights.values())
    out: list[IntentMatch | None] = []
    for found in shown:
        score = sum(weights[t] for t in found) / total
        matches = score >= MATCH_AT and len(found) >= min(MIN_TERMS, len(terms))
        out.append(IntentMatch(matches, round(score, 4), _reasoning(terms, found, matches, score), found))
    return out
