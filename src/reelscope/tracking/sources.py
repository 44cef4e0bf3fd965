"""The connector tracking reads (the first enabled one; the sandbox by default)."""

from __future__ import annotations

from reelscope.collectors.base import Connector, Unavailable
from reelscope.collectors.registry import build_connectors
from reelscope.config import Settings
from reelscope.kit.clock import Clock


def connector_for(settings: Settings, clock: Clock) -> Connector:
    built = build_connectors(settings, clock)
    if not built:
        raise Unavailable("no connector is enabled (REELSCOPE_CONNECTORS)")
    return built[0]
