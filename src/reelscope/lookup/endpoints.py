"""/v1/satellite (spec §4.7): creator, batch, sound, hashtag and video-outlier lookups, and past runs.

The lookups are GETs that start work (a run, a job, later an event), so they are marked ``@starts_work``:
the contract runs them in one write transaction with their debit (contract/route.py). A status route is
declared before the lookup route it sits beside, whose ``{platform}`` would otherwise take ``status``
(tests/test_routing.py). Every response passes ``aliases.respond`` (the deprecated camelCase keys, §1).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Path, Query, Response

from reelscope.billing.prices import price_of
from reelscope.contract import CallDep, ClockDep, PrincipalDep, SessionDep, small_read, starts_work, v1_router
from reelscope.kit.errors import ValidationFailed
from reelscope.kit.platforms import Platform
from reelscope.kit.schemas import Envelope, errors
from reelscope.lookup import service as lookup_service
from reelscope.lookup.aliases import respond
from reelscope.lookup.schemas import (
    BatchBody,
    BatchOut,
    CreatorLookupQuery,
    Depth,
    HashtagLookupQuery,
    LookupJob,
    RunDetail,
    RunList,
    RunsQuery,
    RunVideos,
    RunVideosQuery,
    SoundLookupQuery,
    VideoOutlierBody,
)
from reelscope.lookup.service import Lookup

router = v1_router(prefix="/satellite", tags=["satellite"])

Target = Annotated[str, Path(min_length=1, max_length=100)]
# §4.7: sound lookups serve only tiktok and instagram; deep and full hashtag depth not instagram
SOUND_PLATFORMS = (Platform.TIKTOK, Platform.INSTAGRAM)
SHALLOW_ONLY = (Platform.INSTAGRAM,)


@router.get("/creator/status/{job_id}", response_model=Envelope[LookupJob], responses=errors(404))
@small_read
async def get_creator_lookup_status(
    job_id: str, session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Response:
    """A creator lookup: `processing`, then `completed` with its `result`, or `failed` with its `error`
    (`finalized` true from then on, §2.6). Free; poll every `retry_after_seconds`."""
    now = clock.now()
    found = await lookup_service.status(session, principal.team_id, "creator_lookup", job_id, now)
    return respond(Envelope(data=found), now)


@router.get("/creator/{platform}/{username}", response_model=Envelope[LookupJob], responses=errors(400, 404))
@starts_work
async def lookup_creator(
    platform: Platform,
    username: Target,
    query: Annotated[CreatorLookupQuery, Query()],
    session: SessionDep,
    principal: PrincipalDep,
    call: CallDep,
    clock: ClockDep,
) -> Response:
    """Start a creator lookup: profile, recent videos, median views, outliers (`outlier_ratio`,
    `weighted_score`), posting cadence; rising themes with `trend_analysis`. `include=videos,outliers`
    and `cross_links=true` are the same request as the include flags they stand for. A repeat within
    6 hours returns the earlier run, free, with `cached: true` (and no webhook)."""
    _named(username, "@", "username")
    lookup = Lookup("creator_lookup", platform, username, query.model_dump(mode="json"))
    return await _start(lookup, session, principal, call, clock)


@router.get("/sounds/status/{job_id}", response_model=Envelope[LookupJob], responses=errors(404))
@small_read
async def get_sound_lookup_status(
    job_id: str, session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Response:
    """A sound lookup's status and, once completed, its result. Free."""
    now = clock.now()
    found = await lookup_service.status(session, principal.team_id, "sound_lookup", job_id, now)
    return respond(Envelope(data=found), now)


@router.get("/sounds/{platform}/{music_id}", response_model=Envelope[LookupJob], responses=errors(400, 404))
@starts_work
async def lookup_sound(
    platform: Platform,
    music_id: Target,
    query: Annotated[SoundLookupQuery, Query()],
    session: SessionDep,
    principal: PrincipalDep,
    call: CallDep,
    clock: ClockDep,
) -> Response:
    """Start a sound lookup (tiktok and instagram only): the sound, its usage over time and the videos
    using it; `time_windows`, momentum and resurgence with `trend_analysis`. Cached 6 hours, like every
    lookup."""
    if platform not in SOUND_PLATFORMS:
        raise ValidationFailed(["platform: sound lookups serve tiktok and instagram only"])
    lookup = Lookup("sound_lookup", platform, music_id, query.model_dump(mode="json"))
    return await _start(lookup, session, principal, call, clock)


@router.get("/hashtags/status/{job_id}", response_model=Envelope[LookupJob], responses=errors(404))
@small_read
async def get_hashtag_lookup_status(
    job_id: str, session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Response:
    """A hashtag lookup's status and, once completed, its result. Free."""
    now = clock.now()
    found = await lookup_service.status(session, principal.team_id, "hashtag_lookup", job_id, now)
    return respond(Envelope(data=found), now)


@router.get("/hashtags/{platform}/{hashtag}", response_model=Envelope[LookupJob], responses=errors(400, 404))
@starts_work
async def lookup_hashtag(
    platform: Platform,
    hashtag: Target,
    query: Annotated[HashtagLookupQuery, Query()],
    session: SessionDep,
    principal: PrincipalDep,
    call: CallDep,
    clock: ClockDep,
) -> Response:
    """Start a hashtag lookup over `depth` videos (`standard`; `deep` about 300; `full` about 500, neither
    on instagram), returning `max_videos` of them by `sort` (`top` or `recent`) with their statistics;
    `time_windows`, momentum and resurgence with `trend_analysis`. Cached 6 hours."""
    if platform in SHALLOW_ONLY and query.depth is not Depth.STANDARD:
        raise ValidationFailed([f"depth: {query.depth.value} is not available on {platform.value}"])
    _named(hashtag, "#", "hashtag")
    lookup = Lookup("hashtag_lookup", platform, hashtag.lstrip("#"), query.model_dump(mode="json"))
    return await _start(lookup, session, principal, call, clock)


def _named(target: str, mark: str, name: str) -> None:
    """§7: a target that is only ``@``/``#`` and blanks names nothing: 400 before the lookup is charged
    (a 4xx from the endpoint charges nothing), not a paid lookup that fails and is refunded."""
    if not target.strip().lstrip(mark).strip():
        raise ValidationFailed([f"{name}: must name something besides {mark!r} and spaces"])


async def _start(
    lookup: Lookup, session: SessionDep, principal: PrincipalDep, call: CallDep, clock: ClockDep
) -> Response:
    now = clock.now()
    started = await lookup_service.start(session, principal, lookup, price=call.quoted, now=now)
    if started.cached:
        call.settle(0)  # §4.7: the cached run is free
    return respond(Envelope(data=await lookup_service.started_view(session, started, now)), now)


@router.post("/creators/batch", status_code=202, response_model=Envelope[BatchOut], responses=errors(400))
async def create_creator_batch(
    body: BatchBody, session: SessionDep, principal: PrincipalDep, call: CallDep, clock: ClockDep
) -> Response:
    """Look up to 25 creators, as `handles` of one `platform` or as `creators` `[{platform, username}]`
    of any platforms: $0.50 each ($1.00 with `include_audience`); a creator looked up by the team in the
    last 6 hours is served from that run, free. One webhook per creator."""
    now = clock.now()
    per_creator = price_of(call.operation).quote(
        {}, {"handles": ["one"], "include_audience": body.include_audience}
    )
    batch, charged = await lookup_service.start_batch(
        session, principal, body, per_creator=per_creator, now=now
    )
    call.settle(charged)
    return respond(Envelope(data=batch), now, status_code=202)


@router.get("/creators/batch/{batch_id}", response_model=Envelope[BatchOut], responses=errors(404))
async def get_creator_batch(
    batch_id: str, session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Response:
    """A batch: each creator's lookup, and `processing` until all are done, then `completed`,
    `partial_failure` or `failed`. Free."""
    now = clock.now()
    return respond(Envelope(data=await lookup_service.batch(session, principal.team_id, batch_id, now)), now)


@router.post("/video-outlier", status_code=202, response_model=Envelope[LookupJob], responses=errors(400))
async def create_video_outlier(
    body: VideoOutlierBody, session: SessionDep, principal: PrincipalDep, call: CallDep, clock: ClockDep
) -> Response:
    """How far one video sits above its creator's norm (`outlier_ratio` against the median views of
    their recent posts, `weighted_score`). The video is `video_id` with `platform`, or its `url`; a
    link that names no video of the three platforms, or one sent as `video_id`, is 400
    `invalid_parameter` and free. Not persisted: poll its status within 24 hours."""
    now = clock.now()
    video = body.video()
    job = await lookup_service.start_video_outlier(
        session,
        principal,
        platform=video.platform,
        video_id=video.video_id,
        url=body.url,
        threshold=body.outlier_threshold,
        price=call.quoted,
        now=now,
    )
    return respond(Envelope(data=job), now, status_code=202)


@router.get("/video-outlier/status/{job_id}", response_model=Envelope[LookupJob], responses=errors(404))
@small_read
async def get_video_outlier_status(
    job_id: str, session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Response:
    """A video outlier job and its result; 404 once 24 hours have passed (the poll cache). Free."""
    now = clock.now()
    found = await lookup_service.video_outlier_status(session, principal.team_id, job_id, now)
    return respond(Envelope(data=found), now)


@router.get("/runs", response_model=Envelope[RunList], responses=errors(400))
async def list_satellite_runs(
    query: Annotated[RunsQuery, Query()], session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Response:
    """The team's creator, sound and hashtag lookups, newest first; `offset` paging (`page` is a 400),
    `limit` default 25, at most 100. Runs never expire."""
    now = clock.now()
    found = await lookup_service.runs(
        session, principal.team_id, type=query.type, offset=query.offset, limit=query.limit, now=now
    )
    return respond(Envelope(data=found), now)


@router.get("/runs/{run_id}", response_model=Envelope[RunDetail], responses=errors(404))
async def get_satellite_run(
    run_id: str, session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Response:
    """One past lookup with its result (cached repeats and stalled lookups are read here, §6.3)."""
    now = clock.now()
    return respond(
        Envelope(data=await lookup_service.run_detail(session, principal.team_id, run_id, now)), now
    )


@router.get("/runs/{run_id}/videos", response_model=Envelope[RunVideos], responses=errors(400, 404))
async def list_satellite_run_videos(
    run_id: str,
    query: Annotated[RunVideosQuery, Query()],
    session: SessionDep,
    principal: PrincipalDep,
    clock: ClockDep,
) -> Response:
    """The videos of one past lookup; `offset` paging, `limit` default 25, at most 200 (400 above)."""
    found = await lookup_service.run_videos(
        session, principal.team_id, run_id, offset=query.offset, limit=query.limit
    )
    return respond(Envelope(data=found), clock.now())
