"""POST /v1/agents/suggest-keywords (spec §4.4): free, synchronous, creates nothing, grounded in what the
catalog holds (issue 16)."""

from __future__ import annotations

import httpx
import pytest

from reelscope.analysis.keywords import Candidate, suggest
from tests.agent.conftest import CreateAgent
from tests.conftest import TeamKey

pytestmark = pytest.mark.both_databases

PATH = "/v1/agents/suggest-keywords"


async def post(client: httpx.AsyncClient, team: TeamKey, body: dict[str, object]) -> httpx.Response:
    return await client.post(PATH, json=body, headers=team.headers)


class TestEndpoint:
    async def test_grounded_in_the_catalog_free_and_creating_nothing(
        self, client: httpx.AsyncClient, create_agent: CreateAgent, team: TeamKey
    ) -> None:
        await create_agent(team, keywords=["sourdough"], platforms=["tiktok"])  # fills the catalog
        before = (await client.get("/v1/agents", headers=team.headers)).json()["data"]["count"]
        response = await post(client, team, {"intent": "sourdough bread at home"})
        assert response.status_code == 200, response.text
        assert response.headers["X-Cost"] == "0.00"
        data = response.json()["data"]
        assert data["mode"] == "create"
        assert data["keywords"][0].lower() == "sourdough"
        assert 1 < len(data["keywords"]) <= 10
        assert data["seed_video_count"] > 0 and 0 <= data["quality_score"] <= 100
        assert data["reasoning"].startswith("sourdough: ")
        assert all(c["videos_30d"] > 0 for c in data["candidates"])
        assert (await client.get("/v1/agents", headers=team.headers)).json()["data"]["count"] == before

        refreshed = (
            await post(client, team, {"keywords": ["sourdough", "zzqqxx"], "mode": "refresh"})
        ).json()
        assert refreshed["data"]["keywords"][0].lower() == "sourdough"
        assert "zzqqxx" not in refreshed["data"]["keywords"]  # no videos: dropped
        opportunity = (await post(client, team, {"keywords": ["sourdough"], "mode": "opportunity"})).json()
        assert "sourdough" not in [k.lower() for k in opportunity["data"]["keywords"]]
        assert all((c["growth_7d"] or 0) > 0 for c in opportunity["data"]["candidates"])

    async def test_an_empty_catalog_says_so(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        data = (await post(client, team, {"intent": "underwater basket weaving"})).json()["data"]
        # the intent's own words, then its two-word phrases as tags
        assert data["keywords"] == ["underwater", "basket", "weaving", "basketweaving", "underwaterbasket"]
        assert data["seed_video_count"] == 0 and data["quality_score"] == 0
        assert "no recent videos" in data["reasoning"]

    async def test_validation(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        for body in ({}, {"intent": "  "}, {"intent": "x", "mode": "later"}, {"intent": "x", "extra": 1}):
            response = await post(client, team, body)
            assert response.status_code == 400, body
            assert response.json()["code"] == "validation_error"


def cand(key: str, total: int, last: int, prev: int, co: int, *, seed: bool = False) -> Candidate:
    return Candidate(key, key, seed, total, last, prev, co)


class TestRanking:
    CANDIDATES = [
        cand("sourdough", 100, 30, 20, 100, seed=True),
        cand("baking", 80, 20, 20, 40),  # steady, with the seed in 40 of 100 seed videos
        cand("starter", 20, 10, 2, 15),  # small but rising fast
        cand("girldinner", 400, 100, 100, 5),  # 5 of its 400 videos carry the seed: pulls noise
        cand("fyp", 1000, 300, 300, 60),  # generic: never suggested
    ]

    def test_create_puts_the_seed_first_then_adjacent_by_relevance_and_volume(self) -> None:
        found = suggest("create", ["sourdough"], self.CANDIDATES, 100)
        assert found.keywords == ["sourdough", "baking", "starter"]
        assert found.exclude_keywords == ["girldinner"]
        assert "fyp" not in found.keywords
        # 40 x 1 (seed known) + 30 x log10(201)/4 + 30 x mean(1, .4, .15)
        assert found.quality_score == round(40 + 30 * (2.3032 / 4) + 30 * (1.55 / 3))

    def test_opportunity_is_the_rising_adjacent_terms(self) -> None:
        found = suggest("opportunity", ["sourdough"], self.CANDIDATES, 100, given=["sourdough"])
        assert found.keywords == ["starter"]

    def test_refresh_keeps_live_keywords_and_fills_with_adjacent_ones(self) -> None:
        found = suggest(
            "refresh", ["sourdough", "deadtag"], self.CANDIDATES, 100, given=["sourdough", "deadtag"]
        )
        # room for as many as were given (at least 3): the rising term before the steady one
        assert found.keywords == ["sourdough", "starter", "baking"]

    def test_user_exclusions_are_never_suggested(self) -> None:
        found = suggest("create", ["sourdough"], self.CANDIDATES, 100, excluded=["baking"])
        assert "baking" not in found.keywords
