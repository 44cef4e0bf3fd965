"""The trend detector's statistical model on small real-shaped feeds (issue 32 items 1 and 3, ADR 0051):
~150 newly trending videos a day with titles drawn from a Zipf vocabulary, as a national trending page
looks, and a week of history before the run."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from reelscope.analysis.trends import DetectionParams, Post, detect

NOW = datetime(2026, 11, 21, 13, 0, tzinfo=UTC)
PER_DAY = 150
DAYS = 8
# the words of everyday titles: music videos, vlogs, sport, cooking, gaming; drawn Zipf-like
VOCABULARY = [
    f"{stem}{suffix}"
    for stem in (
        "music", "vlog", "recipe", "gaming", "highlights", "prank", "review", "unboxing", "makeup",
        "workout", "travel", "comedy", "dance", "tutorial", "podcast", "interview", "reaction",
        "challenge", "episode", "cover", "remix", "lyrics", "trailer", "teaser", "live",
    )
    for suffix in ("", "er", "ing", "ville", "ful", "ism", "ster", "ify", "zone", "land")
]  # fmt: skip


def feed(seed: int, *, days: int = DAYS, per_day: int = PER_DAY) -> list[Post]:
    """A trending feed with no story in it: each title four Zipf-drawn words, each channel posting a
    few videos; hundreds of rare words reach 2–4 uses on some day by chance."""
    rng = random.Random(seed)
    weights = [1 / (rank + 1) ** 1.05 for rank in range(len(VOCABULARY))]
    posts = []
    for i in range(days * per_day):
        words = rng.choices(VOCABULARY, weights, k=4)
        posts.append(
            Post(
                video_id=f"f{seed}-{i}",
                platform="youtube",
                posted_at=NOW - timedelta(hours=(i + 0.5) * 24 / per_day),
                views=rng.randrange(10_000, 2_000_000),
                caption=" ".join(words).title() + "\nfollow for more, like and subscribe",
                creator_id=f"channel{rng.randrange(400)}",
            )
        )
    return posts


def story(titles: list[str], *, hours: float = 20, first: int = 0) -> list[Post]:
    """A story's videos over the last ``hours``, each from its own channel."""
    return [
        Post(
            video_id=f"story-{first + i}",
            platform="youtube",
            posted_at=NOW - timedelta(hours=hours * (i + 0.5) / len(titles)),
            views=500_000,
            caption=title + "\nFollow for more! Save this video",
            creator_id=f"news{first + i}",
        )
        for i, title in enumerate(titles)
    ]


class TestTheModel:
    @pytest.mark.parametrize("seed", [1, 2, 3])
    def test_a_feed_of_zipf_tail_words_gives_no_trend(self, seed: int) -> None:
        # some 250 words tested per run, many of them at 2-4 uses a day: chance, not stories
        assert detect(feed(seed), NOW) == []

    def test_a_feature_at_its_baseline_rate_is_not_reported(self) -> None:
        # a channel-independent daily show: 6 videos every day of the week, 6 today
        show = [
            Post(
                video_id=f"show-{d}-{i}",
                platform="youtube",
                posted_at=NOW - timedelta(hours=d * 24 + 2 + i * 3),
                views=300_000,
                caption=f"Late Night Laughs monologue {d}",
                creator_id=f"late{i}",
            )
            for d in range(DAYS)
            for i in range(6)
        ]
        assert detect([*feed(4), *show], NOW) == []

    def test_a_genuine_burst_is_reported_with_what_was_counted(self) -> None:
        titles = [
            "Hurricane Ophelia makes landfall in Florida",
            "Hurricane Ophelia: live coverage",
            "What Hurricane Ophelia left behind",
            "Hurricane Ophelia storm surge caught on camera",
            "Hurricane Ophelia evacuations begin",
            "Inside the eye of Hurricane Ophelia",
        ]
        [trend] = detect([*feed(5), *story(titles)], NOW)
        assert trend.name == "Hurricane Ophelia"
        assert trend.count_recent == 6
        # the description says how many videos, against what baseline, since when
        assert trend.description.startswith(
            "6 videos on Hurricane Ophelia in the last 24 hours, the first at "
        )
        assert "expected at its usual rate (0 of the " in trend.description

    def test_two_phrasings_of_one_story_merge(self) -> None:
        # some titles say "Meghan Markle", some "Prince Harry", some both: one story
        titles = [
            "Meghan Markle and Prince Harry are engaged",
            "Prince Harry to marry Meghan Markle",
            "Prince Harry and Meghan Markle: the ring",
            "Meghan Markle, Prince Harry: the interview",
            "Meghan Markle engagement interview",
            "Who is Meghan Markle",
            "Prince Harry engagement announced",
            "Kensington Palace: Prince Harry will marry in spring",
        ]
        trends = [
            t for t in detect([*feed(6), *story(titles)], NOW) if any("story" in v for v in t.exemplar_ids)
        ]
        assert len(trends) == 1  # one trend holds the story's videos, whichever words they use
        keys = trends[0].feature_keys
        assert {"phrase:meghan markle", "phrase:prince harry"} <= keys
        assert trends[0].count_recent == 8
        assert trends[0].name in {"Prince Harry", "Meghan Markle"}

    def test_names_are_never_stop_words_or_calls_to_action(self) -> None:
        # every video of the story asks to follow and save; the story's own words name it
        titles = [f"The Grand Budapest reunion part {i}" for i in range(6)]
        [trend] = [t for t in detect([*feed(7), *story(titles)], NOW) if "story-0" in t.exemplar_ids]
        assert trend.name == "Grand Budapest"
        for word in ("follow", "save", "part", "the"):
            assert word not in trend.name.casefold().split()

    def test_a_lone_format_word_can_name_a_trend_when_it_is_the_shared_thing(self) -> None:
        titles = ["Official Trailer", "Trailer", "Trailer reaction", "The trailer!", "trailer (HD)"]
        trends = detect([*feed(8, per_day=60), *story(titles)], NOW, DetectionParams())
        assert [t.name for t in trends] == ["Trailer"]
