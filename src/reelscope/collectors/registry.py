"""Builds the enabled connectors from ``REELSCOPE_CONNECTORS`` (default ``sandbox``)."""

from __future__ import annotations

from concurrent.futures import Executor

from reelscope.collectors.base import Connector
from reelscope.collectors.sandbox import SandboxConnector, parse_failures
from reelscope.config import Settings
from reelscope.kit.clock import Clock


class UnknownConnector(ValueError):
    pass


def build_connectors(
    settings: Settings, clock: Clock, *, bulk_executor: Executor | None = None
) -> list[Connector]:
    """One connector per name in ``settings.connectors`` (comma separated), in that order.

    ``bulk_executor``: a process pool for bulk generation (the sandbox's backfill feeds)."""
    built: list[Connector] = []
    for name in filter(None, (n.strip().lower() for n in settings.connectors.split(","))):
        if name == "sandbox":
            built.append(
                SandboxConnector(
                    clock, seed=settings.sandbox_seed, failures=parse_failures(settings.sandbox_failures)
                )
            )
        else:
            raise UnknownConnector(f"unknown connector {name!r} in REELSCOPE_CONNECTORS (available: sandbox)")
    return built
