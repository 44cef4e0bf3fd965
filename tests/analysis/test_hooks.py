"""analysis/hooks.py: extraction, the 17 hook types, visual types, categories (spec §4.7, §2.6).

The captions are written the way creators write them (emoji, line breaks, hashtags, mixed case), not
the sandbox's templates; the sandbox accuracy is measured by benchmarks/hooks_search.py.
"""

from __future__ import annotations

import pytest

from reelscope.analysis import hooks
from reelscope.analysis.hooks import Hook, categorize, classify, extract_hook, normalize, visual_type


def test_the_vocabularies_have_the_sizes_the_spec_names() -> None:
    assert len(hooks.HOOK_TYPES) == len(set(hooks.HOOK_TYPES)) == 17
    assert {"question", "bold_claim", "tutorial_promise", "pov_setup"} <= set(hooks.HOOK_TYPES)
    assert len(hooks.VISUAL_HOOK_TYPES) == len(set(hooks.VISUAL_HOOK_TYPES)) == 12
    assert {"text_hook", "person_speaking_to_camera"} <= set(hooks.VISUAL_HOOK_TYPES)
    assert set(hooks.DESCRIPTIONS) == set(hooks.HOOK_TYPES)


@pytest.mark.parametrize(
    ("hook", "expected"),
    [
        ("Did you know your phone has a hidden battery setting? 🔋", "question"),
        ("why does nobody use this setting??", "question"),
        ("¿Sabías esto sobre el café?", "question"),
        ("POV: your mom finds your report card 💀", "pov_setup"),
        ("pov - you finally understand taxes", "pov_setup"),
        ("how to make the crispiest smash burgers at home 🍔🔥", "tutorial_promise"),
        ("Here's how I organize my whole week in Notion", "tutorial_promise"),
        ("Cómo hacer arepas en 10 minutos 🇻🇪", "tutorial_promise"),
        ("Wie du in 30 Tagen fit wirst", "tutorial_promise"),
        ("This serum changed my life ✨", "bold_claim"),
        ("The only budget app you'll ever need", "bold_claim"),
        ("You NEED to try this pasta hack 🍝🔥", "bold_claim"),
        ("watch till the end 😳😳", "curiosity_gap"),
        ("you won't believe what my dog did...", "curiosity_gap"),
        ("Nobody is talking about this Costco find", "secret_reveal"),
        ("the secret to fluffy pancakes 🥞", "secret_reveal"),
        ("stop buying expensive protein powder!!", "mistake_warning"),
        ("You've been washing your face wrong this whole time", "mistake_warning"),
        ("5 signs you're burnt out", "listicle"),
        ("3 erreurs que tout le monde fait en cuisine", "listicle"),
        ("I tried cold plunges every day for a month", "experiment"),
        ("storytime: the worst date of my life 💀", "personal_story"),
        ("What I eat in a day as a marathon runner 🏃‍♀️", "personal_story"),
        ("If you're a beginner golfer, watch this ⛳", "direct_address"),
        ("this is your sign to start investing 📈", "direct_address"),
        ("Rating every fast food fries so you don't have to 🍟", "review"),
        ("Honest review of the new iPhone 📱", "review"),
        ("iPhone vs Android camera test 📸", "comparison"),
        ("90% of people store their bread wrong", "statistic"),
        ("Before & after: my living room makeover 🛋️", "transformation"),
        ("me when the barista spells my name wrong 😭", "relatable"),
        ("Tell me you're a Gen Z without telling me you're a Gen Z", "relatable"),
        ("sunset at the lake 🌅", "statement"),
    ],
)
def test_real_shaped_hooks_are_typed(hook: str, expected: str) -> None:
    assert classify(hook) == expected, hooks.explain(hook)


def test_explain_names_the_cue() -> None:
    assert hooks.explain("POV: you moved to Berlin") == ("pov_setup", "POV")
    assert hooks.explain("sunset at the lake") == ("statement", None)


def test_a_keyword_inside_the_hook_is_not_a_frame() -> None:
    # "pov" as a topic word, not the POV: frame at the start
    assert classify("Nobody talks about this pov trick") == "secret_reveal"


class TestExtract:
    def test_transcript_first_sentence_without_fillers(self) -> None:
        found = extract_hook(
            transcript="Um, so, hey guys! Today I'm gonna show you my skincare routine. First, cleanser.",
            caption="GRWM ✨ #skincare",
        )
        assert found == Hook(text="Today I'm gonna show you my skincare routine", source="transcript")

    def test_an_ellipsis_stays_in_the_line(self) -> None:
        found = extract_hook(transcript="honestly, wait for the end... pace. trust me.")
        assert found == Hook(text="wait for the end... pace", source="transcript")

    def test_a_question_keeps_its_mark(self) -> None:
        found = extract_hook(transcript="okay so, why is no one talking about pace?. honestly.")
        assert found is not None and found.text == "why is no one talking about pace?"

    def test_caption_first_line_with_words(self) -> None:
        found = extract_hook(caption="✨✨✨\n\nmy morning routine 🌅\n\n#grwm #morningroutine")
        assert found == Hook(text="my morning routine 🌅", source="caption")

    def test_caption_without_tags_mentions_and_links(self) -> None:
        found = extract_hook(caption="@friend look at this 😂 https://t.co/x #fyp")
        assert found == Hook(text="look at this 😂", source="caption")

    def test_no_words_no_hook(self) -> None:
        assert extract_hook(transcript="", caption="#fyp #viral\n🔥🔥") is None
        assert extract_hook() is None

    def test_title_when_no_caption(self) -> None:
        assert extract_hook(caption=None, title="Best ramen in Tokyo") == Hook(
            text="Best ramen in Tokyo", source="caption"
        )

    def test_a_long_opening_is_clipped(self) -> None:
        found = extract_hook(caption=" ".join(["word"] * 60))
        assert found is not None and len(found.text.split()) == hooks.MAX_HOOK_WORDS


def test_normalize_ignores_punctuation_emoji_case_and_line_breaks() -> None:
    assert (
        normalize("  Why is NO one\ntalking about creatine?? 🤔 ") == "why is no one talking about creatine"
    )
    assert normalize("3 creatine mistakes, everyone makes!!!") == "3 creatine mistakes everyone makes"
    assert normalize("🔥🔥") == ""


class TestVisual:
    def test_platform_flags_are_facts(self) -> None:
        assert visual_type("anything", is_duet=True) == "duet_split_screen"
        assert visual_type("anything", is_stitch=True) == "stitch_reply"

    @pytest.mark.parametrize(
        ("caption", "tags", "expected"),
        [
            ("my morning routine", ("grwm",), "person_speaking_to_camera"),
            ("this news is wild #greenscreen", (), "green_screen"),
            ("my room before and after 😍", (), "before_after"),
            ("smash burgers", ("recipe", "foodtok"), "demonstration"),
            ("unboxing the new console", (), "product_showcase"),
            ("read the caption 👇 it matters", (), "text_hook"),
        ],
    )
    def test_inferred_only_from_cues_in_the_data(
        self, caption: str, tags: tuple[str, ...], expected: str
    ) -> None:
        assert visual_type(caption, tags) == expected

    def test_unknown_without_evidence(self) -> None:
        assert visual_type("Why is no one talking about creatine?? 🤔", ("fitness",)) is None
        assert visual_type(None) is None


def test_categories_from_tags_and_words() -> None:
    assert categorize("my leg day", ("GymTok", "workout")) == "fitness"
    assert categorize("easy pasta for dinner #recipe") == "food"
    assert categorize("sunset vibes", ("fyp",)) is None
    assert set(hooks.CATEGORIES) >= {"fitness", "food", "beauty", "tech"}


def test_a_spoken_lead_in_set_off_by_a_comma_is_not_the_hook() -> None:
    found = extract_hook(transcript="trust me, pov: you finally figured out sourdough. honestly.")
    assert found is not None and classify(found.text) == "pov_setup"
    found = extract_hook(transcript="let me show you how to fold a fitted sheet")
    assert found is not None and classify(found.text) == "tutorial_promise"
