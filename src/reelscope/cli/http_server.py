"""How uvicorn runs the app: which proxies are trusted, and what it answers before the app can (ADR 0025).

* **Forwarded headers.** uvicorn trusts ``X-Forwarded-For``/``-Proto`` from 127.0.0.1 by default, so a
  client on the same machine could pick any address for the per-IP limiter (§5.5; issue 14 item 6).
  Here nothing is trusted unless the operator names its proxies in ``REELSCOPE_FORWARDED_ALLOW_IPS``
  (addresses or networks, comma-separated, or ``*`` behind a proxy that always overwrites the header).
* **Requests uvicorn refuses itself.** A request line or header that does not parse never reaches the
  app; uvicorn answers a plain-text 400. ``EdgeProtocol`` is uvicorn's httptools protocol with that one
  answer replaced by the §2.8 body, with a request id and the zero billing headers, so even those
  refusals have the API's shape. What it cannot change: the connection is closed after it, and
  httptools alone decides what fails to parse (uvicorn adds no size limit of its own there).
* **Timeouts.** An idle keep-alive connection closes after 5 s (uvicorn's default, kept); a body that
  does not arrive in time is the app's 408 (kit/edge.py).
"""

from __future__ import annotations

from typing import Any

import orjson
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from reelscope.config import Settings
from reelscope.kit.errors import ValidationFailed
from reelscope.kit.ids import new_id

_STATUS_LINE = b"HTTP/1.1 400 Bad Request\r\n"


class EdgeProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, answering requests that do not parse in the §2.8 shape."""

    def send_400_response(self, msg: str) -> None:
        request_id = new_id()
        body = orjson.dumps(ValidationFailed(f"{msg} Quote request id {request_id} when reporting it").body())
        headers = [_STATUS_LINE]
        for name, value in self.server_state.default_headers:
            headers.append(name + b": " + value + b"\r\n")
        headers += [
            b"content-type: application/json\r\n",
            b"content-length: " + str(len(body)).encode() + b"\r\n",
            b"x-cost: 0.00\r\n",
            b"x-credits-used: 0\r\n",
            b"x-request-id: " + request_id.encode() + b"\r\n",
            b"connection: close\r\n",
            b"\r\n",
        ]
        self.transport.write(b"".join(headers) + body)
        self.transport.close()


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """The keyword arguments of ``uvicorn.run``/``uvicorn.Config`` that ``serve`` and ``api`` share."""
    trusted = settings.forwarded_allow_ips.strip()
    return {
        "http": EdgeProtocol,
        "proxy_headers": bool(trusted),
        "forwarded_allow_ips": trusted or None,
        "log_level": settings.log_level,
    }
