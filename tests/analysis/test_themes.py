"""Themes of a set of videos and the run report (issue 16, spec §6.3 themes) on small hand-written,
real-shaped captions: two topics make two themes, keys survive a reshuffled later run and a theme whose
terms shifted but whose videos stayed, every sentence is a number from the videos."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from reelscope.analysis.report import Baseline, baseline_of, build, trend_status
from reelscope.analysis.themes import (
    SAME_THEME_JACCARD,
    Doc,
    PastTheme,
    Theme,
    cluster,
    jaccard,
    key_of,
    match_keys,
    terms_of,
)

AT = datetime(2026, 11, 20, 18, 0, tzinfo=UTC)

BREAD = [
    ("Feed your starter the night before or the crumb stays tight", ("sourdough", "baking", "fyp")),
    ("My sourdough starter finally doubled, here is the open crumb", ("sourdough", "bread")),
    ("Bake covered for twenty minutes for that sourdough ear", ("sourdough", "baking")),
    ("Stop scrolling: the one sourdough shaping mistake everyone makes", ("sourdough", "bread", "viral")),
    ("Discard crackers from leftover sourdough starter", ("sourdough", "baking")),
]
RUNNING = [
    ("My easy pace is slower than you think, marathon block week 6", ("running", "marathon")),
    ("Long run Sunday: hydrate before mile five", ("running", "RunTok")),
    ("Marathon pace intervals that changed my running", ("running", "marathon", "fyp")),
    ("Nobody talks about cadence when running a marathon", ("running", "marathon")),
]


def doc(i: int, text: str, tags: tuple[str, ...], *, views: int = 10_000, hour: int = 18) -> Doc:
    return Doc(
        id=f"v{i}",
        text=text,
        hashtags=tags,
        sound_id=None,
        views=views,
        likes=views // 10,
        comments=views // 100,
        shares=None,
        published_at=AT.replace(hour=hour) - timedelta(days=i % 5),
        duration=20,
        platform="tiktok",
    )


def corpus(offset: int = 0) -> tuple[list[Doc], dict[str, str]]:
    docs, labels = [], {}
    for i, (text, tags) in enumerate(BREAD + RUNNING):
        d = doc(i + offset, text, tags, views=50_000 if i < len(BREAD) else 8_000)
        docs.append(d)
        labels[d.id] = "bread" if i < len(BREAD) else "running"
    return docs, labels


class TestTerms:
    def test_words_once_hashtags_weighted_generic_tags_dropped(self) -> None:
        terms = terms_of(doc(1, "Sourdough sourdough bread", ("Sourdough", "fyp")))
        assert terms.count("sourdough") == 1 and terms.count("bread") == 1
        assert terms.count("#sourdough") == 5 and "#fyp" not in terms

    def test_calls_to_action_are_no_terms_as_words_or_tags(self) -> None:
        text = "Follow for part 2! Comment below, like and share, link in bio, save this sourdough tip"
        terms = terms_of(doc(1, text, ("sourdough", "follow", "likes")))
        assert set(terms) == {"below", "sourdough", "tip", "#sourdough"}

    def test_a_video_without_words_or_tags_is_excluded_as_no_text(self) -> None:
        docs, _ = corpus()
        themes, excluded = cluster([*docs, doc(99, "🔥🔥", ())])
        assert excluded["v99"] == "no_text"
        assert sum(len(t.members) for t in themes) + len(excluded) == len(docs) + 1


class TestClustering:
    def test_two_topics_make_two_pure_themes(self) -> None:
        docs, labels = corpus()
        themes, excluded = cluster(docs)
        assert len(themes) == 2 and not excluded
        for theme in themes:
            assert len({labels[d.id] for d in theme.members}) == 1
        names = sorted(t.name for t in themes)
        assert names[0].startswith("#running") and names[1].startswith("#sourdough")

    def test_calls_to_action_in_every_caption_do_not_name_the_themes(self) -> None:
        docs, labels = corpus()
        cta = " Follow for part 2, comment, like and subscribe, link in bio, save and share"
        asking = [doc(int(d.id[1:]), d.text + cta, d.hashtags) for d in docs]
        themes, _ = cluster(asking)
        assert len(themes) == 2
        for theme in themes:
            assert len({labels[d.id] for d in theme.members}) == 1
            assert not set(theme.terms) & {"follow", "part", "comment", "subscribe", "link", "bio", "save"}
            assert theme.name.startswith(("#running · ", "#sourdough · "))
            assert not {"follow", "part", "comment", "subscribe", "link", "bio", "save", "share"} & set(
                theme.name.split(" · ")[1].split(", ")
            )

    def test_the_same_input_in_another_order_gives_the_same_themes(self) -> None:
        docs, _ = corpus()
        first, _ = cluster(docs)
        again, _ = cluster(list(reversed(docs)))
        assert [(t.stable_key, [d.id for d in t.members]) for t in first] == [
            (t.stable_key, [d.id for d in t.members]) for t in again
        ]

    def test_a_later_run_keeps_the_keys_of_the_same_themes(self) -> None:
        docs, _ = corpus()
        first, _ = cluster(docs)
        later_docs, _ = corpus(offset=100)
        later, _ = cluster(later_docs[1:])  # one video fewer, other ids
        for i, theme in enumerate(later):
            theme.stable_key = f"fresh{i}"  # forget the derived key: only the matching can restore it
        # other ids share no video: the terms carry the keys (as for themes stored without their videos)
        match_keys(later, [PastTheme(t.stable_key, t.terms) for t in first])
        assert sorted(t.stable_key for t in later) == sorted(t.stable_key for t in first)

    def test_an_unrelated_theme_gets_a_new_key(self) -> None:
        docs, _ = corpus()
        bread = [d for d in docs if "sourdough" in d.hashtags]
        running = [d for d in docs if "running" in d.hashtags]
        (bread_theme,), _ = cluster(bread)
        (running_theme,), _ = cluster(running)
        match_keys([running_theme], [past(bread_theme)])
        assert running_theme.stable_key != bread_theme.stable_key


def past(theme: Theme) -> PastTheme:
    return PastTheme(theme.stable_key, theme.terms, frozenset(d.id for d in theme.members))


# the videos an added keyword (#crumbtok) links in a later run
CRUMBTOK = [
    ("Crumb shot of the week, look at those holes", ("crumbtok", "crumbshot")),
    ("Rate this crumb from one to ten", ("crumbtok", "crumbshot")),
    ("Open crumb or tight crumb, which one wins", ("crumbtok", "crumbshot")),
    ("The crumb shot everyone asked for", ("crumbtok", "crumbshot")),
    ("Slicing into the crumb at midnight", ("crumbtok", "crumbshot")),
    ("Crumb check after a cold retard", ("crumbtok", "crumbshot")),
]
SHIFTED_TERMS = ["#crumbtok", "#crumbshot", "crumb", "shot", "#sourdough", "open", "slicing", "rate"]


class TestKeysAcrossRuns:
    """``match_keys`` against an earlier run's themes: shared videos first, then shared terms."""

    def test_a_theme_whose_terms_shifted_but_whose_videos_stayed_keeps_its_key(self) -> None:
        docs, _ = corpus()
        (bread,), _ = cluster(docs[: len(BREAD)])
        added = [doc(200 + i, text, tags) for i, (text, tags) in enumerate(CRUMBTOK)]
        # the same five videos and six an added keyword linked: the new ones lead the terms
        later = Theme("th_later", "#crumbtok", SHIFTED_TERMS, [*bread.members, *added], cohesion=0.5)
        assert jaccard(later.terms, bread.terms) < SAME_THEME_JACCARD  # the terms alone would not match
        match_keys([later], [past(bread)])
        assert later.stable_key == bread.stable_key

    def test_a_different_theme_with_other_videos_and_terms_does_not_take_the_key(self) -> None:
        docs, _ = corpus()
        (bread,), _ = cluster(docs[: len(BREAD)])
        (running,), _ = cluster(docs[len(BREAD) :])
        own = running.stable_key
        match_keys([running], [past(bread)])
        assert running.stable_key == own != bread.stable_key

    def test_the_theme_that_kept_most_videos_wins_over_one_with_the_old_terms(self) -> None:
        docs, _ = corpus()
        (bread,), _ = cluster(docs[: len(BREAD)])
        added = [doc(200 + i, text, tags) for i, (text, tags) in enumerate(CRUMBTOK)]
        kept = Theme("th_kept", "#crumbtok", SHIFTED_TERMS, [*bread.members[:3], *added[1:]], cohesion=0.5)
        # two of the earlier five videos under the earlier theme's very terms: a splinter
        splinter = Theme(
            "th_splinter", bread.name, list(bread.terms), [*bread.members[3:], added[0]], cohesion=0.5
        )
        match_keys([splinter, kept], [past(bread)])
        assert kept.stable_key == bread.stable_key
        assert splinter.stable_key == "th_splinter"

    def test_a_theme_whose_videos_mostly_stayed_keeps_its_key_over_one_with_its_old_terms(self) -> None:
        """The autopilot added a keyword: four of the five videos stay, six new ones lead the terms; a
        theme of other videos under the earlier theme's very terms does not take the key."""
        docs, _ = corpus()
        (bread,), _ = cluster(docs[: len(BREAD)])
        added = [doc(200 + i, text, tags) for i, (text, tags) in enumerate(CRUMBTOK)]
        stayed = Theme("th_stayed", "#crumbtok", SHIFTED_TERMS, [*bread.members[:4], *added], cohesion=0.5)
        others = [doc(300 + i, text, tags) for i, (text, tags) in enumerate(BREAD)]
        lookalike = Theme("th_lookalike", bread.name, list(bread.terms), others, cohesion=0.5)
        assert (
            jaccard(stayed.terms, bread.terms) < SAME_THEME_JACCARD <= jaccard(lookalike.terms, bread.terms)
        )
        match_keys([lookalike, stayed], [past(bread)])  # the look-alike first: larger, say
        assert stayed.stable_key == bread.stable_key
        assert lookalike.stable_key == "th_lookalike"


def _theme(key: str, terms: list[str], ids: range) -> Theme:
    return Theme(key, key, terms, [doc(i, "x", ()) for i in ids], cohesion=0.5)


class TestNoSharedKeys:
    """Two themes of one run never carry the same key, however the earlier themes overlap them."""

    def test_the_same_terms_twice_without_earlier_themes(self) -> None:
        terms = ["#sourdough", "starter", "crumb"]
        themes = [_theme(key_of(terms), terms, range(0, 5)), _theme(key_of(terms), terms, range(5, 9))]
        match_keys(themes, [])
        assert [t.stable_key for t in themes] == [key_of(terms), key_of(terms) + "_2"]

    def test_two_themes_with_an_earlier_themes_terms_and_no_stored_videos(self) -> None:
        terms = ["#sourdough", "starter", "crumb", "ear"]
        themes = [_theme("th_a", terms, range(0, 5)), _theme("th_b", terms, range(5, 9))]
        match_keys(themes, [PastTheme("th_old", terms)])
        assert [t.stable_key for t in themes] == ["th_old", "th_b"]

    def test_a_derived_key_another_theme_carried_by_videos(self) -> None:
        old_terms = ["#sourdough", "starter", "crumb"]
        carried = _theme("th_new", ["#crumbtok", "#crumbshot", "slice"], range(0, 6))
        # a theme of other videos whose own terms derive the earlier theme's key
        lookalike = _theme(key_of(old_terms), old_terms, range(10, 14))
        earlier = PastTheme(key_of(old_terms), old_terms, frozenset(f"v{i}" for i in range(0, 5)))
        match_keys([carried, lookalike], [earlier])
        assert carried.stable_key == key_of(old_terms)
        assert lookalike.stable_key == key_of(old_terms) + "_2"

    def test_random_runs_give_unique_keys_and_the_same_keys_again(self) -> None:
        # few words, so themes often derive one key, and earlier keys are often derived ones
        vocabulary = [f"w{i}" for i in range(6)]
        rng = random.Random(20261128)
        for _ in range(300):
            earlier = []
            for j in range(rng.randint(0, 5)):
                terms = rng.sample(vocabulary, 4)
                key = key_of(terms) if rng.random() < 0.5 else f"th_e{j}"
                members = frozenset(f"v{i}" for i in rng.sample(range(40), rng.randint(0, 8)))
                earlier.append(PastTheme(key, terms, members))
            ids = rng.sample(range(40), 30)
            sizes = [rng.randint(3, 6) for _ in range(rng.randint(1, 5))]
            specs, start = [], 0
            for size in sizes:
                terms = rng.sample(vocabulary, 4)
                specs.append((terms, ids[start : start + size]))
                start += size

            def run(
                specs: list[tuple[list[str], list[int]]] = specs, earlier: list[PastTheme] = earlier
            ) -> list[str]:
                themes = [
                    Theme(key_of(terms), "t", terms, [doc(i, "x", ()) for i in members], cohesion=0.5)
                    for terms, members in specs
                ]
                match_keys(themes, earlier)
                return [t.stable_key for t in themes]

            keys = run()
            assert len(set(keys)) == len(keys), (specs, earlier)
            assert run() == keys


class TestReport:
    def test_sections_are_read_from_the_videos(self) -> None:
        docs, _ = corpus()
        baseline = baseline_of(docs)
        report = build(docs, baseline, [], {})
        data = report.analysis_data
        bread = next(t for t in data["themes"] if t["name"].startswith("#sourdough"))
        # 50K median against the agent's median (8K for 4 running + 50K for 5 bread → 50K median)
        assert baseline.median_views == 50_000
        assert bread["why_it_works"].startswith(
            "5 videos with a median of 50K views, 1.0x the agent's median"
        )
        assert "uses #sourdough (5 of 5 videos)" in bread["tactics"]
        assert "posts 18:00-21:00 UTC (100% of videos)" in bread["tactics"]
        assert bread["video_count"] == 5 and len(bread["evidence_video_ids"]) == 5
        assert 0 < bread["confidence"] <= 1
        assert [v["video_id"] for v in data["top_10_breakdown"]["videos"]][:5] == [
            "v0",
            "v1",
            "v2",
            "v3",
            "v4",
        ]
        assert data["timing_analysis"]["best_hour_utc"] == 18
        assert data["excluded_videos"] == []
        assert report.statuses == {t["stable_key"]: "new" for t in data["themes"]}

    def test_no_baseline_says_nothing_about_lift(self) -> None:
        docs, _ = corpus()
        report = build(docs, Baseline(None, None, 0), [], {})
        assert all("agent's median" not in t["why_it_works"] for t in report.analysis_data["themes"])

    def test_status_against_the_previous_batch(self) -> None:
        assert trend_status(5, None) == "new"
        assert trend_status(10, 5) == "rising"
        assert trend_status(5, 5) == "steady"
        assert trend_status(4, 5) == "fading"
