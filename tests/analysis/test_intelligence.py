"""Per-item Data Intelligence (spec §2.6, issue 16) on small hand-written, real-shaped posts: what the text
tells is filled, what needs frames is null."""

from __future__ import annotations

from reelscope.analysis.intelligence import analyse, brand_safety, ctas, language, sentiment


class TestVideo:
    def test_an_english_tutorial_with_a_sponsor_and_calls_to_action(self) -> None:
        found = analyse(
            caption="How to get an open crumb in your sourdough 🍞 use code BREAD10 @flourco "
            "#sourdough #baking #ad",
            transcript="Okay so, here's how to get an open crumb. Feed your starter the night before. "
            "Follow for part two and save this for later!",
            hashtags=["sourdough", "baking", "ad"],
            is_duet=False,
            is_stitch=False,
        )
        assert found is not None
        assert found["language_detected"] == "en"
        assert found["hook_text"] == "here's how to get an open crumb"
        assert found["hook_type"] == "tutorial_promise"
        assert found["content_format"] == "tutorial"
        assert found["keywords"][:2] == ["sourdough", "baking"] and found["primary_topic"] == "sourdough"
        assert found["category"] == "food"
        assert found["is_sponsored"] is True and found["brands_mentioned"] == ["flourco"]
        assert found["is_educational"] is True
        assert {c["type"] for c in found["cta_usages"]} >= {"follow", "part_two", "save", "discount_code"}
        assert found["brand_safety_tier"] == "safe"
        assert found["transcript_word_count"] == 24 and found["transcript_quality"] == "medium"
        # unknowable without frames or audio: null, not a guess
        for field in (
            "has_face_visible",
            "camera_perspective",
            "lighting_quality",
            "setting",
            "visual_format",
        ):
            assert found[field] is None
        assert found["visual_hook_type"] is None
        assert found["summary"].startswith(
            "A food video in en about sourdough, opening with a tutorial promise hook"
        )

    def test_a_duet_in_spanish(self) -> None:
        found = analyse(
            caption="Nadie habla de este truco de proteína para el desayuno #proteina",
            transcript="la verdad, nadie habla de este truco de proteína. mira esto.",
            hashtags=["proteina"],
            is_duet=True,
        )
        assert found is not None
        assert found["language_detected"] == "es" and found["sentiment"] is None  # VADER is English only
        assert found["visual_hook_type"] == "duet_split_screen"
        assert found["hook_type"] == "secret_reveal"

    def test_no_text_is_skipped(self) -> None:
        assert analyse(caption="🔥🔥", transcript=None, hashtags=[]) is None


class TestSlideshow:
    def test_reads_panels_and_omits_video_only_fields(self) -> None:
        found = analyse(
            caption="5 mistakes everyone makes with sourdough #sourdough",
            transcript=None,
            hashtags=["sourdough"],
            panels=["Mistake 1: a cold kitchen", "Mistake 2: an underfed starter", "Save this for later"],
        )
        assert found is not None
        assert found["hook_type"] == "listicle" and found["content_format"] == "listicle"
        assert {"visual_format", "camera_perspective", "scene_changed", "visual_hook_type"}.isdisjoint(found)
        assert found["transcript_word_count"] is None
        assert [c["type"] for c in found["cta_usages"]] == ["save"]


class TestParts:
    def test_language_needs_enough_words(self) -> None:
        assert language("hi") is None
        assert language("Ich habe diese Woche jeden Tag Sauerteig gebacken") == "de"

    def test_sentiment(self) -> None:
        assert sentiment("I love this, it is amazing", "en") == "positive"
        assert sentiment("This was awful and I hated it", "en") == "negative"

    def test_brand_safety_tiers(self) -> None:
        assert brand_safety("a calm bread video") == "safe"
        assert brand_safety("this casino trick") == "medium_risk"
        assert brand_safety("nsfw content") == "high_risk"

    def test_cta_text_is_the_sentence_holding_the_cue(self) -> None:
        assert ctas("Great bread. Link in bio for the recipe!") == [
            {"type": "link_in_bio", "text": "Link in bio for the recipe!"}
        ]
