"""The one decoder of JSON request bodies (issue 31).

FastAPI decodes a JSON body with ``Request.json()``, which is the standard library's ``json.loads``: it
takes a lone UTF-16 surrogate escape (``{"keywords": ["\\ud800"]}``), a string no UTF-8 encoder can
write. It reached PostgreSQL, a stored agent, the error renderer (orjson refuses to write it) and the
log (so did the stream), and the client got a 500 or a reset connection. ``JsonBodyRequest`` decodes
with orjson, which holds a body to RFC 8259 in UTF-8: a lone surrogate, ``NaN`` or ``Infinity`` is a
``JSONDecodeError``, which FastAPI answers as ``json_invalid``, rendered 400 ``validation_error``
(main.py), before any endpoint or price quote sees the body. Every /v1 request is one
(contract/route.py, and the read workers' copy of it, contract/read_workers.py).
"""

from __future__ import annotations

from typing import Any

import orjson
from starlette.requests import Request


class JsonBodyRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = orjson.loads(await self.body())
        return self._json


def with_json_body(request: Request) -> JsonBodyRequest:
    """``request`` (its scope, so its state, and its stream) read through ``JsonBodyRequest``."""
    if isinstance(request, JsonBodyRequest):
        return request
    return JsonBodyRequest(request.scope, request.receive)
