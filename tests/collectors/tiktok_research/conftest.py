"""An in-process TikTok Research API (``FakeTikTok``) through ``httpx.MockTransport``, and connectors built
against it the way the registry builds them (``from_settings``), each test with a token cache of its own."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from reelscope.collectors.ledger import Ledger
from reelscope.collectors.tiktok_research import TikTokResearchConnector, from_settings
from reelscope.collectors.tiktok_research.client import TokenCache
from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from tests.collectors.tiktok_research.fake import CLIENT_KEY, CLIENT_SECRET, FakeTikTok


@pytest.fixture
def fake() -> FakeTikTok:
    return FakeTikTok()


@pytest.fixture
def tokens() -> TokenCache:
    return TokenCache()


MakeConnector = Callable[..., TikTokResearchConnector]


@pytest.fixture
def make_connector(fake: FakeTikTok, clock: ManualClock, tmp_path: Path, tokens: TokenCache) -> MakeConnector:
    """A connector on ``fake``; keyword arguments are settings (``ledger=`` a ledger to count in)."""

    def make(ledger: Ledger | None = None, **settings: Any) -> TikTokResearchConnector:
        settings.setdefault("tiktok_client_key", SecretStr(CLIENT_KEY))
        settings.setdefault("tiktok_client_secret", SecretStr(CLIENT_SECRET))
        built = Settings(data_dir=tmp_path / "data", **settings)
        return from_settings(built, clock, ledger, transport=httpx.MockTransport(fake), tokens=tokens)

    return make


@pytest.fixture
def connector(make_connector: MakeConnector) -> TikTokResearchConnector:
    return make_connector()
