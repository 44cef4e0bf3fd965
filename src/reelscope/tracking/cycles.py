"""One tracking cycle (spec §3, §4.7, §6.3; ADR 0023): read the source, debit, store, announce.

A cycle is one attempt of a jobs row, fired by the item's schedule (one job per due time, deduplicated
by the dispatcher) or, for the first cycle, created with the item. In order:

1. the item must still exist and be active; a scheduled cycle needs a balance that covers
   ``JOB_PRICES["tracking_cycle"]``, else the item pauses with ``insufficient_credits``;
2. the source is read outside any transaction; a failure counts one failed check, and the third in a
   row pauses the item with ``max_failures_reached`` (failed checks are not billed);
3. one transaction debits the cycle, stores the snapshot (with its ``delta_`` fields), the posts and the
   report, publishes ``tracking.cycle.completed`` and any ``tracking.outlier_video.detected``, has the
   item's dashboard page drawn again once it commits (if one is kept, ADR 0061), and completes the job,
   so a repeated attempt rolls all of it back (``JobLost``) and a due time is checked once (the
   snapshot is also unique per item and due time).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.analysis import outliers, totals
from reelscope.billing import service as billing_service
from reelscope.billing.prices import JOB_PRICES
from reelscope.collectors.base import Connector, CreatorRecord, VideoRecord, VideoStats
from reelscope.collectors.guard import SourceFailed, guarded
from reelscope.dashboard import service as dashboard_service
from reelscope.dashboard.links import Links, links_for
from reelscope.events import service as events_service
from reelscope.events.schemas import (
    OutlierVideo,
    TrackingCycleCompleted,
    TrackingOutlierDetected,
    TrackingPaused,
    TrackingSnapshot,
)
from reelscope.kit.clock import as_utc, iso
from reelscope.kit.errors import InsufficientCredits
from reelscope.kit.ids import new_id
from reelscope.kit.logging import get_logger
from reelscope.kit.platforms import Platform
from reelscope.models import TrackedItem, TrackedPost, TrackingSnapshotRow
from reelscope.tracking import service
from reelscope.worker import TaskContext

log = get_logger(__name__)

MAX_FAILURES = 3  # §3: "3 failed checks in a row"
POSTS_PER_CYCLE = 50
CYCLE_PRICE_KEY = "tracking_cycle"
INSUFFICIENT_CREDITS = "insufficient_credits"
MAX_FAILURES_REACHED = "max_failures_reached"
# numbers of a snapshot that get a delta_ field
CREATOR_DELTAS = ("followers", "total_views", "total_likes", "subscribers")
VIDEO_DELTAS = ("views", "likes", "comments", "shares", "bookmarks")


@dataclass(frozen=True)
class Reading:
    """What the source said in one check."""

    creator: CreatorRecord | None = None
    posts: Sequence[VideoRecord] = ()
    stats: VideoStats | None = None


async def read_source(connector: Connector, item: TrackedItem) -> Reading:
    """What the source says now; ``SourceFailed`` (collectors/guard.py) when it cannot say."""
    platform = Platform(item.platform)
    if item.kind == service.CREATOR:
        handle = item.handle or item.target
        creator = await guarded(connector.creator(platform, handle))
        posts = await guarded(connector.creator_posts(platform, handle, limit=POSTS_PER_CYCLE))
        return Reading(creator=creator, posts=posts)
    return Reading(stats=await guarded(connector.video_stats(platform, item.video_id or item.target)))


async def run(
    ctx: TaskContext, connector: Connector, item_id: str, scheduled_for: datetime, *, paid: bool
) -> dict[str, Any]:
    """One cycle of ``item_id`` for its due time ``scheduled_for`` (``paid``: debit it from the job)."""
    price = JOB_PRICES[CYCLE_PRICE_KEY] if paid else 0
    links = links_for(ctx.settings, ctx.clock)
    async with ctx.db.transaction() as session:
        item = await session.get(TrackedItem, item_id)
        skipped = await _skip_reason(session, item, scheduled_for)
        if skipped is not None or item is None:
            await ctx.complete(session, {"skipped": skipped})
            return {"skipped": skipped}
        try:
            await billing_service.ensure_affordable(session, item.team_id, price, at=ctx.now())
        except InsufficientCredits:
            await pause(session, item, INSUFFICIENT_CREDITS, ctx.now(), links)
            await ctx.complete(session, {"paused": INSUFFICIENT_CREDITS})
            return {"paused": INSUFFICIENT_CREDITS}
    try:
        reading = await read_source(connector, item)
    except SourceFailed as failure:
        return await _failed_check(ctx, item_id, failure, links)
    async with ctx.db.transaction() as session:
        item = await session.get(TrackedItem, item_id, populate_existing=True)
        skipped = await _skip_reason(session, item, scheduled_for)
        if skipped is not None or item is None:
            await ctx.complete(session, {"skipped": skipped})
            return {"skipped": skipped}
        charged = 0
        if price:
            try:
                await billing_service.charge(
                    session,
                    item.team_id,
                    price,
                    operation=CYCLE_PRICE_KEY,
                    reference=f"tracking:{item.id}:{iso(scheduled_for)}",
                    at=ctx.now(),
                )
                charged = price
            except InsufficientCredits:
                await pause(session, item, INSUFFICIENT_CREDITS, ctx.now(), links)
                await ctx.complete(session, {"paused": INSUFFICIENT_CREDITS})
                return {"paused": INSUFFICIENT_CREDITS}
        result = await _record(session, item, reading, scheduled_for, charged, ctx.now(), links)
        await ctx.complete(session, result)
    return result


async def _skip_reason(
    session: AsyncSession, item: TrackedItem | None, scheduled_for: datetime
) -> str | None:
    if item is None:
        return "deleted"
    if item.status != service.ACTIVE:
        return "paused"
    stmt = select(TrackingSnapshotRow.id).where(
        TrackingSnapshotRow.team_id == item.team_id,
        TrackingSnapshotRow.item_id == item.id,
        TrackingSnapshotRow.scheduled_for == scheduled_for,
    )
    if (await session.execute(stmt)).scalar_one_or_none() is not None:
        return "already_checked"
    return None


async def _failed_check(
    ctx: TaskContext, item_id: str, failure: SourceFailed, links: Links
) -> dict[str, Any]:
    async with ctx.db.transaction() as session:
        item = await session.get(TrackedItem, item_id, populate_existing=True)
        if item is None:
            await ctx.complete(session, {"skipped": "deleted"})
            return {"skipped": "deleted"}
        item.consecutive_failures += 1
        item.last_error = failure.error
        item.updated_at = ctx.now()
        paused = item.consecutive_failures >= MAX_FAILURES and item.status == service.ACTIVE
        if paused:
            await pause(session, item, MAX_FAILURES_REACHED, ctx.now(), links)
        result = {"check": "failed", "failures": item.consecutive_failures, "paused": paused}
        await ctx.complete(session, result)
    log.warning(
        "tracking.check_failed", item_id=item_id, failures=result["failures"], error=str(failure.__cause__)
    )
    return result


async def pause(session: AsyncSession, item: TrackedItem, reason: str, now: datetime, links: Links) -> None:
    """§3: active → paused, with ``tracking.paused`` carrying the reason under both names (§6.3)."""
    item.status, item.pause_reason, item.updated_at = service.PAUSED, reason, now
    await service.set_schedule_active(session, item, False, now)
    await events_service.publish(
        session,
        "tracking.paused",
        TrackingPaused(
            tracking_type="creator" if item.kind == service.CREATOR else "video",
            tracking_id=item.id,
            platform=Platform(item.platform),
            platform_handle=item.handle,
            reason=reason,
            pause_reason=reason,
            dashboard_url=service.dashboard_url(item, links),
        ),
        item.team_id,
        at=now,
    )
    log.info("tracking.paused", item_id=item.id, reason=reason)


# --- a successful check ----------------------------------------------------------------------------


async def _record(
    session: AsyncSession,
    item: TrackedItem,
    reading: Reading,
    scheduled_for: datetime,
    charged: int,
    now: datetime,
    links: Links,
) -> dict[str, Any]:
    previous = item.latest_snapshot or {}
    first = item.cycles_completed == 0
    new_posts: list[TrackedPost] = []
    found: list[outliers.Outlier] = []
    stored: list[tuple[TrackedPost, bool]] = []
    if item.kind == service.CREATOR:
        assert reading.creator is not None
        stored = await store_posts(session, item, reading.posts, now, baseline=first)
        new_posts = [post for post, created in stored if created and post.is_new]
        found = _outliers(stored, now)
        metrics = creator_metrics(item, reading.creator, reading.posts)
        metrics.update(deltas(metrics, previous, CREATOR_DELTAS, first))
    else:
        assert reading.stats is not None
        metrics = video_metrics(item, reading.stats)
        metrics.update(deltas(metrics, previous, VIDEO_DELTAS, first))
    report = build_report(item, metrics, [post for post, _ in stored], new_posts, found, now)
    session.add(
        TrackingSnapshotRow(
            id=new_id(),
            item_id=item.id,
            team_id=item.team_id,
            scheduled_for=scheduled_for,
            taken_at=now,
            metrics=metrics,
            new_posts_count=len(new_posts),
            credits_charged=charged,
            report=report,
        )
    )
    item.latest_snapshot = metrics
    item.consecutive_failures = 0
    item.last_error = None
    item.cycles_completed += 1
    item.last_checked_at = now
    item.updated_at = now
    await session.flush()
    tracking_type = "creator" if item.kind == service.CREATOR else "video"
    await events_service.publish(
        session,
        service.CYCLE_EVENT,
        TrackingCycleCompleted(
            tracking_type=tracking_type,
            tracking_id=item.id,
            platform=Platform(item.platform),
            platform_handle=item.handle if item.kind == service.CREATOR else None,
            video_url=item.video_url if item.kind == service.VIDEO else None,
            snapshot=TrackingSnapshot(**_snapshot_fields(metrics)),
            new_posts_count=len(new_posts),
            report_available=True,
            dashboard_url=service.dashboard_url(item, links),
        ),
        item.team_id,
        at=now,
    )
    if found:
        await _announce_outliers(session, item, found, now, links)
    await dashboard_service.draw_ahead(session, item.team_id, item.kind, item.id)
    return {
        "snapshot_at": iso(now),
        "scheduled_for": iso(scheduled_for),
        "new_posts": len(new_posts),
        "outliers": len(found),
        "charged_credits": charged,
    }


def _snapshot_fields(metrics: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in metrics.items() if key in TrackingSnapshot.model_fields}


def creator_metrics(
    item: TrackedItem, creator: CreatorRecord, posts: Sequence[VideoRecord]
) -> dict[str, Any]:
    """The snapshot's numbers; the profile's totals never below the posts read with it (issue 32
    item 5: a total under one of its own videos' views contradicts the posts list beside it)."""
    metrics: dict[str, Any] = {
        "followers": creator.followers,
        "following": creator.following,
        "total_views": totals.at_least_sum(creator.total_views, (post.views for post in posts)),
        "total_likes": totals.at_least_sum(creator.total_likes, (post.likes for post in posts)),
        "total_videos": totals.at_least_count(creator.video_count, len(posts)),
        "posts_analyzed": len(posts),
    }
    if item.platform == Platform.YOUTUBE.value:
        metrics["subscribers"] = creator.followers  # YouTube's followers are subscribers
    return metrics


def video_metrics(item: TrackedItem, stats: VideoStats) -> dict[str, Any]:
    return {
        "title": item.title,
        "views": stats.views,
        "likes": stats.likes,
        "comments": stats.comments,
        "shares": stats.shares,
        "bookmarks": stats.bookmarks,
    }


def deltas(
    metrics: dict[str, Any], previous: dict[str, Any], names: Sequence[str], first: bool
) -> dict[str, int | None]:
    """``delta_<name>`` = now − the previous snapshot, where both are known; none on the first cycle."""
    out: dict[str, int | None] = {}
    for name in names:
        current, before = metrics.get(name), previous.get(name)
        out[f"delta_{name}"] = None if first or current is None or before is None else current - before
    return out


async def store_posts(
    session: AsyncSession, item: TrackedItem, records: Sequence[VideoRecord], now: datetime, *, baseline: bool
) -> list[tuple[TrackedPost, bool]]:
    """Upsert ``records`` as the item's posts; ``(post, created)`` in the records' order. Posts first
    seen after the baseline (the first cycle, or a deep collection) are ``is_new``."""
    if not records:
        return []
    ids = [record.external_id for record in records]
    stmt = select(TrackedPost).where(
        TrackedPost.team_id == item.team_id, TrackedPost.item_id == item.id, TrackedPost.external_id.in_(ids)
    )
    known = {post.external_id: post for post in (await session.execute(stmt)).scalars()}
    out: list[tuple[TrackedPost, bool]] = []
    for record in records:
        post = known.get(record.external_id)
        created = post is None
        if post is None:
            post = TrackedPost(
                id=new_id(),
                item_id=item.id,
                team_id=item.team_id,
                external_id=record.external_id,
                url=record.url,
                published_at=record.published_at,
                is_new=not baseline,
                first_seen_at=now,
            )
            session.add(post)
            known[record.external_id] = post
        post.title = record.description
        post.thumbnail_url = record.thumbnail_url
        post.duration = record.duration
        post.hashtags = list(record.hashtags)
        post.views, post.likes, post.comments = record.views, record.likes, record.comments
        post.shares, post.bookmarks = record.shares, record.bookmarks
        post.updated_at = now
        out.append((post, created))
    return out


def _outliers(stored: Sequence[tuple[TrackedPost, bool]], now: datetime) -> list[outliers.Outlier]:
    """Posts published since tracking began over 3× the median views of the posts read now, each
    announced once (§6.3). Every post read gets its ratio."""
    posts = [post for post, _ in stored]
    median = outliers.median_views(post.views for post in posts)
    if median is None:
        return []
    for post in posts:
        post.outlier_ratio = outliers.outlier_ratio(post.views, median)
    by_id = {post.external_id: post for post in posts}
    found = [
        outlier
        for outlier in outliers.find_outliers([(post.external_id, post.views) for post in posts])
        if by_id[outlier.video_id].is_new and by_id[outlier.video_id].outlier_announced_at is None
    ]
    for outlier in found:
        by_id[outlier.video_id].outlier_announced_at = now
    return found


async def _announce_outliers(
    session: AsyncSession, item: TrackedItem, found: Sequence[outliers.Outlier], now: datetime, links: Links
) -> None:
    stmt = select(TrackedPost).where(
        TrackedPost.team_id == item.team_id,
        TrackedPost.item_id == item.id,
        TrackedPost.external_id.in_([o.video_id for o in found]),
    )
    posts = {post.external_id: post for post in (await session.execute(stmt)).scalars()}
    await events_service.publish(
        session,
        "tracking.outlier_video.detected",
        TrackingOutlierDetected(
            tracking_type="creator",
            tracking_id=item.id,
            platform=Platform(item.platform),
            platform_handle=item.handle or item.target,
            outlier_videos=[
                OutlierVideo(
                    url=posts[o.video_id].url,
                    title=posts[o.video_id].title,
                    views=o.views,
                    median_views=o.median_views,
                    outlier_ratio=round(o.outlier_ratio, 4),
                    weighted_score=round(o.weighted_score, 4),
                    publish_date=as_utc(posts[o.video_id].published_at),
                )
                for o in found
            ],
            creator_median_views=found[0].median_views,
            dashboard_url=service.dashboard_url(item, links),
        ),
        item.team_id,
        at=now,
    )


def build_report(
    item: TrackedItem,
    metrics: dict[str, Any],
    posts: Sequence[TrackedPost],
    new_posts: Sequence[TrackedPost],
    found: Sequence[outliers.Outlier],
    now: datetime,
) -> dict[str, Any]:
    """The cycle's report: the snapshot, and for creators the posts' median, the top and new posts, the
    outliers found and the posting rhythm of the posts read."""
    report: dict[str, Any] = {"generated_at": iso(now), "snapshot": service.snapshot_view(metrics)}
    if item.kind != service.CREATOR:
        return report
    median = outliers.median_views(post.views for post in posts)
    week_ago = now - timedelta(days=7)
    top = sorted(posts, key=lambda post: (-post.views, post.external_id))[:5]
    report.update(
        median_views=median,
        posts_last_7_days=sum(1 for post in posts if as_utc(post.published_at) >= week_ago),
        top_posts=[_brief(post) for post in top],
        new_posts=[_brief(post) for post in new_posts],
        outliers=[
            {
                "video_id": o.video_id,
                "views": o.views,
                "outlier_ratio": round(o.outlier_ratio, 4),
                "weighted_score": round(o.weighted_score, 4),
            }
            for o in found
        ],
    )
    return report


def _brief(post: TrackedPost) -> dict[str, Any]:
    return {
        "video_id": post.external_id,
        "url": post.url,
        "title": post.title,
        "views": post.views,
        "publish_date": as_utc(post.published_at).strftime("%Y-%m-%dT%H:%M:%S"),
    }
