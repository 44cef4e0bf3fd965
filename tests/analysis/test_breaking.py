"""Breaking-story detection (spec §4.4 /events, §6.3; ADR 0032): plain articles and counts in."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from reelscope.analysis import breaking

NOW = datetime(2026, 11, 21, 12, tzinfo=UTC)


def article(domain: str, *keywords: str) -> breaking.Article:
    return breaking.Article("t", f"https://{domain}/a", domain, NOW, None, keywords)


class TestNews:
    def test_coverage_of_the_agents_own_keywords_is_no_story(self) -> None:
        assert breaking.news_stories([article("a.example", "Sourdough")], ["sourdough"]) == []

    def test_new_terms_group_articles_and_two_domains_confirm(self) -> None:
        found = breaking.news_stories(
            [article("a.example", "sourdough", "levain"), article("b.example", "levain", "sourdough")],
            ["sourdough"],
        )
        (story,) = found
        assert story.topic == "levain" and story.strong and story.salience == 7.0
        (single,) = breaking.news_stories([article("a.example", "levain")], ["sourdough"])
        assert not single.strong and single.salience == 4.0


class TestBursts:
    def test_a_term_over_its_baseline_bursts_and_generic_tags_never_do(self) -> None:
        steady = breaking.TermActivity("bread", recent=10, baseline=70)
        sudden = breaking.TermActivity("levain", recent=12, baseline=0)
        generic = breaking.TermActivity("fyp", recent=50, baseline=0)
        (story,) = breaking.bursts([steady, sudden, generic])
        assert story.topic == "levain" and story.strong and story.keywords == ("levain",)
        weak = breaking.TermActivity("crumb", recent=5, baseline=7)
        (candidate,) = breaking.bursts([weak])
        assert not candidate.strong and breaking.first_status(candidate) == "candidate"


class TestLifecycle:
    def advance(self, status: breaking.Status, source: breaking.Source, seen: bool, after: timedelta) -> str:
        return breaking.advance(
            status, source=source, seen=seen, strong=False, now=NOW + after, detected_at=NOW,
            expires_at=NOW + breaking.TTL,
        )  # fmt: skip

    def test_moves(self) -> None:
        hour = timedelta(hours=1)
        assert self.advance("candidate", "corpus_burst", True, timedelta(0)) == "candidate"  # same scan again
        assert self.advance("candidate", "corpus_burst", True, hour) == "confirmed"
        assert self.advance("candidate", "corpus_burst", False, hour) == "dismissed"
        assert self.advance("candidate", "news_scan", True, hour) == "candidate"
        assert self.advance("candidate", "news_scan", False, hour) == "candidate"
        assert self.advance("confirmed", "news_scan", False, breaking.TTL) == "expired"
        assert self.advance("dismissed", "corpus_burst", True, hour) == "dismissed"
