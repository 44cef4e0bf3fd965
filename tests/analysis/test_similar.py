"""Similar creators (spec §4.4, beta) on plain posts: text, sounds and tier make the score; what is shared
is listed."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import numpy as np
import pytest

from reelscope.analysis.similar import (
    SOUND_WEIGHT,
    TEXT_WEIGHT,
    TIER_WEIGHT,
    CreatorPosts,
    Person,
    Prepared,
    prepare,
    rank,
    score,
    similar,
    similar_in,
)
from reelscope.analysis.themes import Doc

AT = datetime(2026, 11, 20, tzinfo=UTC)


def doc(text: str, tags: str = "", sound: str | None = None) -> Doc:
    return Doc(
        id=text,
        text=text,
        hashtags=tuple(tags.split()),
        sound_id=sound,
        views=100,
        likes=1,
        comments=0,
        shares=None,
        published_at=AT,
        duration=None,
        platform="tiktok",
    )


def creator(cid: str, rank: int | None, *videos: Doc) -> CreatorPosts:
    tiers = ("nano", "micro", "mid", "macro")
    return CreatorPosts(
        creator_id=cid,
        handle=cid + "_handle",
        platform="tiktok",
        followers=None if rank is None else 10 ** (rank + 3),
        tier=None if rank is None else tiers[rank],
        tier_rank=rank,
        videos=videos,
    )


BAKER = creator("baker", 1, doc("feed your sourdough starter", "sourdough baking", "s1"))
BAKER2 = creator("baker2", 1, doc("open crumb sourdough loaf", "sourdough bread", "s1"))
BAKER3 = creator("baker3", 3, doc("my sourdough starter died", "sourdough"))
RUNNER = creator("runner", 2, doc("marathon pace for beginners", "running"))
UNKNOWN = creator("unknown", None, doc("guitar riff", "guitar"))


class TestSimilar:
    def test_ranked_by_score_with_what_is_shared(self) -> None:
        found = similar("baker", [BAKER, BAKER2, BAKER3, RUNNER, UNKNOWN])
        assert [f["creator_id"] for f in found] == ["baker2", "baker3"]
        best = found[0]
        assert best["components"]["sounds"] == 1.0 and best["components"]["tier"] == 1.0
        assert best["shared"] == {
            "hashtags": ["sourdough"],
            "words": ["sourdough"],
            "sound_ids": ["s1"],
            "same_tier": True,
        }
        assert best["score"] == pytest.approx(
            0.6 * best["components"]["text"] + SOUND_WEIGHT + TIER_WEIGHT, abs=1e-4
        )
        third = found[1]
        assert third["shared"]["hashtags"] == ["sourdough"]
        assert set(third["shared"]["words"]) == {"sourdough", "starter"}
        assert third["components"]["tier"] == 0.0  # micro against macro
        assert (best["handle"], best["tier"], best["video_count"]) == ("baker2_handle", "micro", 1)

    def test_a_follower_tier_alone_makes_nobody_similar(self) -> None:
        """Issue 31: the list was padded to 25 with creators sharing only a tier; fewer are returned."""
        micro_runners = [creator(f"runner{i}", 1, doc(f"marathon pace {i}", "running")) for i in range(30)]
        found = similar("baker", [BAKER, BAKER3, *micro_runners])
        assert [f["creator_id"] for f in found] == ["baker3"]
        # the tier still ranks those who post alike: same words, the same tier first
        baker4 = creator("baker4", 1, *BAKER3.videos)  # baker3's post, in the baker's tier
        ranked = similar("baker", [BAKER, BAKER3, baker4])
        assert [f["creator_id"] for f in ranked] == ["baker4", "baker3"]
        assert ranked[0]["components"]["tier"] == 1.0 and ranked[1]["components"]["tier"] == 0.0

    def test_a_shared_sound_alone_is_enough(self) -> None:
        dancer = creator("dancer", None, doc("new routine", "dance", "s1"))
        (found,) = similar("baker", [BAKER, dancer, RUNNER])
        assert found["creator_id"] == "dancer" and found["components"]["sounds"] == 1.0
        assert found["score"] == pytest.approx(SOUND_WEIGHT)  # no words, no tier in common

    def test_unknown_followers_share_no_tier_and_a_lone_creator_has_no_match(self) -> None:
        assert similar("unknown", [UNKNOWN, RUNNER]) == []
        assert similar("baker", [BAKER]) == []


def people(creators: list[CreatorPosts]) -> dict[str, Person]:
    return {c.creator_id: Person(c.handle, c.followers, c.tier, c.tier_rank) for c in creators}


def dense(prepared: Prepared, creator_id: str) -> np.ndarray:
    """A creator's TF-IDF row over the whole vocabulary."""
    terms, weights = prepared.row(prepared.index[creator_id])
    row = np.zeros(len(prepared.vocabulary))
    row[terms] = weights
    return row


def every_creator_scored(creators: list[CreatorPosts], target_id: str) -> list[tuple[str, float]]:
    """The best 25 by the score of analysis/similar.py's docstring, each creator scored in full."""
    prepared = prepare(creators)
    by_id = {c.creator_id: c for c in creators}
    target = by_id[target_id]
    mine = {d.sound_id for d in target.videos if d.sound_id}
    scored = []
    for c in creators:
        if c.creator_id == target_id:
            continue
        text = float(dense(prepared, target_id) @ dense(prepared, c.creator_id))
        theirs = {d.sound_id for d in c.videos if d.sound_id}
        sounds = len(mine & theirs) / len(mine | theirs) if mine | theirs else 0.0
        gap = None if c.tier_rank is None or target.tier_rank is None else abs(c.tier_rank - target.tier_rank)
        tier = 1.0 if gap == 0 else 0.5 if gap == 1 else 0.0
        total = TEXT_WEIGHT * text + SOUND_WEIGHT * sounds + TIER_WEIGHT * tier
        if (text > 0 or mine & theirs) and total > 0:
            scored.append((-round(total, 4), c.creator_id))
    return [(cid, -negative) for negative, cid in sorted(scored)[:25]]


class TestPrepared:
    def test_shared_words_are_the_common_terms_heaviest_first_ties_in_vocabulary_order(self) -> None:
        # the listing reads the nonzeros of the two rows' product alone (issue 33 item 4); it must
        # order them as a full sort of the product over the whole vocabulary would
        rng = random.Random(7)
        words = [f"word{n}" for n in range(40)]
        creators = [
            creator(
                f"c{n}",
                n % 4,
                *(doc(" ".join(rng.sample(words, 6)), f"#tag{rng.randrange(8)}") for _ in range(3)),
            )
            for n in range(12)
        ]
        prepared = prepare(creators)
        for target in ("c0", "c5"):
            for row in similar_in(prepared, people(creators), target):
                weight = dense(prepared, target) * dense(prepared, row["creator_id"])
                order = np.argsort(-weight, kind="stable")
                expected = [prepared.vocabulary[j] for j in order if weight[j] > 0]
                assert row["shared"]["words"] == [t for t in expected if not t.startswith("#")][:10]
                assert row["shared"]["hashtags"] == [t[1:] for t in expected if t.startswith("#")][:10]

    def test_kept_as_bytes_it_answers_as_prepared(self) -> None:
        """The ``agent.similar`` job keeps the prepared creators as bytes (ADR 0056); a process that reads
        them back answers every question exactly as the set prepared in place does."""
        silent = creator("silent", 0, doc("", "", None))  # no term and no sound: a row of nothing
        creators = [BAKER, BAKER2, BAKER3, RUNNER, UNKNOWN, silent]
        prepared = prepare(creators)
        kept = Prepared.from_bytes(prepared.to_bytes())
        assert kept.creator_ids == prepared.creator_ids and kept.vocabulary == prepared.vocabulary
        for c in creators:
            answer = similar_in(kept, people(creators), c.creator_id)
            assert answer == similar_in(prepared, people(creators), c.creator_id)
            assert answer == similar(c.creator_id, creators)
        assert similar_in(kept, people(creators), "silent") == []
        nothing = prepare([silent])  # no vocabulary at all
        assert similar_in(Prepared.from_bytes(nothing.to_bytes()), people([silent]), "silent") == []

    def test_the_text_part_is_the_cosine_of_the_two_rows(self) -> None:
        creators = [BAKER, BAKER2, BAKER3, RUNNER, UNKNOWN]
        prepared = prepare(creators)
        for c in creators:
            cosines = prepared.cosines(prepared.index[c.creator_id])
            expected = [dense(prepared, c.creator_id) @ dense(prepared, o.creator_id) for o in creators]
            assert cosines == pytest.approx(expected, abs=1e-12)

    def test_tiers_are_the_peoples_given_not_the_prepared_ones(self) -> None:
        """What was prepared holds no follower count: the tier compared is the one given with the question
        (the service reads them again each hour), and a creator the catalog no longer has has none."""
        prepared = prepare([BAKER, BAKER3, creator("baker4", 3, *BAKER3.videos)])
        now = {
            "baker": Person("baker_handle", 5_000_000, "macro", 3),
            "baker3": Person("baker3_handle", 5_000, "nano", 0),
            "baker4": Person("baker4_handle", 2_000_000, "macro", 3),
        }
        ranked = similar_in(prepared, now, "baker")
        assert [(f["creator_id"], f["tier"], f["components"]["tier"]) for f in ranked] == [
            ("baker4", "macro", 1.0),
            ("baker3", "nano", 0.0),
        ]
        assert ranked[0]["follower_count"] == 2_000_000 and ranked[0]["shared"]["same_tier"]
        del now["baker4"]
        gone = similar_in(prepared, now, "baker")
        assert [(f["creator_id"], f["tier"], f["components"]["tier"]) for f in gone] == [
            ("baker3", "nano", 0.0),
            ("baker4", None, 0.0),
        ]

    def test_who_cannot_reach_the_list_need_not_be_known(self) -> None:
        """A question reads who the creators are now only for the target and the creators its tier can
        still lift into the list (``score``'s contenders): ranking with those alone is ranking with all,
        whatever their tiers."""
        rng = random.Random(11)
        words = [f"word{n}" for n in range(12)]  # few words: many creators alike, many near-ties
        creators = [
            creator(
                f"c{n:03}",
                rng.choice([None, 0, 1, 2, 3]),
                *(
                    doc(" ".join(rng.sample(words, 3)), f"#tag{rng.randrange(4)}", f"s{rng.randrange(30)}")
                    for _ in range(2)
                ),
            )
            for n in range(120)
        ]
        prepared, everyone = prepare(creators), people(creators)
        for target in ("c000", "c017", "c099"):
            scored = score(prepared, target)
            assert len(scored.contender_ids) < len(creators) - 1  # some cannot reach the list
            known = {c: everyone[c] for c in [target, *scored.contender_ids]}
            answer = rank(prepared, scored, known)
            assert answer == similar_in(prepared, everyone, target)
            # and as every creator scored in full would rank them
            assert [(f["creator_id"], f["score"]) for f in answer] == every_creator_scored(creators, target)
