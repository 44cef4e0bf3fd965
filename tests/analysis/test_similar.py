"""Similar creators (spec §4.4, beta) on plain posts: text, sounds and tier make the score; what is shared
is listed."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import numpy as np
import pytest

from reelscope.analysis.similar import SOUND_WEIGHT, TIER_WEIGHT, CreatorPosts, prepare, similar, similar_in
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
            index = prepared.index[target]
            for row in similar_in(prepared, target):
                other = prepared.index[row["creator_id"]]
                weight = prepared.matrix[index].multiply(prepared.matrix[other]).toarray().ravel()
                expected = [
                    str(prepared.vocabulary[j]) for j in np.argsort(-weight, kind="stable") if weight[j] > 0
                ]
                assert row["shared"]["words"] == [t for t in expected if not t.startswith("#")][:10]
                assert row["shared"]["hashtags"] == [t[1:] for t in expected if t.startswith("#")][:10]
