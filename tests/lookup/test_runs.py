"""Past runs (spec §4.7, §8.3, §8.4) and the deprecated camelCase aliases (§1, §9)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from reelscope.kit.clock import ManualClock
from tests.conftest import MakeTeam, TeamKey
from tests.kit.test_errors import assert_error
from tests.lookup.conftest import HandleOf

pytestmark = pytest.mark.both_databases

RUNS = "/v1/satellite/runs"


async def lookups(
    client: httpx.AsyncClient, team: TeamKey, handle: HandleOf, clock: ManualClock, n: int
) -> list[str]:
    """``n`` creator lookups a minute apart (inside the 5/min limit); their run ids, oldest first."""
    run_ids = []
    for index in range(n):
        response = await client.get(
            f"/v1/satellite/creator/tiktok/{handle(index=index)}", headers=team.headers
        )
        assert response.status_code == 200, response.text
        run_ids.append(response.json()["data"]["run_id"])
        clock.advance(timedelta(minutes=1))
    return run_ids


class TestRunList:
    async def test_offset_paging_newest_first(
        self, client: httpx.AsyncClient, make_team: MakeTeam, handle: HandleOf, clock: ManualClock
    ) -> None:
        team = await make_team(credits=10_000)
        run_ids = await lookups(client, team, handle, clock, 7)
        first = await client.get(RUNS, params={"limit": "3"}, headers=team.headers)
        assert first.headers["X-Credits-Used"] == "0"
        page = first.json()["data"]
        assert [r["run_id"] for r in page["runs"]] == run_ids[::-1][:3]
        assert (page["total"], page["limit"], page["offset"], page["has_more"]) == (7, 3, 0, True)
        last = (await client.get(RUNS, params={"limit": "3", "offset": "6"}, headers=team.headers)).json()[
            "data"
        ]
        assert [r["run_id"] for r in last["runs"]] == [run_ids[0]]
        assert last["has_more"] is False
        assert page["runs"][0]["status"] == "completed" and page["runs"][0]["video_count"] == 20
        assert "result" not in page["runs"][0]

    async def test_the_default_limit_is_25_and_above_100_is_100(
        self, client: httpx.AsyncClient, team: TeamKey
    ) -> None:
        assert (await client.get(RUNS, headers=team.headers)).json()["data"]["limit"] == 25
        assert (await client.get(RUNS, params={"limit": "500"}, headers=team.headers)).json()["data"][
            "limit"
        ] == 100

    @pytest.mark.parametrize(
        "params", [{"page": "2"}, {"offset": "-1"}, {"limit": "0"}, {"type": "video_outlier"}]
    )
    async def test_page_and_bad_values_are_a_400(
        self, client: httpx.AsyncClient, team: TeamKey, params: dict[str, str]
    ) -> None:
        assert_error(await client.get(RUNS, params=params, headers=team.headers), 400, "validation_error")

    async def test_only_the_teams_own_runs(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        make_team: MakeTeam,
        handle: HandleOf,
        clock: ManualClock,
    ) -> None:
        [run_id] = await lookups(client, team, handle, clock, 1)
        other = await make_team()
        assert (await client.get(RUNS, headers=other.headers)).json()["data"]["total"] == 0
        assert_error(await client.get(f"{RUNS}/{run_id}", headers=other.headers), 404, "not_found")
        assert_error(await client.get(f"{RUNS}/{run_id}/videos", headers=other.headers), 404, "not_found")

    async def test_runs_never_expire(
        self, client: httpx.AsyncClient, team: TeamKey, handle: HandleOf, clock: ManualClock
    ) -> None:
        [run_id] = await lookups(client, team, handle, clock, 1)
        clock.advance(timedelta(days=400))
        data = (await client.get(f"{RUNS}/{run_id}", headers=team.headers)).json()["data"]
        assert data["status"] == "completed" and data["result"]["profile"]["handle"] == handle(index=0)


class TestRunVideos:
    async def test_offset_paging_over_the_lookups_videos(
        self, client: httpx.AsyncClient, team: TeamKey, handle: HandleOf
    ) -> None:
        started = await client.get(
            f"/v1/satellite/creator/tiktok/{handle()}", params={"max_videos": "60"}, headers=team.headers
        )
        run_id = started.json()["data"]["run_id"]
        result = (await client.get(f"{RUNS}/{run_id}", headers=team.headers)).json()["data"]["result"]
        everything = [v["id"] for v in result["videos"]]
        assert len(everything) == 60
        first = (await client.get(f"{RUNS}/{run_id}/videos", headers=team.headers)).json()["data"]
        assert (first["total"], first["limit"], first["offset"], first["has_more"]) == (60, 25, 0, True)
        assert [v["id"] for v in first["videos"]] == everything[:25]
        rest = (
            await client.get(
                f"{RUNS}/{run_id}/videos", params={"offset": "50", "limit": "200"}, headers=team.headers
            )
        ).json()["data"]
        assert [v["id"] for v in rest["videos"]] == everything[50:]
        assert rest["has_more"] is False

    @pytest.mark.parametrize("params", [{"limit": "201"}, {"page": "1"}, {"limit": "0"}])
    async def test_above_200_and_page_are_a_400(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        handle: HandleOf,
        clock: ManualClock,
        params: dict[str, str],
    ) -> None:
        [run_id] = await lookups(client, team, handle, clock, 1)
        response = await client.get(f"{RUNS}/{run_id}/videos", params=params, headers=team.headers)
        assert_error(response, 400, "validation_error")

    async def test_an_unknown_run_is_a_404(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        assert_error(await client.get(f"{RUNS}/nope/videos", headers=team.headers), 404, "not_found")


class TestCamelCaseAliases:
    """§1, §9: satellite responses carry camelCase aliases until 2026-08-03; the clock decides."""

    async def test_before_the_removal_date_both_forms_are_sent(
        self, client: httpx.AsyncClient, team: TeamKey, handle: HandleOf, clock: ManualClock
    ) -> None:
        clock.set(datetime(2026, 8, 2, 23, 59, tzinfo=UTC))
        started = (await client.get(f"/v1/satellite/creator/tiktok/{handle()}", headers=team.headers)).json()[
            "data"
        ]
        assert started["runId"] == started["run_id"] and started["jobId"] == started["job_id"]
        page = (await client.get(RUNS, headers=team.headers)).json()["data"]
        assert page["hasMore"] is page["has_more"] is False
        videos = (await client.get(f"{RUNS}/{started['run_id']}/videos", headers=team.headers)).json()["data"]
        assert videos["videos"][0]["publishDate"] == videos["videos"][0]["publish_date"]

    async def test_from_the_removal_date_only_snake_case(
        self, client: httpx.AsyncClient, team: TeamKey, handle: HandleOf, clock: ManualClock
    ) -> None:
        clock.set(datetime(2026, 8, 3, tzinfo=UTC))
        started = (await client.get(f"/v1/satellite/creator/tiktok/{handle()}", headers=team.headers)).text
        page = (await client.get(RUNS, headers=team.headers)).text
        for body in (started, page):
            assert "runId" not in body and "hasMore" not in body and "publishDate" not in body
        assert "has_more" in page


class TestBounds:
    async def test_an_offset_past_the_bound_is_a_400(
        self, client: httpx.AsyncClient, team: TeamKey, handle: HandleOf
    ) -> None:
        """§7: a huge digits-only offset is a validation error, not an overflow in the database."""
        started = await client.get(f"/v1/satellite/creator/tiktok/{handle()}", headers=team.headers)
        run_id = started.json()["data"]["run_id"]
        for path in (RUNS, f"{RUNS}/{run_id}/videos"):
            for offset in ("9" * 20, "100000001"):
                response = await client.get(path, params={"offset": offset}, headers=team.headers)
                assert_error(response, 400, "validation_error")
            last = await client.get(path, params={"offset": "100000000"}, headers=team.headers)
            assert last.status_code == 200, last.text
