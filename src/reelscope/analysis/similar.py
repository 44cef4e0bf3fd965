"""Creators similar to one creator among an agent's creators (spec §4.4 ``/creators/{id}/similar``, beta).

Each creator is what they post in the agent's videos: their words and hashtags as one TF-IDF bag
(``themes.terms_of``: content words once per video, non-generic hashtags weighted up), the sounds they
use, and their audience-size tier (nano, micro, mid, macro). Similarity to the given creator:

    score = TEXT_WEIGHT × cosine(bags) + SOUND_WEIGHT × jaccard(sounds) + TIER_WEIGHT × tier closeness

where tier closeness is 1 for the same tier, 0.5 for the next one and 0 otherwise or when a follower
count is unknown. A candidate is similar only when it posts something the given creator posts (a word,
a hashtag or a sound): an audience of the same size alone makes nobody similar, it only ranks those who
are. They are ranked best first (ties on the creator id), at most ``MAX_SIMILAR``, with what they share
with the given creator: hashtags, sounds, strongest common words. Fewer are returned when fewer are
similar: the spec gives the list no length (§4.4, beta; not paged, §8.3), and rows padded on tier alone
(issue 31) would be creators of anything.

What is shared by every question about one set of creators — their TF-IDF rows, vocabulary and sounds —
is ``prepare``d once (a job, ADR 0056) and kept as bytes (``Prepared.to_bytes``); who the creators are
now (handle, followers, tier) is given apart (``Person``), read afresh. A question is array arithmetic
over the prepared rows (``score``), then a ranking that needs to know only the creators a tier could
still lift into the list (``rank``); numpy only, so a process answering it needs neither scikit-learn
nor scipy (over a second and 0.4 s to import). ``similar_in`` is the two at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

from reelscope.analysis.text import all_hashtags
from reelscope.analysis.themes import Doc, terms_of

TEXT_WEIGHT = 0.6
SOUND_WEIGHT = 0.25
TIER_WEIGHT = 0.15
# the most similar creators one answer holds (not paged, §8.3), and shared items listed per kind
MAX_SIMILAR = 25
# a kept model's first bytes: what made it, and the layout's number, raised when the layout or what the
# numbers mean (terms, weights) changes, so that a model kept by an older release is prepared again
MAGIC = b"RSM"
FORMAT = 1
SHARED_SHOWN = 10


@dataclass(frozen=True, slots=True)
class Person:
    """Who a creator is now: what an answer shows of them and the tier it compares."""

    handle: str
    followers: int | None
    tier: str | None
    tier_rank: int | None  # the tier's place in the nano…macro order


@dataclass(frozen=True, slots=True)
class CreatorPosts:
    creator_id: str
    handle: str
    platform: str
    followers: int | None
    tier: str | None
    tier_rank: int | None  # the tier's place in the nano…macro order
    videos: Sequence[Doc]


def _identity(terms: list[str]) -> list[str]:
    return terms


def _bags(creators: Sequence[CreatorPosts]) -> list[list[str]]:
    return [
        [t for doc in c.videos for t in terms_of(_with_caption_tags(doc)) if not t.startswith("~")]
        for c in creators
    ]


def _with_caption_tags(doc: Doc) -> Doc:
    """The video with the ``#tags`` written in its caption among its hashtags (issue 32 item 6): a
    source that keeps no hashtag list leaves them only in the text, which ``terms_of`` reads as words
    without the tags."""
    return replace(doc, hashtags=all_hashtags(doc.hashtags, doc.text))


@dataclass(frozen=True, eq=False)
class Prepared:
    """What every question about one set of creators shares: their TF-IDF bags as the rows of one CSR
    matrix (``indptr``, ``indices``, ``data``; l2-normalised, so a row product is the cosine), the
    vocabulary, and each creator's platform, video count and sounds. Built by ``prepare`` (scikit-learn,
    ~0.5 s for an agent of 10,000 videos), kept as bytes; each question is then one row product over
    the nonzeros and a sort of the few best (issue 33 item 4)."""

    creator_ids: list[str]
    platforms: list[str]
    video_counts: list[int]
    indptr: npt.NDArray[np.int64]  # one more than the creators
    indices: npt.NDArray[np.int32]  # the terms of each row in vocabulary order
    data: npt.NDArray[np.float64]
    vocabulary: list[str]
    sounds: list[frozenset[str]]
    index: dict[str, int] = field(init=False)
    _rows: npt.NDArray[np.int64] = field(init=False, repr=False)  # the row of each nonzero
    _by_sound: dict[str, list[int]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "index", {cid: i for i, cid in enumerate(self.creator_ids)})
        set_(self, "_rows", np.repeat(np.arange(len(self.creator_ids)), np.diff(self.indptr)))
        by_sound: dict[str, list[int]] = {}
        for i, sounds in enumerate(self.sounds):
            for sound in sounds:
                by_sound.setdefault(sound, []).append(i)
        set_(self, "_by_sound", by_sound)

    def row(self, i: int) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float64]]:
        """The terms (vocabulary positions, ascending) and weights of creator ``i``."""
        start, end = self.indptr[i], self.indptr[i + 1]
        return self.indices[start:end], self.data[start:end]

    def cosines(self, i: int) -> npt.NDArray[np.float64]:
        """Every creator's cosine with creator ``i``: each nonzero times the target's weight of its term,
        summed per row in the row's order (as scipy's sparse product sums them)."""
        terms, weights = self.row(i)
        target = np.zeros(len(self.vocabulary))
        target[terms] = weights
        products = self.data * target[self.indices]
        sums = np.bincount(self._rows, weights=products, minlength=len(self.creator_ids))
        return np.asarray(sums, dtype=np.float64)

    def sharing_a_sound(self, i: int) -> set[int]:
        return {j for sound in self.sounds[i] for j in self._by_sound[sound]}

    def to_bytes(self) -> bytes:
        """One blob: ``MAGIC`` and ``FORMAT`` (4 bytes), a JSON header (the strings, the arrays'
        lengths) and its size before it, then the arrays' raw bytes."""
        header = orjson.dumps(
            {
                "creator_ids": self.creator_ids,
                "platforms": self.platforms,
                "video_counts": self.video_counts,
                "vocabulary": self.vocabulary,
                "sounds": [sorted(s) for s in self.sounds],
                "nonzeros": len(self.data),
            }
        )
        arrays = (
            self.indptr.astype("<i8").tobytes()
            + self.indices.astype("<i4").tobytes()
            + self.data.astype("<f8").tobytes()
        )
        return MAGIC + bytes([FORMAT]) + len(header).to_bytes(8, "little") + header + arrays

    @classmethod
    def from_bytes(cls, blob: bytes) -> Prepared:
        """A blob ``to_bytes`` made with this ``FORMAT`` (``format_of`` says which made it)."""
        if format_of(blob) != FORMAT:
            raise ValueError(f"not a prepared model of format {FORMAT}")
        size = int.from_bytes(blob[4:12], "little")
        header = orjson.loads(blob[12 : 12 + size])
        creators, nonzeros = len(header["creator_ids"]), header["nonzeros"]
        at = 12 + size
        indptr = np.frombuffer(blob, dtype="<i8", count=creators + 1, offset=at)
        at += indptr.nbytes
        indices = np.frombuffer(blob, dtype="<i4", count=nonzeros, offset=at)
        at += indices.nbytes
        data = np.frombuffer(blob, dtype="<f8", count=nonzeros, offset=at)
        return cls(
            creator_ids=header["creator_ids"],
            platforms=header["platforms"],
            video_counts=header["video_counts"],
            indptr=indptr,
            indices=indices,
            data=data,
            vocabulary=header["vocabulary"],
            sounds=[frozenset(s) for s in header["sounds"]],
        )


def format_of(blob: bytes) -> int | None:
    """The ``FORMAT`` a kept blob was made with; None for a blob ``to_bytes`` did not make (one kept
    before formats were numbered)."""
    return blob[3] if len(blob) >= 4 and blob[:3] == MAGIC else None


def prepare(creators: Sequence[CreatorPosts]) -> Prepared:
    bags = _bags(creators)
    indptr = np.zeros(len(creators) + 1, dtype=np.int64)
    indices = np.array([], dtype=np.int32)
    data = np.array([], dtype=np.float64)
    vocabulary: list[str] = []
    if any(bags):
        from sklearn.feature_extraction.text import TfidfVectorizer  # at first use: see analysis.themes

        vectorizer = TfidfVectorizer(analyzer=_identity, sublinear_tf=True, norm="l2")
        matrix = vectorizer.fit_transform(bags).tocsr()
        matrix.sort_indices()
        indptr, indices, data = matrix.indptr.astype(np.int64), matrix.indices.astype(np.int32), matrix.data
        vocabulary = [str(t) for t in vectorizer.get_feature_names_out()]
    return Prepared(
        creator_ids=[c.creator_id for c in creators],
        platforms=[c.platform for c in creators],
        video_counts=[len(c.videos) for c in creators],
        indptr=indptr,
        indices=indices,
        data=data,
        vocabulary=vocabulary,
        sounds=[frozenset(d.sound_id for d in c.videos if d.sound_id) for c in creators],
    )


def similar(target_id: str, creators: Sequence[CreatorPosts]) -> list[dict[str, Any]]:
    """The creators like ``target_id`` (which must be among ``creators``), most similar first."""
    people = {
        c.creator_id: Person(handle=c.handle, followers=c.followers, tier=c.tier, tier_rank=c.tier_rank)
        for c in creators
    }
    return similar_in(prepare(creators), people, target_id)


@dataclass(frozen=True)
class Scored:
    """One question's scores before tiers (``score``): the text and sound parts of every creator, and
    the creators alike enough to be among the best ``MAX_SIMILAR`` whatever their tier. Only those, and
    the target, need to be known as they are now (``Person``) to rank them (``rank``)."""

    index: int
    text: npt.NDArray[np.float64]
    sound_share: npt.NDArray[np.float64]
    base: npt.NDArray[np.float64]  # the score without its tier part
    contenders: list[int]
    contender_ids: list[str]


def score(prepared: Prepared, target_id: str) -> Scored:
    """``target_id`` (among the prepared creators) against every other, before tiers."""
    index = prepared.index[target_id]
    text = prepared.cosines(index)
    target_sounds = prepared.sounds[index]
    sound_share = np.zeros(len(text))
    for i in prepared.sharing_a_sound(index):
        sounds = prepared.sounds[i]
        sound_share[i] = len(target_sounds & sounds) / len(target_sounds | sounds)
    base = TEXT_WEIGHT * text + SOUND_WEIGHT * sound_share
    # nothing posted in common (no term, no sound): not similar, whatever the tier
    alike = (text > 0) | (sound_share > 0)
    alike[index] = False
    contenders = np.flatnonzero(alike)
    if len(contenders) > MAX_SIMILAR:
        # a tier adds at most TIER_WEIGHT, and never lowers a score: whoever is further than that below
        # the MAX_SIMILAR-th best score without tiers stays below the MAX_SIMILAR best with them
        at = len(contenders) - MAX_SIMILAR
        floor = np.partition(base[contenders], at)[at]
        contenders = contenders[base[contenders] + TIER_WEIGHT >= floor]
    chosen = [int(i) for i in contenders]
    return Scored(
        index=index,
        text=text,
        sound_share=sound_share,
        base=base,
        contenders=chosen,
        contender_ids=[prepared.creator_ids[i] for i in chosen],
    )


def similar_in(
    prepared: Prepared, people: Mapping[str, Person | None], target_id: str
) -> list[dict[str, Any]]:
    """``similar`` over creators prepared before, as ``people`` are now; ``target_id`` must be among
    them."""
    return rank(prepared, score(prepared, target_id), people)


def rank(prepared: Prepared, scored: Scored, people: Mapping[str, Person | None]) -> list[dict[str, Any]]:
    """The best of ``scored``'s contenders with their tiers as ``people`` (holding at least the target
    and the contenders; absent or None: unknown) says, and what each shares with the target."""
    index, text, sound_share = scored.index, scored.text, scored.sound_share
    target_sounds = prepared.sounds[index]
    target = people.get(prepared.creator_ids[index])
    target_rank = None if target is None else target.tier_rank
    ranked_by: list[tuple[float, str, int, float]] = []
    for i, creator_id in zip(scored.contenders, scored.contender_ids, strict=True):
        person = people.get(creator_id)
        # tier closeness: 1 for the same tier, 0.5 for the next one, 0 otherwise or unknown
        tier = 0.0
        if target_rank is not None and person is not None and person.tier_rank is not None:
            gap = abs(person.tier_rank - target_rank)
            tier = 1.0 if gap == 0 else 0.5 if gap == 1 else 0.0
        total = float(scored.base[i] + TIER_WEIGHT * tier)
        if total > 0:
            ranked_by.append((-total, creator_id, i, tier))
    best = sorted(ranked_by)[:MAX_SIMILAR]
    target_terms, target_weights = prepared.row(index)
    found: list[dict[str, Any]] = []
    for negative, creator_id, i, closeness in best:
        person = people.get(creator_id)
        # what is shared: the terms both use, heaviest product first (ties in vocabulary order)
        terms, weights = prepared.row(i)
        common, mine, theirs = np.intersect1d(target_terms, terms, assume_unique=True, return_indices=True)
        product = target_weights[mine] * weights[theirs]
        ranked = [prepared.vocabulary[common[j]] for j in np.lexsort((common, -product)) if product[j] > 0]
        shared_sounds = target_sounds & prepared.sounds[i]
        found.append(
            {
                "creator_id": creator_id,
                "handle": person.handle if person else "",
                "platform": prepared.platforms[i],
                "follower_count": person.followers if person else None,
                "tier": person.tier if person else None,
                "video_count": prepared.video_counts[i],
                "score": round(-negative, 4),
                "components": {
                    "text": round(float(text[i]), 4),
                    "sounds": round(float(sound_share[i]), 4),
                    "tier": closeness,
                },
                "shared": {
                    "hashtags": [t[1:] for t in ranked if t.startswith("#")][:SHARED_SHOWN],
                    "words": [t for t in ranked if not t.startswith("#")][:SHARED_SHOWN],
                    "sound_ids": sorted(shared_sounds)[:SHARED_SHOWN],
                    "same_tier": closeness == 1.0,
                },
            }
        )
    return found
