"""The hook library with filters no kept scope answers (two of platform, category, language and
visual_hook_type, or min_views; ADR 0057) lists exactly what the aggregate of the matching hooks does:
the same rows in the same order, and the same total (counted up to ``LIBRARY_MANY`` or one past the
page, §8.3), on a random catalog, on SQLite and PostgreSQL, whichever way it is read: a walk of the
kept rows, the hooks over min_views when they are few, or the aggregate when a walk would read too
many rows."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import timedelta
from typing import Any

import httpx
import pytest

from reelscope.collectors.base import CreatorRecord, VideoRecord
from reelscope.hook import repository as hook_repository
from reelscope.hook import service as hook_service
from reelscope.hook.schemas import LibraryQuery
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from reelscope.runtime import Runtime
from tests.catalog_builders import ingest, video
from tests.conftest import TeamKey

pytestmark = pytest.mark.both_databases

SEED = 20261128
# openings of a few types, each over a few words: many hooks share their words, within and across
# platforms and languages
OPENINGS = (
    ("en", "Why is no one talking about {w}?"),
    ("en", "3 {w} mistakes everyone makes"),
    ("en", "POV: you finally tried {w}"),
    ("en", "Stop doing {w} like this"),
    ("es", "Deja de hacer {w} así"),
    ("es", "Probé {w} durante 30 días"),
    ("pt", "Ninguém fala sobre {w}"),
)
WORDS = ("creatine", "pasta", "sourdough", "budget", "skincare", "Creatine", "coffee", "matcha")
TAGS = ("#fitness", "#gym", "#recipe", "#foodtok", "#skit", "#finance", "#tech", "")
LANGUAGES = ("en", "es", "pt", None)
SERVED_WALK_MAX = hook_repository.LIBRARY_WALK_MAX
CREATORS = tuple(CreatorRecord(platform=p, handle=f"maker{i}") for i in range(6) for p in Platform)


def random_videos(rng: random.Random, now: Any, count: int) -> list[VideoRecord]:
    records = []
    for n in range(count):
        creator = rng.choice(CREATORS)
        language, opening = rng.choice(OPENINGS)
        caption = opening.format(w=rng.choice(WORDS)) + rng.choice(("", "!!", " 🔥")) + " " + rng.choice(TAGS)
        base = video(f"r{n}", now - timedelta(days=rng.uniform(0, 60)), platform=creator.platform)
        records.append(
            replace(
                base,
                description=caption,
                views=rng.choice((0, 10, 500, 1000, 1000, 5000, 20000, rng.randint(0, 100_000))),
                language=rng.choice((language, language, *LANGUAGES)),
                is_duet=creator.platform == Platform.TIKTOK and rng.random() < 0.1,
                # a few creators with one video each: their hooks are unscored
                creator=creator
                if rng.random() < 0.9
                else CreatorRecord(platform=creator.platform, handle=f"one{n}"),
            )
        )
    return records


@pytest.fixture
async def random_catalog(runtime: Runtime, clock: ManualClock) -> None:
    now = clock.now()
    rng = random.Random(SEED)
    for start in range(0, 360, 120):
        await ingest(runtime, *random_videos(rng, now, 120)[start % 120 :])  # some ids again: moved views
    await ingest(runtime, *random_videos(random.Random(SEED + 1), now, 360))
    await hook_service.refresh(runtime.db, now)


def random_filters(rng: random.Random) -> dict[str, Any]:
    choices = {
        "platform": (None, "tiktok", "youtube", "instagram"),
        "category": (None, None, "fitness", "food", "finance"),
        "language": (None, "en", "es", "pt"),
        "visual_hook_type": (None, None, None, "skit", "duet_split_screen"),
        "hook_type": (None, None, None, "question", "listicle", "mistake_warning"),
        "min_views": (None, 0, 500, 1000, 5000, 20000, 10**9),
    }
    return {name: rng.choice(values) for name, values in choices.items()}


async def listed(runtime: Runtime, filters: dict[str, Any], sort: str, limit: int, page: int) -> Any:
    query = LibraryQuery(
        **{k: v for k, v in filters.items() if v is not None}, sort=sort, limit=limit, page=page
    )
    async with runtime.db.transaction(write=False) as session:
        return await hook_service.library(session, query)


async def aggregated(runtime: Runtime, filters: dict[str, Any], sort: str, limit: int, offset: int) -> Any:
    """The straightforward query: every matching hook, grouped."""
    async with runtime.db.transaction(write=False) as session:
        return await hook_repository.library_from_hooks(session, filters, sort, limit, offset)


def shown(rows: Any) -> list[tuple[Any, ...]]:
    return [
        (r.hook_text, r.hook_type, r.usage_count, r.best_weighted_score, r.max_views, r.platform_count)
        for r in rows
    ]


def expected_rows(rows: Any) -> list[tuple[Any, ...]]:
    return [
        (
            r.text,
            r.hook_type,
            r.usage_count,
            None if r.best_weighted_score is None else round(r.best_weighted_score, 4),
            r.max_views,
            r.platform_count,
        )
        for r in rows
    ]


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each walk answered (True) or left the page to the aggregate (False): a walk that always
    fell back would pass every comparison with the aggregate."""
    answered: list[bool] = []
    real = hook_repository._library_walk

    async def spy(*args: Any, **kwargs: Any) -> Any:
        found = await real(*args, **kwargs)
        answered.append(found is not None)
        return found

    monkeypatch.setattr(hook_repository, "_library_walk", spy)
    return answered


class TestLibraryAsTheAggregate:
    @pytest.mark.parametrize(
        ("walk_max", "many", "few"),
        [
            (
                hook_repository.LIBRARY_WALK_MAX,
                hook_repository.LIBRARY_MANY,
                hook_repository.LIBRARY_FEW_HOOKS,
            ),
            (hook_repository.LIBRARY_WALK_MAX, hook_repository.LIBRARY_MANY, 0),  # min_views walked too
            (hook_repository.LIBRARY_WALK_MAX, 3, 0),  # totals past the count's cap
            (12, hook_repository.LIBRARY_MANY, 0),  # walks cut short: lower totals, or the aggregate
        ],
        ids=["as_served", "walks", "few_counted", "short_walks"],
    )
    async def test_random_filters_sorts_and_pages(
        self,
        runtime: Runtime,
        random_catalog: None,
        monkeypatch: pytest.MonkeyPatch,
        walk_max: int,
        many: int,
        few: int,
        walks: list[bool],
    ) -> None:
        monkeypatch.setattr(hook_repository, "LIBRARY_WALK_MAX", walk_max)
        lookups = min(walk_max, hook_repository.LIBRARY_COUNT_LOOKUPS)
        monkeypatch.setattr(hook_repository, "LIBRARY_COUNT_LOOKUPS", lookups)
        monkeypatch.setattr(hook_repository, "LIBRARY_MANY", many)
        monkeypatch.setattr(hook_repository, "LIBRARY_FEW_HOOKS", few)
        rng = random.Random(SEED + walk_max + many + few)
        for _ in range(60):
            filters = random_filters(rng)
            sort = rng.choice(("usage_count", "weighted_score"))
            limit, page = rng.choice(((1, 1), (3, 1), (3, 2), (5, 4), (20, 1), (100, 1), (2, 40)))
            offset = (page - 1) * limit
            got = await listed(runtime, filters, sort, limit, page)
            rows, everything = await aggregated(runtime, filters, sort, limit, offset)
            case = (filters, sort, limit, page)
            assert shown(got.data) == expected_rows(rows), case
            total = got.pagination.total
            cap = max(many, offset + limit + 1)
            if walk_max == SERVED_WALK_MAX:  # every walk reads its whole scope here
                assert total == min(everything, cap), case
            else:  # §8.3: a total can be too low, never past the page's end while rows follow
                assert min(everything, offset + limit + 1) <= total <= min(everything, cap), case
            assert got.pagination.has_next_page == (everything > offset + limit), case
        if few == 0 and walk_max == SERVED_WALK_MAX:  # the walk itself was checked, not only its fallback
            assert sum(walks) >= 10, walks

    async def test_every_page_of_a_list_is_the_aggregate_paged(
        self, runtime: Runtime, random_catalog: None, monkeypatch: pytest.MonkeyPatch, walks: list[bool]
    ) -> None:
        monkeypatch.setattr(hook_repository, "LIBRARY_FEW_HOOKS", 0)  # walked, as in a big catalog
        filters = {"platform": None, "category": None, "language": "en", "visual_hook_type": None}
        filters |= {"hook_type": None, "min_views": 1000}
        for sort in ("usage_count", "weighted_score"):
            rows, everything = await aggregated(runtime, filters, sort, 1000, 0)
            assert everything > 20
            paged: list[Any] = []
            for page in range(1, -(-everything // 7) + 2):
                paged += (await listed(runtime, filters, sort, 7, page)).data
            assert shown(paged) == expected_rows(rows)
        assert any(walks), walks


class TestEndpoint:
    async def test_language_and_min_views_over_http(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        runtime: Runtime,
        random_catalog: None,
        monkeypatch: pytest.MonkeyPatch,
        walks: list[bool],
    ) -> None:
        monkeypatch.setattr(hook_repository, "LIBRARY_FEW_HOOKS", 0)  # walked, as in a big catalog
        filters = {"platform": None, "category": None, "language": "es", "visual_hook_type": None}
        filters |= {"hook_type": None, "min_views": 1000}
        rows, everything = await aggregated(runtime, filters, "usage_count", 5, 5)
        response = await client.get(
            "/v1/hooks/library",
            params={"language": "es", "min_views": 1000, "limit": 5, "page": 2},
            headers=team.headers,
        )
        assert response.status_code == 200, response.text
        assert response.headers["X-Cost"] == "0.10"
        body = response.json()
        assert [
            (
                h["hook_text"],
                h["hook_type"],
                h["usage_count"],
                h["best_weighted_score"],
                h["max_views"],
                h["platform_count"],
            )
            for h in body["data"]
        ] == expected_rows(rows)
        assert body["pagination"]["total"] == everything
        assert walks == [True]
