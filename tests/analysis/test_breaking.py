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


class TestRealHeadlines:
    """Real news names one event in different words; the scan groups articles by the words they share."""

    def test_headline_terms_keep_the_words_that_can_name_a_story(self) -> None:
        assert breaking.headline_terms("Flour prices jump ahead of winter - The Grocer") == (
            "flour",
            "prices",
            "jump",
            "ahead",
            "winter",
        )
        assert breaking.headline_terms("Why the 2026 levain shortage matters, says report") == (
            "levain",
            "shortage",
            "matters",
        )

    def test_one_event_in_other_words_is_one_story_confirmed_by_two_domains(self) -> None:
        def headline(domain: str, title: str, minutes: int) -> breaking.Article:
            terms = ("sourdough", *breaking.headline_terms(title))
            return breaking.Article(
                title, f"https://{domain}/{minutes}", domain, NOW + timedelta(minutes=minutes), None, terms
            )

        found = breaking.news_stories(
            [
                headline("grocer.example", "Flour shortage hits UK bakeries", 0),
                headline("bbc.example", "UK bakeries warn of flour shortage before Christmas", 30),
                headline("daily.example", "Celebrity chef opens sourdough school", 45),
            ],
            ["sourdough"],
        )
        shortage, school = found
        assert shortage.strong and shortage.salience == 7.0
        assert shortage.title == "Flour shortage hits UK bakeries"
        assert shortage.keywords == ("flour", "shortage", "bakeries")  # the words both articles use
        assert not school.strong and school.salience == 4.0
        # the story keeps its name when a later scan sees more articles: its first article's words
        again = breaking.news_stories(
            [headline("grocer.example", "Flour shortage hits UK bakeries", 0)], ["sourdough"]
        )
        assert again[0].topic == shortage.topic
