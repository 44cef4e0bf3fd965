"""Every team-owned resource type of the API, for the cross-team probe (tests/test_cross_team.py).

How a family registers a team-owned resource (every family with one must; the probe fails for a /v1
route with an id in its path that no registration names and that ``PUBLIC_ROUTES`` does not list):

1. Write an async ``make(world, owner) -> dict[str, str]`` that creates one resource of the ``owner``
   team the way a client would (through ``world.client``, or a service where no route creates it yet)
   and returns the values of the path parameters that name it, e.g. ``{"webhook_id": "…"}``. It may
   build on another resource's ``make`` (a delivery needs a webhook).
2. Append a ``TeamResource`` to ``RESOURCES`` with those ``routes`` ("METHOD /v1/path/{param}", exactly
   as in /openapi.json), ``bodies`` valid for the routes that take one (by route), and a ``secret``: a
   value only the owner may ever see, which must appear in no answer to another team.
3. Optionally a ``check(world, ids, owner, other)``: what else shows isolation, or that the resource
   exists. A resource no route serves yet (jobs: read through their owner's resources) has only this,
   asserting at the service level that ``other`` sees nothing of it.

The probe then asserts, for each route, that another team gets 404 ``not_found`` with the §2.8 body
and none of the resource's data, uncharged; and that the owner reaches the resource (so the probe
cannot pass because the resource was never there).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import httpx

from reelscope.collectors.sandbox.creators import handle_of
from reelscope.collectors.sandbox.world import World as SandboxWorld
from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from reelscope.kit.ids import new_id
from reelscope.kit.platforms import Platform
from reelscope.models import Job
from reelscope.runtime import Runtime
from reelscope.webhook.delivery import fan_out
from reelscope.worker.jobs import service as jobs_service
from tests.conftest import START, TeamKey

# a public host for webhook URLs (the probe's client resolves it statically: no DNS, no connection)
HOOK_HOST = "hooks.example"


@dataclass
class World:
    """The probe's client, runtime and clock. Jobs a creation enqueues run when its transaction commits
    (the probe binds the job engine in immediate mode), so a tracked item has its first cycle's posts and
    an agent its first run."""

    client: httpx.AsyncClient
    runtime: Runtime
    clock: ManualClock


Make = Callable[[World, TeamKey], Awaitable[dict[str, str]]]
Check = Callable[[World, dict[str, str], TeamKey, TeamKey], Awaitable[None]]


@dataclass(frozen=True)
class TeamResource:
    name: str
    make: Make
    routes: tuple[str, ...] = ()
    bodies: dict[str, dict[str, Any]] = field(default_factory=dict)  # by route, for those that take one
    secret: str = ""
    check: Check | None = None


# Routes with an id in the path whose resource belongs to no team (the shared catalog, and lookups
# that start work on a public creator, sound or tag).
PUBLIC_ROUTES = frozenset(
    {
        "GET /v1/satellite/creator/{platform}/{username}",
        "GET /v1/satellite/sounds/{platform}/{music_id}",
        "GET /v1/satellite/hashtags/{platform}/{hashtag}",
        "GET /v1/hashtags/{hashtag}/performance",
        "GET /v1/sounds/{sound_id}",
        "GET /v1/sounds/{sound_id}/usage-history",
        "GET /v1/sounds/{sound_id}/videos",
        "GET /v1/sounds/by-creator/{platform}/{handle}",
        "GET /v1/{platform}/hashtags",
        "GET /v1/{platform}/videos/digest",
    }
)

SECRET_DESCRIPTION = "owner-only description 7f3c"


async def make_webhook(world: World, owner: TeamKey) -> dict[str, str]:
    body = {
        "url": f"https://{HOOK_HOST}/receive",
        "enabled_events": ["satellite.lookup.completed"],
        "description": SECRET_DESCRIPTION,
    }
    response = await world.client.post("/v1/webhooks", json=body, headers=owner.headers)
    assert response.status_code == 201, response.text
    return {"webhook_id": response.json()["id"]}


async def make_delivery(world: World, owner: TeamKey) -> dict[str, str]:
    """A delivery of one of the owner's events to the owner's webhook, as its log shows it."""
    ids = await make_webhook(world, owner)
    event_id = new_id()
    async with world.runtime.db.transaction() as session:
        await fan_out(
            session,
            event_id,
            "satellite.lookup.completed",
            {"run_id": event_id},
            owner.team_id,
            world.clock.now(),
        )
    log = await world.client.get(f"/v1/webhooks/{ids['webhook_id']}/deliveries", headers=owner.headers)
    (delivery,) = log.json()["deliveries"]
    return {**ids, "delivery_id": delivery["id"]}


async def make_job(world: World, owner: TeamKey) -> dict[str, str]:
    now = world.clock.now()
    job_id, resource_id = new_id(), new_id()
    async with world.runtime.db.transaction() as session:
        session.add(
            Job(
                id=job_id,
                team_id=owner.team_id,
                task="probe.task",
                type="viral_analysis",
                resource_type="probe",
                resource_id=resource_id,
                status="pending",
                params={},
                expires_at=now + timedelta(hours=1),
                next_attempt_at=now,
                enqueued_at=now,
                created_at=now,
                updated_at=now,
            )
        )
    return {"job_id": job_id, "resource_id": resource_id}


async def check_job(world: World, ids: dict[str, str], owner: TeamKey, other: TeamKey) -> None:
    """§2.6 pending_jobs are read per team: another team's read of the resource lists none of them."""
    async with world.runtime.db.transaction(write=False) as session:
        mine = await jobs_service.for_resource(session, "probe", ids["resource_id"], team_id=owner.team_id)
        assert [job.id for job in mine] == [ids["job_id"]]
        theirs = await jobs_service.envelope(
            session, "probe", ids["resource_id"], now=world.clock.now(), team_id=other.team_id
        )
        assert theirs.pending_jobs == []


async def _started(world: World, owner: TeamKey, method: str, path: str, body: Any = None) -> dict[str, Any]:
    response = await world.client.request(method, path, json=body, headers=owner.headers)
    assert response.status_code in (200, 202), response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def make_lookup(path: str) -> Make:
    """A satellite lookup the owner started (issue 18): its job and its durable run."""

    async def make(world: World, owner: TeamKey) -> dict[str, str]:
        data = await _started(world, owner, "GET", path)
        return {"job_id": data["job_id"], "run_id": data["run_id"]}

    return make


async def make_video_outlier(world: World, owner: TeamKey) -> dict[str, str]:
    body = {"platform": "tiktok", "video_id": "7300000000000000001"}
    data = await _started(world, owner, "POST", "/v1/satellite/video-outlier", body)
    return {"job_id": data["job_id"], "run_id": data["run_id"]}


async def make_batch(world: World, owner: TeamKey) -> dict[str, str]:
    body = {"platform": "tiktok", "handles": ["probe_one", "probe_two"]}
    data = await _started(world, owner, "POST", "/v1/satellite/creators/batch", body)
    return {"batch_id": data["batch_id"]}


def lists_none_of_it(*paths: str, secret: str = "") -> Check:
    """Another team's lists (``paths``, free GETs) show neither the resource's ids nor its ``secret``;
    the owner's show its first id (so the check cannot pass on a list that never holds anything)."""

    async def check(world: World, ids: dict[str, str], owner: TeamKey, other: TeamKey) -> None:
        for path in paths:
            mine = await world.client.get(path, headers=owner.headers)
            theirs = await world.client.get(path, headers=other.headers)
            assert mine.status_code == theirs.status_code == 200, (path, theirs.text)
            assert next(iter(ids.values())) in mine.text, path
            for value in (*ids.values(), secret):
                assert not value or value not in theirs.text, path

    return check


# --- research agents (issue 17), also under the legacy /v1/orbit and /v1/comet paths (§4.5) -----------

AGENT_KEYWORD = "probesecretloaf"


async def make_agent(world: World, owner: TeamKey) -> dict[str, str]:
    body = {"name": SECRET_DESCRIPTION, "keywords": [AGENT_KEYWORD], "platforms": ["tiktok"]}
    response = await world.client.post("/v1/agents", json=body, headers=owner.headers)
    assert response.status_code == 201, response.text
    data = response.json()["data"]
    return {"agent_id": data["id"], "run_id": data["run_id"]}


async def make_agent_with_creators(world: World, owner: TeamKey) -> dict[str, str]:
    """An agent whose run found videos, and the catalog id of one of their creators (§4.4 similar)."""
    body = {"name": SECRET_DESCRIPTION, "keywords": ["sourdough"], "platforms": ["tiktok"]}
    response = await world.client.post("/v1/agents", json=body, headers=owner.headers)
    assert response.status_code == 201, response.text
    agent_id = response.json()["data"]["id"]
    videos = await world.client.get(f"/v1/agents/{agent_id}/videos", headers=owner.headers)
    creator_id = next(v["author_id"] for v in videos.json()["data"]["videos"] if v["author_id"])
    return {"agent_id": agent_id, "creator_id": creator_id}


async def make_agent_proposal(world: World, owner: TeamKey) -> dict[str, str]:
    """A recurring agent without autopilot whose thin first run left a proposal (§4.4)."""
    body = {"name": SECRET_DESCRIPTION, "keywords": [AGENT_KEYWORD], "platforms": ["tiktok"]}
    body |= {"is_recurring": True, "autopilot": False}
    response = await world.client.post("/v1/agents", json=body, headers=owner.headers)
    assert response.status_code == 201, response.text
    agent_id = response.json()["data"]["id"]
    listed = await world.client.get(f"/v1/agents/{agent_id}/proposals", headers=owner.headers)
    (proposal,) = listed.json()["data"]["proposals"]
    return {"agent_id": agent_id, "proposal_id": proposal["id"]}


async def proposal_untouched(world: World, ids: dict[str, str], owner: TeamKey, other: TeamKey) -> None:
    listed = await world.client.get(f"/v1/agents/{ids['agent_id']}/proposals", headers=owner.headers)
    assert [p["status"] for p in listed.json()["data"]["proposals"]] == ["proposed"]


AGENT_READS = ("", "/videos", "/slideshows", "/ads", "/creators/outliers")
# the run's analysis and its trend batches (issue 16)
AGENT_ANALYSIS_READS = ("/analysis/latest", "/trends", "/trends/latest")
ONE_AGENT = " /v1/agents/{agent_id}"


def with_legacy_twins(routes: tuple[str, ...]) -> tuple[str, ...]:
    """§4.5: every route of one agent, also under /v1/orbit and /v1/comet (agent/legacy.py, issue 28)."""
    twins = tuple(
        route.replace(" /v1/agents/", f" /v1/{kind}/", 1)
        for kind in ("orbit", "comet")
        for route in routes
        if ONE_AGENT in route
    )
    return routes + twins


def bodies_with_legacy_twins(bodies: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {twin: body for route, body in bodies.items() for twin in with_legacy_twins((route,))}


# --- tracking (issue 20): tracked creators and videos, their posts, collections and audience jobs ------

SEED = Settings().sandbox_seed
TRACKED_HANDLE = handle_of(SEED, Platform.TIKTOK, 3)  # maxcloset3: has an audience (comments) to sample


async def _created(world: World, owner: TeamKey, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = await world.client.post(path, json=body, headers=owner.headers)
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


async def make_tracked_creator(world: World, owner: TeamKey) -> dict[str, str]:
    body = {"platform": "tiktok", "handle": TRACKED_HANDLE}
    return {"id": (await _created(world, owner, "/v1/tracking/creators", body))["id"]}


async def make_tracked_post(world: World, owner: TeamKey) -> dict[str, str]:
    """A post the tracked creator's first cycle stored."""
    ids = await make_tracked_creator(world, owner)
    response = await world.client.get(f"/v1/tracking/creators/{ids['id']}/posts", headers=owner.headers)
    post = response.json()["data"][0]
    return {**ids, "post_id": post["id"]}


async def make_post_collection(world: World, owner: TeamKey) -> dict[str, str]:
    ids = await make_tracked_creator(world, owner)
    path = f"/v1/tracking/creators/{ids['id']}/posts/collect"
    data = await _started(world, owner, "POST", path, {"depth": "standard"})
    return {**ids, "collection_id": data["collection_id"]}


async def make_audience_refresh(world: World, owner: TeamKey) -> dict[str, str]:
    ids = await make_tracked_creator(world, owner)
    data = await _started(world, owner, "POST", f"/v1/tracking/creators/{ids['id']}/audience-refresh")
    return {**ids, "job_id": data["snapshot_id"]}


def latest_video_id(handle: str) -> str:
    """The platform id of ``handle``'s latest sandbox video at the tests' start (the probe's clock)."""
    [video] = SandboxWorld(SEED).creator_posts(Platform.TIKTOK, handle, START, 1) or []
    return video.external_id


TRACKED_VIDEO_ID = latest_video_id(TRACKED_HANDLE)


async def make_tracked_video(world: World, owner: TeamKey) -> dict[str, str]:
    body = {"platform": "tiktok", "video_id": TRACKED_VIDEO_ID}
    return {"id": (await _created(world, owner, "/v1/tracking/videos", body))["id"]}


CREATOR = "/v1/tracking/creators/{id}"
TRACKING_UPDATE = {"status": "paused"}

RESOURCES: list[TeamResource] = [
    TeamResource(
        name="webhook",
        make=make_webhook,
        routes=(
            "GET /v1/webhooks/{webhook_id}",
            "PATCH /v1/webhooks/{webhook_id}",
            "DELETE /v1/webhooks/{webhook_id}",
            "POST /v1/webhooks/{webhook_id}/enable",
            "POST /v1/webhooks/{webhook_id}/test",
            "GET /v1/webhooks/{webhook_id}/deliveries",
        ),
        bodies={
            "PATCH /v1/webhooks/{webhook_id}": {"description": "taken over"},
            "POST /v1/webhooks/{webhook_id}/test": {"event": "satellite.lookup.completed"},
        },
        secret=SECRET_DESCRIPTION,
    ),
    TeamResource(
        name="webhook delivery",
        make=make_delivery,
        routes=("POST /v1/webhooks/{webhook_id}/deliveries/{delivery_id}/retry",),
        secret=SECRET_DESCRIPTION,
    ),
    TeamResource(name="job", make=make_job, check=check_job),
    TeamResource(
        name="creator lookup",
        make=make_lookup("/v1/satellite/creator/tiktok/probe_creator"),
        routes=(
            "GET /v1/satellite/creator/status/{job_id}",
            "GET /v1/satellite/runs/{run_id}",
            "GET /v1/satellite/runs/{run_id}/videos",
        ),
        secret="probe_creator",
    ),
    TeamResource(
        name="sound lookup",
        make=make_lookup("/v1/satellite/sounds/tiktok/7100000000000000001"),
        routes=("GET /v1/satellite/sounds/status/{job_id}",),
        secret="7100000000000000001",
    ),
    TeamResource(
        name="hashtag lookup",
        make=make_lookup("/v1/satellite/hashtags/tiktok/probetag"),
        routes=("GET /v1/satellite/hashtags/status/{job_id}",),
        secret="probetag",
    ),
    TeamResource(
        name="video outlier",
        make=make_video_outlier,
        routes=("GET /v1/satellite/video-outlier/status/{job_id}",),
        secret="7300000000000000001",
    ),
    TeamResource(
        name="creator batch",
        make=make_batch,
        routes=("GET /v1/satellite/creators/batch/{batch_id}",),
        secret="probe_one",
    ),
    TeamResource(
        name="agent",
        make=make_agent,
        routes=with_legacy_twins(
            (
                "GET /v1/agents/{agent_id}",
                "PUT /v1/agents/{agent_id}",
                "DELETE /v1/agents/{agent_id}",
                *(f"GET /v1/agents/{{agent_id}}{sub}" for sub in AGENT_READS[1:]),
                "GET /v1/agents/{agent_id}/sounds",
                "GET /v1/agents/{agent_id}/hashtags",
                "GET /v1/agents/{agent_id}/benchmarks",
                "GET /v1/agents/{agent_id}/runs",
                "GET /v1/agents/{agent_id}/runs/{run_id}",
                "GET /v1/agents/{agent_id}/analysis",
                *(f"GET /v1/agents/{{agent_id}}{sub}" for sub in AGENT_ANALYSIS_READS),
                "GET /v1/agents/{agent_id}/hooks",
                "GET /v1/agents/{agent_id}/affinity",
                "GET /v1/agents/{agent_id}/activity",
                "GET /v1/agents/{agent_id}/events",
                "GET /v1/agents/{agent_id}/proposals",
                "PUT /v1/agents/{agent_id}/autonomy",
            )
        ),
        bodies=bodies_with_legacy_twins(
            {
                "PUT /v1/agents/{agent_id}": {"name": "taken over", "keywords": ["taken"]},
                "PUT /v1/agents/{agent_id}/autonomy": {"autopilot": False},
            }
        ),
        secret=AGENT_KEYWORD,
        check=lists_none_of_it("/v1/agents", "/v1/orbit", "/v1/orbit/list", secret=AGENT_KEYWORD),
    ),
    TeamResource(
        name="agent proposal",
        make=make_agent_proposal,
        routes=with_legacy_twins(
            (
                "GET /v1/agents/{agent_id}/proposals",
                "POST /v1/agents/{agent_id}/proposals/{proposal_id}/apply",
                "POST /v1/agents/{agent_id}/proposals/{proposal_id}/dismiss",
                "POST /v1/agents/{agent_id}/proposals/{proposal_id}/revert",
            )
        ),
        secret=AGENT_KEYWORD,
        check=proposal_untouched,
    ),
    TeamResource(
        name="agent creator",
        make=make_agent_with_creators,
        routes=with_legacy_twins(
            (
                "GET /v1/agents/{agent_id}/affinity",
                "GET /v1/agents/{agent_id}/creators/{creator_id}/similar",
            )
        ),
        secret=SECRET_DESCRIPTION,
    ),
    TeamResource(
        name="tracked creator",
        make=make_tracked_creator,
        routes=(
            f"GET {CREATOR}",
            f"PATCH {CREATOR}",
            f"DELETE {CREATOR}",
            f"GET {CREATOR}/report",
            f"GET {CREATOR}/snapshots",
            f"GET {CREATOR}/posts",
            f"POST {CREATOR}/posts/collect",
            f"GET {CREATOR}/posting-cadence",
            f"POST {CREATOR}/audience-refresh",
            f"GET {CREATOR}/audience-demographics",
            f"GET {CREATOR}/audience-geography",
        ),
        bodies={f"PATCH {CREATOR}": TRACKING_UPDATE, f"POST {CREATOR}/posts/collect": {"depth": "standard"}},
        secret=TRACKED_HANDLE,
        check=lists_none_of_it("/v1/tracking/creators", secret=TRACKED_HANDLE),
    ),
    TeamResource(
        name="tracked creator post",
        make=make_tracked_post,
        routes=(f"GET {CREATOR}/posts/{{post_id}}",),
        secret=TRACKED_HANDLE,
    ),
    TeamResource(
        name="post collection",
        make=make_post_collection,
        routes=(f"GET {CREATOR}/posts/collect/{{collection_id}}",),
        secret=TRACKED_HANDLE,
    ),
    TeamResource(
        name="audience snapshot",
        make=make_audience_refresh,
        routes=(f"GET {CREATOR}/audience-refresh/{{job_id}}", "GET /v1/audience/snapshot/{job_id}"),
        secret=TRACKED_HANDLE,
    ),
    TeamResource(
        name="tracked video",
        make=make_tracked_video,
        routes=(
            "GET /v1/tracking/videos/{id}",
            "PATCH /v1/tracking/videos/{id}",
            "DELETE /v1/tracking/videos/{id}",
        ),
        bodies={"PATCH /v1/tracking/videos/{id}": TRACKING_UPDATE},
        secret=TRACKED_VIDEO_ID,
        check=lists_none_of_it("/v1/tracking/videos", secret=TRACKED_VIDEO_ID),
    ),
]
