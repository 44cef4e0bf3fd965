"""The TikTok Research API's client token and its answers → the four typed errors (connectors reference
§2.1, §2.5; issue 27 item 1), without a ledger; the client secret and tokens never leaving the requests."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from pydantic import SecretStr

from reelscope.collectors.base import ConnectorError, NotFound, RateLimited, Unavailable, UpstreamError
from reelscope.collectors.tiktok_research import TikTokResearchConnector
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from tests.collectors.tiktok_research import payloads
from tests.collectors.tiktok_research.conftest import MakeConnector
from tests.collectors.tiktok_research.fake import CLIENT_KEY, CLIENT_SECRET, FakeTikTok

TT = Platform.TIKTOK
# START (tests/conftest.py) is 2026-11-21 12:00:30 UTC: the next reset of the daily quota
NEXT_UTC_MIDNIGHT = datetime(2026, 11, 22, tzinfo=UTC)


@pytest.fixture
def crumblab(fake: FakeTikTok) -> str:
    fake.users["crumblab"] = payloads.USER_INFO["data"]
    return "crumblab"


class TestToken:
    async def test_the_token_is_asked_for_once_and_sent_as_a_bearer(
        self, make_connector: MakeConnector, fake: FakeTikTok, crumblab: str
    ) -> None:
        await make_connector().creator(TT, crumblab)
        await make_connector().creator(TT, crumblab)  # a job's new connector: the same process's token
        (token_call,) = fake.calls("oauth/token")
        assert token_call.method == "POST"
        assert token_call.headers["content-type"] == "application/x-www-form-urlencoded"
        form = dict(httpx.QueryParams(token_call.content.decode()))
        assert form == {
            "client_key": CLIENT_KEY,
            "client_secret": CLIENT_SECRET,
            "grant_type": "client_credentials",
        }
        assert CLIENT_SECRET not in str(token_call.url)
        infos = fake.calls("user/info")
        assert [r.headers["authorization"] for r in infos] == ["Bearer clt.fake0001EXAMPLE"] * 2

    async def test_the_token_is_replaced_before_it_expires(
        self, connector: TikTokResearchConnector, fake: FakeTikTok, clock: ManualClock, crumblab: str
    ) -> None:
        await connector.creator(TT, crumblab)
        clock.advance(timedelta(hours=1, minutes=49))
        await connector.creator(TT, crumblab)
        assert fake.issued == 1
        clock.advance(timedelta(minutes=2))  # 1 h 51 min: within 10 minutes of the 2-hour expiry
        await connector.creator(TT, crumblab)
        assert fake.issued == 2
        assert fake.calls("user/info")[-1].headers["authorization"] == "Bearer clt.fake0002EXAMPLE"

    async def test_a_refused_token_is_replaced_and_the_call_sent_once_more(
        self, connector: TikTokResearchConnector, fake: FakeTikTok, crumblab: str
    ) -> None:
        await connector.creator(TT, crumblab)
        fake.revoke_tokens()  # e.g. revoked early, or the process slept past its expiry
        creator = await connector.creator(TT, crumblab)
        assert creator.display_name == "Crumb Lab"
        assert fake.issued == 2
        assert len(fake.calls("user/info")) == 3

    @pytest.mark.parametrize("code", ["access_token_invalid", "invalid_token"])
    async def test_a_token_refused_twice_is_unavailable(
        self, connector: TikTokResearchConnector, fake: FakeTikTok, crumblab: str, code: str
    ) -> None:
        fake.fail("user/info", 401, payloads.error(code), times=2)
        with pytest.raises(Unavailable, match="REELSCOPE_TIKTOK_CLIENT_KEY"):
            await connector.creator(TT, crumblab)
        assert fake.issued == 2 and len(fake.calls("user/info")) == 2

    async def test_refused_credentials_are_unavailable_naming_the_settings(
        self, make_connector: MakeConnector, fake: FakeTikTok, crumblab: str
    ) -> None:
        connector = make_connector(tiktok_client_secret=SecretStr("wrong-secret-value"))
        with pytest.raises(Unavailable) as raised:
            await connector.creator(TT, crumblab)
        message = str(raised.value)
        assert "invalid_client" in message and "REELSCOPE_TIKTOK_CLIENT_SECRET" in message
        assert "wrong-secret-value" not in message
        assert fake.calls("user/info") == []

    async def test_a_failing_token_endpoint_is_retryable(
        self, connector: TikTokResearchConnector, fake: FakeTikTok, crumblab: str
    ) -> None:
        fake.fail("oauth/token", 503, content=b"maintenance")
        with pytest.raises(UpstreamError) as raised:
            await connector.creator(TT, crumblab)
        assert raised.value.retryable
        assert fake.calls("user/info") == []
        assert (await connector.creator(TT, crumblab)).handle == crumblab


class TestMissingCredentials:
    @pytest.mark.parametrize(
        ("missing", "named"),
        [
            ("tiktok_client_key", "REELSCOPE_TIKTOK_CLIENT_KEY"),
            ("tiktok_client_secret", "REELSCOPE_TIKTOK_CLIENT_SECRET"),
        ],
    )
    async def test_every_operation_is_unavailable_and_nothing_is_sent(
        self, make_connector: MakeConnector, fake: FakeTikTok, missing: str, named: str
    ) -> None:
        connector = make_connector(**{missing: None})
        assert connector.unavailable_reason is not None and named in connector.unavailable_reason
        now = datetime(2026, 11, 21, tzinfo=UTC)
        calls = [
            connector.search_videos(TT, "bread", now - timedelta(days=1), now),
            connector.creator(TT, "crumblab"),
            connector.comments(TT, "7432109876543210987"),
            connector.videos_stats(TT, ["7432109876543210987"]),
            connector.check(),
        ]
        for call in calls:
            with pytest.raises(Unavailable, match=named):
                await call
        assert fake.requests == []


class TestErrors:
    async def test_an_error_code_on_http_200_is_not_a_success(
        self, connector: TikTokResearchConnector, fake: FakeTikTok, crumblab: str
    ) -> None:
        fake.fail("user/info", 200, payloads.error("internal_error", "try later"))
        with pytest.raises(UpstreamError) as raised:
            await connector.creator(TT, crumblab)
        assert raised.value.retryable

    async def test_the_daily_quota_is_rate_limited_until_midnight_utc(
        self, connector: TikTokResearchConnector, fake: FakeTikTok, crumblab: str
    ) -> None:
        fake.fail("user/info", 429, payloads.QUOTA_SPENT)
        with pytest.raises(RateLimited) as raised:
            await connector.creator(TT, crumblab)
        assert raised.value.retry_at == NEXT_UTC_MIDNIGHT

    async def test_throttling_is_rate_limited_for_retry_after(
        self, connector: TikTokResearchConnector, fake: FakeTikTok, clock: ManualClock, crumblab: str
    ) -> None:
        fake.fail("user/info", 429, payloads.error("rate_limit_exceeded"), headers={"Retry-After": "30"})
        with pytest.raises(RateLimited) as raised:
            await connector.creator(TT, crumblab)
        assert raised.value.retry_at == clock.now() + timedelta(seconds=30)

    @pytest.mark.parametrize("code", ["scope_not_authorized", "scope_permission_missed"])
    async def test_a_missing_scope_is_unavailable(
        self, connector: TikTokResearchConnector, fake: FakeTikTok, crumblab: str, code: str
    ) -> None:
        fake.fail("user/info", 401, payloads.error(code))
        with pytest.raises(Unavailable, match=r"research\.data\.basic"):
            await connector.creator(TT, crumblab)

    async def test_invalid_params_of_a_query_is_our_bug_not_retryable(
        self, connector: TikTokResearchConnector, fake: FakeTikTok
    ) -> None:
        fake.fail("video/query", 400, payloads.error("invalid_params", "end_date is too late"))
        now = datetime(2026, 11, 21, tzinfo=UTC)
        with pytest.raises(UpstreamError) as raised:
            await connector.search_videos(TT, "bread", now - timedelta(days=1), now)
        assert not raised.value.retryable and "end_date is too late" in str(raised.value)

    async def test_an_unknown_user_is_not_found(self, connector: TikTokResearchConnector) -> None:
        with pytest.raises(NotFound, match="@nobody"):
            await connector.creator(TT, "nobody")

    @pytest.mark.parametrize(
        "answer",
        [
            httpx.Response(500, json=payloads.error("internal_error")),
            httpx.Response(502, text="<html>bad gateway</html>"),
            httpx.Response(200, text="not json"),
            httpx.Response(200, json={"something": "else"}),
        ],
        ids=["internal_error", "html 502", "not json", "no data nor error"],
    )
    async def test_server_faults_and_odd_bodies_are_retryable(
        self, connector: TikTokResearchConnector, fake: FakeTikTok, crumblab: str, answer: httpx.Response
    ) -> None:
        fake.handlers["user/info"] = lambda request, body: answer
        with pytest.raises(UpstreamError) as raised:
            await connector.creator(TT, crumblab)
        assert raised.value.retryable

    async def test_a_transport_failure_names_no_url(
        self, connector: TikTokResearchConnector, fake: FakeTikTok
    ) -> None:
        def refuse(request: httpx.Request, body: object) -> httpx.Response:
            raise httpx.ConnectError("connection refused", request=request)

        fake.handlers["user/info"] = refuse
        with pytest.raises(UpstreamError) as raised:
            await connector.creator(TT, "crumblab")
        assert raised.value.retryable and "http" not in str(raised.value)
        assert raised.value.__cause__ is None and raised.value.__suppress_context__


class TestSecrets:
    async def test_no_secret_or_token_reaches_logs_or_messages(
        self,
        make_connector: MakeConnector,
        fake: FakeTikTok,
        crumblab: str,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        caplog.set_level(logging.DEBUG)
        connector = make_connector()
        await connector.creator(TT, crumblab)
        said: list[str] = []
        for answer in (payloads.QUOTA_SPENT, payloads.error("scope_not_authorized"), payloads.TOKEN_INVALID):
            fake.fail("user/info", 401, answer, times=2)
            try:
                await connector.creator(TT, crumblab)
            except ConnectorError as exc:
                said.append(str(exc))
        text = caplog.text + " ".join(said) + json.dumps([r.message for r in caplog.records])
        assert len(said) == 3
        assert CLIENT_SECRET not in text and CLIENT_KEY not in text
        assert "clt.fake" not in text
