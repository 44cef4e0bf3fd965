"""One TLS context for the HTTP clients of every real source.

Given no context, each ``httpx.AsyncClient`` builds its own and loads the whole CA bundle into it: tens of
milliseconds of CPU (a tenth of a second on a busy 2-core machine) spent on the event loop, once per
connector operation, since the sources open a client per operation. A simulated day of collection spent a
third of its time there (benchmarks/collection.py), so the sources share this one, built on first use.
"""

from __future__ import annotations

import ssl
from functools import cache

import httpx


@cache
def context() -> ssl.SSLContext:
    """What httpx builds for ``verify=True``: certifi's bundle, or ``SSL_CERT_FILE``/``SSL_CERT_DIR``."""
    return httpx.create_ssl_context()
