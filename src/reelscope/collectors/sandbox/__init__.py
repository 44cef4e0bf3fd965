"""The sandbox world: the embedded, deterministic default data source (ARCHITECTURE §7, ADR 0007)."""

from reelscope.collectors.sandbox.connector import SandboxConnector, parse_failures
from reelscope.collectors.sandbox.world import World

__all__ = ["SandboxConnector", "World", "parse_failures"]
