"""The pages Reelscope serves load scripts only from Reelscope itself (issue 31; kit/pages.py): a
Content-Security-Policy allowing this origin and each of the page's own inline scripts by hash, and
``X-Content-Type-Options: nosniff`` on every response. The policy is checked here against the page as a
browser parses it (``html.parser``), not against the expression that built it."""

from __future__ import annotations

import base64
import hashlib
from html.parser import HTMLParser

import httpx

from reelscope.kit.pages import content_security_policy


class InlineScripts(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.inline: list[str] = []
        self._open: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script" and "src" not in dict(attrs):
            self._open = []

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._open.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._open is not None:
            self.inline.append("".join(self._open))
            self._open = None


def directives(policy: str) -> dict[str, list[str]]:
    parsed: dict[str, list[str]] = {}
    for directive in policy.split(";"):
        name, *sources = directive.split()
        parsed[name] = sources
    return parsed


def assert_served_page(response: httpx.Response) -> None:
    """``response`` is a page whose scripts all come from Reelscope: each inline one allowed by its hash,
    nothing else but this origin."""
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    policy = directives(response.headers["Content-Security-Policy"])
    assert policy["default-src"] == ["'none'"]
    assert policy["base-uri"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"]
    for name in ("style-src", "img-src", "connect-src"):
        assert policy[name][0] == "'self'" and not any("//" in s or s == "*" for s in policy[name]), name
    parser = InlineScripts()
    parser.feed(response.text)
    hashes = {
        "'sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode() + "'"
        for script in parser.inline
    }
    assert set(policy["script-src"]) == {"'self'", *hashes}


class TestPolicy:
    def test_a_page_without_inline_scripts_allows_this_origin_alone(self) -> None:
        policy = directives(content_security_policy('<script src="/a.js"></script><p>hi</p>'))
        assert policy["script-src"] == ["'self'"]

    def test_an_inline_script_is_allowed_by_its_hash_only(self) -> None:
        script = "alert(1)"
        digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
        page = f'<script type="text/javascript">{script}</script><script src="/b.js"></script>'
        assert directives(content_security_policy(page))["script-src"] == ["'self'", f"'sha256-{digest}'"]


async def test_every_response_says_nosniff(client: httpx.AsyncClient) -> None:
    for path in ("/", "/openapi.json", "/v1/account/balance", "/nowhere"):
        assert (await client.get(path)).headers["X-Content-Type-Options"] == "nosniff", path
