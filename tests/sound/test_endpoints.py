"""HTTP tests of the sound family (spec §2.2, §4.7, §8.2, §8.3; ADR 0020), on SQLite and PostgreSQL.

The catalog below (now = the test clock):

=====  =========  ==========================  =====  ==========  ===========================
sound  platform   title / owner               usage  videos      posted (days ago)
=====  =========  ==========================  =====  ==========  ===========================
A      tiktok     Espresso / Sabrina Carpenter  5000  6           1,2,3,4,5 (chef_anna's), 20
B      tiktok     original sound (original)     100  7           3,4 (chef_anna), 60 x5 (chef_anna)
C      instagram  Lo-fi beat / no owner        9000  2           10, 100
D      youtube    Old Tune / oldies              50  1           200
=====  =========  ==========================  =====  ==========  ===========================
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import timedelta

import httpx
import pytest
from sqlalchemy import text

from reelscope.catalog import hooks as catalog_hooks
from reelscope.catalog import service as catalog_service
from reelscope.catalog.service import catalog_id
from reelscope.collectors.base import CreatorRecord, SoundRecord, UsagePoint, VideoRecord
from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from reelscope.main import create_app
from reelscope.runtime import Runtime, build_runtime
from reelscope.sound import repository as sound_repository
from reelscope.sound import service as sound_service
from tests.catalog_builders import ingest, video
from tests.conftest import MakeTeam, TeamKey
from tests.kit.test_errors import assert_error

pytestmark = pytest.mark.both_databases

ESPRESSO = SoundRecord(
    platform=Platform.TIKTOK,
    external_id="s-a",
    title="Espresso",
    duration=30,
    cover_url="covers/a.jpg",
    usage_count=5000,
    owner_handle="sabrina",
    owner_nickname="Sabrina Carpenter",
    is_commerce_music=True,
)
ORIGINAL = SoundRecord(
    platform=Platform.TIKTOK,
    external_id="s-b",
    title="original sound - chef_anna",
    is_original=True,
    usage_count=100,
    owner_handle="chef_anna",
)
LOFI = SoundRecord(platform=Platform.INSTAGRAM, external_id="s-c", title="Lo-fi beat", usage_count=9000)
OLD_TUNE = SoundRecord(
    platform=Platform.YOUTUBE,
    external_id="s-d",
    title="Old Tune",
    duration=40,
    usage_count=50,
    owner_handle="oldies",
)
CHEF = CreatorRecord(platform=Platform.TIKTOK, handle="Chef_Anna")


def sound_id(record: SoundRecord) -> str:
    return catalog_id("sound", record.platform.value, record.external_id)


@dataclass(frozen=True)
class Catalog:
    a: str
    b: str
    c: str
    d: str
    # A's videos, most viewed first
    a_videos: list[str]


@pytest.fixture
async def catalog(runtime: Runtime, clock: ManualClock) -> Catalog:
    now = clock.now()
    records: list[VideoRecord] = []

    def add(
        name: str, days: float, sound: SoundRecord, views: int, creator: CreatorRecord | None = None
    ) -> None:
        record = video(name, now - timedelta(days=days), platform=sound.platform, views=views, sound=sound)
        records.append(replace(record, creator=creator) if creator else record)

    for i, days in enumerate((1, 2, 3, 4, 5)):
        add(f"a{i}", days, ESPRESSO, views=1000 * (i + 1), creator=CHEF if i == 0 else None)
    add("a5", 20, ESPRESSO, views=500)
    for i, days in enumerate((3, 4, 60, 60, 60, 60, 60)):
        add(f"b{i}", days, ORIGINAL, views=10 + i, creator=CHEF)
    add("c0", 10, LOFI, views=7)
    add("c1", 100, LOFI, views=8)
    add("d0", 200, OLD_TUNE, views=9)
    # fetched a day after posting or at most now
    records = [replace(r, fetched_at=min(r.published_at + timedelta(days=1), now)) for r in records]
    await ingest(runtime, *records)
    await sound_service.refresh(runtime.db, now)  # the counts are kept by this job (ADR 0038)
    a_videos = [catalog_id("video", "tiktok", f"a{i}") for i in (4, 3, 2, 1, 0, 5)]
    return Catalog(sound_id(ESPRESSO), sound_id(ORIGINAL), sound_id(LOFI), sound_id(OLD_TUNE), a_videos)


def assert_charged(response: httpx.Response, usd: str, credits: int) -> None:
    assert response.status_code == 200, response.text
    assert response.headers["X-Cost"] == usd
    assert response.headers["X-Credits-Used"] == str(credits)


def ids(response: httpx.Response) -> list[str]:
    return [item["id"] for item in response.json()["data"]]


class TestGetSound:
    async def test_fields_and_usage_figures(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog
    ) -> None:
        response = await client.get(f"/v1/sounds/{catalog.a}", headers=team.headers)
        assert_charged(response, "0.05", 5)
        data = response.json()["data"]
        assert data["id"] == catalog.a
        assert {k: data[k] for k in ("title", "duration", "platform", "cover_url", "is_original")} == {
            "title": "Espresso",
            "duration": 30,
            "platform": "tiktok",
            "cover_url": "covers/a.jpg",
            "is_original": False,
        }
        assert data["usage_count"] == 5000 and data["owner_nickname"] == "Sabrina Carpenter"
        assert data["is_commerce_music"] is True and data["owner_handle"] == "sabrina"
        assert (data["video_count"], data["videos_7d"], data["videos_30d"], data["videos_90d"]) == (
            6,
            5,
            6,
            6,
        )

    async def test_youtube_duration_and_usage_are_null(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog
    ) -> None:
        data = (await client.get(f"/v1/sounds/{catalog.d}", headers=team.headers)).json()["data"]
        assert data["duration"] is None and data["usage_count"] is None
        assert (data["video_count"], data["videos_90d"]) == (1, 0)

    async def test_without_resolve_the_resolution_says_not_yet(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog
    ) -> None:
        data = (await client.get(f"/v1/sounds/{catalog.a}", headers=team.headers)).json()["data"]
        assert data["track_resolution"] == {
            "status": "unresolved",
            "track_title": None,
            "artist": None,
            "reason": "Not resolved yet; request it with resolve=true",
            "resolved_at": None,
        }

    async def test_resolve_is_charged_fresh_then_cached(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog, clock: ManualClock
    ) -> None:
        fresh = await client.get(f"/v1/sounds/{catalog.a}", params={"resolve": "true"}, headers=team.headers)
        assert_charged(fresh, "0.15", 15)
        track = fresh.json()["data"]["track_resolution"]
        assert track["status"] == "resolved"
        assert (track["track_title"], track["artist"]) == ("Espresso", "Sabrina Carpenter")
        assert track["resolved_at"] is not None

        clock.advance(timedelta(minutes=5))
        cached = await client.get(f"/v1/sounds/{catalog.a}", params={"resolve": "true"}, headers=team.headers)
        assert_charged(cached, "0.05", 5)
        assert cached.json()["data"]["track_resolution"] == track
        # once made, the resolution is shown without resolve too
        plain = await client.get(f"/v1/sounds/{catalog.a}", headers=team.headers)
        assert_charged(plain, "0.05", 5)
        assert plain.json()["data"]["track_resolution"] == track

    async def test_a_resolution_survives_a_restart(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        catalog: Catalog,
        settings: Settings,
        clock: ManualClock,
    ) -> None:
        params = {"resolve": "true"}
        assert_charged(
            await client.get(f"/v1/sounds/{catalog.a}", params=params, headers=team.headers), "0.15", 15
        )
        restarted = build_runtime(settings, clock)
        transport = httpx.ASGITransport(app=create_app(runtime=restarted), client=("203.0.113.8", 50000))
        try:
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as other:
                response = await other.get(f"/v1/sounds/{catalog.a}", params=params, headers=team.headers)
                assert_charged(response, "0.05", 5)
        finally:
            await restarted.close()

    async def test_a_resolution_made_by_one_team_is_cached_for_another(
        self, client: httpx.AsyncClient, make_team: MakeTeam, catalog: Catalog
    ) -> None:
        first, second = await make_team(), await make_team()
        params = {"resolve": "true"}
        assert_charged(
            await client.get(f"/v1/sounds/{catalog.a}", params=params, headers=first.headers), "0.15", 15
        )
        assert_charged(
            await client.get(f"/v1/sounds/{catalog.a}", params=params, headers=second.headers), "0.05", 5
        )

    async def test_without_an_artist_it_stays_unresolved_with_the_reason(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog
    ) -> None:
        fresh = await client.get(f"/v1/sounds/{catalog.c}", params={"resolve": "true"}, headers=team.headers)
        assert_charged(fresh, "0.15", 15)
        track = fresh.json()["data"]["track_resolution"]
        assert track["status"] == "unresolved" and track["reason"] == "The sound names no artist"
        assert track["track_title"] is None and track["artist"] is None
        again = await client.get(f"/v1/sounds/{catalog.c}", params={"resolve": "true"}, headers=team.headers)
        assert_charged(again, "0.05", 5)

    async def test_an_original_sound_needs_no_resolution(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog
    ) -> None:
        response = await client.get(
            f"/v1/sounds/{catalog.b}", params={"resolve": "true"}, headers=team.headers
        )
        assert_charged(response, "0.05", 5)
        track = response.json()["data"]["track_resolution"]
        assert track["status"] == "original_sound" and track["reason"]
        assert track["track_title"] is None and track["artist"] is None

    async def test_unknown_sound_is_404_free(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog
    ) -> None:
        for params in ({}, {"resolve": "true"}):
            assert_error(
                await client.get("/v1/sounds/nope", params=params, headers=team.headers), 404, "not_found"
            )

    async def test_unknown_parameter_is_400_free(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog
    ) -> None:
        response = await client.get(f"/v1/sounds/{catalog.a}", params={"page": "2"}, headers=team.headers)
        assert_error(response, 400, "validation_error")


class TestUsageHistory:
    @pytest.fixture
    async def history(self, runtime: Runtime, clock: ManualClock) -> str:
        now = clock.now()
        points = tuple(
            UsagePoint(at=now - timedelta(days=d), usage_count=1000 - d) for d in (400, 100, 30, 1)
        )
        record = SoundRecord(platform=Platform.TIKTOK, external_id="s-h", title="History", usage=points)
        async with runtime.db.transaction() as session:
            await catalog_service.ingest_sounds(session, [record], now)
        return sound_id(record)

    async def test_default_is_90_days_oldest_first(
        self, client: httpx.AsyncClient, team: TeamKey, history: str
    ) -> None:
        response = await client.get(f"/v1/sounds/{history}/usage-history", headers=team.headers)
        assert_charged(response, "0.05", 5)
        data = response.json()["data"]
        assert data["sound_id"] == history and data["days"] == 90
        assert [p["usage_count"] for p in data["points"]] == [970, 999]
        assert data["points"][0]["at"] < data["points"][1]["at"]

    async def test_days_up_to_365(self, client: httpx.AsyncClient, team: TeamKey, history: str) -> None:
        response = await client.get(
            f"/v1/sounds/{history}/usage-history", params={"days": 365}, headers=team.headers
        )
        assert [p["usage_count"] for p in response.json()["data"]["points"]] == [900, 970, 999]

    async def test_days_over_365_or_below_1_is_400_free(
        self, client: httpx.AsyncClient, team: TeamKey, history: str
    ) -> None:
        for days in ("366", "0", "x"):
            response = await client.get(
                f"/v1/sounds/{history}/usage-history", params={"days": days}, headers=team.headers
            )
            assert_error(response, 400, "validation_error")

    async def test_unknown_sound_is_404(self, client: httpx.AsyncClient, team: TeamKey, history: str) -> None:
        assert_error(
            await client.get("/v1/sounds/nope/usage-history", headers=team.headers), 404, "not_found"
        )


class TestSearch:
    async def test_matches_title_artist_and_handle_case_insensitively(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog
    ) -> None:
        for q, expected in (("ESPRESSO", [catalog.a]), ("sabrina carp", [catalog.a]), ("Chef_", [catalog.b])):
            response = await client.get("/v1/sounds/search", params={"q": q}, headers=team.headers)
            assert_charged(response, "0.10", 10)
            assert ids(response) == expected, q

    async def test_like_wildcards_are_literal(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog
    ) -> None:
        for q in ("%", "_"):
            response = await client.get("/v1/sounds/search", params={"q": q}, headers=team.headers)
            expected = [catalog.b] if q == "_" else []  # only "chef_anna" holds an underscore
            assert ids(response) == expected

    async def test_paged_by_platform_usage(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog
    ) -> None:
        first = await client.get("/v1/sounds/search", params={"q": "o", "limit": 2}, headers=team.headers)
        assert ids(first) == [catalog.c, catalog.a]
        assert first.json()["pagination"] == {
            "page": 1,
            "limit": 2,
            "total": 4,
            "total_pages": 2,
            "has_next_page": True,
            "has_prev_page": False,
        }
        second = await client.get(
            "/v1/sounds/search", params={"q": "o", "limit": 2, "page": 2}, headers=team.headers
        )
        assert ids(second) == [catalog.b, catalog.d]
        assert second.json()["pagination"]["has_next_page"] is False
        assert second.json()["pagination"]["has_prev_page"] is True

    async def test_no_match_is_an_empty_page_still_charged(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog
    ) -> None:
        response = await client.get("/v1/sounds/search", params={"q": "zzz"}, headers=team.headers)
        assert_charged(response, "0.10", 10)
        assert response.json() == {
            "data": [],
            "pagination": {
                "page": 1,
                "limit": 20,
                "total": 0,
                "total_pages": 0,
                "has_next_page": False,
                "has_prev_page": False,
            },
        }

    async def test_q_missing_or_blank_is_400_free(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog
    ) -> None:
        for params in ({}, {"q": ""}, {"q": "   "}):
            response = await client.get("/v1/sounds/search", params=params, headers=team.headers)
            assert_error(response, 400, "validation_error")

    async def test_limit_above_100_is_100_and_page_0_is_400(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog
    ) -> None:
        response = await client.get(
            "/v1/sounds/search", params={"q": "o", "limit": 500}, headers=team.headers
        )
        assert response.json()["pagination"]["limit"] == 100
        response = await client.get("/v1/sounds/search", params={"q": "o", "page": 0}, headers=team.headers)
        assert_error(response, 400, "validation_error")


class TestTrending:
    async def test_default_sort_is_videos_7d(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog
    ) -> None:
        response = await client.get("/v1/sounds/trending", headers=team.headers)
        assert_charged(response, "0.25", 25)
        # D has no video in the last 30 days
        assert ids(response) == [catalog.a, catalog.b, catalog.c]
        assert response.json()["pagination"]["total"] == 3

    @pytest.mark.parametrize(
        ("sort", "order"),
        [("videos_30d", "abc"), ("usage_count", "cab"), ("video_count", "bac")],
    )
    async def test_sorts(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog, sort: str, order: str
    ) -> None:
        response = await client.get("/v1/sounds/trending", params={"sort": sort}, headers=team.headers)
        assert ids(response) == [getattr(catalog, letter) for letter in order]

    async def test_platform_filter(self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog) -> None:
        response = await client.get(
            "/v1/sounds/trending", params={"platform": "instagram"}, headers=team.headers
        )
        assert ids(response) == [catalog.c]

    async def test_bad_sort_or_platform_is_400_free(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog
    ) -> None:
        for params in ({"sort": "views"}, {"platform": "myspace"}, {"offset": "10"}):
            assert_error(
                await client.get("/v1/sounds/trending", params=params, headers=team.headers),
                400,
                "validation_error",
            )


class TestBreakout:
    async def test_score_and_defaults(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog
    ) -> None:
        response = await client.get("/v1/sounds/breakout", headers=team.headers)
        assert_charged(response, "0.25", 25)
        # B has 2 videos in 7 days, under the default min_recent of 3
        assert ids(response) == [catalog.a]
        assert response.json()["data"][0]["breakout_score"] == round(5 * 5 / 6, 4)

    async def test_thresholds(self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog) -> None:
        low = {"min_recent": 1, "min_baseline": 1}
        response = await client.get("/v1/sounds/breakout", params=low, headers=team.headers)
        assert ids(response) == [catalog.a, catalog.b]
        assert [s["breakout_score"] for s in response.json()["data"]] == [round(25 / 6, 4), round(4 / 7, 4)]
        response = await client.get(
            "/v1/sounds/breakout", params={"min_recent": 1, "min_baseline": 7}, headers=team.headers
        )
        assert ids(response) == [catalog.b]

    async def test_bad_thresholds_are_400_free(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog
    ) -> None:
        for params in ({"min_recent": 0}, {"min_baseline": "x"}):
            assert_error(
                await client.get("/v1/sounds/breakout", params=params, headers=team.headers),
                400,
                "validation_error",
            )


class TestSoundVideos:
    async def test_videos_most_viewed_first_as_video_objects(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog
    ) -> None:
        response = await client.get(f"/v1/sounds/{catalog.a}/videos", headers=team.headers)
        assert_charged(response, "0.25", 25)
        body = response.json()
        assert ids(response) == catalog.a_videos
        item = body["data"][0]
        assert len(item) == 24
        assert item["type"] == "tiktok" and item["views"] == 5000 and item["niche"] == "unknown"
        assert item["sound"]["id"] == catalog.a and item["sound"]["title"] == "Espresso"
        assert body["pagination"]["total"] == 6

    async def test_paged(self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog) -> None:
        response = await client.get(
            f"/v1/sounds/{catalog.a}/videos", params={"limit": 4, "page": 2}, headers=team.headers
        )
        assert ids(response) == catalog.a_videos[4:]
        assert response.json()["pagination"]["total_pages"] == 2

    async def test_unknown_sound_is_404(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog
    ) -> None:
        assert_error(await client.get("/v1/sounds/nope/videos", headers=team.headers), 404, "not_found")


class TestByCreator:
    async def test_sounds_of_the_creator(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog
    ) -> None:
        for handle in ("chef_anna", "@Chef_Anna"):
            response = await client.get(f"/v1/sounds/by-creator/tiktok/{handle}", headers=team.headers)
            assert_charged(response, "0.25", 25)
            assert ids(response) == [catalog.b, catalog.a]
            assert response.json()["pagination"]["total"] == 2

    async def test_unknown_creator_or_platform_is_404_free(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog
    ) -> None:
        for path in ("/v1/sounds/by-creator/instagram/chef_anna", "/v1/sounds/by-creator/myspace/chef_anna"):
            assert_error(await client.get(path, headers=team.headers), 404, "not_found")


class TestKeptCounts:
    """The counts come from ``sound_stats``, kept by ``sound.refresh`` (ADR 0038): a new video shows in
    them after the next refresh, which every catalog change and the clock (every 10 minutes) run."""

    async def test_a_new_video_counts_after_the_refresh(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog, runtime: Runtime, clock: ManualClock
    ) -> None:
        now = clock.now()
        await ingest(runtime, video("c2", now - timedelta(days=1), platform=Platform.INSTAGRAM, sound=LOFI))

        def counts(response: httpx.Response) -> tuple[int, int]:
            data = response.json()["data"]
            return data["video_count"], data["videos_7d"]

        assert counts(await client.get(f"/v1/sounds/{catalog.c}", headers=team.headers)) == (2, 0)
        await sound_service.refresh(runtime.db, now)
        assert counts(await client.get(f"/v1/sounds/{catalog.c}", headers=team.headers)) == (3, 1)
        trending = await client.get(
            "/v1/sounds/trending", params={"platform": "instagram"}, headers=team.headers
        )
        assert trending.json()["data"][0]["videos_7d"] == 1

    async def test_catalog_changes_run_the_refresh(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog, runtime: Runtime, clock: ManualClock
    ) -> None:
        import reelscope.sound.tasks  # noqa: F401  (registers the refresh, as the worker does)

        now = clock.now()
        await ingest(runtime, video("d1", now - timedelta(days=2), platform=Platform.YOUTUBE, sound=OLD_TUNE))
        await catalog_hooks.changed(runtime.db, now)
        response = await client.get(
            "/v1/sounds/trending", params={"platform": "youtube"}, headers=team.headers
        )
        assert ids(response) == [catalog.d]
        assert response.json()["data"][0]["video_count"] == 2

    async def test_the_windows_move_with_the_refresh_time(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog, runtime: Runtime, clock: ManualClock
    ) -> None:
        clock.advance(timedelta(days=3, hours=12))  # A's videos of 5 and 4 days ago: now past 7 days
        stale = (await client.get(f"/v1/sounds/{catalog.a}", headers=team.headers)).json()["data"]
        assert stale["videos_7d"] == 5  # as of the last refresh
        await sound_service.refresh(runtime.db, clock.now())
        fresh = (await client.get(f"/v1/sounds/{catalog.a}", headers=team.headers)).json()["data"]
        assert (fresh["videos_7d"], fresh["video_count"]) == (3, 6)
        breakout = (await client.get("/v1/sounds/breakout", headers=team.headers)).json()["data"]
        assert breakout[0]["breakout_score"] == round(3 * 3 / 6, 4)

    async def test_a_sound_no_video_uses_any_more_leaves_the_lists(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog, runtime: Runtime, clock: ManualClock
    ) -> None:
        now = clock.now()
        async with runtime.db.transaction() as session:  # c0 and c1 no longer carry LOFI
            for name in ("c0", "c1"):
                await session.execute(
                    text("UPDATE videos SET sound_id = NULL WHERE id = :id"),
                    {"id": catalog_id("video", "instagram", name)},
                )
        await sound_service.refresh(runtime.db, now)
        response = await client.get(
            "/v1/sounds/trending", params={"platform": "instagram"}, headers=team.headers
        )
        assert ids(response) == []
        data = (await client.get(f"/v1/sounds/{catalog.c}", headers=team.headers)).json()["data"]
        assert (data["video_count"], data["videos_90d"]) == (0, 0)


class TestTotals:
    async def test_a_long_list_counts_past_the_page_so_paging_never_stops_early(
        self, client: httpx.AsyncClient, team: TeamKey, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # §8.3: a sound list's total can be too low; here it is counted up to one past the page
        monkeypatch.setattr(sound_repository, "_MANY", 0)
        first = await client.get("/v1/sounds/trending", params={"limit": 1}, headers=team.headers)
        assert ids(first) == [catalog.a]
        assert first.json()["pagination"]["total"] == 2 and first.json()["pagination"]["has_next_page"]
        last = await client.get("/v1/sounds/trending", params={"limit": 1, "page": 3}, headers=team.headers)
        assert ids(last) == [catalog.c]
        assert last.json()["pagination"]["total"] == 3 and not last.json()["pagination"]["has_next_page"]
        videos = await client.get(f"/v1/sounds/{catalog.a}/videos", params={"limit": 2}, headers=team.headers)
        assert videos.json()["pagination"]["total"] == 3
