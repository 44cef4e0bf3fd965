"""Audience inference from commenters (analysis/audience.py; spec §6.3 audience.snapshot.completed)."""

from __future__ import annotations

from reelscope.analysis.audience import Commenter, confidence, distinct, infer, level


def people(count: int, **fields: str) -> list[Commenter]:
    return [Commenter(handle=f"fan_{i}", **fields) for i in range(count)]


class TestInfer:
    def test_shares_count_each_commenter_once(self) -> None:
        crowd = [
            *people(3, country="us", age_bracket="18-24", gender="female", language="en"),
            Commenter(handle="FAN_0", country="br"),  # the same person again
            Commenter(handle="other", country="br", age_bracket="25-34", gender="male", language="en"),
        ]
        audience = infer(crowd, comments_read=5)
        assert audience.sample_size == 4 and audience.data_source == "comments"
        assert audience.country == {"US": 0.75, "BR": 0.25}
        assert audience.age == {"18-24": 0.75, "25-34": 0.25}
        assert audience.gender == {"female": 0.75, "male": 0.25}
        # the locale's language, not the language of one comment
        assert audience.language == {"en": 0.75, "pt": 0.25}
        assert audience.signal_breakdown == {"comments": 5, "followers": 0}

    def test_unknown_countries_fall_back_to_the_comment_language(self) -> None:
        audience = infer([Commenter(handle="a", country="zz", language="EU"), Commenter(handle="b")])
        assert audience.language == {"eu": 1.0}
        assert audience.confidence_per_signal["language"] == confidence(1)

    def test_confidence_grows_with_the_sample(self) -> None:
        assert confidence(0) == 0.0 and confidence(100) == 0.5 and confidence(300) == 0.75
        small = infer(people(20, country="us", age_bracket="18-24", gender="male"))
        assert small.confidence_level == "low"
        medium = infer(people(150, country="us", age_bracket="18-24", gender="male"))
        assert medium.confidence_level == "medium"
        large = infer(people(400, country="us", age_bracket="18-24", gender="male"))
        assert large.confidence_level == "high"
        # no city is known: its confidence is 0 and it does not lower the level
        assert large.confidence_per_signal["city"] == 0.0 and large.city == {}

    def test_no_commenter_is_profile_only(self) -> None:
        audience = infer([])
        assert audience.data_source == "profile_only" and audience.confidence_level == "low"
        assert set(audience.confidence_per_signal.values()) == {0.0}

    def test_level_is_the_weakest_signal(self) -> None:
        assert level({"age": 0.9, "gender": 0.9, "country": 0.9, "language": 0.4, "city": 0}) == "low"

    def test_distinct_keeps_the_first(self) -> None:
        assert distinct([Commenter("a", country="us"), Commenter("A", country="fr")]) == [
            Commenter("a", country="us")
        ]
