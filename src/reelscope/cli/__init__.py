"""The ``reelscope`` command (ARCHITECTURE §1).

Admin commands print for people by default; with ``--json`` the last line printed is one JSON object,
a contract other tooling relies on. Bad arguments print one line and exit with status 2, changing
nothing. Every command opens its own short transaction, so it works beside a running server and takes
effect at once.
"""

from reelscope.cli import admin, catalog, collectors, mcp, serving, trends
from reelscope.cli.common import app

__all__ = ["admin", "app", "catalog", "collectors", "mcp", "serving", "trends"]
