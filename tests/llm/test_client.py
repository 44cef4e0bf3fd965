"""The OpenAI-compatible client (llm/client.py, ADR 0031) against a real fake server on 127.0.0.1: what it
sends, what it accepts, each way a provider fails, and that the key goes out as a Bearer token only."""

from __future__ import annotations

import json
import logging
import socket
from pathlib import Path

import pytest
import structlog
from pydantic import SecretStr, ValidationError

from reelscope.config import Settings
from reelscope.llm.client import MAX_REPLY_BYTES, LlmClient, LlmFailure, Usage, open_client
from tests.fixtures.llm import HOLD, USAGE, Drip, FakeLlm, completion

KEY = "sk-test-5f1c2e-never-logged"


def llm_settings(tmp_path: Path, url: str, **extra: object) -> Settings:
    fields: dict[str, object] = {
        "llm_base_url": url,
        "llm_model": "fake-model",
        "llm_api_key": SecretStr(KEY),
        "llm_timeout_seconds": 0.3,
        "llm_prompt_price_per_1k_tokens": 0.01,
        "llm_completion_price_per_1k_tokens": 0.03,
        **extra,
    }
    return Settings(data_dir=tmp_path, **fields)  # type: ignore[arg-type]


async def ask(settings: Settings) -> tuple[LlmClient, object]:
    async with open_client(settings) as llm:
        assert llm is not None
        try:
            return llm, await llm.complete_json("system text", json.dumps({"text": {"reasoning": "x"}}))
        except LlmFailure as failure:
            return llm, failure


class TestRequest:
    async def test_a_json_mode_completion_with_the_key_as_bearer(
        self, fake_llm: FakeLlm, tmp_path: Path
    ) -> None:
        llm, found = await ask(llm_settings(tmp_path, fake_llm.url + "/"))
        (request,) = fake_llm.requests
        assert request.path == "/v1/chat/completions"
        assert request.headers["authorization"] == f"Bearer {KEY}"
        assert request.body["model"] == "fake-model"
        assert request.body["response_format"] == {"type": "json_object"}
        assert [m["role"] for m in request.body["messages"]] == ["system", "user"]
        assert found.content == {"reasoning": "REWORDED x"}  # type: ignore[attr-defined]
        assert found.usage == Usage(1000, 500)  # type: ignore[attr-defined]
        # 1000 prompt tokens at $0.01/1k + 500 completion tokens at $0.03/1k
        assert llm.prices.cost(found.usage) == pytest.approx(0.025)  # type: ignore[attr-defined]

    async def test_without_a_key_no_authorization_header(self, fake_llm: FakeLlm, tmp_path: Path) -> None:
        await ask(llm_settings(tmp_path, fake_llm.url, llm_api_key=None))
        (request,) = fake_llm.requests
        assert "authorization" not in request.headers

    async def test_usage_not_reported_costs_nothing(self, fake_llm: FakeLlm, tmp_path: Path) -> None:
        fake_llm.respond = lambda prompt: completion({"reasoning": "y"}, usage=None)
        llm, found = await ask(llm_settings(tmp_path, fake_llm.url))
        assert found.usage == Usage() and llm.prices.cost(found.usage) == 0  # type: ignore[attr-defined]

    @pytest.mark.parametrize("missing", ["llm_base_url", "llm_model"])
    async def test_off_unless_base_url_and_model_are_set(
        self, fake_llm: FakeLlm, tmp_path: Path, missing: str
    ) -> None:
        async with open_client(llm_settings(tmp_path, fake_llm.url, **{missing: None})) as llm:
            assert llm is None
        assert fake_llm.requests == []


class TestSettings:
    def test_the_base_url_must_be_http_and_empty_means_off(self, tmp_path: Path) -> None:
        with pytest.raises(ValidationError, match="http"):
            Settings(data_dir=tmp_path, llm_base_url="api.example.com/v1")
        assert Settings(data_dir=tmp_path, llm_base_url="", llm_model="m").llm_base_url is None


class TestFailures:
    async def test_timeout(self, fake_llm: FakeLlm, tmp_path: Path) -> None:
        fake_llm.respond = lambda prompt: HOLD
        _, found = await ask(llm_settings(tmp_path, fake_llm.url))
        assert isinstance(found, LlmFailure) and found.reason == "timeout"

    async def test_a_reply_that_drips_in_is_cut_at_the_timeout(
        self, fake_llm: FakeLlm, tmp_path: Path
    ) -> None:
        """The timeout bounds the whole reply, not each read: a provider sending a few bytes every 50 ms
        (each read well within 0.3 s) must not hold a job or a suggest-keywords request for seconds."""
        _, body = completion({"reasoning": "slow"})
        fake_llm.respond = lambda prompt: Drip(body, piece=4)
        _, found = await ask(llm_settings(tmp_path, fake_llm.url))
        assert isinstance(found, LlmFailure) and found.reason == "timeout"

    async def test_a_reply_past_the_size_cap_is_refused(self, fake_llm: FakeLlm, tmp_path: Path) -> None:
        """A reply is a few written fields: one over the cap is not read into memory whole."""
        fake_llm.respond = lambda prompt: completion({"reasoning": "x" * MAX_REPLY_BYTES})
        llm, found = await ask(llm_settings(tmp_path, fake_llm.url))
        assert isinstance(found, LlmFailure) and found.reason == "too_large"
        with pytest.raises(LlmFailure, match="gave_up"):  # a provider failure: not asked again
            await llm.complete_json("s", "{}")

    @pytest.mark.parametrize(("where", "reason"), [("body", "invalid_reply"), ("message", "invalid_json")])
    async def test_json_nested_too_deep_to_parse(
        self, fake_llm: FakeLlm, tmp_path: Path, where: str, reason: str
    ) -> None:
        """Nesting past the parser's recursion limit is garbage like any other (not a RecursionError
        that fails the job or answers a suggest-keywords request with a 500)."""
        deep = "[" * 100_000 + "]" * 100_000
        fake_llm.respond = lambda prompt: (200, deep.encode()) if where == "body" else completion(deep)
        _, found = await ask(llm_settings(tmp_path, fake_llm.url))
        assert isinstance(found, LlmFailure) and found.reason == reason

    async def test_error_status(self, fake_llm: FakeLlm, tmp_path: Path) -> None:
        fake_llm.respond = lambda prompt: (500, b'{"error": {"message": "overloaded"}}')
        _, found = await ask(llm_settings(tmp_path, fake_llm.url))
        assert isinstance(found, LlmFailure) and (found.reason, found.status) == ("http_status", 500)

    async def test_connection_refused(self, tmp_path: Path) -> None:
        with socket.socket() as sock:  # a port nobody listens on once closed
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        _, found = await ask(llm_settings(tmp_path, f"http://127.0.0.1:{port}/v1"))
        assert isinstance(found, LlmFailure) and found.reason == "transport"

    async def test_a_message_that_is_not_json_keeps_its_usage(
        self, fake_llm: FakeLlm, tmp_path: Path
    ) -> None:
        fake_llm.respond = lambda prompt: completion("Sure! Here is the text: reworded")
        _, found = await ask(llm_settings(tmp_path, fake_llm.url))
        assert isinstance(found, LlmFailure) and found.reason == "invalid_json"
        assert found.usage == Usage(USAGE["prompt_tokens"], USAGE["completion_tokens"])

    @pytest.mark.parametrize("content", ["[1, 2]", '"text"'])
    async def test_json_that_is_not_an_object(self, fake_llm: FakeLlm, tmp_path: Path, content: str) -> None:
        fake_llm.respond = lambda prompt: completion(content)
        _, found = await ask(llm_settings(tmp_path, fake_llm.url))
        assert isinstance(found, LlmFailure) and found.reason == "invalid_json"

    async def test_a_fenced_json_object_is_accepted(self, fake_llm: FakeLlm, tmp_path: Path) -> None:
        fake_llm.respond = lambda prompt: completion('```json\n{"reasoning": "z"}\n```')
        _, found = await ask(llm_settings(tmp_path, fake_llm.url))
        assert found.content == {"reasoning": "z"}  # type: ignore[attr-defined]

    async def test_a_body_that_is_not_a_completion(self, fake_llm: FakeLlm, tmp_path: Path) -> None:
        fake_llm.respond = lambda prompt: (200, b'{"unexpected": true}')
        _, found = await ask(llm_settings(tmp_path, fake_llm.url))
        assert isinstance(found, LlmFailure) and found.reason == "invalid_reply"

    async def test_after_a_provider_failure_the_client_gives_up_without_asking(
        self, fake_llm: FakeLlm, tmp_path: Path
    ) -> None:
        fake_llm.respond = lambda prompt: (503, b"{}")
        async with open_client(llm_settings(tmp_path, fake_llm.url)) as llm:
            assert llm is not None
            reasons = []
            for _ in range(3):
                with pytest.raises(LlmFailure) as failed:
                    await llm.complete_json("s", "{}")
                reasons.append(failed.value.reason)
        assert reasons == ["http_status", "gave_up", "gave_up"]
        assert len(fake_llm.requests) == 1


class TestTheKeyStaysSecret:
    async def test_not_in_settings_failures_or_logs(
        self, fake_llm: FakeLlm, tmp_path: Path, caplog: pytest.LogCaptureFixture
    ) -> None:
        settings = llm_settings(tmp_path, fake_llm.url)
        assert KEY not in repr(settings) and KEY not in str(settings)
        assert KEY not in settings.model_dump_json()
        fake_llm.respond = lambda prompt: (401, b'{"error": "bad key"}')
        with caplog.at_level(logging.DEBUG), structlog.testing.capture_logs() as events:
            _, found = await ask(settings)
        assert isinstance(found, LlmFailure)
        assert KEY not in repr(found) and KEY not in str(found) and KEY not in repr(vars(found))
        assert KEY not in caplog.text and KEY not in repr(events)
        assert fake_llm.requests[0].headers["authorization"] == f"Bearer {KEY}"  # yet it was sent
