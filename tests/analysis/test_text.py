from __future__ import annotations

from reelscope.analysis.text import hashtags_in, normalize_hashtag, phrases


def test_hashtags_are_case_insensitive_without_hash() -> None:
    assert normalize_hashtag("#GlassSkin") == normalize_hashtag("glassskin") == "glassskin"
    assert hashtags_in("love it #GlassSkin #fyp") == ["glassskin", "fyp"]


def test_phrases_skip_stopword_edges_and_hashtags() -> None:
    found = phrases("Trying the glass skin routine #glassskin")
    assert "glass skin" in found
    assert "skin routine" in found
    assert "the glass" not in found
    assert not any("glassskin" in p for p in found)
