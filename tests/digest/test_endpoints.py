"""HTTP tests of the video digests (spec §4.1, §2.1, §2.2, §8; issue 6)."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from reelscope.catalog import tasks as catalog_tasks
from reelscope.collectors.base import SoundRecord
from reelscope.digest import service as digest_service
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from reelscope.models import Video
from reelscope.runtime import Runtime
from reelscope.worker import TaskContext
from reelscope.worker.engine import JobEngine
from tests.catalog_builders import build_sandbox_template, ingest, video
from tests.conftest import START, TeamKey
from tests.fixtures.databases import copy_catalog, copy_sqlite
from tests.kit.test_errors import assert_error

VIDEO_FIELDS = {
    "id", "external_id", "url", "type", "description", "publish_date", "views", "number_of_likes",
    "number_of_comments", "number_of_shares", "bookmarks", "hashtags", "thumbnail_url", "duration",
    "transcript_raw", "sound", "upload_region", "upload_region_source", "is_duet", "is_stitch",
    "is_eligible_for_commission", "author_id", "region", "niche",
}  # fmt: skip
SOUND_FIELDS = {
    "id", "title", "duration", "platform", "cover_url", "is_original", "usage_count", "owner_handle",
    "owner_nickname", "is_commerce_music",
}  # fmt: skip
PUBLISH_DATE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}")
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


async def refresh(runtime: Runtime, clock: ManualClock) -> None:
    await digest_service.refresh(runtime.db, clock.now())


async def own_top(runtime: Runtime, clock: ManualClock, platform: str | None, limit: int) -> list[str]:
    """The ids the spec asks for, straight from the catalog: posted in the last 48 hours, by views."""
    stmt = select(Video.id).where(Video.published_at >= clock.now() - timedelta(hours=48))
    if platform is not None:
        stmt = stmt.where(Video.platform == platform)
    async with runtime.db.transaction(write=False) as session:
        return list(
            (await session.execute(stmt.order_by(Video.views.desc(), Video.id).limit(limit))).scalars()
        )


@pytest.fixture(scope="session")
def sandbox_catalog(sqlite_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sandbox's last 3 days at START on SQLite, collected once per session: copied as a file for a
    SQLite test, its rows copied into the database for a PostgreSQL one (ADR 0064)."""
    return build_sandbox_template(sqlite_template, tmp_path_factory.mktemp("digest") / "sandbox.db", START, 3)


@pytest.fixture
def database_url(database_url: str, backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """On SQLite a test that uses ``sandbox`` starts on its own copy of the collected catalog."""
    if backend == "sqlite" and "sandbox" in request.fixturenames:
        return copy_sqlite(request.getfixturevalue("sandbox_catalog"), tmp_path)
    return database_url


@pytest.fixture
async def sandbox(
    runtime: Runtime, clock: ManualClock, backend: str, database_url: str, sandbox_catalog: Path
) -> None:
    assert clock.now() == START  # what the copied catalog was collected at
    if backend != "sqlite":  # on SQLite the database is a copy of the collected catalog (database_url)
        await copy_catalog(sandbox_catalog, database_url)
    await refresh(runtime, clock)


class TestSandboxCatalog:
    @pytest.mark.both_databases
    async def test_mixed_list_is_the_top_100_by_views_alone(
        self, client: httpx.AsyncClient, team: TeamKey, runtime: Runtime, clock: ManualClock, sandbox: None
    ) -> None:
        response = await client.get("/v1/videos/digest", params={"limit": 100}, headers=team.headers)
        assert response.status_code == 200
        assert response.headers["X-Cost"] == "0.25"
        assert response.headers["X-Credits-Used"] == "25"
        items = response.json()["data"]
        assert [v["id"] for v in items] == await own_top(runtime, clock, None, 100)
        views = [v["views"] for v in items]
        assert views == sorted(views, reverse=True)

    @pytest.mark.parametrize("platform", list(Platform))
    async def test_each_platform_list_is_its_own_top_100(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        runtime: Runtime,
        clock: ManualClock,
        sandbox: None,
        platform: Platform,
    ) -> None:
        response = await client.get(f"/v1/{platform}/videos/digest?limit=100", headers=team.headers)
        assert response.status_code == 200 and response.headers["X-Cost"] == "0.25"
        items = response.json()["data"]
        assert len(items) == 100
        assert {v["type"] for v in items} == {platform.value}
        assert [v["id"] for v in items] == await own_top(runtime, clock, platform.value, 100)

    async def test_every_item_has_the_24_fields_of_2_1(
        self, client: httpx.AsyncClient, team: TeamKey, clock: ManualClock, sandbox: None
    ) -> None:
        items = []
        for path in ("/v1/videos/digest", *(f"/v1/{p}/videos/digest" for p in Platform)):
            items += (await client.get(path, params={"limit": 100}, headers=team.headers)).json()["data"]
        sounds = 0
        for item in items:
            assert set(item) == VIDEO_FIELDS
            assert UUID.fullmatch(item["id"])
            assert PUBLISH_DATE.fullmatch(item["publish_date"]), item["publish_date"]  # no Z
            assert item["niche"] == "unknown"
            assert isinstance(item["views"], int) and isinstance(item["number_of_likes"], int)
            assert item["hashtags"] is None or isinstance(item["hashtags"], list)
            if item["type"] == "youtube":
                assert item["region"] is None
            if item["sound"] is not None:
                sounds += 1
                assert set(item["sound"]) == SOUND_FIELDS
                assert UUID.fullmatch(item["sound"]["id"])
                if item["sound"]["platform"] == "youtube":
                    assert item["sound"]["duration"] is None and item["sound"]["usage_count"] is None
        assert sounds > 0

    async def test_limit_default_and_clamp(
        self, client: httpx.AsyncClient, team: TeamKey, sandbox: None
    ) -> None:
        default = await client.get("/v1/videos/digest", headers=team.headers)
        assert len(default.json()["data"]) == 50
        clamped = await client.get("/v1/tiktok/videos/digest", params={"limit": 500}, headers=team.headers)
        assert clamped.status_code == 200 and len(clamped.json()["data"]) == 100
        one = await client.get("/v1/videos/digest", params={"limit": 1}, headers=team.headers)
        assert one.json()["data"] == default.json()["data"][:1]

    async def test_collection_landing_new_data_refreshes_the_digests(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        runtime: Runtime,
        clock: ManualClock,
        task_context: TaskContext,
        jobs: JobEngine,
    ) -> None:
        empty = await client.get("/v1/videos/digest", headers=team.headers)
        assert empty.status_code == 200 and empty.json()["data"] == []
        await catalog_tasks.collect(task_context)  # the periodic collection job
        response = await client.get("/v1/videos/digest", params={"limit": 100}, headers=team.headers)
        assert [v["id"] for v in response.json()["data"]] == await own_top(runtime, clock, None, 100)


class TestHandMade:
    async def test_only_videos_of_the_last_48_hours(
        self, client: httpx.AsyncClient, team: TeamKey, runtime: Runtime, clock: ManualClock
    ) -> None:
        now = clock.now()
        await ingest(
            runtime,
            video("old", now - timedelta(hours=48, seconds=1), views=10_000, fetched_at=now),
            video("edge", now - timedelta(hours=47, minutes=59), views=50, fetched_at=now),
            video("new", now - timedelta(hours=1), views=500, fetched_at=now),
        )
        await refresh(runtime, clock)
        items = (await client.get("/v1/videos/digest", headers=team.headers)).json()["data"]
        assert [v["external_id"] for v in items] == ["new", "edge"]

    async def test_a_video_leaves_the_digest_when_it_turns_48_hours_old(
        self, client: httpx.AsyncClient, team: TeamKey, runtime: Runtime, clock: ManualClock
    ) -> None:
        now = clock.now()
        await ingest(
            runtime,
            video("a", now - timedelta(hours=40), views=900, fetched_at=now),
            video("b", now - timedelta(hours=2), views=100, fetched_at=now),
        )
        await refresh(runtime, clock)
        items = (await client.get("/v1/tiktok/videos/digest", headers=team.headers)).json()["data"]
        assert [v["external_id"] for v in items] == ["a", "b"]  # this body is now kept for its limit
        clock.advance(timedelta(hours=9))  # no refresh in between: "a" is now 49 hours old
        items = (await client.get("/v1/tiktok/videos/digest", headers=team.headers)).json()["data"]
        assert [v["external_id"] for v in items] == ["b"]
        # bodies are kept per window position and limit (digest/service.py): each still answers right
        items = (await client.get("/v1/tiktok/videos/digest?limit=1", headers=team.headers)).json()["data"]
        assert [v["external_id"] for v in items] == ["b"]
        clock.advance(timedelta(hours=47))  # "b" is 49 hours old too
        items = (await client.get("/v1/tiktok/videos/digest", headers=team.headers)).json()["data"]
        assert items == []

    async def test_rendering_of_one_video_and_its_sound(
        self, client: httpx.AsyncClient, team: TeamKey, runtime: Runtime, clock: ManualClock
    ) -> None:
        now = clock.now().replace(microsecond=0)
        published = now - timedelta(hours=3, microseconds=-250_000)
        sound = SoundRecord(
            platform=Platform.YOUTUBE, external_id="s1", title="Song", duration=30, usage_count=99
        )
        await ingest(
            runtime,
            video(
                "yt1", published, platform=Platform.YOUTUBE, views=7, hashtags=("#Fyp",),
                sound=sound, region="US", fetched_at=now,
            ),
            video("tt1", published, views=5, region="BR", fetched_at=now),
        )  # fmt: skip
        await refresh(runtime, clock)
        yt, tt = (await client.get("/v1/videos/digest", headers=team.headers)).json()["data"]
        assert yt["type"] == "youtube" and yt["region"] is None  # §2.1: always null on YouTube
        assert yt["publish_date"] == published.strftime("%Y-%m-%dT%H:%M:%S")
        assert yt["hashtags"] == ["#Fyp"] and yt["niche"] == "unknown"
        assert yt["sound"]["title"] == "Song" and yt["sound"]["platform"] == "youtube"
        assert yt["sound"]["duration"] is None and yt["sound"]["usage_count"] is None  # §2.2
        assert tt["sound"] is None and tt["region"] == "BR"
        assert tt["author_id"] is not None and UUID.fullmatch(tt["author_id"])


class TestParameters:
    @pytest.mark.parametrize("value", ["0", "-3", "abc", "1.5", ""])
    async def test_a_limit_below_1_or_not_an_integer_is_400(
        self, client: httpx.AsyncClient, team: TeamKey, value: str
    ) -> None:
        for path in ("/v1/videos/digest", "/v1/tiktok/videos/digest"):
            response = await client.get(path, params={"limit": value}, headers=team.headers)
            body = assert_error(response, 400, "validation_error")
            assert isinstance(body["message"], list) and "limit" in body["message"][0]

    @pytest.mark.parametrize("name", ["platform", "offset", "page", "region"])
    async def test_any_other_parameter_is_400(
        self, client: httpx.AsyncClient, team: TeamKey, name: str
    ) -> None:
        response = await client.get("/v1/videos/digest", params={name: "tiktok"}, headers=team.headers)
        body = assert_error(response, 400, "validation_error")
        assert body["message"] == [f"{name} is not a supported parameter"]

    async def test_an_unknown_platform_is_404(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        assert_error(await client.get("/v1/myspace/videos/digest", headers=team.headers), 404, "not_found")

    async def test_an_empty_digest_is_still_charged(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        response = await client.get("/v1/instagram/videos/digest", headers=team.headers)
        assert response.status_code == 200 and response.json() == {"data": []}
        assert response.headers["X-Cost"] == "0.25"
        assert response.headers["X-RateLimit-Limit"] == "50"  # §8.1 video digests: 50 per minute
