"""/v1/tracking (spec §3, §4.7, §8.3): tracked creators and videos, their cycles' reads, deep post
collection. Creation $0.25 (it pays the first cycle); reads and changes free; collection by depth.

Fixed sub-paths (``/posts/collect``) are declared before ``/posts/{post_id}`` (tests/test_routing.py).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query, Response

from reelscope.audience import service as audience_service
from reelscope.audience.schemas import AudienceJobOut, AudiencePart
from reelscope.collectors.registry import build_sources
from reelscope.contract import CallDep, ClockDep, PrincipalDep, RuntimeDep, SessionDep, small_read, v1_router
from reelscope.dashboard.links import Links, links_for
from reelscope.kit.pagination import Page
from reelscope.kit.schemas import Envelope, errors
from reelscope.tracking import service
from reelscope.tracking.schemas import (
    Cadences,
    CollectionOut,
    CollectPosts,
    PostOut,
    PostsQuery,
    ReportOut,
    SnapshotList,
    SnapshotsQuery,
    TrackCreator,
    TrackedDetail,
    TrackedOut,
    TrackingListQuery,
    TrackingUpdate,
    TrackVideo,
)

router = v1_router(prefix="/tracking", tags=["tracking"])


async def get_links(runtime: RuntimeDep, clock: ClockDep) -> Links:
    """Signed dashboard links (ADR 0023) on the service's clock."""
    return links_for(runtime.settings, clock)


LinksDep = Annotated[Links, Depends(get_links)]

CREATOR, VIDEO = service.CREATOR, service.VIDEO


# --- creators --------------------------------------------------------------------------------------


@router.post("/creators", status_code=201, responses=errors(400, 402, 404, 409, 502))
async def create_tracked_creator(
    body: TrackCreator,
    session: SessionDep,
    principal: PrincipalDep,
    clock: ClockDep,
    runtime: RuntimeDep,
    links: LinksDep,
    call: CallDep,
) -> Envelope[TrackedDetail]:
    """Track a creator ($0.25, which pays the first cycle, run at once). Later cycles run on `cadence`
    and cost $0.25 each; `tracking.cycle.completed` follows every cycle. 404 when the creator does not
    exist, 409 when the team already tracks them (neither billed)."""
    connector = build_sources(runtime.settings, clock, runtime.db)
    item = await service.create_creator(
        session, connector, principal.team_id, body, clock.now(), outside=call.outside_transaction
    )
    return Envelope(data=await service.detail(session, item, clock.now(), links))


@router.get("/creators", responses=errors(400))
async def list_tracked_creators(
    query: Annotated[TrackingListQuery, Query()],
    session: SessionDep,
    principal: PrincipalDep,
    links: LinksDep,
) -> Page[TrackedOut]:
    """The team's tracked creators, newest first; `search` matches the handle or display name."""
    return await service.list_items(session, principal.team_id, CREATOR, query, links)


@router.get("/creators/{id}", responses=errors(400, 404))
async def get_tracked_creator(
    id: str, session: SessionDep, principal: PrincipalDep, clock: ClockDep, links: LinksDep
) -> Envelope[TrackedDetail]:
    """One tracked creator with its latest snapshot and its pending cycle and audience jobs (§2.6)."""
    item = await service.get_item(session, principal.team_id, CREATOR, id)
    return Envelope(data=await service.detail(session, item, clock.now(), links))


@router.patch("/creators/{id}", responses=errors(400, 404))
async def update_tracked_creator(
    id: str,
    body: TrackingUpdate,
    session: SessionDep,
    principal: PrincipalDep,
    clock: ClockDep,
    links: LinksDep,
) -> Envelope[TrackedDetail]:
    """Change `cadence`, or `status`: `active` resumes a paused creator (§3), `paused` stops cycles."""
    item = await service.get_item(session, principal.team_id, CREATOR, id)
    await service.update(session, item, body, clock.now())
    return Envelope(data=await service.detail(session, item, clock.now(), links))


@router.delete("/creators/{id}", status_code=204, response_class=Response, responses=errors(400, 404))
async def delete_tracked_creator(id: str, session: SessionDep, principal: PrincipalDep) -> Response:
    """Stop tracking a creator; its snapshots and posts are deleted with it."""
    await service.remove(session, await service.get_item(session, principal.team_id, CREATOR, id))
    return Response(status_code=204)


@router.get("/creators/{id}/report", responses=errors(400, 404))
async def get_tracked_creator_report(
    id: str, session: SessionDep, principal: PrincipalDep
) -> Envelope[ReportOut]:
    """The latest cycle's report: snapshot, median views, top and new posts, outliers found."""
    item = await service.get_item(session, principal.team_id, CREATOR, id)
    return Envelope(data=await service.report(session, item))


@router.get("/creators/{id}/snapshots", responses=errors(400, 404))
async def list_tracked_creator_snapshots(
    id: str, query: Annotated[SnapshotsQuery, Query()], session: SessionDep, principal: PrincipalDep
) -> Envelope[SnapshotList]:
    """Snapshots newest first, between `start_date` and `end_date` (UTC days, inclusive); `limit`
    default 30, at most 365 (400 above, §8.3)."""
    item = await service.get_item(session, principal.team_id, CREATOR, id)
    return Envelope(data=await service.snapshots(session, item, query))


@router.get("/creators/{id}/posts", responses=errors(400, 404))
async def list_tracked_creator_posts(
    id: str, query: Annotated[PostsQuery, Query()], session: SessionDep, principal: PrincipalDep
) -> Page[PostOut]:
    """The creator's posts seen by cycles and collections, newest first (or `sort=views`); `limit`
    default 50, at most 200 (400 above, §8.3)."""
    item = await service.get_item(session, principal.team_id, CREATOR, id)
    return await service.posts(session, item, query)


@router.post("/creators/{id}/posts/collect", status_code=202, responses=errors(400, 402, 404))
async def collect_creator_posts(
    id: str,
    body: CollectPosts,
    session: SessionDep,
    principal: PrincipalDep,
    clock: ClockDep,
    call: CallDep,
) -> Envelope[CollectionOut]:
    """Collect the creator's latest posts: `depth` standard (50 videos, $0.50), deep (200, $1.00) or
    full (500, $2.00). Poll `poll_url`; a collection that fails for good is refunded."""
    item = await service.get_item(session, principal.team_id, CREATOR, id)
    return Envelope(data=await service.start_collection(session, item, body.depth, call.quoted, clock.now()))


@router.get("/creators/{id}/posts/collect/{collection_id}", responses=errors(400, 404))
async def get_creator_post_collection(
    id: str, collection_id: str, session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Envelope[CollectionOut]:
    """A post collection's status and counts (free)."""
    item = await service.get_item(session, principal.team_id, CREATOR, id)
    return Envelope(data=await service.collection(session, item, collection_id, clock.now()))


@router.get("/creators/{id}/posts/{post_id}", responses=errors(400, 404))
async def get_tracked_creator_post(
    id: str, post_id: str, session: SessionDep, principal: PrincipalDep
) -> Envelope[PostOut]:
    """One post, by its id here or the platform's video id."""
    item = await service.get_item(session, principal.team_id, CREATOR, id)
    return Envelope(data=await service.post(session, item, post_id))


@router.get("/creators/{id}/posting-cadence", responses=errors(400, 404))
async def get_tracked_creator_posting_cadence(
    id: str, session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Envelope[Cadences]:
    """How often and when (UTC weekday and hour) the creator posts, over the posts seen: `posts_per_week`
    counts them over the time from the first of them to now, as creator lookups do."""
    item = await service.get_item(session, principal.team_id, CREATOR, id)
    return Envelope(data=await service.posting_cadence(session, item, clock.now()))


# --- videos ----------------------------------------------------------------------------------------


@router.post("/videos", status_code=201, responses=errors(400, 402, 404, 409, 502))
async def create_tracked_video(
    body: TrackVideo,
    session: SessionDep,
    principal: PrincipalDep,
    clock: ClockDep,
    runtime: RuntimeDep,
    links: LinksDep,
    call: CallDep,
) -> Envelope[TrackedDetail]:
    """Track a video ($0.25, which pays the first cycle, run at once); later cycles $0.25 each."""
    connector = build_sources(runtime.settings, clock, runtime.db)
    item = await service.create_video(
        session, connector, principal.team_id, body, clock.now(), outside=call.outside_transaction
    )
    return Envelope(data=await service.detail(session, item, clock.now(), links))


@router.get("/videos", responses=errors(400))
async def list_tracked_videos(
    query: Annotated[TrackingListQuery, Query()],
    session: SessionDep,
    principal: PrincipalDep,
    links: LinksDep,
) -> Page[TrackedOut]:
    """The team's tracked videos, newest first; `search` matches the video id, title or creator."""
    return await service.list_items(session, principal.team_id, VIDEO, query, links)


@router.get("/videos/{id}", responses=errors(400, 404))
async def get_tracked_video(
    id: str, session: SessionDep, principal: PrincipalDep, clock: ClockDep, links: LinksDep
) -> Envelope[TrackedDetail]:
    """One tracked video with its latest snapshot and pending cycle (§2.6)."""
    item = await service.get_item(session, principal.team_id, VIDEO, id)
    return Envelope(data=await service.detail(session, item, clock.now(), links))


@router.patch("/videos/{id}", responses=errors(400, 404))
async def update_tracked_video(
    id: str,
    body: TrackingUpdate,
    session: SessionDep,
    principal: PrincipalDep,
    clock: ClockDep,
    links: LinksDep,
) -> Envelope[TrackedDetail]:
    """Change `cadence`, or `status` (`active` resumes a paused video, §3)."""
    item = await service.get_item(session, principal.team_id, VIDEO, id)
    await service.update(session, item, body, clock.now())
    return Envelope(data=await service.detail(session, item, clock.now(), links))


@router.delete("/videos/{id}", status_code=204, response_class=Response, responses=errors(400, 404))
async def delete_tracked_video(id: str, session: SessionDep, principal: PrincipalDep) -> Response:
    """Stop tracking a video; its snapshots are deleted with it."""
    await service.remove(session, await service.get_item(session, principal.team_id, VIDEO, id))
    return Response(status_code=204)


# --- audience (ADR 0023) ---------------------------------------------------------------------------


@router.post("/creators/{id}/audience-refresh", status_code=202, responses=errors(400, 402, 404))
async def create_creator_audience_refresh(
    id: str, session: SessionDep, principal: PrincipalDep, clock: ClockDep, call: CallDep
) -> Envelope[AudienceJobOut]:
    """Start an audience snapshot ($0.50): the creator's commenters sampled and their demographics and
    geography inferred. `audience.snapshot.completed` when ready; refunded when no audience data is found
    (`data_source: profile_only`) or the snapshot fails (which sends nothing)."""
    item = await service.get_item(session, principal.team_id, CREATOR, id)
    return Envelope(data=await audience_service.start(session, item, call.quoted, clock.now()))


@router.get("/creators/{id}/audience-refresh/{job_id}", responses=errors(400, 404))
@small_read
async def get_creator_audience_refresh(
    id: str, job_id: str, session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Envelope[AudienceJobOut]:
    """An audience snapshot job of this creator: status, and the snapshot once completed (free)."""
    item = await service.get_item(session, principal.team_id, CREATOR, id)
    return Envelope(data=await audience_service.job_of_item(session, item, job_id, clock.now()))


@router.get("/creators/{id}/audience-demographics", responses=errors(400, 404))
async def get_creator_audience_demographics(
    id: str, session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Envelope[AudiencePart]:
    """Age brackets and genders of the latest audience snapshot, with pending audience jobs (§2.6)."""
    item = await service.get_item(session, principal.team_id, CREATOR, id)
    return Envelope(data=await audience_service.part(session, item, "demographics", clock.now()))


@router.get("/creators/{id}/audience-geography", responses=errors(400, 404))
async def get_creator_audience_geography(
    id: str, session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Envelope[AudiencePart]:
    """Countries, cities and languages of the latest audience snapshot, with pending audience jobs."""
    item = await service.get_item(session, principal.team_id, CREATOR, id)
    return Envelope(data=await audience_service.part(session, item, "geography", clock.now()))
