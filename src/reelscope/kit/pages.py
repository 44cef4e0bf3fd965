"""The Content-Security-Policy of the HTML pages Reelscope serves: the API reference at ``/docs`` and a
tracked item's dashboard (issue 31).

Both pages load their scripts and styles from Reelscope itself (ARCHITECTURE §1), so the policy says
so: scripts from this origin, plus each inline script of the page by its SHA-256 (the Swagger UI
start-up, the Bokeh charts' embedding), and nothing else: a script smuggled into a page through
collected data (a title, a URL) does not run. Styles may also be inline, because BokehJS and Swagger
UI write ``<style>`` elements as they draw. Neither needs ``eval`` (BokehJS compiles code only for
``CustomJS``-like models, which the dashboard does not use).

``X-Content-Type-Options: nosniff`` is on every response (contract/calls.py), pages or not.
"""

from __future__ import annotations

import base64
import hashlib
import re

# an inline script: a <script> element without a src attribute, and its text
_INLINE_SCRIPT = re.compile(r"<script(?![^>]*\ssrc=)[^>]*>(.*?)</script>", re.DOTALL | re.IGNORECASE)


def _digest(script: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode() + "'"


def content_security_policy(page: str) -> str:
    """The policy for ``page``: its inline scripts are allowed by hash, so it is computed per page."""
    scripts = " ".join(["'self'", *sorted({_digest(s) for s in _INLINE_SCRIPT.findall(page)})])
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src {scripts}",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            "connect-src 'self'",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        ]
    )
