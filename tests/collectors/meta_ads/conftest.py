"""An in-process Meta Ad Library (``FakeAdLibrary``) through ``httpx.MockTransport``, and connectors built
against it the way the registry builds them (``from_settings``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from reelscope.collectors.ledger import Ledger
from reelscope.collectors.meta_ads import MetaAdsConnector, from_settings
from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from tests.collectors.meta_ads.fake import TOKEN, FakeAdLibrary


@pytest.fixture
def fake() -> FakeAdLibrary:
    return FakeAdLibrary()


MakeConnector = Callable[..., MetaAdsConnector]


@pytest.fixture
def make_connector(fake: FakeAdLibrary, clock: ManualClock, tmp_path: Path) -> MakeConnector:
    def make(ledger: Ledger | None = None, **settings: Any) -> MetaAdsConnector:
        settings.setdefault("meta_access_token", SecretStr(TOKEN))
        built = Settings(data_dir=tmp_path / "data", **settings)
        return from_settings(built, clock, ledger, transport=httpx.MockTransport(fake))

    return make


@pytest.fixture
def connector(make_connector: MakeConnector) -> MetaAdsConnector:
    return make_connector()
