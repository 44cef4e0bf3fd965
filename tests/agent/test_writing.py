"""The optional LLM rewording the agents' written fields (issue 16 item 3, ADR 0031), through HTTP as a
client sees it, against a real fake provider on 127.0.0.1 (tests/fixtures/llm.py): the analysis'
overview, key_highlight and why_it_works, Data Intelligence summaries and suggest-keywords' reasoning.
Facts never change; each provider failure and each reply that changes a fact keeps the local text."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import httpx
import pytest
import structlog
from pydantic import SecretStr
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.pool import QueuePool

from reelscope.agent import writing
from reelscope.config import Settings
from reelscope.models import OutboxEvent
from reelscope.runtime import Runtime
from tests.agent.conftest import CreateAgent, Get
from tests.conftest import MakeTeam, TeamKey
from tests.fixtures.llm import HOLD, PREFIX, FakeLlm, Recorded, completion, reworded

KEY = "sk-agent-3e9a41-never-logged"
# per call the fake reports 1000 prompt and 500 completion tokens: $0.01 + $0.015
CALL_COST = 0.025
SMALL = {"keywords": ["sourdough"], "platforms": ["tiktok"], "data_intelligence_enabled": True}
SUGGEST = "/v1/agents/suggest-keywords"


@pytest.fixture
def llm_missing() -> tuple[str, ...]:
    """Settings left unset (a test parametrizes it to check that the provider is then never called)."""
    return ()


@pytest.fixture
def settings(settings: Settings, fake_llm: FakeLlm, llm_missing: tuple[str, ...]) -> Settings:
    fields: dict[str, Any] = {
        "llm_base_url": fake_llm.url,
        "llm_model": "fake-model",
        "llm_api_key": SecretStr(KEY),
        "llm_timeout_seconds": 0.3,
        "llm_prompt_price_per_1k_tokens": 0.01,
        "llm_completion_price_per_1k_tokens": 0.03,
    }
    return settings.model_copy(update={**fields, **dict.fromkeys(llm_missing)})


def analysis_request(fake: FakeLlm) -> Recorded:
    (found,) = [r for r in fake.requests if "overview" in r.prompt.get("text", {})]
    return found


def local_summaries(fake: FakeLlm) -> dict[str, str]:
    """Video id → the local summary the provider was given (items are named ``video:…``, ``slideshow:…``)."""
    items = [i for r in fake.requests if "items" in r.prompt for i in r.prompt["items"]]
    return {i["id"].removeprefix("video:"): i["summary"] for i in items if i["id"].startswith("video:")}


async def all_videos(get: Get, team: TeamKey, agent_id: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for page in (1, 2, 3):
        found += (await get(team, f"/v1/agents/{agent_id}/videos", limit=100, page=page))["videos"]
    return found


async def webhook_analysis(runtime: Runtime, run_id: str) -> dict[str, Any]:
    async with runtime.db.transaction(write=False) as session:
        rows = await session.scalars(
            select(OutboxEvent).where(OutboxEvent.name == "content_research_agent.run.completed")
        )
        (payload,) = [r.payload for r in rows if r.payload["run_id"] == run_id]
    analysis: dict[str, Any] = payload["analysis"]
    return analysis


def facts_of(theme: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in theme.items() if k != "why_it_works"}


class TestReworded:
    @pytest.mark.both_databases
    async def test_written_fields_reworded_facts_unchanged_cost_reported(
        self, create_agent: CreateAgent, get: Get, team: TeamKey, fake_llm: FakeLlm, runtime: Runtime
    ) -> None:
        agent = await create_agent(team, **SMALL)
        path = f"/v1/agents/{agent['id']}"
        latest = await get(team, f"{path}/analysis/latest")
        data = latest["analysis_data"]
        given = analysis_request(fake_llm).prompt
        assert data["overview"] == f"{PREFIX} {given['text']['overview']}"
        assert data["key_highlight"] == f"{PREFIX} {given['text']['key_highlight']}"
        local_why = {t["stable_key"]: t["why_it_works"] for t in given["text"]["themes"]}
        assert {t["stable_key"]: t["why_it_works"] for t in data["themes"]} == {
            k: f"{PREFIX} {v}" for k, v in local_why.items()
        }
        # the facts are the local ones: those the provider was shown, in the same order
        shown = given["facts"]["themes"]
        assert [{k: t[k] for k in shown[0]} for t in data["themes"]] == shown
        assert all(t["evidence_video_ids"] for t in data["themes"])
        assert latest["trends"] == data["themes"]
        assert (await get(team, path))["analysis_data"] == data
        batch = await get(team, f"{path}/trends/latest")
        assert {t["stable_key"]: t["why_it_works"] for t in batch["trends"]} == {
            t["stable_key"]: t["why_it_works"] for t in data["themes"]
        }
        # Data Intelligence summaries: each ready item's, reworded from the local one
        summaries = local_summaries(fake_llm)
        ready = [v for v in await all_videos(get, team, agent["id"]) if v["intelligence_status"] == "ready"]
        assert ready and len(summaries) == len(ready)
        for video in ready:
            assert video["intelligence"]["summary"] == f"{PREFIX} {summaries[video['id']]}"
        # §6.3 cost_usd: the provider's usage at the configured prices, every call of the job
        assert latest["cost_usd"] == pytest.approx(CALL_COST * len(fake_llm.requests))
        sent_items = sum(len(r.prompt["items"]) for r in fake_llm.requests if "items" in r.prompt)
        assert len(fake_llm.requests) == 1 + -(-sent_items // 20)
        assert {r.headers["authorization"] for r in fake_llm.requests} == {f"Bearer {KEY}"}
        # the webhook carries the same reworded analysis
        sent = await webhook_analysis(runtime, agent["run_id"])
        assert sent["analysis_data"]["overview"] == data["overview"]
        assert sent["trends"] == data["themes"] and sent["cost_usd"] == latest["cost_usd"]

    async def test_suggest_keywords_reasoning(
        self, client: httpx.AsyncClient, team: TeamKey, fake_llm: FakeLlm
    ) -> None:
        response = await client.post(
            SUGGEST, json={"intent": "underwater basket weaving"}, headers=team.headers
        )
        assert response.status_code == 200 and response.headers["X-Cost"] == "0.00"
        data = response.json()["data"]
        (request,) = fake_llm.requests
        assert data["reasoning"] == f"{PREFIX} {request.prompt['text']['reasoning']}"
        assert data["keywords"] == request.prompt["facts"]["keywords"]
        assert data["quality_score"] == request.prompt["facts"]["quality_score"] == 0

    async def test_suggest_keywords_runs_as_a_read(
        self, client: httpx.AsyncClient, make_team: MakeTeam, fake_llm: FakeLlm
    ) -> None:
        """It creates nothing (§4.4), so it holds no write transaction while the provider answers: a
        read-only key may call it (contract ``writes_nothing``)."""
        reader = await make_team(scope="read")
        response = await client.post(
            SUGGEST, json={"intent": "underwater basket weaving"}, headers=reader.headers
        )
        assert response.status_code == 200
        assert response.json()["data"]["reasoning"].startswith(PREFIX) and len(fake_llm.requests) == 1

    @pytest.mark.both_databases
    async def test_suggest_keywords_holds_no_connection_while_the_provider_answers(
        self, client: httpx.AsyncClient, team: TeamKey, fake_llm: FakeLlm, runtime: Runtime
    ) -> None:
        """A provider may take up to its timeout: requests waiting on it must not hold the read pool's
        connections (on PostgreSQL, forty of them would hold the whole pool)."""
        bind = runtime.db.read().bind
        assert isinstance(bind, AsyncEngine) and isinstance(bind.sync_engine.pool, QueuePool)
        pool = bind.sync_engine.pool
        held: list[int] = []

        def respond(prompt: dict[str, Any]) -> tuple[int, bytes]:
            held.append(pool.checkedout())
            return completion(reworded(prompt))

        fake_llm.respond = respond
        response = await client.post(
            SUGGEST, json={"intent": "underwater basket weaving"}, headers=team.headers
        )
        assert response.status_code == 200 and response.json()["data"]["reasoning"].startswith(PREFIX)
        assert held == [0]


def overview_with(number: str) -> Callable[[dict[str, Any]], tuple[int, bytes]]:
    def respond(prompt: dict[str, Any]) -> tuple[int, bytes]:
        reply = reworded(prompt)
        if "items" in reply:
            reply["items"] = [
                {**i, "summary": f"{i['summary']} Seen {number} times."} for i in reply["items"]
            ]
        elif "overview" in reply:
            reply["overview"] += f" It reached {number} views."
        return completion(reply)

    return respond


def echo_changed(prompt: dict[str, Any]) -> tuple[int, bytes]:
    """Reworded text, but an echoed fact changed: a theme's video_count, an item's category."""
    reply = reworded(prompt)
    if "items" in reply:
        reply["items"] = [{**i, "category": "not-the-local-one"} for i in reply["items"]]
    else:
        reply["themes"][0]["video_count"] = 10**6
    return completion(reply)


def unknown_theme(prompt: dict[str, Any]) -> tuple[int, bytes]:
    reply = reworded(prompt)
    if "items" in reply:
        reply["items"].append({"id": "vid_not_given", "summary": "REWORDED"})
    else:
        reply["themes"].append({"stable_key": "th_invented", "why_it_works": "REWORDED"})
    return completion(reply)


# (responder, the reason logged, whether the provider's usage was reported)
FAILURES = {
    "timeout": (lambda prompt: HOLD, "timeout", False),
    "error_500": (lambda prompt: (500, b'{"error": "boom"}'), "http_status", False),
    "invalid_json": (lambda prompt: completion("Here you go: overview reworded"), "invalid_json", True),
    "new_number": (overview_with("9999991"), "changed_fact", True),
    "changed_echo": (echo_changed, "changed_fact", True),
    "unknown_key": (unknown_theme, "changed_fact", True),
}


class TestFallback:
    @pytest.mark.parametrize("failure", list(FAILURES))
    async def test_the_local_text_stays(
        self,
        create_agent: CreateAgent,
        get: Get,
        team: TeamKey,
        fake_llm: FakeLlm,
        failure: str,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        fake_llm.respond, reason, paid = FAILURES[failure]  # type: ignore[assignment]
        with caplog.at_level(logging.DEBUG), structlog.testing.capture_logs() as events:
            agent = await create_agent(team, **SMALL)
        path = f"/v1/agents/{agent['id']}"
        latest = await get(team, f"{path}/analysis/latest")
        data = latest["analysis_data"]
        given = analysis_request(fake_llm).prompt
        assert data["overview"] == given["text"]["overview"]
        assert data["key_highlight"] == given["text"]["key_highlight"]
        assert [t["why_it_works"] for t in data["themes"]] == [
            t["why_it_works"] for t in given["text"]["themes"]
        ]
        assert not any(
            PREFIX in v["intelligence"]["summary"]
            for v in await all_videos(get, team, agent["id"])
            if v["intelligence"]
        )
        # a reply that came back was paid for; a timeout or an error status reported no usage
        calls = len(fake_llm.requests)
        assert latest["cost_usd"] == pytest.approx(CALL_COST * calls if paid else 0)
        if not paid:  # after the provider failed, the job asked nothing more
            assert calls == 1
        fallbacks = [e for e in events if e["event"] == "agent.writing.fallback"]
        assert fallbacks and fallbacks[0]["reason"] == reason and fallbacks[0]["task"] == "analysis"
        assert KEY not in repr(events) and KEY not in caplog.text
        # nor the prompt's data: the local text is not in the warning
        assert given["text"]["overview"] not in repr(fallbacks)

    async def test_suggest_keywords_keeps_its_reasoning_when_a_fact_changes(
        self, client: httpx.AsyncClient, team: TeamKey, fake_llm: FakeLlm
    ) -> None:
        fake_llm.respond = lambda prompt: completion({**reworded(prompt), "keywords": ["invented"]})
        response = await client.post(
            SUGGEST, json={"intent": "underwater basket weaving"}, headers=team.headers
        )
        data = response.json()["data"]
        (request,) = fake_llm.requests
        assert data["reasoning"] == request.prompt["text"]["reasoning"]
        assert "invented" not in data["keywords"]


class TestOff:
    @pytest.mark.parametrize("llm_missing", [("llm_base_url",), ("llm_model",)])
    async def test_unset_settings_make_no_call(
        self, client: httpx.AsyncClient, create_agent: CreateAgent, get: Get, team: TeamKey, fake_llm: FakeLlm
    ) -> None:
        agent = await create_agent(team, **SMALL)
        latest = await get(team, f"/v1/agents/{agent['id']}/analysis/latest")
        response = await client.post(
            SUGGEST, json={"intent": "underwater basket weaving"}, headers=team.headers
        )
        assert response.status_code == 200
        assert fake_llm.requests == []
        assert latest["cost_usd"] == 0 and not latest["analysis_data"]["overview"].startswith(PREFIX)


LOCAL = {
    "key_highlight": None,
    "overview": "12 videos analysed (tiktok 12), grouped into 1 themes; 2 fit no theme.",
    "themes": [
        {
            "stable_key": "th_a",
            "name": "bread",
            "why_it_works": "Median 1,200 views, 2.50x the agent's median.",
            "tactics": ["#bread"],
            "confidence": 0.5,
            "video_count": 10,
            "evidence_video_ids": ["v1"],
        }
    ],
    "viral_tactics": [],
    "timing_analysis": {"timezone": "UTC"},
    "connecting_thread": None,
    "top_10_breakdown": {"videos": []},
    "excluded_videos": [],
}


def merged(reply: dict[str, Any]) -> dict[str, Any] | str:
    try:
        return writing.merge_analysis(LOCAL, reply, writing.numbers_of(writing.analysis_prompt(LOCAL)))
    except writing.Rejected as rejected:
        return rejected.reason


class TestGuards:
    """The guards of ``agent/writing.py`` on plain data."""

    def test_numbers_as_written_elsewhere_are_the_same_numbers(self) -> None:
        theme = {"stable_key": "th_a", "why_it_works": "About 1200 views: 2.5x the median."}
        found = merged({"overview": "Of 12 videos, 2 fit no theme.", "themes": [theme]})
        assert isinstance(found, dict)
        assert found["themes"][0]["why_it_works"] == theme["why_it_works"]
        assert found["themes"][0]["video_count"] == 10 and found["key_highlight"] is None

    def test_a_theme_left_out_keeps_its_text(self) -> None:
        found = merged({"overview": "Twelve videos, one theme."})
        assert isinstance(found, dict) and found["themes"] == LOCAL["themes"]

    @pytest.mark.parametrize(
        ("reply", "reason"),
        [
            ({"overview": "12 videos", "key_highlight": "Bread leads."}, "changed_fact"),  # none to reword
            ({"overview": "13 videos analysed."}, "changed_fact"),
            ({"overview": None}, "invalid_reply"),
            ({"overview": "   "}, "invalid_reply"),
            ({"overview": "x" * 2001}, "too_long"),
            ({"themes": [{"stable_key": "th_a"}, {"stable_key": "th_a"}]}, "changed_fact"),
            ({"themes": [{"why_it_works": "no key"}]}, "changed_fact"),
            ({"themes": [{"stable_key": "th_a", "name": "cake"}]}, "changed_fact"),
            ({"themes": "th_a"}, "invalid_reply"),
            ({"excluded_videos": [{"video_id": "v1", "reason": "no_text"}]}, "changed_fact"),
            ({"verdict": "great"}, "changed_fact"),
        ],
    )
    def test_refused(self, reply: dict[str, Any], reason: str) -> None:
        assert merged(reply) == reason

    def test_a_theme_key_that_is_not_a_string_is_refused(self) -> None:
        """A key the reply made a list or an object cannot name a theme (nor crash the merge)."""
        assert merged({"themes": [{"stable_key": ["th_a"], "why_it_works": "x"}]}) == "changed_fact"
        assert merged({"themes": [{"stable_key": {"k": 1}}]}) == "changed_fact"

    def test_digits_inside_ids_are_no_number_a_text_may_quote(self) -> None:
        """An item's id is sent with its facts; the 4 and 6789 in a uuid are not figures the summary
        may add ("about 6789 views" is made up)."""
        item_id = "video:0a1b2c3d-4e5f-6789-abcd-ef0123456789"
        items = [(item_id, {"summary": "A food video about bread.", "category": "food"})]
        prompt = writing.summaries_prompt(items)
        for invented in ("Seen about 6789 times.", "A food video, 4 of them about bread."):
            reply = {"items": [{"id": item_id, "summary": invented}]}
            with pytest.raises(writing.Rejected, match="changed_fact"):
                writing.merge_summaries(items, reply, prompt)
        kept = {"items": [{"id": item_id, "summary": "Bread, as food."}]}
        assert writing.merge_summaries(items, kept, prompt) == {item_id: "Bread, as food."}
