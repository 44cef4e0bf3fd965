"""An in-process Meta Ad Library (``GET /v25.0/ads_archive``): the ads a test puts in it, matched by words,
paged by ``after``, in the Graph's shapes. Used through ``httpx.MockTransport`` by the connector's tests
and over HTTP on 127.0.0.1 by the end-to-end test."""

from __future__ import annotations

from typing import Any

import httpx

from tests.collectors.instagram.payloads import error

TOKEN = "EAAGtestAdLibraryToken0123456789SECRET"


class FakeAdLibrary:
    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.ads: list[dict[str, Any]] = []
        self._queued: list[httpx.Response] = []

    def fail(self, status: int, body: Any = None, *, times: int = 1, **kwargs: Any) -> None:
        if body is not None:
            kwargs["json"] = body
        self._queued.extend(httpx.Response(status, **kwargs) for _ in range(times))

    def __call__(self, request: httpx.Request) -> Any:
        self.requests.append(request)
        params = request.url.params
        if params.get("access_token") != TOKEN:
            return httpx.Response(400, json=error(190, 460, "Invalid OAuth access token."))
        if self._queued:
            return self._queued.pop(0)
        if not request.url.path.endswith("/ads_archive") or "ad_reached_countries" not in params:
            return httpx.Response(400, json=error(100, message="(#100) ad_reached_countries is required"))
        words = params.get("search_terms", "").lower().split()
        matching = [
            a for a in self.ads if any(w in " ".join(a.get("ad_creative_bodies", [])).lower() for w in words)
        ]
        start = int(params.get("after", "c0")[1:])
        size = int(params.get("limit", "25"))
        body: dict[str, Any] = {"data": matching[start : start + size]}
        if start + size < len(matching):
            after = f"c{start + size}"
            body["paging"] = {
                "cursors": {"after": after},
                "next": f"https://graph.facebook.com/v25.0/ads_archive?access_token={TOKEN}&after={after}",
            }
        return httpx.Response(200, json=body)
