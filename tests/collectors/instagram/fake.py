"""An in-process Instagram Graph API: hashtag search and edges, recently searched hashtags and Business
Discovery for the accounts and media a test puts in it, in the Graph's shapes and errors. Used through
``httpx.MockTransport`` by the connector's tests and over HTTP on 127.0.0.1 by the end-to-end test."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import httpx

from tests.collectors.instagram import payloads

TOKEN = "EAAGtestInstagramToken0123456789SECRET"
_DISCOVERY = re.compile(r"business_discovery\.username\(([^)]*)\)\{(.*)\}$")
_MEDIA_EDGE = re.compile(r"media(?:\.after\(([^)]*)\))?\.limit\((\d+)\)")
Handler = Callable[[httpx.Request], Any]


class FakeInstagram:
    """``hashtags``: name → (hashtag id, media newest first); ``accounts``: username → (profile, media);
    ``recently_searched``: what Meta counts this week. ``stuck_cursor``: hashtag edges hand out one
    ``after`` value forever (§3.3) while serving the next page each call. ``fail(kind, …)`` queues
    answers for a kind of call (``hashtag_search``, ``edge``, ``discovery``, ``recent``, ``me``)."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.hashtags: dict[str, tuple[str, list[dict[str, Any]]]] = {}
        self.accounts: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]] = {}
        self.recently_searched: list[dict[str, Any]] = []
        self.stuck_cursor = False
        self.usage_header: str | None = None
        self._served: dict[str, int] = {}
        self._queued: dict[str, list[httpx.Response]] = {}

    def add_hashtag(self, name: str, media: list[dict[str, Any]], hashtag_id: str | None = None) -> str:
        found = hashtag_id or str(17843000000000000 + len(self.hashtags))
        self.hashtags[name] = (found, media)
        return found

    def fail(self, kind: str, status: int, body: Any = None, *, times: int = 1, **kwargs: Any) -> None:
        if body is not None:
            kwargs["json"] = body
        self._queued.setdefault(kind, []).extend(httpx.Response(status, **kwargs) for _ in range(times))

    def calls(self, kind: str) -> list[httpx.Request]:
        return [r for r in self.requests if _kind(r) == kind]

    def __call__(self, request: httpx.Request) -> Any:
        self.requests.append(request)
        kind = _kind(request)
        params = request.url.params
        if params.get("access_token") != TOKEN:
            return httpx.Response(400, json=payloads.error(190, 467, "Invalid OAuth access token."))
        queued = self._queued.get(kind)
        if queued:
            return queued.pop(0)
        headers = {"X-App-Usage": self.usage_header} if self.usage_header else {}
        segments = request.url.path.strip("/").split("/")[1:]  # without the version
        if kind == "hashtag_search":
            assert params["user_id"] == payloads.ACCOUNT
            found = self.hashtags.get(params["q"])
            return httpx.Response(200, json={"data": [{"id": found[0]}] if found else []}, headers=headers)
        if kind == "edge":
            assert params["user_id"] == payloads.ACCOUNT
            return self._edge(segments[0], params, headers)
        if kind == "recent":
            return httpx.Response(200, json={"data": self.recently_searched})
        if kind == "me":
            return httpx.Response(200, json={"id": payloads.ACCOUNT, "username": "ourbakery"})
        if kind == "discovery":
            return self._discovery(params["fields"], headers)
        return httpx.Response(400, json=payloads.error(100, message="Unsupported get request."))

    def _edge(self, hashtag_id: str, params: httpx.QueryParams, headers: dict[str, str]) -> httpx.Response:
        media = next((m for found, m in self.hashtags.values() if found == hashtag_id), None)
        if media is None:
            return httpx.Response(400, json=payloads.error(100, message="Unsupported get request."))
        size = int(params.get("limit", "25"))
        if self.stuck_cursor:
            start = self._served.get(hashtag_id, 0)
            self._served[hashtag_id] = start + size
            after = "QVFIUmFmdGVyMQ"
        else:
            start = int(params.get("after", "c0")[1:])
            after = f"c{start + size}"
        page = media[start : start + size]
        body: dict[str, Any] = {"data": page}
        if start + size < len(media) or self.stuck_cursor:
            body["paging"] = {
                "cursors": {"after": after},
                "next": f"https://graph.facebook.com/v25.0/{hashtag_id}/top_media?access_token={TOKEN}&after={after}",
            }
        return httpx.Response(200, json=body, headers=headers)

    def _discovery(self, fields: str, headers: dict[str, str]) -> httpx.Response:
        matched = _DISCOVERY.match(fields)
        assert matched is not None, fields
        username, wanted = matched.groups()
        account = self.accounts.get(username.lower())
        if account is None:
            return httpx.Response(
                400, json=payloads.error(110, 2207013, "The user with username: x cannot be found.")
            )
        profile, media = account
        found: dict[str, Any] = dict(profile)
        edge = _MEDIA_EDGE.search(wanted)
        if edge is not None:
            start, size = int((edge.group(1) or "c0")[1:]), int(edge.group(2))
            page: dict[str, Any] = {"data": media[start : start + size]}
            if start + size < len(media):
                page["paging"] = {"cursors": {"after": f"c{start + size}"}}
            found["media"] = page
        return httpx.Response(
            200, json={"business_discovery": found, "id": payloads.ACCOUNT}, headers=headers
        )


def _kind(request: httpx.Request) -> str:
    segments = request.url.path.strip("/").split("/")[1:]
    fields = request.url.params.get("fields", "")
    if segments == ["ig_hashtag_search"]:
        return "hashtag_search"
    if len(segments) == 2 and segments[1] in ("top_media", "recent_media"):
        return "edge"
    if len(segments) == 2 and segments[1] == "recently_searched_hashtags":
        return "recent"
    if len(segments) == 1 and fields.startswith("business_discovery"):
        return "discovery"
    if len(segments) == 1:
        return "me"
    return "other"


def populated(fake: FakeInstagram, handles: list[str], per_account: int, at: datetime) -> FakeInstagram:
    """Fill ``fake`` with professional accounts (``handles``) of ``per_account`` media each, posted in the
    40 hours before ``at``, three of four of them Reels, every one tagged #sourdough (the hashtag's media
    too, newest first)."""
    tagged: list[dict[str, Any]] = []
    for a, handle in enumerate(handles):
        media = []
        for n in range(per_account):
            created = at - timedelta(hours=1 + (n * 40) // max(per_account, 1))
            number = a * 1000 + n
            item = payloads.media(
                number, created, caption=f"{handle} loaf {n} #sourdough",
                kind="IMAGE" if n % 4 == 3 else "VIDEO", views=50_000 // (n + 1), likes=5_000 // (n + 1),
            )  # fmt: skip
            media.append(item)
            tagged.append({k: v for k, v in item.items() if k != "view_count"})  # hashtag edges: no views
        fake.accounts[handle] = (payloads.profile(handle, str(17841400000100000 + a)), media)
    tagged.sort(key=lambda m: str(m["timestamp"]), reverse=True)
    fake.add_hashtag("sourdough", tagged)
    return fake
