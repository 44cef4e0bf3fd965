"""The read-time lists of an agent (spec §4.4, §4.5, §8.3), all free: videos, slideshows, ads, creator
outliers, sounds, hashtags, benchmarks. Filters apply at read time; collection scope is the service's.

Pages are plain ``ORDER BY … OFFSET``; every order ends on the row id, so an item never repeats across
pages while the list is unchanged (clients must still tolerate repeats, §8.3).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.agent import repository
from reelscope.agent.run import metrics
from reelscope.agent.schemas import (
    AdPage,
    AdQuery,
    AgentPageQuery,
    Benchmarks,
    ItemQuery,
    OutlierPage,
    OutlierQuery,
    SlideshowPage,
    Sort,
    SoundQuery,
    VideoPage,
)
from reelscope.catalog import reads as catalog_reads
from reelscope.digest import service as digest_service
from reelscope.kit.clock import iso
from reelscope.kit.pagination import Page, PageQuery, Pagination
from reelscope.models import Agent


def _filters(query: ItemQuery) -> dict[str, Any]:
    return {
        "min_views": query.min_views,
        "platforms": [p.value for p in query.platforms] if query.platforms else None,
        "start_date": query.start_date,
        "end_date": query.end_date,
        "intent_match": query.intent_match,
    }


def _page_fields(query: AgentPageQuery, total: int) -> dict[str, int]:
    return {"total": total, "limit": query.limit, "offset": query.skip, "page": query.page}


def _intelligence(agent: Agent, status: str) -> str:
    # §2.6: `disabled` whenever the agent has no Data Intelligence (also after it was switched off)
    return status if agent.data_intelligence_enabled else "disabled"


async def videos(
    session: AsyncSession,
    agent: Agent,
    query: AgentPageQuery,
    *,
    filters: dict[str, Any] | None = None,
    order: str = "publish_date",
    descending: bool = True,
) -> VideoPage:
    """A page of the agent's videos; ``order`` is one of ``repository.LINK_ORDERS`` or ``VIDEO_ORDERS``."""
    rows, total = await repository.page_videos(
        session, agent.id, filters or {}, order, descending, query.skip, query.limit
    )
    items = [
        {
            **digest_service.render(row),
            "intelligence_status": _intelligence(agent, row.intelligence_status),
            "intelligence": row.intelligence if agent.data_intelligence_enabled else None,
            "intent_match": row.intent_match,
            "keyword": row.keyword,
            "created_at": iso(row.linked_at),
        }
        for row in rows
    ]
    return VideoPage(**_page_fields(query, total), videos=items)


async def filtered_videos(session: AsyncSession, agent: Agent, query: ItemQuery) -> VideoPage:
    return await videos(
        session,
        agent,
        query,
        filters=_filters(query),
        order=query.order_by.value,
        descending=query.sort is Sort.DESC,
    )


async def slideshows(session: AsyncSession, agent: Agent, query: ItemQuery) -> SlideshowPage:
    rows, total = await repository.page_slideshows(
        session,
        agent.id,
        _filters(query),
        query.order_by.value,
        query.sort is Sort.DESC,
        query.skip,
        query.limit,
    )
    items = [
        {
            "id": row.id,
            "external_id": row.external_id,
            "url": row.url,
            "type": row.platform,
            "description": row.description,
            "panels": row.panels,
            "image_count": row.image_count,
            "publish_date": catalog_reads.publish_date(row.published_at),
            "views": row.views,
            "number_of_likes": row.likes,
            "number_of_comments": row.comments,
            "number_of_shares": row.shares,
            "bookmarks": row.bookmarks,
            "hashtags": row.hashtags,
            "thumbnail_url": row.thumbnail_url,
            "sound_id": row.sound_id,
            "author_id": row.creator_id,
            "intelligence_status": _intelligence(agent, row.intelligence_status),
            "intelligence": row.intelligence if agent.data_intelligence_enabled else None,
            "intent_match": row.intent_match,
            "keyword": row.keyword,
            "created_at": iso(row.linked_at),
        }
        for row in rows
    ]
    return SlideshowPage(**_page_fields(query, total), slideshows=items)


async def ads(session: AsyncSession, agent: Agent, query: AdQuery) -> AdPage:
    rows, total = await repository.page_ads(
        session, agent.id, query.order_by.value, query.sort is Sort.DESC, query.skip, query.limit
    )
    items = [
        {
            "id": ad.id,
            "external_id": ad.external_id,
            "page_id": ad.page_id,
            "page_name": ad.page_name,
            "page_like_count": ad.page_likes,
            "bodies": ad.bodies,
            "start_date": iso(ad.start_date),
            "stop_date": iso(ad.stop_date),
            "publisher_platforms": ad.publisher_platforms,
            "snapshot_url": ad.snapshot_url,
            "languages": ad.languages,
            "keyword": keyword,
            "created_at": iso(linked_at),
        }
        for ad, keyword, linked_at in rows
    ]
    return AdPage(**_page_fields(query, total), ads=items)


async def outliers(session: AsyncSession, agent: Agent, query: OutlierQuery) -> OutlierPage:
    rows, total = await repository.page_outliers(
        session,
        agent.id,
        query.platform.value if query.platform else None,
        query.order_by.value,
        query.sort is Sort.DESC,
        query.skip,
        query.limit,
    )
    items = [
        {
            "creator_id": c.creator_id,
            "platform": c.platform,
            "handle": c.handle,
            "follower_count": c.follower_count,
            "video_count": c.video_count,
            "avg_views": c.avg_views,
            "median_views": c.median_views,
            "outlier_ratio": c.outlier_ratio,
            "weighted_score": c.weighted_score,
            "top_video": {"id": c.top_video_id, "views": c.top_video_views},
            "updated_at": iso(c.updated_at),
        }
        for c in rows
    ]
    return OutlierPage(**_page_fields(query, total), creators=items)


def _as_page_query(query: AgentPageQuery) -> PageQuery:
    return PageQuery(page=query.page, limit=query.limit)


async def sounds(session: AsyncSession, agent: Agent, query: SoundQuery) -> Page[dict[str, Any]]:
    rows, total = await repository.page_sounds(session, agent.id, query.sort.value, query.skip, query.limit)
    items = [
        {
            **catalog_reads.sound_object(sound),
            "video_count": stat.video_count,
            "total_views": stat.total_views,
            "videos_7d": stat.videos_7d,
            "videos_prev_7d": stat.videos_prev_7d,
            "growth_7d": stat.growth_7d,
            "rising_score": stat.rising_score,
            "lifecycle": stat.lifecycle,
            "first_used_at": iso(stat.first_used_at),
            "last_used_at": iso(stat.last_used_at),
        }
        for stat, sound in rows
    ]
    return Page(data=items, pagination=Pagination.of(_as_page_query(query), total))


async def hashtags(session: AsyncSession, agent: Agent, query: AgentPageQuery) -> Page[dict[str, Any]]:
    rows, total = await repository.page_hashtags(session, agent.id, query.skip, query.limit)
    items = [
        {
            "hashtag": h.display,
            "video_count": h.video_count,
            "total_views": h.total_views,
            "avg_views": h.avg_views,
            "videos_7d": h.videos_7d,
            "videos_prev_7d": h.videos_prev_7d,
            "growth_7d": h.growth_7d,
            "top_creators": h.top_creators,
        }
        for h in rows
    ]
    return Page(data=items, pagination=Pagination.of(_as_page_query(query), total))


def benchmarks(agent: Agent) -> Benchmarks:
    stored = agent.benchmarks or {}
    if not stored:  # no run has stored any yet: every tier, empty
        return Benchmarks(
            computed_at=None, video_count=0, tiers=metrics.benchmarks([], agent.created_at)["tiers"]
        )
    return Benchmarks(
        computed_at=stored.get("computed_at"), video_count=stored["video_count"], tiers=stored["tiers"]
    )
