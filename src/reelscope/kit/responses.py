"""Fast JSON responses for read paths that build plain dicts (serialization is most of their cost)."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import Response


class FastJSON(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)
