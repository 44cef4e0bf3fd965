"""Dates at the calendar's edges (issue 31 item 3; kit/dates.py): beyond 0002-01-01..9998-12-31 a date
is a 400 and free, inside it is read, on every family that takes dates, on SQLite and PostgreSQL. They
were 500s: an offset at the year limits overflowed once moved to UTC, a trend window once moved to its
region's zone, an agent filter once bound for the database."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import httpx
import pytest

from reelscope.kit import dates
from reelscope.kit.clock import ManualClock
from reelscope.runtime import Runtime
from reelscope.trend import service as trend_service
from tests.conftest import TeamKey
from tests.kit.test_errors import assert_error
from tests.kit.test_strict_parsing import assert_uncharged

# each overflowed somewhere before (the probe found 36 of 36 agent cases)
EDGES = [
    "0001-01-01T00:00:00",
    "0001-01-01T00:00:00+14:00",
    "0001-01-01",
    "9999-12-31T23:59:59Z",
    "9999-12-31T23:59:59-14:00",
    "9999-12-30T00:00:00Z",
    "9999-12-31",
    "0001-12-31T23:59:59Z",  # a year before the first day read
]
# the first and last moments read: answered (empty), in any zone the regions have
BOUNDS = ["0002-01-01", "0002-01-01T00:00:00Z", "9998-12-31", "9998-12-31T23:59:59.999999Z"]
RANGE = "must be between 0002-01-01 and 9998-12-31"


class TestTheCalendar:
    def test_a_day_beyond_the_bounds_is_out_of_range(self) -> None:
        assert dates.in_range(dates.FIRST_DAY) == date(2, 1, 1)
        for day in (date.min, date(1, 12, 31), date(9999, 1, 1), date.max):
            with pytest.raises(dates.OutOfRange):
                dates.in_range(day)

    def test_a_moment_is_bounded_in_utc(self) -> None:
        assert dates.as_utc(datetime(2026, 1, 1)) == datetime(2026, 1, 1, tzinfo=UTC)
        fourteen = timezone(timedelta(hours=14))
        for moment in (datetime(1, 1, 1, tzinfo=fourteen), datetime(9999, 12, 31, 23, 59, tzinfo=UTC)):
            with pytest.raises(dates.OutOfRange):
                dates.as_utc(moment)

    def test_the_edges_of_the_bounding_days_hold_in_every_zone(self) -> None:
        for zone in (ZoneInfo("Pacific/Kiritimati"), ZoneInfo("Pacific/Pago_Pago"), UTC):
            first = dates.day_edge(dates.FIRST_DAY, zone, end=False)
            last = dates.day_edge(dates.LAST_DAY, zone, end=True)
            assert first.tzinfo is UTC and last.tzinfo is UTC and first < last


pytestmark = pytest.mark.both_databases


@pytest.fixture
async def regions(runtime: Runtime) -> None:
    async with runtime.db.transaction() as session:
        await trend_service.seed_default_regions(session)


class TestTrends:
    async def test_edges_are_400_and_free(
        self, client: httpx.AsyncClient, team: TeamKey, regions: None
    ) -> None:
        for path in ("/v1/trends", "/v1/trends/digest"):
            for value in EDGES:
                for name in ("start_date", "end_date"):
                    params = {name: value, "region": "au"}
                    response = await client.get(path, params=params, headers=team.headers)
                    body = assert_error(response, 400, "invalid_date_range")
                    assert body["message"] == f"{name} {RANGE}", params
        await assert_uncharged(client, team)

    async def test_the_bounds_are_read(self, client: httpx.AsyncClient, team: TeamKey, regions: None) -> None:
        for region in ("global", "au"):
            for value in BOUNDS:
                params = {"region": region, "start_date": value, "end_date": value}
                response = await client.get("/v1/trends", params=params, headers=team.headers)
                assert response.status_code == 200, (params, response.text)
                assert response.json()["data"] == []
        # the case, as a window from the first day read to the last
        response = await client.get(
            "/v1/trends", params={"start_date": BOUNDS[0], "end_date": BOUNDS[-1]}, headers=team.headers
        )
        assert response.status_code == 200


class TestAgentLists:
    """Videos, slideshows and trend history of an agent, under /v1/agents and the legacy prefixes."""

    async def test_edges_are_400_and_the_bounds_are_read(
        self, client: httpx.AsyncClient, team: TeamKey, clock: ManualClock
    ) -> None:
        created = await client.post(
            "/v1/agents", json={"name": "edge", "keywords": ["bread"]}, headers=team.headers
        )
        assert created.status_code == 201, created.text
        agent_id = created.json()["data"]["id"]
        balance = (await client.get("/v1/account/balance", headers=team.headers)).json()["data"]
        # the legacy prefixes serve the same endpoints (agent/legacy.py), under 10 reads a minute (§8.1)
        for prefix, edges, bounds in (
            ("/v1/agents", EDGES, BOUNDS),
            ("/v1/orbit", EDGES[1:2], BOUNDS[:1]),
            ("/v1/comet", EDGES[4:5], BOUNDS[-1:]),
        ):
            for sub in ("videos", "slideshows", "trends"):
                path = f"{prefix}/{agent_id}/{sub}"
                for value in edges:
                    for name in ("start_date", "end_date"):
                        response = await client.get(path, params={name: value}, headers=team.headers)
                        body = assert_error(response, 400, "validation_error")
                        assert body["message"] == [f"{name}: {RANGE}"], (path, value)
                for value in bounds:
                    params = {"start_date": value, "end_date": value}
                    response = await client.get(path, params=params, headers=team.headers)
                    assert response.status_code == 200, (path, value, response.text)
                clock.advance(timedelta(minutes=1))
        after = (await client.get("/v1/account/balance", headers=team.headers)).json()["data"]
        assert after == balance
