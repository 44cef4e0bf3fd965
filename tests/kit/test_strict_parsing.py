"""Integers are ASCII digits and dates are the spec's formats, in every family's query (kit/schemas.py
``QueryModel``, ``IsoDate``, ``IsoMoment``; issue 14 item 4). Each refusal is a 400 and uncharged."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import TeamKey
from tests.kit.test_errors import assert_error


async def assert_uncharged(client: httpx.AsyncClient, team: TeamKey) -> None:
    balance = await client.get("/v1/account/balance", headers=team.headers)
    assert balance.json()["data"]["credits_remaining"] == 1000


class TestIntegers:
    @pytest.mark.parametrize("limit", ["%205", "5%20", "%2B5", "+5", "1_0", "5.0", "%D9%A5", "0x5", ""])
    @pytest.mark.parametrize(
        "path", ["/v1/videos/digest", "/v1/trends/emerging", "/v1/sounds/trending", "/v1/sounds/search?q=a"]
    )
    async def test_anything_but_digits_is_400(
        self, client: httpx.AsyncClient, team: TeamKey, path: str, limit: str
    ) -> None:
        joiner = "&" if "?" in path else "?"
        response = await client.get(f"{path}{joiner}limit={limit}", headers=team.headers)
        body = assert_error(response, 400, "validation_error")
        assert body["message"] == ["limit must be an integer written in ASCII digits"]
        await assert_uncharged(client, team)

    async def test_digits_and_a_minus_sign_reach_the_range_check(
        self, client: httpx.AsyncClient, team: TeamKey
    ) -> None:
        body = assert_error(
            await client.get("/v1/videos/digest?limit=-1", headers=team.headers), 400, "validation_error"
        )
        assert body["message"] == ["limit must be greater than or equal to 1"]
        assert (await client.get("/v1/videos/digest?limit=007", headers=team.headers)).status_code == 200


class TestDates:
    @pytest.mark.parametrize(
        "value", ["2026-01-01X00", "20260101", "2026-W01-1", "%202026-01-01", "2026-1-1", "2026-01-01T00"]
    )
    async def test_trend_dates_outside_iso_8601_are_400_invalid_date_range(
        self, client: httpx.AsyncClient, team: TeamKey, value: str
    ) -> None:
        response = await client.get(f"/v1/trends?start_date={value}", headers=team.headers)
        body = assert_error(response, 400, "invalid_date_range")
        assert str(body["message"]).startswith(
            "start_date must be an ISO 8601 date (YYYY-MM-DD) or timestamp"
        )
        await assert_uncharged(client, team)

    async def test_an_impossible_trend_date_is_400_invalid_date_range(
        self, client: httpx.AsyncClient, team: TeamKey
    ) -> None:
        response = await client.get("/v1/trends?end_date=2026-02-30T10:00:00Z", headers=team.headers)
        body = assert_error(response, 400, "invalid_date_range")
        assert body["message"] == "end_date is not a real date or time: 2026-02-30T10:00:00Z"

    async def test_a_nul_after_a_date_is_400(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        """The reproduction: fromisoformat took the NUL as the date-time separator (refused at the edge)."""
        response = await client.get("/v1/trends?start_date=2026-01-01%00", headers=team.headers)
        assert_error(response, 400, "validation_error")
        await assert_uncharged(client, team)

    @pytest.mark.parametrize(
        "value", ["2026-01-01T00:00:00", "2026-01-01X00", "%D9%A2%D9%A0%D9%A2%D9%A6-01-01"]
    )
    async def test_hashtag_dates_are_yyyy_mm_dd_only(
        self, client: httpx.AsyncClient, team: TeamKey, value: str
    ) -> None:
        response = await client.get(
            f"/v1/hashtags?start_date={value}&end_date=2026-01-02", headers=team.headers
        )
        body = assert_error(response, 400, "invalid_date_range")
        assert body["message"] == "start_date must be a date in YYYY-MM-DD format"
        await assert_uncharged(client, team)

    async def test_spec_formats_pass(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        both = "start_date=2026-01-01&end_date=2026-01-02"
        assert (await client.get(f"/v1/hashtags?{both}", headers=team.headers)).status_code == 200
        moment = "start_date=2026-01-01T00:00:00%2B14:00&end_date=2026-01-02T10:00Z"
        # no trend region exists in an empty database: the date passed, the region did not
        assert_error(await client.get(f"/v1/trends?{moment}", headers=team.headers), 400, "unknown_region")


@pytest.mark.both_databases
class TestIntegerRange:
    """Found by fuzzing on PostgreSQL: an integer past its INTEGER was a driver error (500) there."""

    @pytest.mark.parametrize(
        "query", ["min_baseline=1785321546933", "min_recent=2147483648", "page=99999999999999999999"]
    )
    async def test_past_32_bits_is_400_on_both_databases(
        self, client: httpx.AsyncClient, team: TeamKey, query: str
    ) -> None:
        response = await client.get(f"/v1/sounds/breakout?{query}", headers=team.headers)
        body = assert_error(response, 400, "validation_error")
        assert body["message"] == [f"{query.split('=')[0]} must be less than or equal to 2147483647"]
        await assert_uncharged(client, team)

    async def test_the_largest_32_bit_value_is_served(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        response = await client.get("/v1/sounds/breakout?min_baseline=2147483647", headers=team.headers)
        assert response.status_code == 200
