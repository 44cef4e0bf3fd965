"""Dashboard pages of tracked items (issue 20 item 6; ADR 0023): opened by a signed, expiring link without
an API key, charts drawn by BokehJS that Reelscope serves itself, and a real headless Chromium render."""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
import uvicorn

from reelscope.config import Settings
from reelscope.dashboard import page
from reelscope.kit.clock import ManualClock
from reelscope.main import create_app
from reelscope.runtime import Runtime
from reelscope.worker.engine import JobEngine
from tests.conftest import MakeTeam, TeamKey
from tests.kit.test_errors import assert_error
from tests.kit.test_pages import assert_served_page
from tests.tracking.conftest import Advance, creator_handle, events
from tests.tracking.test_endpoints import get, track

CREATOR = creator_handle(18)  # theoparent18: followers grow every day


def path_of(url: str) -> str:
    return urlsplit(url).path


async def tracked_with_history(
    client: httpx.AsyncClient, team: TeamKey, advance: Advance
) -> dict[str, object]:
    item = await track(client, team, CREATOR)
    for _ in range(4):
        await advance(timedelta(days=1))
    return (await get(client, team, f"/v1/tracking/creators/{item['id']}"))["data"]


class TestLinks:
    async def test_the_link_opens_the_page_without_a_key(
        self, client: httpx.AsyncClient, team: TeamKey, jobs: JobEngine, advance: Advance, runtime: Runtime
    ) -> None:
        item = await tracked_with_history(client, team, advance)
        url = str(item["dashboard_url"])
        assert url.startswith("http://127.0.0.1:8000/dashboard/")
        assert team.api_key not in url and "tkn" not in url
        response = await client.get(path_of(url))  # no Authorization header
        assert_served_page(response)  # BokehJS from Reelscope, the charts' inline script by its hash
        body = response.text
        assert f'<script src="/dashboard/assets/{page.BOKEH_JS}"></script>' in body
        assert "cdn" not in body.lower()
        assert "Followers" in body and "5 snapshots" in body and CREATOR in body
        # every tracking event carries a link to the same page
        for event in await events(runtime, "tracking.cycle.completed"):
            assert (await client.get(path_of(event["dashboard_url"]))).status_code == 200

    async def test_the_page_is_drawn_again_after_a_cycle(
        self, client: httpx.AsyncClient, team: TeamKey, jobs: JobEngine, advance: Advance
    ) -> None:
        # a page is kept for what it was drawn from (ADR 0038): the same until a cycle adds a snapshot
        item = await tracked_with_history(client, team, advance)
        url = path_of(str(item["dashboard_url"]))
        first = (await client.get(url)).text
        assert "5 snapshots" in first and (await client.get(url)).text == first
        await advance(timedelta(days=1))
        assert "6 snapshots" in (await client.get(url)).text

    async def test_the_charting_library_is_served_by_reelscope(self, client: httpx.AsyncClient) -> None:
        response = await client.get(f"/dashboard/assets/{page.BOKEH_JS}")
        assert response.status_code == 200 and "javascript" in response.headers["content-type"]
        asset = page.asset_file(page.BOKEH_JS)
        assert asset is not None and response.content == asset.read_bytes()
        assert_error(await client.get("/dashboard/assets/../../config.py"), 404, "not_found")
        assert_error(await client.get("/dashboard/assets/evil.js"), 404, "not_found")

    async def test_a_tampered_or_expired_link_opens_nothing(
        self, client: httpx.AsyncClient, make_team: MakeTeam, jobs: JobEngine, clock: ManualClock
    ) -> None:
        team = await make_team()
        item = await track(client, team, CREATOR)
        path = path_of(item["dashboard_url"])
        token = path.rsplit("/", 1)[1]
        forged = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
        assert_error(await client.get(f"/dashboard/{forged}"), 404, "not_found")
        assert_error(await client.get("/dashboard/nonsense"), 404, "not_found")
        # deleted items have no page
        clock.advance(timedelta(hours=167))
        assert (await client.get(path)).status_code == 200
        clock.advance(timedelta(hours=2))  # past the 168 hours a link lasts
        assert_error(await client.get(path), 403, "forbidden")
        fresh = (await get(client, team, f"/v1/tracking/creators/{item['id']}"))["data"]["dashboard_url"]
        assert (await client.get(path_of(fresh))).status_code == 200
        await client.delete(f"/v1/tracking/creators/{item['id']}", headers=team.headers)
        assert_error(await client.get(path_of(fresh)), 404, "not_found")

    async def test_a_video_page(
        self, client: httpx.AsyncClient, team: TeamKey, jobs: JobEngine, advance: Advance, clock: ManualClock
    ) -> None:
        from reelscope.kit.platforms import Platform
        from tests.tracking.conftest import world

        [video] = world().creator_posts(Platform.TIKTOK, CREATOR, clock.now(), 1) or []
        response = await client.post(
            "/v1/tracking/videos",
            json={"platform": "tiktok", "video_id": video.external_id},
            headers=team.headers,
        )
        await advance(timedelta(days=1))
        page_response = await client.get(path_of(response.json()["data"]["dashboard_url"]))
        assert page_response.status_code == 200 and "Views" in page_response.text


class TestCollectedUrls:
    def test_only_an_http_url_becomes_a_link(self, clock: ManualClock) -> None:
        """A post's URL comes from collected data: a ``javascript:`` one must not land in an href (issue
        31); the title stays, as text."""
        outlier = {"views": 9000, "outlier_ratio": 3.0, "publish_date": "2026-11-20T10:00:00"}
        urls = ["javascript:alert(document.domain)", " JavaScript:alert(1)", "data:text/html,<b>x</b>"]
        html = page.render(
            item={"id": "i", "kind": "video", "platform": "tiktok", "title": "t", "status": "active"},
            snapshots=[],
            outliers=[
                *({**outlier, "url": url, "title": f"bad {n}"} for n, url in enumerate(urls)),
                {**outlier, "url": "https://www.tiktok.com/@a/video/1", "title": "good"},
            ],
            by_weekday={},
            audience=None,
        )
        assert html.count("<a href=") == 1
        assert '<a href="https://www.tiktok.com/@a/video/1" rel="noreferrer">good</a>' in html
        assert "<td>bad 0</td>" in html and "alert(" not in html and "data:text" not in html


# --- in a real browser -----------------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class AppServer:
    """The app (a runtime of its own, on the test's database and clock) served by uvicorn in a thread."""

    def __init__(self, settings: Settings, clock: ManualClock) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        app = create_app(settings, clock=clock)
        config = uvicorn.Config(app, log_level="critical", access_log=False, lifespan="on")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )

    def __enter__(self) -> AppServer:
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the app server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *_: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._sock.close()


@pytest.fixture
def app_server(settings: Settings, clock: ManualClock) -> Iterator[AppServer]:
    with AppServer(settings, clock) as server:
        yield server


def screenshot(url: str, out: Path) -> None:
    assert CHROMIUM is not None
    subprocess.run(
        [
            CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--window-size=1200,1400", "--virtual-time-budget=10000", f"--screenshot={out}", url,
        ],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip


def pixels_of(path: Path, color: str, tolerance: int = 12) -> int:
    import numpy as np
    from PIL import Image

    target = np.array([int(color[i : i + 2], 16) for i in (1, 3, 5)])
    with Image.open(path) as image:
        rgb = np.asarray(image.convert("RGB"), dtype=np.int16)
    return int((np.abs(rgb - target) <= tolerance).all(axis=-1).sum())


@pytest.mark.skipif(CHROMIUM is None, reason="needs Debian's chromium package (apt-get install chromium)")
class TestInChromium:
    async def test_the_growth_chart_is_drawn(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        jobs: JobEngine,
        advance: Advance,
        app_server: AppServer,
        tmp_path: Path,
    ) -> None:
        item = await tracked_with_history(client, team, advance)
        url = f"http://127.0.0.1:{app_server.port}{path_of(str(item['dashboard_url']))}"
        blank = tmp_path / "blank.png"
        shot = tmp_path / "dashboard.png"
        await asyncio.to_thread(screenshot, f"http://127.0.0.1:{app_server.port}/", blank)
        await asyncio.to_thread(screenshot, url, shot)
        assert pixels_of(blank, page.LINE_COLOR) == 0
        # BokehJS (served by the app) drew the growth lines: their colour covers many pixels
        assert pixels_of(shot, page.LINE_COLOR) > 500
        assert pixels_of(shot, page.BAR_COLOR) > 500  # the posting cadence bars
