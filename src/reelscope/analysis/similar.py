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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from reelscope.analysis.text import all_hashtags
from reelscope.analysis.themes import Doc, terms_of

TEXT_WEIGHT = 0.6
SOUND_WEIGHT = 0.25
TIER_WEIGHT = 0.15
# the most similar creators one answer holds (not paged, §8.3), and shared items listed per kind
MAX_SIMILAR = 25
SHARED_SHOWN = 10


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


def _tier_closeness(a: CreatorPosts, b: CreatorPosts) -> float:
    if a.tier_rank is None or b.tier_rank is None:
        return 0.0
    gap = abs(a.tier_rank - b.tier_rank)
    return 1.0 if gap == 0 else 0.5 if gap == 1 else 0.0


@dataclass(frozen=True)
class Prepared:
    """What every question about one set of creators shares: their TF-IDF bags as rows of one matrix
    (l2-normalised, so a row product is the cosine), the vocabulary and each creator's sounds. Built
    once per set (``prepare``); each ``similar_in`` is then one sparse row product and a pass over the
    creators (an agent of 10,000 videos: ~0.5 s to prepare, milliseconds to ask, issue 33 item 4)."""

    creators: Sequence[CreatorPosts]
    index: dict[str, int]
    matrix: Any  # scipy CSR, creators × terms; None when no creator has a term
    vocabulary: Any  # numpy array of the terms
    sounds: list[frozenset[str]]


def prepare(creators: Sequence[CreatorPosts]) -> Prepared:
    bags = _bags(creators)
    matrix = None
    vocabulary = np.array([], dtype=object)
    if any(bags):
        from sklearn.feature_extraction.text import TfidfVectorizer  # at first use: see analysis.themes

        vectorizer = TfidfVectorizer(analyzer=_identity, sublinear_tf=True, norm="l2")
        matrix = vectorizer.fit_transform(bags).tocsr()
        vocabulary = vectorizer.get_feature_names_out()
    return Prepared(
        creators=creators,
        index={c.creator_id: i for i, c in enumerate(creators)},
        matrix=matrix,
        vocabulary=vocabulary,
        sounds=[frozenset(d.sound_id for d in c.videos if d.sound_id) for c in creators],
    )


def similar(target_id: str, creators: Sequence[CreatorPosts]) -> list[dict[str, Any]]:
    """The creators like ``target_id`` (which must be among ``creators``), most similar first."""
    return similar_in(prepare(creators), target_id)


def similar_in(prepared: Prepared, target_id: str) -> list[dict[str, Any]]:
    """``similar`` over creators prepared before; ``target_id`` must be among them."""
    creators, matrix, vocabulary = prepared.creators, prepared.matrix, prepared.vocabulary
    index = prepared.index[target_id]
    target = creators[index]
    cosine = np.zeros(len(creators)) if matrix is None else (matrix @ matrix[index].T).toarray().ravel()
    target_sounds = prepared.sounds[index]
    scored: list[tuple[float, str, int, float, float, float, set[str]]] = []
    for i, other in enumerate(creators):
        if i == index:
            continue
        sounds = prepared.sounds[i]
        text = float(cosine[i])
        if text <= 0 and not (target_sounds and sounds and not target_sounds.isdisjoint(sounds)):
            continue  # nothing posted in common
        union = target_sounds | sounds
        sound_share = len(target_sounds & sounds) / len(union) if union else 0.0
        tier = _tier_closeness(target, other)
        score = TEXT_WEIGHT * text + SOUND_WEIGHT * sound_share + TIER_WEIGHT * tier
        if score > 0:
            scored.append((-score, other.creator_id, i, text, sound_share, tier, set(target_sounds & sounds)))
    found: list[dict[str, Any]] = []
    # what is shared, for the best only: the common terms that weigh most for both creators
    for negative, _, i, text, sound_share, tier, shared_sounds in sorted(scored)[:MAX_SIMILAR]:
        other = creators[i]
        ranked: list[str] = []
        if matrix is not None:
            # the terms both use, heaviest product first (ties in vocabulary order): the nonzeros
            # alone, not the whole vocabulary
            shared = matrix[index].multiply(matrix[i]).tocoo()
            order = np.lexsort((shared.col, -shared.data))
            ranked = [str(vocabulary[shared.col[j]]) for j in order if shared.data[j] > 0]
        found.append(
            {
                "creator_id": other.creator_id,
                "handle": other.handle,
                "platform": other.platform,
                "follower_count": other.followers,
                "tier": other.tier,
                "video_count": len(other.videos),
                "score": round(-negative, 4),
                "components": {"text": round(text, 4), "sounds": round(sound_share, 4), "tier": tier},
                "shared": {
                    "hashtags": [t[1:] for t in ranked if t.startswith("#")][:SHARED_SHOWN],
                    "words": [t for t in ranked if not t.startswith("#")][:SHARED_SHOWN],
                    "sound_ids": sorted(shared_sounds)[:SHARED_SHOWN],
                    "same_tier": tier == 1.0,
                },
            }
        )
    return found
