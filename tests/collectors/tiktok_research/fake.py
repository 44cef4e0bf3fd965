"""An in-process TikTok Research API: the token endpoint, video query (its conditions, 30-day windows,
cursor and search_id paging), user info and video comments, in the API's shapes. Used through
``httpx.MockTransport`` by the connector's tests and over HTTP on 127.0.0.1 by the end-to-end test."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs

import httpx

from tests.collectors.tiktok_research import payloads

CLIENT_KEY = "awfakeclientkey0001"
CLIENT_SECRET = "tt-secret-0123456789abcdefSECRET"
Handler = Callable[[httpx.Request, dict[str, Any]], Any]


def _ok(data: dict[str, Any]) -> httpx.Response:
    return httpx.Response(200, json={"data": data, "error": {"code": "ok", "message": "", "log_id": "1"}})


class FakeTikTok:
    """Serves the videos, users and comments a test puts in it. ``fail(endpoint, …)`` queues answers given
    before the normal ones; ``handlers[endpoint]`` replaces an endpoint's answer. Every request is kept."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.videos: dict[str, dict[str, Any]] = {}
        self.users: dict[str, dict[str, Any]] = {}
        self.comments: dict[str, list[dict[str, Any]]] = {}
        self.handlers: dict[str, Handler] = {}
        self.valid_tokens: set[str] = set()
        self.issued = 0
        self.token_lifetime = 7200
        self._queued: dict[str, list[httpx.Response]] = {}

    # --- what a test sets up ------------------------------------------------------------------------

    def add_videos(self, *items: dict[str, Any]) -> list[str]:
        for item in items:
            self.videos[str(item.get("id", item.get("video_id")))] = item
        return [str(item.get("id", item.get("video_id"))) for item in items]

    def fail(self, endpoint: str, status: int, body: Any = None, *, times: int = 1, **kwargs: Any) -> None:
        if body is not None:
            kwargs["json"] = body
        self._queued.setdefault(endpoint, []).extend(httpx.Response(status, **kwargs) for _ in range(times))

    def revoke_tokens(self) -> None:
        self.valid_tokens.clear()

    def calls(self, endpoint: str) -> list[httpx.Request]:
        return [r for r in self.requests if _endpoint(r) == endpoint]

    def bodies(self, endpoint: str) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.calls(endpoint)]

    # --- the API ------------------------------------------------------------------------------------

    def __call__(self, request: httpx.Request) -> Any:
        self.requests.append(request)
        endpoint = _endpoint(request)
        queued = self._queued.get(endpoint)
        if endpoint == "oauth/token":
            return queued.pop(0) if queued else self._token(request)
        auth = request.headers.get("authorization", "")
        if auth.removeprefix("Bearer ") not in self.valid_tokens:
            return httpx.Response(401, json=payloads.TOKEN_INVALID)
        if queued:
            return queued.pop(0)
        body = json.loads(request.content)
        if endpoint in self.handlers:
            return self.handlers[endpoint](request, body)
        if endpoint == "video/query":
            return self._query(body)
        if endpoint == "user/info":
            user = self.users.get(str(body.get("username", "")).lower())
            if user is None:
                return httpx.Response(400, json=payloads.error("invalid_params", "user does not exist"))
            return _ok(user)
        if endpoint == "video/comment/list":
            found = self.comments.get(str(body.get("video_id")))
            if found is None:
                return httpx.Response(400, json=payloads.error("invalid_params", "video does not exist"))
            return self._page(body, found, "comments")
        return httpx.Response(404, json=payloads.error("not_found"))

    def _token(self, request: httpx.Request) -> httpx.Response:
        form = {k: v[0] for k, v in parse_qs(request.content.decode()).items()}
        if form.get("client_key") != CLIENT_KEY or form.get("client_secret") != CLIENT_SECRET:
            return httpx.Response(
                401, json={"error": "invalid_client", "error_description": "bad client", "log_id": "x"}
            )
        if form.get("grant_type") != "client_credentials":
            return httpx.Response(
                400, json={"error": "invalid_grant", "error_description": "", "log_id": "x"}
            )
        self.issued += 1
        token = f"clt.fake{self.issued:04d}EXAMPLE"
        self.valid_tokens.add(token)
        return httpx.Response(
            200, json={"access_token": token, "expires_in": self.token_lifetime, "token_type": "Bearer"}
        )

    def _query(self, body: dict[str, Any]) -> httpx.Response:
        start, end = _day(body["start_date"]), _day(body["end_date"])
        if (end - start).days > 30 or end < start:
            return httpx.Response(400, json=payloads.error("invalid_params", "invalid date range"))
        matching = [
            v
            for v in self.videos.values()
            if start <= datetime.fromtimestamp(int(v["create_time"]), UTC).date() <= end
            and _matches(v, body["query"])
        ]
        matching.sort(key=lambda v: int(v.get("id", v.get("video_id"))), reverse=True)
        return self._page(body, matching, "videos", search_id="7432200011122233344")

    @staticmethod
    def _page(
        body: dict[str, Any], items: list[dict[str, Any]], key: str, search_id: str | None = None
    ) -> httpx.Response:
        cursor = int(body.get("cursor") or 0)
        size = int(body.get("max_count") or 10)
        page = items[cursor : cursor + size]
        data: dict[str, Any] = {
            key: page,
            "cursor": cursor + len(page),
            "has_more": cursor + size < len(items),
        }
        if search_id is not None:
            data["search_id"] = search_id
        return _ok(data)


def _endpoint(request: httpx.Request) -> str:
    path = request.url.path.strip("/")
    return path.removeprefix("v2/research/").removeprefix("v2/")


def _day(value: str) -> date:
    return datetime.strptime(value, "%Y%m%d").date()


def _matches(video: dict[str, Any], query: dict[str, Any]) -> bool:
    conditions = query.get("and", [])
    return all(_holds(video, c) for c in conditions)


def _holds(video: dict[str, Any], condition: dict[str, Any]) -> bool:
    field, operation, values = condition["field_name"], condition["operation"], condition["field_values"]
    if field == "keyword":
        return any(v.lower() in str(video.get("video_description", "")).lower() for v in values)
    if field == "hashtag_name":
        return any(v.lower() in [h.lower() for h in video.get("hashtag_names", [])] for v in values)
    if field == "region_code":
        return video.get("region_code") in values
    if field == "username":
        return video.get("username") in values
    if field == "video_id":
        return str(video.get("id", video.get("video_id"))) in values
    if field == "view_count" and operation == "GTE":
        return int(video.get("view_count", 0)) >= int(values[0])
    raise AssertionError(f"the fake does not know {field} {operation}")


def populated(fake: FakeTikTok, regions: list[str], per_region: int, at: datetime) -> FakeTikTok:
    """Fill ``fake`` as a small real TikTok: ``per_region`` videos of accounts in each region posted in the
    30 hours before ``at`` (ids carrying their time), every one about sourdough and past the feed's view
    floor, over four creators per region whose profiles are known; each video has a few comments."""
    for r, region in enumerate(regions):
        handles = [f"{region}baker{n}" for n in range(4)]
        for handle in handles:
            fake.users[handle] = {
                "display_name": handle.title(), "bio_description": "Bread.", "is_verified": False,
                "follower_count": 10_000, "following_count": 10, "likes_count": 50_000, "video_count": 40,
            }  # fmt: skip
        for n in range(per_region):
            created = at - timedelta(hours=1 + (n * 30) // max(per_region, 1))
            item = payloads.video(
                created, r * 1000 + n, username=handles[n % 4], region=region.upper(),
                description=f"{region} sourdough {n} #sourdough #{region}bread",
                hashtags=["sourdough", f"{region}bread"], views=1_000_000 // (n + 1) + 20_000,
            )  # fmt: skip
            fake.add_videos(item)
            video_id = str(item["id"])
            fake.comments[video_id] = [
                payloads.comment(int(video_id) + 1 + c, video_id, created + timedelta(minutes=c + 1))
                for c in range(int(item["comment_count"]) % 7 + 3)
            ]
    return fake
