"""HTTP tests of the hook family (spec §4.7, §8.2, §8.3; ADR 0021), on SQLite and PostgreSQL.

The catalog below (now = the test clock); ``coach`` has median views 1,000, so h1 is a 30x hit:

====  =========  =====  ======  ====  ==============================================================
name  platform   maker  views   days  caption (transcript)
====  =========  =====  ======  ====  ==============================================================
h1    tiktok     coach  30000   1     Why is no one talking about creatine?? 🤔 / #fitness #gym
h2    tiktok     coach  1200    2     3 creatine mistakes everyone makes 💪 #fitness
h3    tiktok     coach  1000    3     (okay so, nobody talks about this creatine trick. ...)
h4    tiktok     coach  1000    10    POV: you finally tried creatine... #skit
h5    tiktok     coach  500     20    Creatine mistakes. #fitness
h6    tiktok     coach  1000    40    mistakes I made with creatine
x2    tiktok     own    800     2     3 CREATINE mistakes, everyone makes!!! #fitness
e1    instagram  chef   5000    1     Deja de hacer pasta así 🍝 #recipe #foodtok (es)
e2    instagram  chef   5000    2     Probé pasta durante 30 días (es)
d1    tiktok     own    700     1     Duet this if you love creatine (a duet)
y1    youtube    own    900     1     #shorts #fyp (no words: no hook)
====  =========  =====  ======  ====  ==============================================================
"""

from __future__ import annotations

import asyncio
import math
import re
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from reelscope.analysis import hooks as analysis
from reelscope.catalog import hooks as catalog_hooks
from reelscope.catalog.service import catalog_id
from reelscope.collectors.base import CreatorRecord, VideoRecord
from reelscope.hook import repository as hook_repository
from reelscope.hook import service as hook_service
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from reelscope.runtime import Runtime
from tests.catalog_builders import ingest, video
from tests.conftest import TeamKey
from tests.kit.test_errors import assert_error

pytestmark = pytest.mark.both_databases

COACH = CreatorRecord(platform=Platform.TIKTOK, handle="coach")
CHEF = CreatorRecord(platform=Platform.INSTAGRAM, handle="chef")


@dataclass(frozen=True)
class Item:
    name: str
    days: float
    views: int
    caption: str
    platform: Platform = Platform.TIKTOK
    creator: CreatorRecord | None = None
    transcript: str | None = None
    language: str | None = "en"
    is_duet: bool | None = None


ITEMS = (
    Item("h1", 1, 30000, "Why is no one talking about creatine?? 🤔\n#fitness #gym", creator=COACH),
    Item("h2", 2, 1200, "3 creatine mistakes everyone makes 💪 #fitness", creator=COACH),
    Item(
        "h3",
        3,
        1000,
        "#fitness",
        creator=COACH,
        transcript="okay so, nobody talks about this creatine trick. you mix it. trust me.",
    ),
    Item("h4", 10, 1000, "POV: you finally tried creatine... #skit", creator=COACH),
    Item("h5", 20, 500, "Creatine mistakes. #fitness", creator=COACH),
    Item("h6", 40, 1000, "mistakes I made with creatine", creator=COACH),
    Item("x2", 2, 800, "3 CREATINE mistakes, everyone makes!!! #fitness"),
    Item(
        "e1", 1, 5000, "Deja de hacer pasta así 🍝 #recipe #foodtok", Platform.INSTAGRAM, CHEF, language="es"
    ),
    Item("e2", 2, 5000, "Probé pasta durante 30 días", Platform.INSTAGRAM, CHEF, language="es"),
    Item("d1", 1, 700, "Duet this if you love creatine", is_duet=True),
    Item("y1", 1, 900, "#shorts #fyp", Platform.YOUTUBE),
)


def record(item: Item, now: Any) -> VideoRecord:
    base = video(item.name, now - timedelta(days=item.days), platform=item.platform, views=item.views)
    return replace(
        base,
        description=item.caption,
        transcript=item.transcript,
        language=item.language,
        is_duet=item.is_duet,
        creator=item.creator or base.creator,
        fetched_at=min(base.published_at + timedelta(hours=1), now),
    )


def vid(name: str, platform: Platform = Platform.TIKTOK) -> str:
    for item in ITEMS:
        if item.name == name:
            platform = item.platform
    return catalog_id("video", platform.value, name)


@pytest.fixture
async def catalog(runtime: Runtime, clock: ManualClock) -> None:
    now = clock.now()
    await ingest(runtime, *(record(item, now) for item in ITEMS))
    await hook_service.refresh(runtime.db, now)


async def unbuild_lists(runtime: Runtime) -> None:
    """The hook lists gone and not marked built: a database from before them."""
    async with runtime.db.transaction() as session:
        for table in ("hook_library", "hook_type_stats", "hook_category_stats"):
            await session.execute(text(f"DELETE FROM {table}"))
        await session.execute(text("DELETE FROM read_versions WHERE name = 'hook.lists'"))


def assert_charged(response: httpx.Response, usd: str, credits: int) -> None:
    assert response.status_code == 200, response.text
    assert response.headers["X-Cost"] == usd
    assert response.headers["X-Credits-Used"] == str(credits)


def videos(response: httpx.Response) -> list[str]:
    return [item["video_id"] for item in response.json()["data"]]


def names(*found: str) -> list[str]:
    return [vid(name) for name in found]


async def get(client: httpx.AsyncClient, team: TeamKey, path: str, **params: Any) -> httpx.Response:
    return await client.get(f"/v1/hooks/{path}", params=params, headers=team.headers)


class TestTable:
    async def test_each_video_with_words_has_its_hook_typed_and_scored(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None
    ) -> None:
        response = await get(client, team, "trending", window=30, limit=100)
        by_video = {item["video_id"]: item for item in response.json()["data"]}
        assert set(by_video) == set(names("h1", "h2", "h3", "h4", "h5", "x2", "e1", "e2", "d1"))
        h1 = by_video[vid("h1")]
        assert h1["hook_text"] == "Why is no one talking about creatine?? 🤔"
        assert (h1["hook_type"], h1["source"], h1["category"], h1["language"]) == (
            "question",
            "caption",
            "fitness",
            "en",
        )
        assert h1["outlier_ratio"] == 30.0
        assert h1["weighted_score"] == round(math.log(30) * math.log(1000), 4)
        assert h1["visual_hook_type"] is None  # nothing in the data shows it
        assert h1["video_url"].endswith("/tiktok/h1") and re.fullmatch(
            r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", h1["publish_date"]
        )
        h3 = by_video[vid("h3")]
        assert (h3["hook_text"], h3["source"], h3["hook_type"]) == (
            "nobody talks about this creatine trick",
            "transcript",
            "secret_reveal",
        )
        assert by_video[vid("h2")]["hook_type"] == "listicle"
        assert by_video[vid("h4")]["hook_type"] == "pov_setup"
        assert by_video[vid("h4")]["visual_hook_type"] == "skit"
        assert by_video[vid("d1")]["visual_hook_type"] == "duet_split_screen"
        assert by_video[vid("e1")]["hook_type"] == "mistake_warning"
        assert by_video[vid("e1")]["visual_hook_type"] == "demonstration"
        assert by_video[vid("e2")]["hook_type"] == "experiment"
        # the same words, whatever the case, punctuation or emoji: one hook used twice
        assert by_video[vid("h2")]["usage_count"] == by_video[vid("x2")]["usage_count"] == 2
        assert by_video[vid("h1")]["usage_count"] == 1

    @pytest.mark.parametrize("batch", [None, 1], ids=["one_batch", "a_batch_per_video"])
    async def test_catalog_changes_refresh_hooks_scores_and_usage(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        catalog: None,
        runtime: Runtime,
        clock: ManualClock,
        monkeypatch: pytest.MonkeyPatch,
        batch: int | None,
    ) -> None:
        import reelscope.hook.tasks  # noqa: F401  (registers the refresh, as the worker does)

        if batch is not None:  # the refresh walks the catalog in id order, a write transaction a batch
            monkeypatch.setattr(hook_service, "BATCH", batch)

        now = clock.now()
        again = Item("h7", 1, 4000, "3 creatine mistakes everyone makes", creator=COACH)
        await ingest(runtime, record(again, now))
        await ingest(runtime, replace(record(ITEMS[0], now), views=90000, fetched_at=now))
        await catalog_hooks.changed(runtime.db, now)

        by_video = {
            item["video_id"]: item
            for item in (await get(client, team, "trending", window=30, limit=100)).json()["data"]
        }
        assert by_video[vid("h7")]["usage_count"] == by_video[vid("h2")]["usage_count"] == 3
        # coach's median is still 1,000; h1 now 90x
        assert by_video[vid("h1")]["views"] == 90000
        assert by_video[vid("h1")]["outlier_ratio"] == 90.0


class TestTypes:
    async def test_free_with_every_type_and_its_figures(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None
    ) -> None:
        response = await get(client, team, "types")
        assert_charged(response, "0.00", 0)
        body = response.json()
        assert [row["hook_type"] for row in body["data"]][:1] == ["question"]  # the one strong hit
        assert sorted(row["hook_type"] for row in body["data"]) == sorted(analysis.HOOK_TYPES)
        assert len(body["data"]) == 17 and len(body["visual_hook_types"]) == 12
        assert {"text_hook", "person_speaking_to_camera"} <= set(body["visual_hook_types"])
        question = body["data"][0]
        assert question["hook_count"] == 1 and question["strong_hit_rate"] == 1.0
        assert question["median_weighted_score"] == round(math.log(30) * math.log(1000), 4)
        listicle = next(row for row in body["data"] if row["hook_type"] == "listicle")
        # h2 at 1.2x coach's median; x2 alone on its creator has no norm (fewer than
        # outliers.MIN_NORM_VIDEOS videos), so it is unscored, not scored 0 against itself (issue 32 item 5)
        median = round(math.log(1.2) * math.log(1000), 4)
        assert (listicle["hook_count"], listicle["median_weighted_score"], listicle["strong_hit_rate"]) == (
            2,
            median,
            0.0,
        )
        comparison = next(row for row in body["data"] if row["hook_type"] == "comparison")
        assert comparison == {
            "hook_type": "comparison",
            "description": analysis.DESCRIPTIONS["comparison"],
            "hook_count": 0,
            "median_weighted_score": None,
            "strong_hit_rate": None,
        }
        assert body["data"][-1]["median_weighted_score"] is None  # unmeasured types last

    async def test_sort(self, client: httpx.AsyncClient, team: TeamKey, catalog: None) -> None:
        data = (await get(client, team, "types", sort="hook_count")).json()["data"]
        counts = [row["hook_count"] for row in data]
        assert counts == sorted(counts, reverse=True) and counts[0] == 3  # mistake_warning: e1 h5 h6
        rates = [
            row["strong_hit_rate"]
            for row in (await get(client, team, "types", sort="strong_hit_rate")).json()["data"]
        ]
        assert rates[0] == 1.0
        assert_error(await get(client, team, "types", sort="views"), 400, "validation_error")
        assert_error(await get(client, team, "types", limit=5), 400, "validation_error")


class TestCategories:
    async def test_free_vocabulary_with_counts(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None
    ) -> None:
        response = await get(client, team, "categories")
        assert_charged(response, "0.00", 0)
        data = response.json()["data"]
        assert [row["category"] for row in data][:2] == ["fitness", "food"]
        assert data[0]["hook_count"] == 5  # h1 h2 h3 h5 x2 carry #fitness; h4 is #skit (comedy)
        assert {row["category"] for row in data} == set(analysis.CATEGORIES)


class TestTrending:
    async def test_default_window_is_7_days_best_score_first(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None
    ) -> None:
        response = await get(client, team, "trending")
        assert_charged(response, "0.25", 25)
        found = videos(response)
        assert found[0] == vid("h1")
        assert set(found) == set(names("h1", "h2", "h3", "x2", "e1", "e2", "d1"))
        assert response.json()["pagination"] == {
            "page": 1,
            "limit": 20,
            "total": 7,
            "total_pages": 1,
            "has_next_page": False,
            "has_prev_page": False,
        }

    @pytest.mark.parametrize(("window", "count"), [(7, 7), (14, 8), (30, 9)])
    async def test_windows(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None, window: int, count: int
    ) -> None:
        response = await get(client, team, "trending", window=window)
        assert_charged(response, "0.25", 25)
        assert response.json()["pagination"]["total"] == count

    async def test_other_windows_are_400_free(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None
    ) -> None:
        for window in ("10", "0", "x"):
            assert_error(await get(client, team, "trending", window=window), 400, "validation_error")

    @pytest.mark.parametrize(
        ("params", "expected"),
        [
            ({"platform": "instagram"}, ["e1", "e2"]),
            ({"category": "food"}, ["e1", "e2"]),
            ({"hook_type": "question"}, ["h1"]),
            ({"visual_hook_type": "duet_split_screen"}, ["d1"]),
            ({"language": "es"}, ["e1", "e2"]),
            ({"min_views": 5000}, ["h1", "e1", "e2"]),
            ({"category": "fitness", "min_views": 900, "window": 30}, ["h1", "h2", "h3"]),
        ],
    )
    async def test_filters(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        catalog: None,
        params: dict[str, Any],
        expected: list[str],
    ) -> None:
        response = await get(client, team, "trending", **params)
        assert_charged(response, "0.25", 25)
        assert sorted(videos(response)) == sorted(names(*expected))

    async def test_unknown_category_is_400_listing_the_valid_ones(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None
    ) -> None:
        body = assert_error(await get(client, team, "trending", category="knitting"), 400, "validation_error")
        assert "fitness" in str(body["message"]) and "cars" in str(body["message"])

    async def test_unknown_types_platform_and_parameters_are_400(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None
    ) -> None:
        for params in (
            {"hook_type": "clickbait"},
            {"visual_hook_type": "drone"},
            {"platform": "myspace"},
            {"min_views": -1},
            {"offset": 20},
            {"page": 0},
        ):
            assert_error(await get(client, team, "trending", **params), 400, "validation_error")

    async def test_paging_and_limit(self, client: httpx.AsyncClient, team: TeamKey, catalog: None) -> None:
        first = await get(client, team, "trending", limit=3)
        second = await get(client, team, "trending", limit=3, page=3)
        assert len(videos(first)) == 3 and len(videos(second)) == 1
        assert second.json()["pagination"]["has_prev_page"] is True
        assert (await get(client, team, "trending", limit=500)).json()["pagination"]["limit"] == 100


class TestTop1000:
    async def test_a_page_beyond_the_top_1000_is_400_free(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None
    ) -> None:
        assert_charged(await get(client, team, "trending", page=10, limit=100), "0.25", 25)
        for path, extra in (("trending", {}), ("search", {"q": "creatine"})):
            for page, limit in ((11, 100), (51, 20)):
                response = await get(client, team, path, page=page, limit=limit, **extra)
                assert_error(response, 400, "validation_error")

    async def test_total_and_pages_stop_at_the_top(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(hook_repository, "TOP", 3)
        for path, extra in (("trending", {}), ("search", {"q": "creatine"})):
            first = await get(client, team, path, limit=2, **extra)
            assert first.json()["pagination"]["total"] == 3
            second = await get(client, team, path, limit=2, page=2, **extra)
            assert len(second.json()["data"]) == 1 and second.json()["pagination"]["has_next_page"] is False
            assert_error(await get(client, team, path, limit=2, page=3, **extra), 400, "validation_error")


class TestTimeout:
    @pytest.mark.parametrize(
        ("path", "params"),
        [
            ("trending", {}),
            ("search", {"q": "creatine"}),
            ("library", {"platform": "tiktok", "min_views": 1}),
        ],
    )
    async def test_a_query_running_too_long_is_503_free(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        catalog: None,
        monkeypatch: pytest.MonkeyPatch,
        path: str,
        params: dict[str, Any],
    ) -> None:
        async def slow(session: Any, *_args: Any) -> Any:
            # some 50 million steps: far past the 1 ms limit on either database
            await session.execute(
                text(
                    "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 5000000) "
                    "SELECT count(*) FROM c"
                )
            )
            raise AssertionError("not stopped")

        monkeypatch.setattr(hook_service, "QUERY_TIME_LIMIT_MS", 1)
        monkeypatch.setattr(hook_repository, path, slow)
        before = (await client.get("/v1/account/balance", headers=team.headers)).json()
        assert_error(await get(client, team, path, **params), 503, "service_unavailable")
        assert (await client.get("/v1/account/balance", headers=team.headers)).json() == before

    async def test_the_limit_does_not_outlive_the_query(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None
    ) -> None:
        for _ in range(2):
            assert_charged(await get(client, team, "search", q="creatine"), "0.25", 25)


class TestSearch:
    async def test_tiers_exact_contains_similar(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None
    ) -> None:
        response = await get(client, team, "search", q="creatine mistakes")
        assert_charged(response, "0.25", 25)
        data = response.json()["data"]
        assert [(item["video_id"], item["match_type"]) for item in data] == [
            (vid("h5"), "exact"),
            # h2 and x2 open with the same words: one row, h2's (1.2x coach's median: above x2, alone
            # on its creator, unscored), whose usage_count says there are two
            (vid("h2"), "contains"),
            (vid("h6"), "similar"),
        ]
        assert data[1]["usage_count"] == 2
        assert response.json()["pagination"]["total"] == 3

    @pytest.mark.parametrize(
        "q",
        ["CREATINE, mistakes!!!", "creatine\nmistakes", "🔥creatine 💪 mistakes🔥", "  creatine—mistakes. "],
    )
    async def test_punctuation_emoji_line_breaks_and_case_are_ignored(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None, q: str
    ) -> None:
        response = await get(client, team, "search", q=q)
        assert_charged(response, "0.25", 25)
        assert [item["match_type"] for item in response.json()["data"]] == ["exact", "contains", "similar"]

    async def test_whole_words_only(self, client: httpx.AsyncClient, team: TeamKey, catalog: None) -> None:
        assert videos(await get(client, team, "search", q="creat")) == []
        assert videos(await get(client, team, "search", q="atine")) == []
        assert sorted(videos(await get(client, team, "search", q="pasta"))) == sorted(names("e1", "e2"))
        # "talking" is a word of h1; the question mark and emoji around it do not matter
        response = await get(client, team, "search", q="talking about creatine?")
        assert [(i["video_id"], i["match_type"]) for i in response.json()["data"]] == [
            (vid("h1"), "contains")
        ]

    async def test_short_words_only_narrow_the_tier(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None
    ) -> None:
        # "3" is too short to search by, but an exact or contiguous match still needs it
        data = (await get(client, team, "search", q="3 creatine mistakes")).json()["data"]
        assert [(i["video_id"], i["match_type"]) for i in data] == [
            (vid("h2"), "contains"),  # and x2, the same words: one row
            (vid("h6"), "similar"),  # at coach's median: score 0
            (vid("h5"), "similar"),  # below it: a negative score
        ]

    async def test_videos_opening_with_the_same_words_are_one_row_on_every_page(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        catalog: None,
        runtime: Runtime,
        clock: ManualClock,
    ) -> None:
        """Issue 32 item 5: a search listed five identical rows, one per video opening with the same
        words. A row is a distinct hook (its words, ``usage_count`` the videos using them): the best
        scored of them, in its tier, on one page only; the total counts rows, not videos (§4.7)."""
        now = clock.now()
        copies = [
            Item(f"c{i}", 1 + i / 10, 500 + 100 * i, f"{text} #fitness", creator=COACH)
            for i, text in enumerate(
                ["Creatine mistakes.", "creatine MISTAKES!!", "Creatine mistakes 💪", "creatine, mistakes"]
            )
        ] + [Item(f"m{i}", 2, 2000 + i, "3 creatine mistakes everyone makes") for i in range(4)]
        await ingest(runtime, *(record(item, now) for item in copies))
        await hook_service.refresh(runtime.db, now)

        rows: list[dict[str, Any]] = []
        for page in (1, 2, 3):
            response = await get(client, team, "search", q="creatine mistakes", limit=1, page=page)
            rows.extend(response.json()["data"])
            assert response.json()["pagination"]["total"] == 3
        texts = [analysis.normalize(row["hook_text"]) for row in rows]
        assert texts == [
            "creatine mistakes",
            "3 creatine mistakes everyone makes",
            "mistakes i made with creatine",
        ]
        assert [row["match_type"] for row in rows] == ["exact", "contains", "similar"]
        assert [row["usage_count"] for row in rows] == [5, 6, 1]
        # each row is the best-ranked video of its words (the trending order: score, then newer)
        trending = (await get(client, team, "trending", window=30, limit=100)).json()["data"]
        for row, words in zip(rows[:2], texts, strict=False):  # h6 (40 days) is past trending's window
            first = next(t for t in trending if analysis.normalize(t["hook_text"]) == words)
            assert row["video_id"] == first["video_id"]

    async def test_no_match_is_an_empty_page_still_charged(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None
    ) -> None:
        response = await get(client, team, "search", q="zzzz")
        assert_charged(response, "0.25", 25)
        assert response.json()["data"] == [] and response.json()["pagination"]["total"] == 0

    async def test_q_needs_a_word_of_3_letters_or_digits(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None
    ) -> None:
        for q in ("", "ab", "a b c", "!!! 🤔", "— ...", "_x_"):
            assert_error(await get(client, team, "search", q=q), 400, "validation_error")
        assert_error(await client.get("/v1/hooks/search", headers=team.headers), 400, "validation_error")
        assert_charged(await get(client, team, "search", q="300!"), "0.25", 25)  # digits count


class TestLibrary:
    async def test_distinct_hooks_by_usage(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None
    ) -> None:
        response = await get(client, team, "library")
        assert_charged(response, "0.10", 10)
        data = response.json()["data"]
        assert data[0]["usage_count"] == 2 and data[0]["hook_type"] == "listicle"
        assert data[0]["platform_count"] == 1 and data[0]["max_views"] == 1200
        assert response.json()["pagination"]["total"] == 9  # ten hooks, two with the same words

    async def test_sort_and_filters(self, client: httpx.AsyncClient, team: TeamKey, catalog: None) -> None:
        data = (await get(client, team, "library", sort="weighted_score")).json()["data"]
        assert data[0]["hook_text"] == "Why is no one talking about creatine?? 🤔"
        spanish = (await get(client, team, "library", language="es")).json()["data"]
        assert sorted(item["hook_type"] for item in spanish) == ["experiment", "mistake_warning"]
        assert_error(await get(client, team, "library", category="knitting"), 400, "validation_error")
        assert_error(await get(client, team, "library", sort="views"), 400, "validation_error")


class TestKeptLists:
    """Types, categories and the library are read from tables ``hook.refresh`` keeps (ADR 0038)."""

    @pytest.mark.parametrize(
        "params",
        [
            {},
            {"sort": "weighted_score"},
            {"platform": "tiktok"},
            {"category": "fitness"},
            {"language": "es"},
            {"visual_hook_type": "skit"},
            {"hook_type": "listicle"},
            {"platform": "tiktok", "hook_type": "mistake_warning", "sort": "weighted_score"},
            {"platform": "tiktok", "language": "en"},  # two filters: read from the hooks
            {"min_views": 1000},
        ],
    )
    async def test_the_library_is_the_aggregate_of_the_hooks(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        catalog: None,
        runtime: Runtime,
        params: dict[str, Any],
    ) -> None:
        query = hook_service.LibraryQuery(**params)
        async with runtime.db.transaction(write=False) as session:
            rows, total = await hook_repository.library_from_hooks(
                session, hook_service._filters(query), query.sort.value, 100, 0
            )
        expected = [(r.text, r.hook_type, r.usage_count, r.max_views, r.platform_count) for r in rows]
        body = (await get(client, team, "library", limit=100, **params)).json()
        assert [
            (h["hook_text"], h["hook_type"], h["usage_count"], h["max_views"], h["platform_count"])
            for h in body["data"]
        ] == expected
        assert body["pagination"]["total"] == total

    async def test_the_lists_follow_the_catalog_after_the_refresh(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        catalog: None,
        runtime: Runtime,
        clock: ManualClock,
    ) -> None:
        now = clock.now()
        again = Item("h8", 1, 4000, "3 creatine mistakes everyone makes #fitness", creator=COACH)
        await ingest(runtime, record(again, now))
        before = (await get(client, team, "library")).json()["data"][0]
        assert before["usage_count"] == 2  # until the refresh
        await hook_service.refresh(runtime.db, now)
        after = (await get(client, team, "library")).json()["data"][0]
        assert (after["usage_count"], after["max_views"]) == (3, 4000)
        listicle = next(
            row for row in (await get(client, team, "types")).json()["data"] if row["hook_type"] == "listicle"
        )
        assert listicle["hook_count"] == 3
        fitness = (await get(client, team, "categories")).json()["data"][0]
        assert (fitness["category"], fitness["hook_count"]) == ("fitness", 6)

    @pytest.mark.parametrize("range_rows", [50_000, 1])  # in one range, or one text per range
    async def test_a_database_without_the_lists_gets_them_built_in_full(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        catalog: None,
        runtime: Runtime,
        clock: ManualClock,
        monkeypatch: pytest.MonkeyPatch,
        range_rows: int,
    ) -> None:
        monkeypatch.setattr(hook_service, "LIBRARY_RANGE", range_rows)
        expected = (await get(client, team, "library", limit=100)).json()
        types = (await get(client, team, "types")).json()
        await unbuild_lists(runtime)  # as after the migration that added them
        assert (await get(client, team, "library")).json()["data"] == []
        await hook_service.refresh(runtime.db, clock.now())  # nothing new in the catalog
        assert (await get(client, team, "library", limit=100)).json() == expected
        assert (await get(client, team, "types")).json() == types

    async def test_two_first_builds_at_once_end_in_one_library(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        catalog: None,
        runtime: Runtime,
        clock: ManualClock,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        """A first start's collection and stats refresh both find the lists unbuilt and build them at
        once, range by range in their own transactions (one text per range here, so they interleave):
        no UNIQUE failure, and the library is the one a single build makes (issue 31's soak)."""
        monkeypatch.setattr(hook_service, "LIBRARY_RANGE", 1)
        expected = (await get(client, team, "library", limit=100)).json()
        await unbuild_lists(runtime)
        await asyncio.gather(*(hook_service.refresh(runtime.db, clock.now()) for _ in range(2)))
        assert (await get(client, team, "library", limit=100)).json() == expected

    async def test_a_long_library_counts_past_the_page(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: None, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # §8.3: a hook list's total can be too low; it is counted up to one past the page
        monkeypatch.setattr(hook_repository, "LIBRARY_MANY", 0)
        first = (await get(client, team, "library", limit=2)).json()["pagination"]
        assert (first["total"], first["has_next_page"]) == (3, True)
        last = (await get(client, team, "library", limit=2, page=5)).json()
        assert len(last["data"]) == 1 and last["pagination"]["total"] == 9
        assert last["pagination"]["has_next_page"] is False
