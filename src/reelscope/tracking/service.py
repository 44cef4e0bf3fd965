"""Tracked creators and videos: create, list, read, change, delete, and the free reads (spec §3, §4.7).

Creation checks the target with the connector (404 when it does not exist, 502 when the source fails,
neither billed), stores the item, its cycle schedule (``interval:<seconds>`` of the cadence, ADR 0023)
and a job for the first cycle, which the creation charge pays for.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, TypeVar

from sqlalchemy import delete, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.analysis import cadence, outliers
from reelscope.collectors.base import Connector
from reelscope.collectors.guard import NOT_FOUND, SourceFailed, guarded
from reelscope.dashboard.links import Links
from reelscope.events.schemas import TrackingSnapshot
from reelscope.kit.clock import as_utc, iso
from reelscope.kit.errors import Conflict, InvalidDateRange, NotFound, UpstreamError
from reelscope.kit.ids import new_id
from reelscope.kit.pagination import Page, Pagination
from reelscope.kit.platforms import Platform
from reelscope.models import Job, Schedule, TrackedItem, TrackedPost, TrackingSnapshotRow
from reelscope.tracking.schemas import (
    CADENCE_SECONDS,
    DEPTH_VIDEOS,
    Cadence,
    Cadences,
    CollectionOut,
    Depth,
    PostOut,
    PostsQuery,
    ReportOut,
    SnapshotList,
    SnapshotOut,
    SnapshotsQuery,
    TrackCreator,
    TrackedDetail,
    TrackedOut,
    TrackingListQuery,
    TrackingUpdate,
    TrackVideo,
)
from reelscope.worker.jobs import service as jobs_service
from reelscope.worker.schedules import service as schedules_service

T = TypeVar("T")
# where a creation waits on its source: outside the request's write transaction (contract/calls.py)
Outside = Callable[[], AbstractAsyncContextManager[object]]

CREATOR, VIDEO = "creator", "video"
ACTIVE, PAUSED = "active", "paused"
RESOURCE = "tracked_item"
CYCLE_TASK = "tracking.cycle"
# §2.6 pending_jobs type of a cycle (its report)
CYCLE_JOB_TYPE = "tracking_report"
CYCLE_EVENT = "tracking.cycle.completed"


def path_of(item: TrackedItem) -> str:
    return f"/v1/tracking/{item.kind}s/{item.id}"


def cycle_poll_url(item: TrackedItem) -> str:
    """Where a cycle's result shows (§2.6 pending_jobs ``poll_url``): a creator's report, a video itself."""
    return path_of(item) + "/report" if item.kind == CREATOR else path_of(item)


def dashboard_url(item: TrackedItem, links: Links) -> str:
    """The item's dashboard page: a signed link that opens without an API key until it expires."""
    return links.url_for(item.team_id, item.kind, item.id)


def interval(cadence: str) -> str:
    return f"interval:{CADENCE_SECONDS[Cadence(cadence)]}"


def normalize_handle(handle: str) -> str:
    return handle.strip().lstrip("@").strip()


# --- create ----------------------------------------------------------------------------------------


async def create_creator(
    session: AsyncSession,
    connector: Connector,
    team_id: str,
    body: TrackCreator,
    now: datetime,
    *,
    outside: Outside = nullcontext,
) -> TrackedItem:
    """The source is read first, ``outside`` the write transaction (contract/calls.py): a slow source
    never holds other writers up. A duplicate is then a 409, its source read spent but nothing billed."""
    creator = body.creator()  # by handle or profile link (issue 28)
    platform, handle = creator.platform, normalize_handle(creator.handle)
    async with outside():
        record = await _read(connector.creator(platform, handle), f"No {platform.value} creator @{handle}")
    await _ensure_new(session, team_id, CREATOR, platform, handle.lower())
    item = _new_item(
        team_id, CREATOR, platform, record.handle.lower(), body.cadence, now,
        handle=record.handle, title=record.display_name,
    )  # fmt: skip
    return await _start(session, item, now)


async def create_video(
    session: AsyncSession,
    connector: Connector,
    team_id: str,
    body: TrackVideo,
    now: datetime,
    *,
    outside: Outside = nullcontext,
) -> TrackedItem:
    video = body.video()  # by id or link (issue 28)
    platform, video_id = video.platform, video.video_id
    async with outside():
        record = await _read(connector.video(platform, video_id), f"No {platform.value} video {video_id}")
    if body.tracking_account_id is not None:
        # the older clients' link to a tracked creator: it must be one of the team's (nothing is kept)
        await get_item(session, team_id, CREATOR, body.tracking_account_id)
    await _ensure_new(session, team_id, VIDEO, platform, video_id)
    item = _new_item(
        team_id, VIDEO, platform, video_id, body.cadence, now,
        video_id=video_id, video_url=record.url, title=record.description,
        handle=record.creator.handle if record.creator else None,
    )  # fmt: skip
    return await _start(session, item, now)


async def _read(call: Awaitable[T], missing: str) -> T:
    """A creation's check of its target: 404 ``missing`` when it does not exist, 502 when the source fails
    (collectors/guard.py: the vendor's text stays in the logs, not in the body)."""
    try:
        return await guarded(call)
    except SourceFailed as failure:
        if failure.code == NOT_FOUND:
            raise NotFound(missing) from None
        raise UpstreamError(failure.message) from failure


def _new_item(
    team_id: str, kind: str, platform: Platform, target: str, cadence: Cadence, now: datetime,
    **fields: Any,
) -> TrackedItem:  # fmt: skip
    return TrackedItem(
        id=new_id(),
        team_id=team_id,
        kind=kind,
        platform=platform.value,
        target=target,
        status=ACTIVE,
        cadence=cadence.value,
        consecutive_failures=0,
        cycles_completed=0,
        created_at=now,
        updated_at=now,
        **fields,
    )


async def _ensure_new(
    session: AsyncSession, team_id: str, kind: str, platform: Platform, target: str
) -> None:
    stmt = select(TrackedItem.id).where(
        TrackedItem.team_id == team_id,
        TrackedItem.kind == kind,
        TrackedItem.platform == platform.value,
        TrackedItem.target == target,
    )
    existing = (await session.execute(stmt)).scalar_one_or_none()
    if existing is not None:
        raise Conflict(f"This {kind} is already tracked (id {existing})")


async def _start(session: AsyncSession, item: TrackedItem, now: datetime) -> TrackedItem:
    """The item, its cycle schedule, and its first cycle now (paid by the creation charge).

    ``_ensure_new`` cannot see a simultaneous request's item before it commits: the unique constraint
    decides, inside a savepoint so the loser's request turns into a 409 ``conflict`` (§7), not a 500."""
    try:
        async with session.begin_nested():
            session.add(item)
            await session.flush()
    except IntegrityError:
        raise Conflict(f"This {item.kind} is already tracked") from None
    await schedules_service.create(
        session,
        task=CYCLE_TASK,
        job_type=CYCLE_JOB_TYPE,
        cadence=interval(item.cadence),
        at=now,
        team_id=item.team_id,
        resource_type=RESOURCE,
        resource_id=item.id,
        params={"item_id": item.id},
        poll_url=cycle_poll_url(item),
        webhook_event=CYCLE_EVENT,
    )
    await jobs_service.create(
        session,
        task=CYCLE_TASK,
        type=CYCLE_JOB_TYPE,
        at=now,
        team_id=item.team_id,
        resource_type=RESOURCE,
        resource_id=item.id,
        params={"item_id": item.id, "scheduled_for": iso(now), "first": True},
        poll_url=cycle_poll_url(item),
        webhook_event=CYCLE_EVENT,
        dedupe_key=f"tracking:{item.id}:first",
    )
    return item


# --- read ------------------------------------------------------------------------------------------


async def get_item(session: AsyncSession, team_id: str, kind: str, item_id: str) -> TrackedItem:
    item = await session.get(TrackedItem, item_id)
    if item is None or item.team_id != team_id or item.kind != kind:
        raise NotFound(f"Tracked {kind} not found")
    return item


async def list_items(
    session: AsyncSession, team_id: str, kind: str, query: TrackingListQuery, links: Links
) -> Page[TrackedOut]:
    where = [TrackedItem.team_id == team_id, TrackedItem.kind == kind]
    if query.search:
        needle = query.search.strip().lstrip("@").lower()
        where.append(
            or_(
                *(
                    func.lower(func.coalesce(column, "")).contains(needle, autoescape=True)
                    for column in (TrackedItem.target, TrackedItem.handle, TrackedItem.title)
                )
            )
        )
    if query.status:
        where.append(TrackedItem.status == query.status)
    if query.platform:
        where.append(TrackedItem.platform == query.platform.value)
    total = (await session.execute(select(func.count()).select_from(TrackedItem).where(*where))).scalar_one()
    stmt = (
        select(TrackedItem)
        .where(*where)
        .order_by(TrackedItem.created_at.desc(), TrackedItem.id)
        .offset(query.offset)
        .limit(query.limit)
    )
    items = list((await session.execute(stmt)).scalars())
    next_runs = await _next_runs(session, team_id, [item.id for item in items])
    return Page(
        data=[render(item, next_runs.get(item.id), links) for item in items],
        pagination=Pagination.of(query, int(total)),
    )


async def detail(session: AsyncSession, item: TrackedItem, now: datetime, links: Links) -> TrackedDetail:
    next_runs = await _next_runs(session, item.team_id, [item.id])
    state = await jobs_service.envelope(session, RESOURCE, item.id, now=now, team_id=item.team_id)
    return TrackedDetail(
        **render(item, next_runs.get(item.id), links).model_dump(),
        finalized=state.finalized,
        pending_jobs=state.pending_jobs,
    )


async def _next_runs(
    session: AsyncSession, team_id: str, item_ids: Sequence[str]
) -> dict[str, datetime | None]:
    if not item_ids:
        return {}
    stmt = select(Schedule.resource_id, Schedule.next_run_at, Schedule.is_active).where(
        Schedule.team_id == team_id,
        Schedule.resource_type == RESOURCE,
        Schedule.resource_id.in_(item_ids),
        Schedule.task == CYCLE_TASK,
    )
    return {
        str(resource_id): (next_run if active else None)
        for resource_id, next_run, active in (await session.execute(stmt)).all()
    }


def render(item: TrackedItem, next_run: datetime | None, links: Links) -> TrackedOut:
    return TrackedOut(
        id=item.id,
        tracking_type=CREATOR if item.kind == CREATOR else VIDEO,
        platform=item.platform,
        platform_handle=item.handle if item.kind == CREATOR else None,
        video_id=item.video_id,
        video_url=item.video_url,
        title=item.title,
        status=ACTIVE if item.status == ACTIVE else PAUSED,
        pause_reason=item.pause_reason,
        cadence=item.cadence,
        consecutive_failures=item.consecutive_failures,
        cycles_completed=item.cycles_completed,
        last_checked_at=iso(item.last_checked_at),
        next_check_at=iso(next_run) if item.status == ACTIVE else None,
        latest_snapshot=snapshot_view(item.latest_snapshot) if item.latest_snapshot is not None else None,
        dashboard_url=dashboard_url(item, links),
        created_at=iso(item.created_at) or "",
        updated_at=iso(item.updated_at) or "",
    )


def snapshot_view(metrics: dict[str, Any]) -> dict[str, Any]:
    """The §6.3 snapshot: zero or unknown numbers omitted."""
    known = {key: value for key, value in metrics.items() if key in TrackingSnapshot.model_fields}
    dumped: dict[str, Any] = TrackingSnapshot(**known).model_dump(mode="json")
    return dumped


# --- change ----------------------------------------------------------------------------------------


async def update(
    session: AsyncSession, item: TrackedItem, body: TrackingUpdate, now: datetime
) -> TrackedItem:
    schedule = await _schedule(session, item)
    if body.cadence is not None and body.cadence.value != item.cadence:
        item.cadence = body.cadence.value
        if schedule is not None:
            schedule.cadence = interval(item.cadence)
            schedule.next_run_at = now + timedelta(seconds=CADENCE_SECONDS[body.cadence])
            schedule.updated_at = now
    if body.status == ACTIVE and item.status != ACTIVE:
        # §3: paused → active on an update with status active; the failure count starts again
        item.status, item.pause_reason, item.consecutive_failures = ACTIVE, None, 0
        if schedule is not None:
            schedules_service.set_active(schedule, True, at=now)
    elif body.status == PAUSED and item.status != PAUSED:
        item.status, item.pause_reason = PAUSED, None
        if schedule is not None:
            schedules_service.set_active(schedule, False, at=now)
    item.updated_at = now
    await session.flush()
    return item


async def remove(session: AsyncSession, item: TrackedItem) -> None:
    """Stop tracking: the schedule, snapshots and posts go with the item."""
    team = item.team_id
    await session.execute(
        delete(Schedule).where(
            Schedule.team_id == team, Schedule.resource_type == RESOURCE, Schedule.resource_id == item.id
        )
    )
    await session.execute(
        delete(TrackingSnapshotRow).where(
            TrackingSnapshotRow.team_id == team, TrackingSnapshotRow.item_id == item.id
        )
    )
    await session.execute(
        delete(TrackedPost).where(TrackedPost.team_id == team, TrackedPost.item_id == item.id)
    )
    await session.delete(item)


async def _schedule(session: AsyncSession, item: TrackedItem) -> Schedule | None:
    for schedule in await schedules_service.for_resource(session, RESOURCE, item.id):
        if schedule.task == CYCLE_TASK and schedule.team_id == item.team_id:
            return schedule
    return None


async def set_schedule_active(session: AsyncSession, item: TrackedItem, active: bool, now: datetime) -> None:
    schedule = await _schedule(session, item)
    if schedule is not None and schedule.is_active != active:
        schedules_service.set_active(schedule, active, at=now)


# --- free reads ------------------------------------------------------------------------------------


async def snapshots(session: AsyncSession, item: TrackedItem, query: SnapshotsQuery) -> SnapshotList:
    where = [TrackingSnapshotRow.team_id == item.team_id, TrackingSnapshotRow.item_id == item.id]
    start, end = _day(query.start_date), _day(query.end_date)
    if start is not None and end is not None and start > end:
        raise InvalidDateRange("start_date must not be after end_date")
    if start is not None:
        where.append(TrackingSnapshotRow.taken_at >= datetime.combine(start, time(), UTC))
    if end is not None:
        where.append(TrackingSnapshotRow.taken_at < datetime.combine(end, time(), UTC) + timedelta(days=1))
    stmt = (
        select(TrackingSnapshotRow)
        .where(*where)
        .order_by(TrackingSnapshotRow.taken_at.desc(), TrackingSnapshotRow.id)
        .limit(query.limit)
    )
    rows = list((await session.execute(stmt)).scalars())
    return SnapshotList(tracking_id=item.id, snapshots=[snapshot_out(row) for row in rows], count=len(rows))


def _day(value: str | None) -> date | None:
    """A YYYY-MM-DD date ``SnapshotsQuery`` checked (kit/schemas.py ``IsoDate``, within kit/dates.py)."""
    return None if value is None else date.fromisoformat(value)


def snapshot_out(row: TrackingSnapshotRow) -> SnapshotOut:
    return SnapshotOut(
        id=row.id,
        taken_at=iso(row.taken_at) or "",
        scheduled_for=iso(row.scheduled_for) or "",
        snapshot=snapshot_view(row.metrics),
        new_posts_count=row.new_posts_count,
    )


async def report(session: AsyncSession, item: TrackedItem) -> ReportOut:
    stmt = (
        select(TrackingSnapshotRow)
        .where(TrackingSnapshotRow.team_id == item.team_id, TrackingSnapshotRow.item_id == item.id)
        .order_by(TrackingSnapshotRow.taken_at.desc())
        .limit(1)
    )
    latest = (await session.execute(stmt)).scalar_one_or_none()
    return ReportOut(
        tracking_id=item.id,
        tracking_type=CREATOR if item.kind == CREATOR else VIDEO,
        report_available=latest is not None,
        generated_at=iso(latest.taken_at) if latest else None,
        report=latest.report if latest else None,
    )


async def posts(session: AsyncSession, item: TrackedItem, query: PostsQuery) -> Page[PostOut]:
    where = [TrackedPost.team_id == item.team_id, TrackedPost.item_id == item.id]
    total = (await session.execute(select(func.count()).select_from(TrackedPost).where(*where))).scalar_one()
    order = (
        (TrackedPost.views.desc(), TrackedPost.id)
        if query.sort == "views"
        else (TrackedPost.published_at.desc(), TrackedPost.id)
    )
    stmt = select(TrackedPost).where(*where).order_by(*order).offset((query.page - 1) * query.limit)
    rows = (await session.execute(stmt.limit(query.limit))).scalars()
    total_pages = -(-int(total) // query.limit)
    return Page(
        data=[post_out(row) for row in rows],
        pagination=Pagination(
            page=query.page,
            limit=query.limit,
            total=int(total),
            total_pages=total_pages,
            has_next_page=query.page < total_pages,
            has_prev_page=query.page > 1,
        ),
    )


async def post(session: AsyncSession, item: TrackedItem, post_id: str) -> PostOut:
    stmt = select(TrackedPost).where(
        TrackedPost.team_id == item.team_id,
        TrackedPost.item_id == item.id,
        or_(TrackedPost.id == post_id, TrackedPost.external_id == post_id),
    )
    row = (await session.execute(stmt.limit(1))).scalar_one_or_none()
    if row is None:
        raise NotFound("Post not found")
    return post_out(row)


def post_out(row: TrackedPost) -> PostOut:
    return PostOut(
        id=row.id,
        video_id=row.external_id,
        url=row.url,
        title=row.title,
        thumbnail_url=row.thumbnail_url,
        duration=row.duration,
        hashtags=list(row.hashtags or []),
        publish_date=as_utc(row.published_at).strftime("%Y-%m-%dT%H:%M:%S"),
        views=row.views,
        likes=row.likes,
        comments=row.comments,
        shares=row.shares,
        bookmarks=row.bookmarks,
        outlier_ratio=round(row.outlier_ratio, 4) if row.outlier_ratio is not None else None,
        # the ratio decides, as §6.3 defines an outlier; announcing is separate (only posts new since
        # tracking began are announced), so a baseline post at 20,000x is an outlier all the same
        is_outlier=outliers.is_outlier(row.outlier_ratio),
        first_seen_at=iso(row.first_seen_at) or "",
        updated_at=iso(row.updated_at) or "",
    )


async def posting_cadence(session: AsyncSession, item: TrackedItem, now: datetime) -> Cadences:
    stmt = select(TrackedPost.published_at).where(
        TrackedPost.item_id == item.id, TrackedPost.team_id == item.team_id
    )
    return cadence_of(item.id, list((await session.execute(stmt)).scalars()), now)


def cadence_of(item_id: str, published: Sequence[datetime], now: datetime) -> Cadences:
    """Posting rhythm over the posts seen (``analysis/cadence.py``, the lookups' formula): per week since
    the first of them, gaps between posts, UTC weekday and hour."""
    found = cadence.posting_cadence(published, now)
    return Cadences(
        tracking_id=item_id,
        posts_analyzed=found.posts_analyzed,
        first_post_at=iso(found.first_post_at),
        last_post_at=iso(found.last_post_at),
        posts_per_week=found.posts_per_week,
        average_gap_hours=found.average_gap_hours,
        median_gap_hours=found.median_gap_hours,
        by_weekday=found.by_weekday,
        by_hour={f"{hour:02d}": n for hour, n in found.by_hour.items()},
    )


# --- the dashboard page (dashboard/endpoints.py renders it) ----------------------------------------

DASHBOARD_SNAPSHOTS = 365
DASHBOARD_OUTLIERS = 20


@dataclass(frozen=True)
class DashboardData:
    item: TrackedItem
    snapshots: list[tuple[datetime, dict[str, Any]]]  # oldest first
    outliers: list[PostOut]  # outlier posts (ratio over 3x), newest first
    cadence: Cadences


async def dashboard_data(
    session: AsyncSession, team_id: str, kind: str, item_id: str, now: datetime
) -> DashboardData:
    """What a signed dashboard link shows: the item of ``team_id`` (404 otherwise), its latest snapshots,
    the outlier posts (the posts list's ``is_outlier``, announced or not) and the posting cadence."""
    item = await get_item(session, team_id, kind, item_id)
    stmt = (
        select(TrackingSnapshotRow.taken_at, TrackingSnapshotRow.metrics)
        .where(TrackingSnapshotRow.team_id == team_id, TrackingSnapshotRow.item_id == item.id)
        .order_by(TrackingSnapshotRow.taken_at.desc())
        .limit(DASHBOARD_SNAPSHOTS)
    )
    snapshots = [(as_utc(at), dict(metrics)) for at, metrics in (await session.execute(stmt)).all()][::-1]
    posts = await session.execute(
        select(TrackedPost)
        .where(
            TrackedPost.team_id == team_id,
            TrackedPost.item_id == item.id,
            TrackedPost.outlier_ratio > outliers.OUTLIER_AT,
        )
        .order_by(TrackedPost.published_at.desc())
        .limit(DASHBOARD_OUTLIERS)
    )
    return DashboardData(
        item=item,
        snapshots=snapshots,
        outliers=[post_out(post) for post in posts.scalars()],
        cadence=await posting_cadence(session, item, now),
    )


# --- deep post collection --------------------------------------------------------------------------

COLLECT_TASK = "tracking.collect_posts"
COLLECTION_RESOURCE = "tracked_item_posts"


async def start_collection(
    session: AsyncSession, item: TrackedItem, depth: Depth, charged: int, now: datetime
) -> CollectionOut:
    """A collection job; what it charged is refunded if it fails for good (jobs service)."""
    job = await jobs_service.create(
        session,
        task=COLLECT_TASK,
        type="post_collection",
        at=now,
        team_id=item.team_id,
        resource_type=COLLECTION_RESOURCE,
        resource_id=item.id,
        params={"item_id": item.id, "depth": depth.value, "max_videos": DEPTH_VIDEOS[depth]},
        charged_credits=charged,
    )
    job.poll_url = f"{path_of(item)}/posts/collect/{job.id}"
    return collection_out(item, job, now)


async def collection(
    session: AsyncSession, item: TrackedItem, collection_id: str, now: datetime
) -> CollectionOut:
    job = await session.get(Job, collection_id)
    if (
        job is None
        or job.team_id != item.team_id
        or job.resource_type != COLLECTION_RESOURCE
        or job.resource_id != item.id
    ):
        raise NotFound("Post collection not found")
    return collection_out(item, job, now)


def collection_out(item: TrackedItem, job: Job, now: datetime) -> CollectionOut:
    result = job.result if isinstance(job.result, dict) else {}
    return CollectionOut(
        collection_id=job.id,
        tracking_id=item.id,
        depth=str(job.params.get("depth", Depth.STANDARD.value)),
        max_videos=int(job.params.get("max_videos", DEPTH_VIDEOS[Depth.STANDARD])),
        status=jobs_service.effective_status(job, now),
        poll_url=job.poll_url or f"{path_of(item)}/posts/collect/{job.id}",
        videos_collected=result.get("videos_collected"),
        new_posts=result.get("new_posts"),
        error=job.error,
        created_at=iso(job.created_at) or "",
        completed_at=iso(job.finished_at),
    )
