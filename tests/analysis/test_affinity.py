"""Genre adjacency (spec §4.4 affinity, beta) on plain videos: genres, pairs, strengths and evidence are
counts read from the videos."""

from __future__ import annotations

import math

from reelscope.analysis.affinity import GenreVideo, adjacency, genres_of


def video(vid: str, tags: str, creator: str, views: int = 100, caption: str = "") -> GenreVideo:
    return GenreVideo(vid, caption, tags.split(), creator, views)


class TestGenres:
    def test_hashtags_without_generic_ones_and_the_category(self) -> None:
        found = genres_of(video("v", "#Sourdough baking fyp viral", "c"))
        assert found == ["hashtag:sourdough", "hashtag:baking", "category:food"]
        assert genres_of(video("v", "", "c", caption="just a day")) == []


class TestAdjacency:
    def test_pairs_strength_lift_and_evidence(self) -> None:
        videos = [
            video("v1", "sourdough baking", "a", 500),
            video("v2", "sourdough baking", "b", 900),
            video("v3", "sourdough", "a", 50),
            video("v4", "running marathon", "c", 70),
            video("v5", "running marathon", "d", 80),
            video("v6", "running", "a", 10),
        ]
        found = adjacency(videos)
        assert found["video_count"] == 6
        genres = {g["key"]: g for g in found["genres"]}
        assert genres["hashtag:sourdough"] == {
            "key": "hashtag:sourdough",
            "name": "#sourdough",
            "kind": "hashtag",
            "video_count": 3,
            "creator_count": 2,
            "total_views": 1450,
        }
        pairs = {tuple(p["genres"]): p for p in found["pairs"]}
        bread = pairs[("hashtag:baking", "hashtag:sourdough")]
        assert bread["video_count"] == 2 and bread["creator_count"] == 2
        assert bread["video_strength"] == round(2 / math.sqrt(2 * 3), 4)
        assert bread["creator_strength"] == 1.0 and bread["strength"] == 1.0
        assert bread["lift"] == round(2 * 6 / (2 * 3), 4)
        assert bread["evidence_video_ids"] == ["v2", "v1"]  # most viewed first
        # creator "a" posts both sourdough and running, but one shared creator is under MIN_SHARED
        assert ("hashtag:running", "hashtag:sourdough") not in pairs
        strengths = [p["strength"] for p in found["pairs"]]
        assert strengths == sorted(strengths, reverse=True)

    def test_creators_posting_both_make_a_pair_without_a_shared_video(self) -> None:
        videos = [
            video("v1", "golf", "a"),
            video("v2", "guitar", "a"),
            video("v3", "golf", "b"),
            video("v4", "guitar", "b"),
        ]
        pairs = {tuple(p["genres"]): p for p in adjacency(videos)["pairs"]}
        both = pairs[("hashtag:golf", "hashtag:guitar")]
        assert both["video_count"] == 0 and both["creator_count"] == 2
        assert both["video_strength"] == 0.0 and both["strength"] == 1.0
        assert both["evidence_video_ids"] == [] and both["lift"] == 0.0

    def test_a_genre_on_one_video_is_left_out_and_nothing_is_empty(self) -> None:
        found = adjacency([video("v1", "rare common", "a"), video("v2", "common", "b")])
        assert [g["key"] for g in found["genres"]] == ["hashtag:common"]
        assert found["pairs"] == []
        assert adjacency([]) == {"video_count": 0, "genres": [], "pairs": []}
