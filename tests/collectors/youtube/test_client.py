"""What the API answers → the four typed errors (connectors reference §1.5, §0.1), without a ledger; and
the key never leaving the request (issue 26 item 7)."""

from __future__ import annotations

import asyncio
import logging
import traceback
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from pydantic import SecretStr

from reelscope.collectors.base import ConnectorError, NotFound, RateLimited, Unavailable, UpstreamError
from reelscope.collectors.youtube import YouTubeConnector
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from tests.collectors.youtube import payloads
from tests.collectors.youtube.conftest import KEY, FakeYouTube, MakeConnector

YT = Platform.YOUTUBE


@pytest.fixture
def known(fake: FakeYouTube) -> str:
    return fake.add_videos(payloads.video("abcdefghijk"))[0]


class TestSuccess:
    async def test_sends_the_key_and_parts(
        self, connector: YouTubeConnector, fake: FakeYouTube, known: str
    ) -> None:
        stats = await connector.video_stats(YT, known)
        assert stats.external_id == known
        (request,) = fake.requests
        assert request.url.host == "www.googleapis.com"
        assert request.url.path == "/youtube/v3/videos"
        assert dict(request.url.params) == {"part": "statistics", "id": known, "maxResults": "50", "key": KEY}

    async def test_base_url_is_a_setting(
        self, make_connector: MakeConnector, fake: FakeYouTube, known: str
    ) -> None:
        connector = make_connector(youtube_base_url="http://127.0.0.1:9/yt/v3/")
        await connector.video_stats(YT, known)
        assert str(fake.requests[0].url).startswith("http://127.0.0.1:9/yt/v3/videos?")


class TestErrors:
    async def test_quota_exceeded_is_rate_limited_until_midnight_pacific(
        self, connector: YouTubeConnector, fake: FakeYouTube, clock: ManualClock, known: str
    ) -> None:
        fake.fail("videos", 403, payloads.QUOTA_EXCEEDED)
        with pytest.raises(RateLimited) as raised:
            await connector.video_stats(YT, known)
        # 2026-11-21 is standard time: midnight in Los Angeles is 08:00 UTC
        assert raised.value.retry_at == datetime(2026, 11, 22, 8, 0, tzinfo=UTC)

    @pytest.mark.parametrize("reason", ["rateLimitExceeded", "userRateLimitExceeded"])
    async def test_throttling_is_rate_limited_for_a_minute(
        self, connector: YouTubeConnector, fake: FakeYouTube, clock: ManualClock, known: str, reason: str
    ) -> None:
        fake.fail("videos", 403, payloads.error(403, reason, domain="usageLimits"))
        with pytest.raises(RateLimited) as raised:
            await connector.video_stats(YT, known)
        assert raised.value.retry_at == clock.now() + timedelta(seconds=60)

    async def test_429_with_retry_after(
        self, connector: YouTubeConnector, fake: FakeYouTube, clock: ManualClock, known: str
    ) -> None:
        fake.fail("videos", 429, content=b"slow down", headers={"Retry-After": "120"})
        with pytest.raises(RateLimited) as raised:
            await connector.video_stats(YT, known)
        assert raised.value.retry_at == clock.now() + timedelta(seconds=120)

    @pytest.mark.parametrize(
        ("status", "reason"),
        [
            (400, "keyInvalid"),
            (400, "keyExpired"),
            (403, "forbidden"),
            (403, "accessNotConfigured"),
            (401, None),
        ],
    )
    async def test_refused_credentials_are_unavailable(
        self, connector: YouTubeConnector, fake: FakeYouTube, known: str, status: int, reason: str | None
    ) -> None:
        fake.fail("videos", status, payloads.error(status, reason) if reason else {"error": {"code": status}})
        with pytest.raises(Unavailable) as raised:
            await connector.video_stats(YT, known)
        assert "REELSCOPE_YOUTUBE_API_KEY" in str(raised.value)

    @pytest.mark.parametrize(
        "reason",
        [
            "invalidPageToken",
            "missingRequiredParameter",
            "invalidFilters",
            "incompatibleParameters",
            "unexpectedParameter",
        ],
    )
    async def test_bad_parameters_are_not_retryable(
        self, connector: YouTubeConnector, fake: FakeYouTube, known: str, reason: str
    ) -> None:
        fake.fail("videos", 400, payloads.error(400, reason, message=f"The {reason} thing."))
        with pytest.raises(UpstreamError) as raised:
            await connector.video_stats(YT, known)
        assert raised.value.retryable is False
        assert reason in str(raised.value)

    async def test_404_is_not_found(self, connector: YouTubeConnector, fake: FakeYouTube) -> None:
        fake.fail("channels", 404, payloads.error(404, "channelNotFound"))
        with pytest.raises(NotFound):
            await connector.creator(YT, "gone")

    @pytest.mark.parametrize(
        "answer",
        [
            httpx.Response(503, json=payloads.error(503, "backendError")),
            httpx.Response(500, json=payloads.error(500, "internalError")),
            httpx.Response(502, content=b"<html>Bad gateway</html>", headers={"content-type": "text/html"}),
            httpx.Response(200, content=b"<html>captive portal</html>"),
            httpx.Response(200, json=["not", "an", "object"]),
            httpx.Response(200, content=b"\xff\xfe not utf-8"),
            httpx.Response(302, headers={"location": "https://example.com/"}),
        ],
        ids=["503", "500", "502-html", "200-html", "200-list", "200-bytes", "302"],
    )
    async def test_server_failures_and_odd_bodies_are_retryable(
        self, connector: YouTubeConnector, fake: FakeYouTube, known: str, answer: httpx.Response
    ) -> None:
        fake.handlers["videos"] = lambda _request: answer
        with pytest.raises(UpstreamError) as raised:
            await connector.video_stats(YT, known)
        assert raised.value.retryable is True

    @pytest.mark.parametrize("error", [httpx.ReadTimeout("timed out"), httpx.ConnectError("refused")])
    async def test_transport_failures_are_retryable(
        self, connector: YouTubeConnector, fake: FakeYouTube, known: str, error: httpx.HTTPError
    ) -> None:
        def fail(request: httpx.Request) -> httpx.Response:
            raise error

        fake.handlers["videos"] = fail
        with pytest.raises(UpstreamError) as raised:
            await connector.video_stats(YT, known)
        assert raised.value.retryable is True

    async def test_a_server_that_never_answers_costs_one_timeout(
        self, make_connector: MakeConnector, known: str, fake: FakeYouTube
    ) -> None:
        never = asyncio.Event()

        async def hang(request: httpx.Request) -> httpx.Response:
            await never.wait()
            raise AssertionError("unreachable")

        connector = make_connector(collector_timeout_seconds=0.05)
        fake.handlers["videos"] = hang
        with pytest.raises(UpstreamError) as raised:
            await connector.video_stats(YT, known)
        assert raised.value.retryable is True
        assert "0.05 s" in str(raised.value)


class TestNoKey:
    @pytest.mark.parametrize("key", [None, SecretStr(""), SecretStr("  ")])
    async def test_every_operation_is_unavailable_and_nothing_is_sent(
        self, make_connector: MakeConnector, fake: FakeYouTube, key: SecretStr | None
    ) -> None:
        connector = make_connector(youtube_api_key=key)
        now = datetime(2026, 11, 21, tzinfo=UTC)
        calls = [
            connector.search_videos(YT, "bread", now - timedelta(days=1), now),
            connector.discovery_feed(YT, "us", now - timedelta(days=1), now),
            connector.video(YT, "abcdefghijk"),
            connector.video_stats(YT, "abcdefghijk"),
            connector.videos_stats(YT, ["abcdefghijk"]),
            connector.creator(YT, "crumblab"),
            connector.creator_posts(YT, "crumblab"),
            connector.check(),
        ]
        for call in calls:
            with pytest.raises(Unavailable, match="REELSCOPE_YOUTUBE_API_KEY"):
                await call
        assert fake.requests == []


class TestSecrets:
    async def test_the_key_is_in_no_log_record_output_or_error(
        self,
        connector: YouTubeConnector,
        fake: FakeYouTube,
        known: str,
        caplog: pytest.LogCaptureFixture,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        caplog.set_level(logging.DEBUG)
        errors: list[ConnectorError] = []

        def timeout(request: httpx.Request) -> httpx.Response:
            raise httpx.ReadTimeout(f"timed out reading {request.url}", request=request)

        await connector.video_stats(YT, known)
        # a vendor quoting the key back in its message, each class of failure, an exception that names
        # the URL
        fake.fail("videos", 400, payloads.error(400, "keyInvalid", message=f"API key {KEY} not valid."))
        fake.fail("videos", 400, payloads.error(400, "invalidFilters", message=f"Bad filter with key={KEY}"))
        fake.fail("videos", 403, payloads.QUOTA_EXCEEDED)
        fake.fail("videos", 503, content=f"upstream {KEY}".encode())
        for _ in range(4):
            with pytest.raises(ConnectorError) as raised:
                await connector.video_stats(YT, known)
            errors.append(raised.value)
        fake.handlers["videos"] = timeout
        with pytest.raises(ConnectorError) as raised:
            await connector.video_stats(YT, known)
        errors.append(raised.value)

        assert [type(e) for e in errors] == [
            Unavailable,
            UpstreamError,
            RateLimited,
            UpstreamError,
            UpstreamError,
        ]
        assert all(r.url.params["key"] == KEY for r in fake.requests)  # it was sent, so it could leak
        assert any("HTTP Request" in r.getMessage() for r in caplog.records)  # httpx did log each request
        for record in caplog.records:
            assert KEY not in record.getMessage()
        out, err = capsys.readouterr()
        assert KEY not in caplog.text and KEY not in out and KEY not in err
        for error in errors:
            assert KEY not in str(error)
            assert KEY not in "".join(traceback.format_exception(error))
