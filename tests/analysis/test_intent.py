"""Intent matching (spec §2.6 ``intent_match {matches, reasoning}``, issue 16) on plain, real-shaped posts:
the intent's topic terms, where each is found, the verdict and a reasoning that names only what is there."""

from __future__ import annotations

from reelscope.analysis.intent import IntentItem, evidence, intent_terms, match_all, segment, stem

INTENT = "Find hooks that sell a morning skincare routine"


def item(caption: str, transcript: str | None = None, tags: str = "", **intel: object) -> IntentItem:
    return IntentItem(caption, transcript, tags.split(), intel or None)


class TestTerms:
    def test_request_words_and_stopwords_are_not_topic_terms(self) -> None:
        assert intent_terms(INTENT) == {"morn": "morning", "skincar": "skincare", "routin": "routine"}
        assert intent_terms("Show me viral videos and creators") == {}
        assert intent_terms(None) == {}

    def test_inflections_meet(self) -> None:
        assert stem("routines") == stem("routine")
        assert stem("automated") == stem("automate") == stem("automates")
        assert stem("running") == stem("run")
        assert stem("recipes") == stem("recipe")
        assert stem("stories") == stem("story")


class TestEvidence:
    def test_each_place_is_named(self) -> None:
        terms = intent_terms(INTENT)
        found = evidence(
            terms,
            item(
                "my AM routine before work",
                "good morning, cleanser first",
                "SkincareRoutine fyp",
                primary_topic="skincareroutine",
            ),
        )
        assert found == {
            "morn": ["transcript"],
            "skincar": ["hashtags"],  # inside the compound tag; the DI topic is that same tag, unsplit
            "routin": ["caption", "hashtags"],
        }

    def test_a_short_term_matches_a_tag_only_at_its_start(self) -> None:
        terms = intent_terms("ai tools")
        assert "ai" in evidence(terms, item("", tags="AItools"))
        assert "ai" not in evidence(terms, item("", tags="haircare"))

    def test_slideshow_panels_are_panel_text(self) -> None:
        slides = IntentItem("", "Morning skincare in 3 steps", [], None, slideshow=True)
        assert evidence(intent_terms(INTENT), slides) == {"morn": ["panel text"], "skincar": ["panel text"]}

    def test_hashtags_written_in_the_caption_count_without_a_hashtag_list(self) -> None:
        """Real posts often carry their tags only in the caption (§2.1: no tags may be [] or null); the
        words of a caption leave its #tags out, so the reasoning said skincare was nowhere."""
        found = evidence(intent_terms(INTENT), item("love this one #SkincareRoutine #fyp"))
        assert found == {"skincar": ["hashtags"], "routin": ["hashtags"]}
        (judged,) = match_all("skincare", [item("my favourite serum #skincare")])
        assert judged is not None and judged.matches and "'skincare' in hashtags" in judged.reasoning

    def test_the_data_intelligence_topic_counts(self) -> None:
        found = evidence(intent_terms(INTENT), item("glow", keywords=["skincare", "serum"]))
        assert found == {"skincar": ["topic"]}


class TestMatch:
    def test_verdicts_and_reasoning_over_one_agents_items(self) -> None:
        items = [
            item("my 5 min AM skincare routine ☀️", "everything i put on in the morning", "skincareroutine"),
            item("rating viral skincare products", None, "skincare"),
            item("full face of drugstore makeup", "let's start with primer", "makeup"),
            item("skincare routine for glass skin", None, "skincare nightroutine"),
        ]
        full, only_keyword, nothing, two_of_three = match_all(INTENT, items)
        assert full and full.matches and full.score == 1.0
        assert full.reasoning.startswith("Matches the intent (100% of its terms' weight): 'morning' in")
        assert only_keyword and not only_keyword.matches  # one term of three: too little
        assert "not found: morning, routine" in only_keyword.reasoning
        assert nothing and not nothing.matches and nothing.score == 0
        assert nothing.reasoning == (
            "None of the intent's terms (morning, skincare, routine) appears in the caption, transcript, "
            "hashtags or topic."
        )
        assert two_of_three and two_of_three.matches
        assert two_of_three.as_object() == {"matches": True, "reasoning": two_of_three.reasoning}

    def test_a_term_every_item_shares_weighs_less(self) -> None:
        # "skincare" is on all four items, "morning" on one: showing only the rarer term scores higher
        items = [
            item("skincare haul"),
            item("skincare empties"),
            item("skincare fails"),
            item("morning coffee"),
        ]
        scores = [found.score for found in match_all("morning skincare", items) if found]
        assert scores[3] > scores[0] > 0
        assert not any(found and found.matches for found in match_all("morning skincare", items))

    def test_without_topic_terms_nothing_is_judged(self) -> None:
        assert match_all("find viral videos", [item("anything")]) == [None]
        assert match_all("sourdough", []) == []

    def test_a_one_term_intent_needs_that_term(self) -> None:
        found = match_all("sourdough", [item("my sourdough starter"), item("banana bread")])
        assert [f.matches for f in found if f] == [True, False]


class TestCompoundTags:
    def test_a_tag_splits_into_the_fewest_known_words(self) -> None:
        vocabulary = {"skincare", "skin", "care", "routine", "hair"}
        assert segment("skincareroutine", vocabulary) == [("skincare", True), ("routine", True)]
        # what no known word covers stays one unknown part
        assert segment("skincaregoals", vocabulary) == [("skincare", True), ("goals", False)]
        assert segment("xyz", vocabulary) == [("xyz", False)]

    def test_a_tag_too_long_to_be_real_stays_whole(self) -> None:
        """Splitting costs the cube of a tag's length: a caption's '#' before 3,000 letters (spam, or a
        pasted block) must not hold the analysis job or a PUT for minutes. Such a tag is searched whole."""
        tag = "skincare" + "x" * 3000
        assert segment(tag, {"skincare", "xxx"}) == [(tag, False)]
        (judged,) = match_all("skincare routine", [item(f"#{tag} morning routine")])
        assert judged is not None and judged.found == {"skincar": ["hashtags"], "routin": ["caption"]}

    def test_a_term_inside_another_word_of_a_tag_is_not_shown(self) -> None:
        items = [
            item("moisturizer first", None, "SkincareRoutine"),
            item("my skincare routine"),
            item("hair care routine for curls", None, "HairCare"),
        ]
        skin, _, hair = match_all("Curly hair care routines", items)
        assert skin and not skin.matches and "'care'" not in skin.reasoning
        assert hair and hair.matches and "'care' in caption and hashtags" in hair.reasoning
