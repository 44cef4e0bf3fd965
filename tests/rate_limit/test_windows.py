"""Fixed-window rate limits through HTTP (spec §7, §8.1; ARCHITECTURE §3 step 2).

Every test runs against the in-memory and the Redis limiter storage (``both_limiters``). Time is the
manual clock, which starts at 2026-11-21T12:00:30Z.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI
from redis.asyncio import Redis
from redis.crc import key_slot

from reelscope.auth import service as auth_service
from reelscope.billing import service as billing_service
from reelscope.kit.clock import ManualClock
from reelscope.rate_limit import features
from reelscope.rate_limit.service import RateLimiter
from reelscope.rate_limit.storage import RedisStorage
from reelscope.runtime import Runtime
from tests.conftest import MakeTeam, TeamKey
from tests.fixtures.services import TEST_REDIS_URL, require_redis
from tests.kit.test_errors import assert_error
from tests.probe import mount_probe

pytestmark = pytest.mark.both_limiters


SetLimits = Callable[..., Awaitable[None]]


def unix(moment: datetime) -> int:
    return int(moment.timestamp())


@pytest.fixture(autouse=True)
def probe(client: httpx.AsyncClient, limiter_backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The probe family; POST /v1/probe is priced like GET, in the default feature group."""
    transport = client._transport
    assert isinstance(transport, httpx.ASGITransport) and isinstance(transport.app, FastAPI)
    # the platform probe stands in for a §8.1 feature group with minute and hour caps
    monkeypatch.setitem(features.OPERATION_FEATURES, "get_platform_probe", "creator_lookup")
    mount_probe(transport.app, monkeypatch)


@pytest.fixture
async def rich(make_team: MakeTeam) -> TeamKey:
    return await make_team(1_000_000)


@pytest.fixture
def set_limits(runtime: Runtime, clock: ManualClock) -> SetLimits:
    """What ``reelscope admin limits set`` does: custom limits for one team and feature group."""

    async def apply(
        team: TeamKey,
        feature: str = "default",
        *,
        per_minute: int | None = None,
        per_hour: int | None = None,
        per_day: int | None = None,
    ) -> None:
        async with runtime.db.transaction() as session:
            found = await auth_service.team_by_name(session, team.name)
            await auth_service.set_limits(
                session,
                found,
                feature,
                per_minute=per_minute,
                per_hour=per_hour,
                per_day=per_day,
                at=clock.now(),
            )

    return apply


async def get(client: httpx.AsyncClient, team: TeamKey, path: str = "/v1/probe") -> httpx.Response:
    return await client.get(path, headers=team.headers)


class TestTable:
    def test_feature_groups_match_the_spec(self) -> None:
        """§8.1's table, and the legacy values documented in docs/architecture.md."""
        limits = {name: (v.per_minute, v.per_hour, v.per_day) for name, v in features.FEATURE_LIMITS.items()}
        assert limits["creator_lookup"] == (5, 100, 1_000)
        assert limits["satellite_lookup"] == (5, 100, 1_000)
        assert limits["hashtag_stats"] == (50, 500, 5_000)
        assert limits["video_digests"] == (50, 500, 5_000)
        assert limits["trends"] == (50, 500, 5_000)
        assert limits["emerging_trends"] == (60, 600, 6_000)
        assert limits["default"] == (None, None, 10_000)
        assert features.feature_of("create_orbit", "/v1/orbit") == "legacy_create"
        assert features.feature_of("list_comets", "/v1/comet") == "legacy_read"
        assert limits["legacy_create"][0] == 2

    def test_operations_map_to_their_groups(self) -> None:
        expected = {
            "lookup_creator": "creator_lookup",
            "lookup_sound": "satellite_lookup",
            "lookup_hashtag": "satellite_lookup",
            "create_video_outlier": "satellite_lookup",
            "list_hashtags": "hashtag_stats",
            "get_hashtag_performance": "hashtag_stats",
            "get_videos_digest": "video_digests",
            "get_platform_videos_digest": "video_digests",
            "list_trends": "trends",
            "get_trends_digest": "trends",
            "list_emerging_trends": "emerging_trends",
            "create_creator_batch": "default",
            "get_creator_lookup_status": "default",
        }
        assert {op: features.feature_of(op, "/v1/x") for op in expected} == expected

    async def test_headers_report_the_tightest_window(self, client: httpx.AsyncClient, rich: TeamKey) -> None:
        """Creator lookups: 5 a minute is what runs out first (§8.1)."""
        response = await get(client, rich, "/v1/probe/tiktok")
        assert response.status_code == 200
        assert response.headers["X-RateLimit-Limit"] == "5"
        assert response.headers["X-RateLimit-Remaining"] == "4"
        assert response.headers["X-RateLimit-Reset"] == str(unix(datetime(2026, 11, 21, 12, 1, tzinfo=UTC)))

    async def test_default_group_has_only_a_daily_cap(self, client: httpx.AsyncClient, rich: TeamKey) -> None:
        response = await get(client, rich)
        assert response.headers["X-RateLimit-Limit"] == "10000"
        assert response.headers["X-RateLimit-Remaining"] == "9999"
        assert response.headers["X-RateLimit-Reset"] == str(unix(datetime(2026, 11, 22, tzinfo=UTC)))


class TestWindows:
    async def test_minute_rollover(
        self, client: httpx.AsyncClient, clock: ManualClock, rich: TeamKey
    ) -> None:
        for _ in range(5):
            assert (await get(client, rich, "/v1/probe/tiktok")).status_code == 200
        refused = await get(client, rich, "/v1/probe/tiktok")
        assert_error(refused, 429, "rate_limit_exceeded")
        assert refused.headers["Retry-After"] == "30"
        clock.set(datetime(2026, 11, 21, 12, 1, tzinfo=UTC))  # the next minute on the clock, not 60 s later
        response = await get(client, rich, "/v1/probe/tiktok")
        assert response.status_code == 200
        assert response.headers["X-RateLimit-Remaining"] == "4"

    async def test_hour_rollover(
        self, client: httpx.AsyncClient, clock: ManualClock, rich: TeamKey, set_limits: SetLimits
    ) -> None:
        await set_limits(rich, per_minute=3, per_hour=5)
        for _ in range(3):
            assert (await get(client, rich)).status_code == 200
        clock.set(datetime(2026, 11, 21, 12, 59, 10, tzinfo=UTC))
        for _ in range(2):
            assert (await get(client, rich)).status_code == 200
        refused = await get(client, rich)  # the minute has room, the hour does not
        body = assert_error(refused, 429, "rate_limit_exceeded")
        assert body["limit"] == 5
        assert body["retry_after"] == 50
        assert body["reset_at"] == unix(datetime(2026, 11, 21, 13, tzinfo=UTC))
        clock.set(datetime(2026, 11, 21, 13, 0, 0, tzinfo=UTC))
        assert (await get(client, rich)).status_code == 200

    async def test_utc_day_rollover(
        self, client: httpx.AsyncClient, clock: ManualClock, rich: TeamKey, set_limits: SetLimits
    ) -> None:
        await set_limits(rich, per_minute=3, per_hour=5, per_day=7)
        for _ in range(5):
            clock.advance(timedelta(seconds=20))
            assert (await get(client, rich)).status_code == 200
        clock.set(datetime(2026, 11, 21, 23, 59, 0, tzinfo=UTC))
        for _ in range(2):
            assert (await get(client, rich)).status_code == 200
        clock.set(datetime(2026, 11, 21, 23, 59, 45, tzinfo=UTC))
        body = assert_error(await get(client, rich), 429, "rate_limit_exceeded")
        assert body["limit"] == 7
        assert body["reset_at"] == unix(datetime(2026, 11, 22, tzinfo=UTC))
        assert body["reset_at_formatted"] == "2026-11-22T00:00:00Z"
        assert body["retry_after"] == 15
        clock.set(datetime(2026, 11, 22, 0, 0, 0, tzinfo=UTC))  # midnight UTC, not 24 h after the first call
        assert (await get(client, rich)).status_code == 200

    async def test_a_request_refused_by_the_day_window_consumes_no_minute_quota(
        self, client: httpx.AsyncClient, clock: ManualClock, rich: TeamKey, set_limits: SetLimits
    ) -> None:
        await set_limits(rich, per_minute=3, per_day=4)
        for _ in range(3):
            assert (await get(client, rich)).status_code == 200
        clock.set(datetime(2026, 11, 21, 12, 1, 5, tzinfo=UTC))
        assert (await get(client, rich)).status_code == 200  # day: 4 of 4; this minute: 1 of 3
        for _ in range(5):
            assert (await get(client, rich)).status_code == 429  # refused by the day window
        await set_limits(rich, per_day=100)  # the operator raises the day cap; it applies at once
        # had the refused requests counted, the minute window would be full already
        assert (await get(client, rich)).status_code == 200
        assert (await get(client, rich)).status_code == 200
        assert (await get(client, rich)).status_code == 429

    async def test_limits_are_per_key(
        self, client: httpx.AsyncClient, runtime: Runtime, clock: ManualClock, rich: TeamKey
    ) -> None:
        for _ in range(5):
            await get(client, rich, "/v1/probe/tiktok")
        assert (await get(client, rich, "/v1/probe/tiktok")).status_code == 429
        async with runtime.db.transaction() as session:
            found = await auth_service.team_by_name(session, rich.name)
            second = await auth_service.issue_key(session, found, clock.now())
        other = await client.get("/v1/probe/tiktok", headers={"Authorization": f"Bearer {second.api_key}"})
        assert other.status_code == 200
        assert other.headers["X-RateLimit-Remaining"] == "4"

    async def test_limits_are_per_endpoint(self, client: httpx.AsyncClient, rich: TeamKey) -> None:
        """Each platform's path is its own endpoint; a full one leaves the others open."""
        for _ in range(5):
            await get(client, rich, "/v1/probe/tiktok")
        assert (await get(client, rich, "/v1/probe/tiktok")).status_code == 429
        assert (await get(client, rich, "/v1/probe/youtube")).status_code == 200

    async def test_get_and_post_on_one_path_share_a_counter(
        self, client: httpx.AsyncClient, rich: TeamKey, set_limits: SetLimits
    ) -> None:
        await set_limits(rich, per_minute=3)
        assert (await get(client, rich)).status_code == 200
        created = await client.post("/v1/probe", json={"name": "a"}, headers=rich.headers)
        assert created.status_code == 201
        assert created.headers["X-RateLimit-Remaining"] == "1"
        assert (await get(client, rich)).status_code == 200
        refused = await client.post("/v1/probe", json={"name": "b"}, headers=rich.headers)
        assert_error(refused, 429, "rate_limit_exceeded")


class TestRefusal:
    async def test_429_body_and_headers(self, client: httpx.AsyncClient, rich: TeamKey) -> None:
        """§7: the body adds limit, remaining, reset_at, reset_at_formatted, retry_after; §8.1 Retry-After."""
        for _ in range(5):
            await get(client, rich, "/v1/probe/tiktok")
        refused = await get(client, rich, "/v1/probe/tiktok")
        body = assert_error(refused, 429, "rate_limit_exceeded")
        reset = datetime(2026, 11, 21, 12, 1, tzinfo=UTC)
        assert body["limit"] == 5
        assert body["remaining"] == 0
        assert body["reset_at"] == unix(reset)
        assert body["reset_at_formatted"] == "2026-11-21T12:01:00Z"
        assert body["retry_after"] == 30
        assert refused.headers["Retry-After"] == "30"
        assert refused.headers["X-RateLimit-Limit"] == "5"
        assert refused.headers["X-RateLimit-Remaining"] == "0"
        assert refused.headers["X-RateLimit-Reset"] == str(unix(reset))

    async def test_a_refused_request_is_not_charged(self, client: httpx.AsyncClient, rich: TeamKey) -> None:
        for _ in range(5):
            await get(client, rich, "/v1/probe/tiktok")
        refused = await get(client, rich, "/v1/probe/tiktok")
        assert refused.status_code == 429
        balance = await get(client, rich, "/v1/account/balance")
        assert balance.json()["data"]["credits_remaining"] == 1_000_000 - 5 * 5


class TestWhatCounts:
    async def test_bad_input_400s_count(
        self, client: httpx.AsyncClient, rich: TeamKey, set_limits: SetLimits
    ) -> None:
        await set_limits(rich, per_minute=3)
        for _ in range(2):
            assert_error(await get(client, rich, "/v1/probe?limit=0"), 400, "validation_error")
        assert (await get(client, rich)).status_code == 200
        assert_error(await get(client, rich), 429, "rate_limit_exceeded")

    async def test_401s_do_not_count(
        self, client: httpx.AsyncClient, rich: TeamKey, set_limits: SetLimits
    ) -> None:
        await set_limits(rich, per_minute=3)
        unknown = {"Authorization": "Bearer reelscope_tkn_" + "x" * 40}
        for _ in range(5):
            response = await client.get("/v1/probe", headers=unknown)
            assert_error(response, 401, "invalid_api_key")
            assert "X-RateLimit-Remaining" not in response.headers
        assert (await get(client, rich)).headers["X-RateLimit-Remaining"] == "2"

    async def test_a_403_counts_and_shows_the_headers(
        self, client: httpx.AsyncClient, make_team: MakeTeam, set_limits: SetLimits
    ) -> None:
        reader = await make_team(1000, scope="read")
        await set_limits(reader, per_minute=3)
        refused = await client.post("/v1/probe", json={"name": "a"}, headers=reader.headers)
        assert_error(refused, 403, "forbidden")
        assert refused.headers["X-RateLimit-Limit"] == "3"
        assert refused.headers["X-RateLimit-Remaining"] == "2"
        assert (await get(client, reader)).headers["X-RateLimit-Remaining"] == "1"

    async def test_402s_do_not_count(
        self,
        client: httpx.AsyncClient,
        runtime: Runtime,
        clock: ManualClock,
        make_team: MakeTeam,
        set_limits: SetLimits,
    ) -> None:
        poor = await make_team(0)
        await set_limits(poor, per_minute=3)
        for _ in range(5):
            refused = await get(client, poor)
            assert_error(refused, 402, "insufficient_credits")
            assert refused.headers["X-RateLimit-Limit"] == "3"
            assert refused.headers["X-RateLimit-Remaining"] == "3"  # given back
        async with runtime.db.transaction() as session:
            await billing_service.add_credits(session, poor.team_id, 1000, at=clock.now())
        for remaining in ("2", "1", "0"):
            assert (await get(client, poor)).headers["X-RateLimit-Remaining"] == remaining
        assert_error(await get(client, poor), 429, "rate_limit_exceeded")


class TestCustomLimits:
    async def test_custom_limits_replace_the_table_and_show_in_headers(
        self, client: httpx.AsyncClient, rich: TeamKey, make_team: MakeTeam, set_limits: SetLimits
    ) -> None:
        await set_limits(rich, "creator_lookup", per_minute=12)
        response = await get(client, rich, "/v1/probe/tiktok")
        assert response.headers["X-RateLimit-Limit"] == "12"
        assert response.headers["X-RateLimit-Remaining"] == "11"
        for _ in range(11):
            assert (await get(client, rich, "/v1/probe/tiktok")).status_code == 200
        body = assert_error(await get(client, rich, "/v1/probe/tiktok"), 429, "rate_limit_exceeded")
        assert body["limit"] == 12
        # another team still has the table's values
        other = await make_team(1000)
        assert (await get(client, other, "/v1/probe/tiktok")).headers["X-RateLimit-Limit"] == "5"

    async def test_a_custom_window_keeps_the_tables_other_windows(
        self, client: httpx.AsyncClient, rich: TeamKey, set_limits: SetLimits
    ) -> None:
        await set_limits(rich, "creator_lookup", per_minute=500)
        response = await get(client, rich, "/v1/probe/tiktok")
        # the hour (100, table) is now the window closest to running out
        assert response.headers["X-RateLimit-Limit"] == "100"
        assert response.headers["X-RateLimit-Remaining"] == "99"


@pytest.mark.redis
async def test_the_windows_counted_together_share_one_cluster_slot(clock: ManualClock) -> None:
    """Redis Cluster refuses a script whose keys lie in several slots (CROSSSLOT): a request's windows
    carry its key id as a hash tag (issue 31), whatever braces the path template holds."""
    require_redis()
    redis = Redis.from_url(TEST_REDIS_URL)
    await redis.flushdb()
    try:
        limiter = RateLimiter(RedisStorage(redis), ip_burst=20, ip_refill_per_second=1)
        for key_id in ("key-1", "key-2"):
            await limiter.hit(
                key_id=key_id,
                endpoint="/agents/{agent_id}/videos",
                limits=features.Limits(10, 100, 1000),
                now=clock.now(),
            )
            keys = await redis.keys(f"reelscope:rl:*{key_id}*")
            assert len(keys) == 3 and len({key_slot(key) for key in keys}) == 1
            assert {key_slot(key) for key in keys} == {key_slot(key_id.encode())}
    finally:
        await redis.flushdb()
        await redis.aclose()
