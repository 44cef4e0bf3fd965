"""POST /v1/agents/suggest-keywords (spec §4.4): free, synchronous, creates nothing. Reads the catalog's
last 30 days for the seed terms and the hashtags used with them; ``analysis.keywords`` ranks them. With
an LLM provider configured, its ``reasoning`` is reworded (``agent/writing.py``, ADR 0031)."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import case, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.agent import writing
from reelscope.agent.schemas import KeywordSuggestion, SuggestKeywords
from reelscope.analysis import keywords as ranking
from reelscope.analysis.text import STOPWORDS, normalize_hashtag, phrases, words
from reelscope.config import Settings
from reelscope.llm import client as llm_client
from reelscope.models import Hashtag, Video, VideoHashtag

WINDOW = timedelta(days=30)
WEEK = timedelta(days=7)
SEED_VIDEOS = 2000  # the most recent seed videos read for co-occurrence
ADJACENT = 60  # co-occurring hashtags considered


def seeds_of(intent: str | None, given: list[str]) -> list[str]:
    """Hashtag keys to look up: the given keywords, the intent's content words and two-word phrases
    written as one tag ("home workout" → homeworkout)."""
    found: list[str] = [normalize_hashtag(k).replace(" ", "") for k in given]
    if intent:
        found += [w for w in words(intent) if len(w) >= 3 and w not in STOPWORDS and not w.isdigit()]
        found += sorted(p.replace(" ", "") for p in phrases(intent, sizes=(2,)))
    return [s for s in dict.fromkeys(found) if s][:40]


async def suggest(
    session: AsyncSession, body: SuggestKeywords, now: datetime, settings: Settings
) -> KeywordSuggestion:
    """The suggestion read from the catalog, then its reasoning reworded by the LLM if one is configured.
    The session is closed between the two: a provider may take seconds to answer (up to its timeout),
    and a request waiting on it must not hold one of the pool's connections meanwhile (on PostgreSQL,
    forty such requests would hold the whole pool). A read session; the contract's own close after the
    endpoint then finds nothing to do."""
    local = await _from_catalog(session, body, now)
    await session.close()
    async with llm_client.open_client(settings) as llm:
        return await writing.reword_reasoning(llm, local)


async def _from_catalog(session: AsyncSession, body: SuggestKeywords, now: datetime) -> KeywordSuggestion:
    seeds = seeds_of(body.intent, body.keywords)
    since, week, prev_week = now - WINDOW, now - WEEK, now - 2 * WEEK
    seed_rows = (await session.execute(select(Hashtag.id, Hashtag.key).where(Hashtag.key.in_(seeds)))).all()
    seed_ids = [row.id for row in seed_rows]
    co: dict[str, int] = {}
    seed_videos = 0
    if seed_ids:
        recent = (
            select(VideoHashtag.video_id)
            .join(Video, Video.id == VideoHashtag.video_id)
            .where(
                VideoHashtag.hashtag_id.in_(seed_ids), Video.published_at >= since, Video.published_at <= now
            )
            .distinct()
            .order_by(VideoHashtag.video_id)
            .limit(SEED_VIDEOS)
            .subquery()
        )
        seed_videos = await session.scalar(select(func.count()).select_from(recent)) or 0
        rows = await session.execute(
            select(VideoHashtag.hashtag_id, func.count().label("n"))
            .where(VideoHashtag.video_id.in_(select(recent.c.video_id)))
            .group_by(VideoHashtag.hashtag_id)
            .order_by(func.count().desc(), VideoHashtag.hashtag_id)
            .limit(ADJACENT + len(seed_ids))
        )
        co = {hid: n for hid, n in rows}
    ids = list(dict.fromkeys([*seed_ids, *co]))
    candidates: list[ranking.Candidate] = []
    if ids:
        stats = await session.execute(
            select(
                Hashtag.id,
                Hashtag.key,
                Hashtag.display,
                func.count(Video.id),
                func.sum(case((Video.published_at >= week, 1), else_=0)),
                func.sum(case(((Video.published_at >= prev_week) & (Video.published_at < week), 1), else_=0)),
            )
            .join(VideoHashtag, VideoHashtag.hashtag_id == Hashtag.id)
            .join(Video, Video.id == VideoHashtag.video_id)
            .where(Hashtag.id.in_(ids), Video.published_at >= since, Video.published_at <= now)
            .group_by(Hashtag.id, Hashtag.key, Hashtag.display)
        )
        seed_set = set(seed_ids)
        for hid, key, display, total, last, prev in stats:
            candidates.append(
                ranking.Candidate(
                    key=key,
                    display=display,
                    is_seed=hid in seed_set,
                    videos_30d=int(total or 0),
                    videos_7d=int(last or 0),
                    videos_prev_7d=int(prev or 0),
                    co_occurrences=co.get(hid, 0),
                )
            )
        candidates.sort(key=lambda c: c.key)
    found = ranking.suggest(
        body.mode.value,
        seeds,
        candidates,
        seed_videos,
        given=[normalize_hashtag(k) for k in body.keywords],
        excluded=[normalize_hashtag(k) for k in body.exclude_keywords],
    )
    return KeywordSuggestion(
        mode=body.mode.value,
        keywords=found.keywords,
        exclude_keywords=found.exclude_keywords,
        reasoning=found.reasoning,
        quality_score=found.quality_score,
        seed_video_count=seed_videos,
        candidates=found.candidates,
    )
