"""Intent matching through HTTP (spec §2.6 ``intent_match``, §4.5 the ``intent_match`` filter): each item of
an agent with an intent and Data Intelligence carries ``{matches, reasoning}``; the filter selects by it;
changing the intent re-judges; without intent or Data Intelligence it is null and the filter selects
nothing."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.agent.conftest import CreateAgent, Get
from tests.conftest import MakeTeam, TeamKey

pytestmark = pytest.mark.both_databases

SMALL = {"keywords": ["sourdough"], "platforms": ["tiktok"]}
# every collected video says sourdough; only some say starter (the sandbox's sourdough vocabulary)
INTENT = "Find hooks about feeding a sourdough starter"


async def all_items(get: Get, team: TeamKey, path: str, key: str, **params: Any) -> list[dict[str, Any]]:
    data = await get(team, path, limit=100, **params)
    assert data["total"] <= 100
    items: list[dict[str, Any]] = data[key]
    return items


class TestIntentMatch:
    async def test_items_are_judged_and_the_filter_selects_by_the_verdict(
        self,
        client: httpx.AsyncClient,
        create_agent: CreateAgent,
        get: Get,
        team: TeamKey,
        make_team: MakeTeam,
    ) -> None:
        agent = await create_agent(team, **SMALL, intent=INTENT, data_intelligence_enabled=True)
        path = f"/v1/agents/{agent['id']}/videos"
        videos = await all_items(get, team, path, "videos")
        assert videos and {v["intelligence_status"] for v in videos} == {"ready"}
        verdicts = {v["id"]: v["intent_match"] for v in videos}
        assert all(set(m) == {"matches", "reasoning"} for m in verdicts.values())
        matching = {i for i, m in verdicts.items() if m["matches"]}
        assert 0 < len(matching) < len(videos)  # the intent splits the keyword's videos
        for video in videos:
            text = " ".join([video["description"] or "", video["transcript_raw"] or "", *video["hashtags"]])
            reasoning = video["intent_match"]["reasoning"]
            if video["id"] in matching:
                assert "starter" in text.lower() and "'starter' in" in reasoning
            else:
                assert "starter" not in text.lower() and "not found:" in reasoning and "starter" in reasoning
        chosen = await all_items(get, team, path, "videos", intent_match="true")
        rest = await all_items(get, team, path, "videos", intent_match="false")
        assert {v["id"] for v in chosen} == matching
        assert {v["id"] for v in rest} == set(verdicts) - matching
        slides = await all_items(get, team, f"/v1/agents/{agent['id']}/slideshows", "slideshows")
        ready = [s for s in slides if s["intelligence_status"] == "ready"]
        assert ready and all(s["intent_match"] is not None for s in ready)
        picked = await all_items(
            get, team, f"/v1/agents/{agent['id']}/slideshows", "slideshows", intent_match="true"
        )
        assert {s["id"] for s in picked} == {s["id"] for s in ready if s["intent_match"]["matches"]}
        other = await make_team()
        response = await client.get(path, params={"intent_match": "true"}, headers=other.headers)
        assert response.status_code == 404 and response.json()["code"] == "not_found"
        response = await client.get(path, params={"intent_match": "maybe"}, headers=team.headers)
        assert response.status_code == 400

    async def test_a_new_intent_rejudges_and_no_intent_clears(
        self, client: httpx.AsyncClient, create_agent: CreateAgent, get: Get, team: TeamKey
    ) -> None:
        agent = await create_agent(team, **SMALL, intent=INTENT, data_intelligence_enabled=True)
        path = f"/v1/agents/{agent['id']}"
        before = await all_items(get, team, f"{path}/videos", "videos", intent_match="true")
        response = await client.put(path, json={"intent": "marathon pace"}, headers=team.headers)
        assert response.status_code == 200
        assert (await get(team, f"{path}/videos", intent_match="true"))["total"] == 0
        assert before and all(
            not v["intent_match"]["matches"] for v in await all_items(get, team, f"{path}/videos", "videos")
        )
        await client.put(path, json={"intent": None}, headers=team.headers)
        videos = await all_items(get, team, f"{path}/videos", "videos")
        assert {v["intent_match"] is None for v in videos} == {True}
        for value in ("true", "false"):
            assert (await get(team, f"{path}/videos", intent_match=value))["total"] == 0
        await client.put(path, json={"intent": INTENT}, headers=team.headers)
        again = await all_items(get, team, f"{path}/videos", "videos", intent_match="true")
        assert {v["id"] for v in again} == {v["id"] for v in before}
        # §2.6: no Data Intelligence, no judgement
        await client.put(path, json={"data_intelligence_enabled": False}, headers=team.headers)
        videos = await all_items(get, team, f"{path}/videos", "videos")
        assert {v["intent_match"] is None for v in videos} == {True}
        assert (await get(team, f"{path}/videos", intent_match="false"))["total"] == 0

    async def test_an_intent_without_data_intelligence_is_not_judged(
        self, create_agent: CreateAgent, get: Get, team: TeamKey
    ) -> None:
        agent = await create_agent(team, **SMALL, intent=INTENT)
        path = f"/v1/agents/{agent['id']}/videos"
        videos = await all_items(get, team, path, "videos")
        assert videos and {v["intent_match"] is None for v in videos} == {True}
        assert (await get(team, path, intent_match="true"))["total"] == 0
