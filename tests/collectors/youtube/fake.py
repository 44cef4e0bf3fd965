"""An in-process YouTube Data API: videos, channels, search results, charts and playlists a test puts in
it, answered in the API's shapes. Used through ``httpx.MockTransport`` by the connector's tests, and over
real HTTP on 127.0.0.1 by the end-to-end test and the collection benchmark (``tests/fixtures/http.py``)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import httpx

from tests.collectors.youtube import payloads

KEY = "AIzaTestKey-0123456789abcdefSECRET"
# a resource's answer, or a coroutine of it (MockTransport awaits it): a server that never answers
Handler = Callable[[httpx.Request], Any]


class FakeYouTube:
    """Serves the videos, channels, search results, charts and playlists a test puts in it, paging by
    ``maxResults`` with numeric page tokens; ``handlers[resource]`` replaces a resource's answer and
    ``fail`` queues answers given before the normal ones. Every request is kept in ``requests``."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.videos: dict[str, dict[str, Any]] = {}
        self.channels: dict[str, dict[str, Any]] = {}
        self.search_results: list[str] = []
        self.charts: dict[str, list[str]] = {}
        self.playlists: dict[str, list[str]] = {}
        self.handlers: dict[str, Handler] = {}
        self._queued: dict[str, list[httpx.Response]] = {}

    def add_videos(self, *items: dict[str, Any]) -> list[str]:
        for item in items:
            self.videos[item["id"]] = item
        return [item["id"] for item in items]

    def add_channels(self, *items: dict[str, Any]) -> None:
        for item in items:
            self.channels[item["id"]] = item

    def fail(self, resource: str, status: int, body: Any = None, *, times: int = 1, **kwargs: Any) -> None:
        """The next ``times`` calls of ``resource`` answer ``status`` with ``body`` (JSON) or
        ``content=``/``headers=`` as given."""
        if body is not None:
            kwargs["json"] = body
        self._queued.setdefault(resource, []).extend(httpx.Response(status, **kwargs) for _ in range(times))

    def calls(self, resource: str) -> list[httpx.Request]:
        return [r for r in self.requests if r.url.path.rsplit("/", 1)[-1] == resource]

    def __call__(self, request: httpx.Request) -> Any:
        self.requests.append(request)
        resource = request.url.path.rsplit("/", 1)[-1]
        if request.url.params.get("key") != KEY:
            return httpx.Response(400, json=payloads.error(400, "keyInvalid", domain="usageLimits"))
        queued = self._queued.get(resource)
        if queued:
            return queued.pop(0)
        if resource in self.handlers:
            return self.handlers[resource](request)
        params = request.url.params
        if resource == "search":
            return self._page(params, [_search_result(self.videos[i]) for i in self.search_results])
        if resource == "videos" and params.get("chart") == "mostPopular":
            ids = self.charts.get(params.get("regionCode", ""), [])
            return self._page(params, [self.videos[i] for i in ids])
        if resource == "videos":
            return _listing([self.videos[i] for i in params["id"].split(",") if i in self.videos])
        if resource == "channels" and "forHandle" in params:
            wanted = params["forHandle"].lower()
            return _listing(
                [c for c in self.channels.values() if c["snippet"]["customUrl"].lower() == wanted]
            )
        if resource == "channels":
            return _listing([self.channels[i] for i in params["id"].split(",") if i in self.channels])
        if resource == "playlistItems":
            if params["playlistId"] not in self.playlists:
                return httpx.Response(404, json=payloads.error(404, "playlistNotFound"))
            ids = self.playlists[params["playlistId"]]
            return self._page(params, [_playlist_item(i) for i in ids])
        return httpx.Response(404, json=payloads.error(404, "notFound"))

    @staticmethod
    def _page(params: httpx.QueryParams, items: list[dict[str, Any]]) -> httpx.Response:
        start = int(params.get("pageToken", "0"))
        size = int(params.get("maxResults", "5"))
        body: dict[str, Any] = {"items": items[start : start + size]}
        if start + size < len(items):
            body["nextPageToken"] = str(start + size)
        return httpx.Response(200, json=body)


def _listing(items: list[dict[str, Any]]) -> httpx.Response:
    # an empty answer has no items key at all (as YouTube answers videos.list of unknown ids)
    return httpx.Response(200, json={"kind": "youtube#listResponse", **({"items": items} if items else {})})


def _search_result(item: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": "youtube#searchResult",
        "id": {"kind": "youtube#video", "videoId": item["id"]},
        "snippet": item["snippet"],
    }


def _playlist_item(video_id: str) -> dict[str, Any]:
    return {"kind": "youtube#playlistItem", "contentDetails": {"videoId": video_id}}


def populated(
    fake: FakeYouTube, regions: list[str], per_region: int, at: datetime, *, channels: int = 40
) -> FakeYouTube:
    """Fill ``fake`` as a small real YouTube: ``per_region`` chart entries per region (ids ``us000000007``)
    posted in the 40 hours before ``at``, two of three of them Shorts (the chart mixes formats, §1.2),
    over ``channels`` channels with uploads playlists; every video is also a search result."""
    handles = [f"maker{n:03d}" for n in range(channels)]
    channel_ids = [f"UC{n:022d}" for n in range(channels)]
    for channel_id, handle in zip(channel_ids, handles, strict=True):
        fake.add_channels(payloads.channel(channel_id, handle, uploads="UU" + channel_id[2:]))
    for region in regions:
        chart = []
        for n in range(per_region):
            video_id = f"{region[:2]}{n:09d}"
            posted = at - timedelta(hours=1 + (n * 40) // max(per_region, 1))
            channel_id = channel_ids[n % channels]
            fake.add_videos(
                payloads.video(
                    video_id,
                    published=posted.strftime("%Y-%m-%dT%H:%M:%SZ"),
                    duration="PT45S" if n % 3 else "PT12M",
                    views=str(1_000_000 // (n + 1)),
                    channel=channel_id,
                    title=f"{region} chart {n} #{region}trend",
                )
            )
            chart.append(video_id)
            fake.playlists.setdefault("UU" + channel_id[2:], []).append(video_id)
        fake.charts[region.upper()] = chart
        fake.search_results.extend(chart)
    return fake
