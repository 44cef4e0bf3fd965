"""Builds the enabled sources from ``REELSCOPE_CONNECTORS`` (default ``sandbox``), in that order.

``build_sources`` is what families use: the sources behind capability routing (``collectors/routing.py``)
with the shared ledger of quota and health (``collectors/ledger.py``). ``build_connectors`` gives the bare
list, for the first start's bulk generation.
"""

from __future__ import annotations

from concurrent.futures import Executor

import httpx

from reelscope.collectors.base import Connector
from reelscope.collectors.instagram import from_settings as instagram_from_settings
from reelscope.collectors.ledger import Ledger
from reelscope.collectors.meta_ads import from_settings as meta_ads_from_settings
from reelscope.collectors.news import connector as news
from reelscope.collectors.routing import Sources
from reelscope.collectors.sandbox import SandboxConnector, parse_failures
from reelscope.collectors.tiktok_research import from_settings as tiktok_research_from_settings
from reelscope.collectors.youtube import from_settings as youtube_from_settings
from reelscope.collectors.ytdlp import connector as ytdlp
from reelscope.config import Settings
from reelscope.kit.clock import Clock
from reelscope.kit.db import Database

KNOWN = ("sandbox", "youtube", "news", "ytdlp", "tiktok_research", "instagram", "meta_ads")


class UnknownConnector(ValueError):
    pass


def names(settings: Settings) -> list[str]:
    """The configured source names, in order, each once; ``UnknownConnector`` for a name we lack."""
    found: list[str] = []
    for name in filter(None, (n.strip().lower() for n in settings.connectors.split(","))):
        if name not in KNOWN:
            raise UnknownConnector(
                f"unknown connector {name!r} in REELSCOPE_CONNECTORS (available: {', '.join(KNOWN)})"
            )
        if name not in found:
            found.append(name)
    return found


def build_connectors(
    settings: Settings,
    clock: Clock,
    *,
    ledger: Ledger | None = None,
    bulk_executor: Executor | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> list[Connector]:
    """One connector per configured name, in order. ``bulk_executor``: a process pool for the sandbox's
    bulk generation; ``transport``: the HTTP transport of the real sources (tests)."""
    built: list[Connector] = []
    for name in names(settings):
        if name == "sandbox":
            built.append(
                SandboxConnector(
                    clock,
                    seed=settings.sandbox_seed,
                    failures=parse_failures(settings.sandbox_failures),
                    bulk_executor=bulk_executor,
                )
            )
        elif name == "youtube":
            built.append(youtube_from_settings(settings, clock, ledger, transport=transport))
        elif name == "news":
            built.append(news.from_settings(settings, clock, ledger, transport=transport))
        elif name == "ytdlp":
            built.append(ytdlp.from_settings(settings, clock, ledger, transport=transport))
        elif name == "tiktok_research":
            built.append(tiktok_research_from_settings(settings, clock, ledger, transport=transport))
        elif name == "instagram":
            built.append(instagram_from_settings(settings, clock, ledger, transport=transport))
        elif name == "meta_ads":
            built.append(meta_ads_from_settings(settings, clock, ledger, transport=transport))
    return built


def build_sources(
    settings: Settings,
    clock: Clock,
    db: Database | None,
    *,
    bulk_executor: Executor | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> Sources:
    """The enabled sources behind capability routing, sharing one ledger (None without a database)."""
    ledger = Ledger(db, clock) if db is not None else None
    connectors = build_connectors(
        settings, clock, ledger=ledger, bulk_executor=bulk_executor, transport=transport
    )
    return Sources(connectors, ledger)
