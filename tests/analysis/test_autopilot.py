"""The autopilot's decisions (spec §4.4 "Autopilot rules", §8.3 "up to 15 in all"; ADR 0032): plain
data in, changes out. The rules hold for any input (hypothesis); the scenarios show what it decides."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from reelscope.agent.service import run_price
from reelscope.analysis import autopilot as decide

TERMS = [
    "bread",
    "sourdough",
    "baking",
    "crumb",
    "starter",
    "levain",
    "fyp",
    "rye",
    "Bread Art",
    "oven",
    "flour",
]
term = st.sampled_from(TERMS) | st.text(alphabet="abcdefghij #", min_size=1, max_size=8)


@st.composite
def configs(draw: st.DrawFn) -> decide.Config:
    pinned = draw(st.lists(term, min_size=1, max_size=decide.MAX_KEYWORDS, unique_by=decide.key))
    room = decide.MAX_KEYWORDS - len(pinned)
    extra = draw(st.lists(term, max_size=room, unique_by=decide.key))
    keywords = list({decide.key(k): k for k in [*pinned, *extra] if decide.key(k)}.values())
    keywords = keywords[: decide.MAX_KEYWORDS]
    timely = [k for k in extra if k in keywords and draw(st.booleans())]
    return decide.Config(
        keywords=tuple(keywords),
        pinned_keywords=tuple(pinned),
        exclude_keywords=tuple(draw(st.lists(term, max_size=4))),
        time_range_days=draw(st.sampled_from(decide.TIME_RANGES)),
        timely_keywords=tuple(timely),
    )


videos = st.lists(
    st.builds(
        decide.RunVideo,
        views=st.integers(0, 10**7),
        hashtags=st.lists(term, max_size=6).map(tuple),
    ),
    max_size=60,
).map(tuple)
facts = st.builds(
    decide.RunFacts, videos=videos, found_by_keyword=st.dictionaries(term, st.integers(0, 50), max_size=8)
)
rejected = st.lists(term, max_size=4)


def _check(before: decide.Config, after: decide.Config) -> None:
    keys = {decide.key(k) for k in after.keywords}
    # §4.4: never removes a user-set keyword or exclude term
    assert {
        decide.key(k)
        for k in before.pinned_keywords
        if decide.key(k) in {decide.key(b) for b in before.keywords}
    } <= keys
    assert after.exclude_keywords == before.exclude_keywords
    assert after.pinned_keywords == before.pinned_keywords
    # §8.3: up to 15 in all
    assert len(after.keywords) <= decide.MAX_KEYWORDS
    assert len(keys) == len(after.keywords)  # no keyword twice
    assert after.time_range_days in decide.TIME_RANGES


def _price(data_intelligence: bool) -> int:
    return run_price(SimpleNamespace(data_intelligence_enabled=data_intelligence))  # type: ignore[arg-type]


class TestRules:
    @settings(max_examples=300, deadline=None)
    @given(config=configs(), found=facts, told_not=rejected)
    def test_after_a_run(self, config: decide.Config, found: decide.RunFacts, told_not: list[str]) -> None:
        changes = decide.after_run(config, found, rejected=told_not)
        state = config
        for change in changes:
            # no change starts a run or touches what prices one: only these kinds exist
            assert change.kind in ("add_keywords", "reword_keyword", "widen_collection")
            after = decide.apply(state, change)
            _check(state, after)
            # nothing it adds was rejected, excluded, generic or already there
            for added in change.add:
                assert decide.key(added) not in {decide.key(r) for r in told_not}
                assert decide.key(added) not in decide.GENERIC_TAGS
                assert not any(
                    decide.key(e) and decide.key(e) in decide.key(added) for e in config.exclude_keywords
                )
            state = after
        assert sum(len(c.add) for c in changes) <= decide.ADDS_PER_RUN

    @settings(max_examples=300, deadline=None)
    @given(config=configs(), keywords=st.lists(term, max_size=6), told_not=rejected)
    def test_for_a_breaking_story_and_its_end(
        self, config: decide.Config, keywords: list[str], told_not: list[str]
    ) -> None:
        change = decide.for_event(config, keywords, title="story", rejected=told_not)
        after = config if change is None else decide.apply(config, change)
        _check(config, after)
        added = [k for k in after.keywords if decide.key(k) not in {decide.key(b) for b in config.keywords}]
        assert {decide.key(k) for k in added} <= {decide.key(t) for t in after.timely_keywords}
        ending = decide.expiring(after, added)
        final = after if ending is None else decide.apply(after, ending)
        _check(after, final)
        assert [decide.key(k) for k in final.keywords] == [decide.key(k) for k in config.keywords]

    @settings(max_examples=200, deadline=None)
    @given(config=configs(), found=facts, data_intelligence=st.booleans())
    def test_the_price_per_run_never_moves(
        self, config: decide.Config, found: decide.RunFacts, data_intelligence: bool
    ) -> None:
        """§4.4 "never raises the price per run": the price depends only on settings no change holds."""
        price = _price(data_intelligence)
        for change in decide.after_run(config, found):
            assert set(vars(change)) == {
                "kind",
                "add",
                "remove",
                "time_range_from",
                "time_range_to",
                "reason",
                "evidence",
            }
        assert _price(data_intelligence) == price

    @settings(max_examples=200, deadline=None)
    @given(config=configs(), found=facts)
    def test_a_revert_restores_the_keywords(self, config: decide.Config, found: decide.RunFacts) -> None:
        state = config
        for change in decide.after_run(config, found):
            after = decide.apply(state, change)
            back = decide.apply(after, decide.undo(change))
            assert sorted(decide.key(k) for k in back.keywords) == sorted(
                decide.key(k) for k in state.keywords
            )
            assert back.time_range_days == state.time_range_days
            state = after


def video(views: int, *tags: str) -> decide.RunVideo:
    return decide.RunVideo(views=views, hashtags=tags)


BASE = decide.Config(keywords=("sourdough",), pinned_keywords=("sourdough",), exclude_keywords=("gluten",))


def facts_of(*found: decide.RunVideo, **by_keyword: int) -> decide.RunFacts:
    return decide.RunFacts(videos=found, found_by_keyword=by_keyword or {"sourdough": len(found)})


class TestDecisions:
    def test_adds_the_terms_of_the_best_videos(self) -> None:
        run = facts_of(
            *[video(1000 - i, "#sourdough", "#levain", "#fyp") for i in range(20)],
            *[video(500, "#crumbshot") for _ in range(5)],
            *[video(10, "#glutenfree", "#rye") for _ in range(10)],
        )
        (change,) = decide.after_run(BASE, run)
        assert change.kind == "add_keywords"
        # levain on 20 of the best 30; crumbshot on 5; fyp is generic; glutenfree holds an exclude term
        assert change.add == ("levain", "crumbshot")
        assert "20 of the run's 30 most-viewed videos" in change.reason

    def test_never_past_fifteen(self) -> None:
        full = decide.Config(
            keywords=tuple(f"k{i}" for i in range(15)), pinned_keywords=("k0",), exclude_keywords=()
        )
        run = facts_of(*[video(100, "#levain") for _ in range(30)], **{f"k{i}": 5 for i in range(15)})
        assert decide.after_run(full, run) == []

    def test_rewords_only_its_own_keyword_that_found_nothing(self) -> None:
        config = decide.Config(
            keywords=("sourdough", "breadtok", "crust"),
            pinned_keywords=("sourdough", "crust"),
            exclude_keywords=(),
        )
        run = facts_of(*[video(100, "#levain") for _ in range(25)], sourdough=20, breadtok=0, crust=0)
        reword, *_ = decide.after_run(config, run)
        assert (
            reword.kind == "reword_keyword" and reword.remove == ("breadtok",) and reword.add == ("levain",)
        )
        after = decide.apply(config, reword)
        assert after.keywords == ("sourdough", "crust", "levain")  # crust found nothing but is the user's

    def test_a_thin_run_widens_the_window_step_by_step(self) -> None:
        thin = facts_of(video(10, "#sourdough"))
        (change,) = decide.after_run(BASE, thin)
        assert (change.kind, change.time_range_from, change.time_range_to) == ("widen_collection", 30, 60)
        wider = decide.apply(BASE, change)
        assert decide.after_run(wider, thin)[0].time_range_to == 90
        widest = decide.apply(wider, decide.after_run(wider, thin)[0])
        assert decide.after_run(widest, thin) == []

    def test_rejected_terms_are_not_offered_again(self) -> None:
        run = facts_of(*[video(100, "#levain", "#crumb") for _ in range(25)])
        (change,) = decide.after_run(BASE, run, rejected=["#Levain"])
        assert change.add == ("crumb",)

    def test_timely_keywords_fit_the_room_and_leave_unless_pinned(self) -> None:
        config = decide.Config(
            keywords=tuple(f"k{i}" for i in range(14)), pinned_keywords=("k0",), exclude_keywords=("rye",)
        )
        change = decide.for_event(config, ["k1", "ryebread", "levain", "crumb"], title="t")
        assert change is not None and change.add == ("levain",)
        after = decide.apply(config, change)
        assert len(after.keywords) == 15 and after.timely_keywords == ("levain",)
        pinned_since = decide.Config(
            keywords=after.keywords,
            pinned_keywords=after.keywords,
            exclude_keywords=(),
            timely_keywords=("levain",),
        )
        assert decide.expiring(pinned_since, ["levain"]) is None

    def test_evidence_is_data(self) -> None:
        run = facts_of(*[video(100 + i, "#levain") for i in range(25)])
        (change,) = decide.after_run(BASE, run)
        terms: Any = change.evidence["terms"]
        assert terms == [{"term": "levain", "videos": 25, "views": sum(100 + i for i in range(25))}]
