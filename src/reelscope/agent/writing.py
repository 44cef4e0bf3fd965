"""The agents' written fields, reworded by the optional LLM (ARCHITECTURE §8, ADR 0031).

The local result is always computed first and is complete on its own. When a provider is configured
(``llm/client.py``), it is asked to reword only the written fields, given the local facts and text:

    analysis (§6.3)        analysis_data.key_highlight, .overview, each theme's why_it_works
    Data Intelligence      each item's ``summary`` (§2.6)
    suggest-keywords       ``reasoning`` (§4.4)

Everything else is a fact (counts, ids, evidence, stable keys, scores) and never comes from the reply.
A reply is used only when it passes every guard, otherwise the local text stays and a warning event
``agent.writing.fallback`` says why (never with the key, the prompt or the reply):

* it is a JSON object of the asked shape (the client already refused anything else);
* a field it carries beside the written ones equals the local value (a reply may echo facts, not
  change them), and it names exactly the themes or items it was given;
* the merged result validates with the models the local result goes out with (``events.AnalysisData``
  and ``events.Theme`` for the analysis webhook, ``KeywordSuggestion`` for suggest-keywords);
* each written text is non-empty, of bounded length, and every number in it is one of the numbers in
  the facts it was given ("42 videos" when the facts say 7 is a changed fact).

Whatever the provider reports as usage is priced into ``cost_usd`` (the service's own cost, §6.3), a
rejected reply included: it was paid for.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.agent import repository
from reelscope.agent.schemas import KeywordSuggestion
from reelscope.events.schemas import AnalysisData, Theme
from reelscope.kit.logging import get_logger
from reelscope.llm.client import LlmClient, LlmFailure
from reelscope.models import Agent, AgentRun, AgentSlideshow, AgentVideo

log = get_logger(__name__)

SUMMARY_CHUNK = 20  # items per request: a few thousand tokens each way
MAX_TEXT = 2000  # characters of one written field (or twice the local text, when that is longer)

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")

SYSTEM = (
    "You edit the written fields of a short-form video research report so they read clearly and "
    "naturally. You may only reword. Every claim must come from the `facts` and the current `text` you "
    "are given: keep every number, name and term as given, add no number, statistic, cause or claim that "
    "is not there, and do not change or invent ids or keys. Reply with one JSON object and nothing else, "
    "shaped exactly as described in `reply_shape`."
)


class Rejected(Exception):
    """A reply that must not replace the local text; ``reason`` says which guard refused it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# --- the guards ------------------------------------------------------------------------------------


def _numbers(text: str) -> set[str]:
    """Numbers as written, normalized: thousands separators dropped, trailing decimal zeros dropped
    (``1,200`` = ``1200``, ``2.50`` = ``2.5``, ``3.0`` = ``3``)."""
    found = set()
    for token in _NUMBER.findall(text):
        plain = token.replace(",", "")
        if "." in plain:
            plain = plain.rstrip("0").rstrip(".")
        found.add(plain)
    return found


# names, not quantities: the digits inside an id or a key ("video:0a1b…-6789…", "th_2") are no figure a
# reworded text may quote, and a uuid's would let most small numbers through
_NAMES = frozenset({"id", "stable_key"})


def numbers_of(facts: Any) -> set[str]:
    """The numbers written in ``facts`` (the facts and local text sent), leaving out ids and keys."""
    if isinstance(facts, Mapping):
        return set().union(*(numbers_of(v) for k, v in facts.items() if k not in _NAMES))
    if isinstance(facts, list | tuple):
        return set().union(*(numbers_of(v) for v in facts))
    return _numbers(json.dumps(facts, ensure_ascii=False))


def checked_text(value: Any, local: str, allowed: set[str]) -> str:
    """A reworded field, or Rejected: a non-empty string of bounded length with no number of its own."""
    if not isinstance(value, str) or not value.strip():
        raise Rejected("invalid_reply")
    text = value.strip()
    if len(text) > max(MAX_TEXT, 2 * len(local)):
        raise Rejected("too_long")
    if not _numbers(text) <= allowed:
        raise Rejected("changed_fact")
    return text


def _same_facts(reply: Mapping[str, Any], local: Mapping[str, Any], written: Iterable[str]) -> None:
    """Every field the reply carries beside the written ones must equal the local value."""
    skip = set(written)
    for key, value in reply.items():
        if key not in skip and (key not in local or value != local[key]):
            raise Rejected("changed_fact")


# --- asking ----------------------------------------------------------------------------------------


@dataclass(slots=True)
class Reply:
    content: dict[str, Any] | None
    cost_usd: float


async def _ask(llm: LlmClient, task: str, prompt: dict[str, Any]) -> Reply:
    try:
        completion = await llm.complete_json(SYSTEM, json.dumps(prompt, ensure_ascii=False))
    except LlmFailure as failure:
        log.warning(
            "agent.writing.fallback", task=task, reason=failure.reason, status=failure.status, model=llm.model
        )
        return Reply(None, llm.prices.cost(failure.usage))
    return Reply(completion.content, llm.prices.cost(completion.usage))


def _rejected(task: str, llm: LlmClient, rejected: Rejected) -> None:
    log.warning("agent.writing.fallback", task=task, reason=rejected.reason, model=llm.model)


# --- the analysis (§6.3) ---------------------------------------------------------------------------


def analysis_prompt(data: Mapping[str, Any]) -> dict[str, Any]:
    themes = data.get("themes") or []
    timing = data.get("timing_analysis") or {}
    thread = data.get("connecting_thread") or {}
    return {
        "task": "Reword key_highlight, overview and each theme's why_it_works of this analysis.",
        "facts": {
            "themes": [
                {k: t[k] for k in ("stable_key", "name", "tactics", "confidence", "video_count")}
                for t in themes
            ],
            "viral_tactics": data.get("viral_tactics") or [],
            "best_hour_utc": timing.get("best_hour_utc"),
            "best_weekday": timing.get("best_weekday"),
            "shared_terms": thread.get("shared_terms") or [],
            "excluded_video_count": len(data.get("excluded_videos") or []),
        },
        "text": {
            "key_highlight": data.get("key_highlight"),
            "overview": data.get("overview"),
            "themes": [{"stable_key": t["stable_key"], "why_it_works": t["why_it_works"]} for t in themes],
        },
        "reply_shape": {
            "key_highlight": "string (null if the given one is null)",
            "overview": "string",
            "themes": [{"stable_key": "the given key, unchanged", "why_it_works": "string"}],
        },
    }


def merge_analysis(data: Mapping[str, Any], reply: Mapping[str, Any], allowed: set[str]) -> dict[str, Any]:
    """The local analysis_data with the reply's wording, or Rejected."""
    _same_facts(reply, data, ("key_highlight", "overview", "themes"))
    merged = dict(data)
    for key in ("key_highlight", "overview"):
        local = data.get(key)
        if local is None:  # nothing to reword: the reply may not invent one
            if reply.get(key) is not None:
                raise Rejected("changed_fact")
        elif key in reply:
            merged[key] = checked_text(reply[key], local, allowed)
    local_themes: list[dict[str, Any]] = list(data.get("themes") or [])
    given = reply.get("themes", [])
    if not isinstance(given, list) or not all(isinstance(t, dict) for t in given):
        raise Rejected("invalid_reply")
    keys = [t.get("stable_key") for t in given]
    if not all(isinstance(k, str) for k in keys):
        raise Rejected("changed_fact")  # no key, or one that cannot be a theme's (a list, an object)
    by_key = dict(zip(keys, given, strict=True))
    if len(by_key) != len(given) or not set(by_key) <= {t["stable_key"] for t in local_themes}:
        raise Rejected("changed_fact")  # a theme it was not given, or one twice
    themes = []
    for local_theme in local_themes:
        theme = dict(local_theme)
        found = by_key.get(local_theme["stable_key"])
        if found is not None:
            _same_facts(found, local_theme, ("why_it_works",))
            if "why_it_works" in found:
                own = local_theme["why_it_works"]
                theme["why_it_works"] = checked_text(found["why_it_works"], own, allowed)
        themes.append(theme)
    merged["themes"] = themes
    try:  # the models the analysis goes out with (the §6.3 webhook)
        AnalysisData.model_validate(merged)
        for theme in themes:
            Theme.model_validate(theme)
    except ValidationError:
        raise Rejected("invalid_reply") from None
    return merged


async def reword_analysis(llm: LlmClient, data: dict[str, Any]) -> tuple[dict[str, Any], float]:
    """(analysis_data, cost): the reworded analysis_data, or the local one unchanged."""
    if not data.get("overview"):
        return data, 0.0
    prompt = analysis_prompt(data)
    reply = await _ask(llm, "analysis", prompt)
    if reply.content is None:
        return data, reply.cost_usd
    try:
        return merge_analysis(data, reply.content, numbers_of(prompt)), reply.cost_usd
    except Rejected as rejected:
        _rejected("analysis", llm, rejected)
        return data, reply.cost_usd


# --- Data Intelligence summaries (§2.6) -------------------------------------------------------------

# what a summary is made of (analysis/intelligence.py ``_summary``): the facts sent with it
SUMMARY_FACTS = (
    "category",
    "language_detected",
    "primary_topic",
    "secondary_topics",
    "hook_type",
    "hook_text",
    "sentiment",
    "is_sponsored",
    "is_educational",
    "brands_mentioned",
    "cta_usages",
)


def summaries_prompt(items: Sequence[tuple[str, Mapping[str, Any]]]) -> dict[str, Any]:
    return {
        "task": "Reword the summary of each item (one sentence or two, plain language).",
        "items": [
            {
                "id": item_id,
                "facts": {k: found.get(k) for k in SUMMARY_FACTS if k in found},
                "summary": found["summary"],
            }
            for item_id, found in items
        ],
        "reply_shape": {"items": [{"id": "the given id, unchanged", "summary": "string"}]},
    }


def merge_summaries(
    items: Sequence[tuple[str, Mapping[str, Any]]], reply: Mapping[str, Any], prompt: Mapping[str, Any]
) -> dict[str, str]:
    """Item id → reworded summary (items the reply left out keep theirs), or Rejected for the chunk."""
    _same_facts(reply, {}, ("items",))
    given = reply.get("items")
    if not isinstance(given, list) or not all(isinstance(i, dict) for i in given):
        raise Rejected("invalid_reply")
    local = dict(items)
    sent = {entry["id"]: entry for entry in prompt["items"]}
    found: dict[str, str] = {}
    for entry in given:
        item_id = entry.get("id")
        if not isinstance(item_id, str) or item_id not in local or item_id in found:
            raise Rejected("changed_fact")
        _same_facts(entry, {**local[item_id], "id": item_id}, ("summary", "facts"))
        if entry.get("facts", sent[item_id]["facts"]) != sent[item_id]["facts"]:
            raise Rejected("changed_fact")
        if "summary" in entry:
            own = local[item_id]["summary"]
            found[item_id] = checked_text(entry["summary"], own, numbers_of(sent[item_id]))
    return found


async def reword_summaries(
    llm: LlmClient, items: Sequence[tuple[str, Mapping[str, Any]]]
) -> tuple[dict[str, str], float]:
    """(item id → reworded summary, cost) for items whose intelligence has a summary, in chunks (after a
    provider failure the client gives up at once: the other chunks keep their local text)."""
    found: dict[str, str] = {}
    cost = 0.0
    worded = [(i, f) for i, f in items if f.get("summary")]
    for chunk in (worded[n : n + SUMMARY_CHUNK] for n in range(0, len(worded), SUMMARY_CHUNK)):
        prompt = summaries_prompt(chunk)
        reply = await _ask(llm, "intelligence_summary", prompt)
        cost += reply.cost_usd
        if reply.content is None:
            continue
        try:
            found.update(merge_summaries(chunk, reply.content, prompt))
        except Rejected as rejected:
            _rejected("intelligence_summary", llm, rejected)
    return found, cost


# --- suggest-keywords (§4.4) -----------------------------------------------------------------------


async def reword_reasoning(llm: LlmClient | None, suggestion: KeywordSuggestion) -> KeywordSuggestion:
    """The suggestion with its reasoning reworded, or unchanged (also without a provider)."""
    if llm is None or not suggestion.reasoning:
        return suggestion
    local = suggestion.model_dump()
    prompt = {
        "task": "Reword the reasoning behind these keyword suggestions.",
        "facts": {k: v for k, v in local.items() if k != "reasoning"},
        "text": {"reasoning": suggestion.reasoning},
        "reply_shape": {"reasoning": "string"},
    }
    reply = await _ask(llm, "suggest_keywords", prompt)
    if reply.cost_usd:
        log.info("agent.writing.cost", task="suggest_keywords", cost_usd=round(reply.cost_usd, 6))
    if reply.content is None:
        return suggestion
    try:
        _same_facts(reply.content, local, ("reasoning",))
        text = checked_text(reply.content.get("reasoning"), suggestion.reasoning, numbers_of(prompt))
        return KeywordSuggestion.model_validate({**local, "reasoning": text})
    except ValidationError:
        _rejected("suggest_keywords", llm, Rejected("invalid_reply"))
    except Rejected as rejected:
        _rejected("suggest_keywords", llm, rejected)
    return suggestion


# --- the analysis job: what to reword, then storing it ---------------------------------------------


@dataclass(slots=True)
class Draft:
    """What the analysis job wrote locally and may reword: plain data, read in the job's first
    transaction and reworded outside any transaction (the provider may take seconds; ADR 0031)."""

    analysis_id: str | None = None
    analysis_data: dict[str, Any] | None = None
    # (kind, item id) → the item's local intelligence object
    items: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)


@dataclass(slots=True)
class Written:
    analysis_id: str | None
    local_data: dict[str, Any] | None
    analysis_data: dict[str, Any] | None
    # (kind, item id) → (local summary, reworded summary)
    summaries: dict[tuple[str, str], tuple[str, str]]
    cost_usd: float


async def pending_items(session: AsyncSession, agent: Agent) -> list[AgentVideo | AgentSlideshow]:
    """The links Data Intelligence is about to annotate (read before it does, kept for the draft)."""
    if not agent.data_intelligence_enabled:
        return []
    videos = [row[0] for row in await repository.pending_videos(session, agent.id)]
    slideshows = [row[0] for row in await repository.pending_slideshows(session, agent.id)]
    return [*videos, *slideshows]


def draft(analysis: Mapping[str, Any] | None, annotated: Sequence[AgentVideo | AgentSlideshow]) -> Draft:
    """``analysis``: the analysis this job built (None when it built none); ``annotated``: the links
    ``pending_items`` returned, now annotated."""
    found = Draft()
    if analysis is not None:
        found.analysis_id, found.analysis_data = analysis["id"], analysis["analysis_data"]
    for link in annotated:
        if link.intelligence_status == "ready" and link.intelligence:
            if isinstance(link, AgentVideo):
                found.items[("video", link.video_id)] = link.intelligence
            else:
                found.items[("slideshow", link.slideshow_id)] = link.intelligence
    return found


async def reword(llm: LlmClient, found: Draft) -> Written:
    cost = 0.0
    data = None
    if found.analysis_data is not None:
        data, cost = await reword_analysis(llm, found.analysis_data)
    keyed = {f"{kind}:{item_id}": (kind, item_id) for kind, item_id in found.items}
    texts, summary_cost = await reword_summaries(
        llm, [(name, found.items[key]) for name, key in keyed.items()]
    )
    summaries = {keyed[name]: (found.items[keyed[name]]["summary"], text) for name, text in texts.items()}
    return Written(
        analysis_id=found.analysis_id,
        local_data=found.analysis_data,
        analysis_data=None if data is found.analysis_data else data,
        summaries=summaries,
        cost_usd=cost + summary_cost,
    )


async def store(session: AsyncSession, agent: Agent, run: AgentRun, written: Written) -> None:
    """Put the reworded text where the local text was, unless it changed meanwhile; add the cost to the
    run's analysis (§6.3 ``cost_usd``: the service's own cost)."""
    analysis = run.analysis
    if analysis is not None and analysis.get("id") == written.analysis_id:
        updated = {**analysis, "cost_usd": round(float(analysis.get("cost_usd") or 0) + written.cost_usd, 6)}
        data = written.analysis_data
        if data is not None:
            updated.update(analysis_data=data, trends=[dict(t) for t in data["themes"]])
            if agent.analysis_data == written.local_data:
                agent.analysis_data = data
            why = {t["stable_key"]: t["why_it_works"] for t in data["themes"]}
            for row in await repository.trends_of_run(session, run.id):
                if row.stable_key in why:
                    row.data = {**row.data, "why_it_works": why[row.stable_key]}
        run.analysis = updated
    elif written.cost_usd:  # no analysis of this job to carry the cost (none was built): logged only
        log.info("agent.writing.cost", run_id=run.id, cost_usd=round(written.cost_usd, 6))
    for (kind, item_id), (local, text) in written.summaries.items():
        link: AgentVideo | AgentSlideshow | None = (
            await session.get(AgentVideo, (agent.id, item_id))
            if kind == "video"
            else await session.get(AgentSlideshow, (agent.id, item_id))
        )
        if link is not None and link.intelligence and link.intelligence.get("summary") == local:
            link.intelligence = {**link.intelligence, "summary": text}
