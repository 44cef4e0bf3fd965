"""An in-process Instagram Graph API (``FakeInstagram``) through ``httpx.MockTransport``, and connectors built
against it the way the registry builds them (``from_settings``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from reelscope.collectors.instagram import InstagramConnector, from_settings
from reelscope.collectors.ledger import Ledger
from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from tests.collectors.instagram import payloads
from tests.collectors.instagram.fake import TOKEN, FakeInstagram


@pytest.fixture
def fake() -> FakeInstagram:
    return FakeInstagram()


MakeConnector = Callable[..., InstagramConnector]


@pytest.fixture
def make_connector(fake: FakeInstagram, clock: ManualClock, tmp_path: Path) -> MakeConnector:
    """A connector on ``fake``; keyword arguments are settings (``ledger=`` a ledger to count in)."""

    def make(ledger: Ledger | None = None, **settings: Any) -> InstagramConnector:
        settings.setdefault("instagram_access_token", SecretStr(TOKEN))
        settings.setdefault("instagram_user_id", payloads.ACCOUNT)
        built = Settings(data_dir=tmp_path / "data", **settings)
        return from_settings(built, clock, ledger, transport=httpx.MockTransport(fake))

    return make


@pytest.fixture
def connector(make_connector: MakeConnector) -> InstagramConnector:
    return make_connector()
