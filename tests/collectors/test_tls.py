"""The real sources share one TLS context: a connector operation opens an HTTP client, and a client
that builds its own context loads the whole CA bundle on the event loop each time (benchmarks/collection.py
measured it as a third of a day of collection)."""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from reelscope.collectors import tls
from reelscope.collectors.news import client as news_client
from reelscope.collectors.youtube import from_settings
from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from tests.collectors.youtube import payloads
from tests.collectors.youtube.fake import KEY, FakeYouTube
from tests.fixtures.http import serving


async def test_connector_operations_over_real_http_build_one_tls_context(
    monkeypatch: pytest.MonkeyPatch, clock: ManualClock, tmp_path: Path
) -> None:
    built: list[Any] = []
    real = ssl.create_default_context

    def counted(*args: Any, **kwargs: Any) -> ssl.SSLContext:
        built.append(args or kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(ssl, "create_default_context", counted)
    tls.context.cache_clear()
    fake = FakeYouTube()
    fake.add_videos(payloads.video("Zt3kQ9vLm0A"), payloads.video("pL0wN4cR7sE"))
    fake.add_channels(payloads.channel("UCq7Rr2Tn8Wb0Yc5Ld3Hs1Kx", "crumblab"))
    with serving(fake) as base:
        settings = Settings(
            data_dir=tmp_path / "data", youtube_api_key=SecretStr(KEY), youtube_base_url=f"{base}/youtube/v3"
        )
        youtube = from_settings(settings, clock, None)  # no transport: httpx's own, as in production
        assert (await youtube.video(Platform.YOUTUBE, "Zt3kQ9vLm0A")).external_id == "Zt3kQ9vLm0A"
        stats = await youtube.videos_stats(Platform.YOUTUBE, ["Zt3kQ9vLm0A", "pL0wN4cR7sE"])
        assert len(stats) == 2
        answer = await news_client.get("rss", f"{base}/rss", {}, 5.0, None)
        assert answer.status_code == 400  # the fake wants a key: what matters is the client it used
    assert len(fake.requests) == 4
    assert len(built) == 1  # one context for every client, rather than one per client
    tls.context.cache_clear()
