"""Builds the enabled connectors from ``REELSCOPE_CONNECTORS`` (default ``sandbox``)."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor

from reelscope.collectors.base import Connector, Unavailable
from reelscope.collectors.sandbox import SandboxConnector, parse_failures
from reelscope.config import Settings
from reelscope.kit.clock import Clock
from reelscope.kit.platforms import Platform


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


def serving(connectors: Sequence[Connector], platform: Platform) -> Connector | None:
    """The first of ``connectors`` that serves ``platform``."""
    return next((connector for connector in connectors if platform in connector.platforms), None)


def connector_for(settings: Settings, clock: Clock, platform: Platform | None = None) -> Connector:
    """The enabled connector that serves ``platform`` (the first enabled one when None), for the families
    that read one source at a time (lookups, tracking, audience). ``Unavailable`` when none does."""
    built = build_connectors(settings, clock)
    found = built[0] if built and platform is None else serving(built, platform) if platform else None
    if found is None:
        where = f" for {platform.value}" if platform else ""
        raise Unavailable(f"no enabled connector{where} (REELSCOPE_CONNECTORS)")
    return found
