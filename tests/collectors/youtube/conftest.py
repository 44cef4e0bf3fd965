"""An in-process YouTube Data API (``FakeYouTube``) served through ``httpx.MockTransport``, and connectors
built against it the way the registry builds them (``from_settings``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from reelscope.collectors.ledger import Ledger
from reelscope.collectors.youtube import YouTubeConnector, from_settings
from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from tests.collectors.youtube.fake import KEY, FakeYouTube


@pytest.fixture
def fake() -> FakeYouTube:
    return FakeYouTube()


MakeConnector = Callable[..., YouTubeConnector]


@pytest.fixture
def make_connector(fake: FakeYouTube, clock: ManualClock, tmp_path: Path) -> MakeConnector:
    """A connector on ``fake`` built by ``from_settings``; keyword arguments are settings (``ledger=``
    a ledger to count in)."""

    def make(ledger: Ledger | None = None, **settings: Any) -> YouTubeConnector:
        settings.setdefault("youtube_api_key", SecretStr(KEY))
        built = Settings(data_dir=tmp_path / "data", **settings)
        return from_settings(built, clock, ledger, transport=httpx.MockTransport(fake))

    return make


@pytest.fixture
def connector(make_connector: MakeConnector) -> YouTubeConnector:
    return make_connector()
