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

from reelscope.kit.clock import ManualClock
from reelscope.kit.ids import new_id
from reelscope.models import Job
from reelscope.runtime import Runtime
from reelscope.webhook.delivery import fan_out
from reelscope.worker.jobs import service as jobs_service
from tests.conftest import TeamKey

# a public host for webhook URLs (the probe's client resolves it statically: no DNS, no connection)
HOOK_HOST = "hooks.example"


@dataclass
class World:
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
]
