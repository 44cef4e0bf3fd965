"""JSON bodies are decoded strictly, in one place (issue 31 item 3; kit/json_body.py): a lone UTF-16
surrogate escape is a 400 ``validation_error`` and free on every family that takes a body, on SQLite and
PostgreSQL. It was a 500, and on webhooks a plain-text 500 and a reset connection, because rendering
and logging the error failed too: both now survive a message quoting one."""

from __future__ import annotations

from datetime import timedelta

import httpx
import orjson
import pytest
import structlog

from reelscope.kit.clock import ManualClock
from reelscope.kit.errors import ValidationFailed, error_body
from reelscope.kit.logging import configure_logging
from tests.conftest import TeamKey
from tests.kit.test_errors import assert_error
from tests.kit.test_strict_parsing import assert_uncharged

# raw JSON texts: each holds a surrogate that no UTF-8 text can (json.loads took them all)
LONE = ['"\\ud800"', '"\\udfff"', '"a\\udbff"', '"\\udc00\\ud800"']


def bodies(webhook_id: str) -> list[tuple[str, str, str]]:
    """(method, path, body template) of every family taking a body; ``{s}`` is where the string goes."""
    return [
        ("POST", "/v1/agents", '{"name": "a", "keywords": [{s}]}'),
        ("POST", "/v1/agents", '{"name": {s}, "keywords": ["bread"]}'),
        ("POST", "/v1/orbit", '{"keywords": [{s}]}'),
        ("POST", "/v1/comet", '{"keywords": ["bread"], "intent": {s}}'),
        ("POST", "/v1/agents/suggest-keywords", '{"keywords": [{s}]}'),
        ("POST", "/v1/satellite/creators/batch", '{"platform": "tiktok", "handles": [{s}]}'),
        ("POST", "/v1/tracking/creators", '{"platform": "tiktok", "handle": {s}}'),
        ("POST", "/v1/webhooks", '{"url": "https://93.184.216.34/h", "enabled_events": [{s}]}'),
        ("POST", f"/v1/webhooks/{webhook_id}/test", '{"event": {s}}'),
        ("PATCH", f"/v1/webhooks/{webhook_id}", '{"description": {s}}'),
        ("POST", "/v1/agents", "{{s}: 1}"),
    ]


pytestmark = pytest.mark.both_databases


async def test_a_lone_surrogate_is_400_and_free(
    client: httpx.AsyncClient, team: TeamKey, clock: ManualClock
) -> None:
    hook = await client.post(
        "/v1/webhooks",
        json={"url": "https://93.184.216.34/h", "enabled_events": ["tracking.paused"]},
        headers=team.headers,
    )
    assert hook.status_code == 201, hook.text
    headers = {**team.headers, "Content-Type": "application/json"}
    for method, path, template in bodies(hook.json()["id"]):
        for lone in LONE:
            body = template.replace("{s}", lone)
            response = await client.request(method, path, content=body.encode(), headers=headers)
            assert_error(response, 400, "validation_error")
            assert response.json()["message"] == ["body must be valid JSON"], (path, body)
            clock.advance(timedelta(minutes=1))  # past the 2 legacy creates a minute (§8.1)
    await assert_uncharged(client, team)
    # a pair is one character, and welcome
    created = await client.post(
        "/v1/agents",
        content=b'{"name": "\\ud83c\\udf5e", "keywords": ["bread"]}',
        headers=headers,
    )
    assert created.status_code == 201 and created.json()["data"]["name"] == "\N{BREAD}"


class TestRenderingSurvives:
    def test_an_error_quoting_a_lone_surrogate_renders(self) -> None:
        error = ValidationFailed(["name \ud800 is odd"])
        assert orjson.loads(orjson.dumps(error.body()))["message"] == ["name \\ud800 is odd"]
        assert error_body(400, "x", "\udfff")["message"] == "\\udfff"

    def test_a_log_line_quoting_one_is_written(self, capsys: pytest.CaptureFixture[str]) -> None:
        previous = structlog.get_config()
        try:
            configure_logging()
            structlog.get_logger("t").error("request.failed", value="\ud800")
        finally:
            structlog.configure(**previous)
        line = capsys.readouterr().out
        assert "request.failed" in line and "value=\\ud800" in line
