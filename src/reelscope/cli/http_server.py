"""How uvicorn runs the app: which proxies are trusted, and what it answers before the app can (ADR 0025).

* **Forwarded headers.** uvicorn trusts ``X-Forwarded-For``/``-Proto`` from 127.0.0.1 by default, so a
  client on the same machine could pick any address for the per-IP limiter (§5.5; issue 14 item 6).
  Here nothing is trusted unless the operator names its proxies in ``REELSCOPE_FORWARDED_ALLOW_IPS``
  (addresses or networks, comma-separated, or ``*`` behind a proxy that always overwrites the header).
* **Requests uvicorn refuses itself.** A request line or header that does not parse never reaches the
  app; uvicorn answers a plain-text 400. ``EdgeProtocol`` is uvicorn's httptools protocol with that one
  answer replaced by the §2.8 body, with a request id and the zero billing headers, so even those
  refusals have the API's shape; the connection is closed after it. httptools itself accepts a head of
  any size, so the protocol also refuses a request line and headers over ``REELSCOPE_MAX_HEADER_BYTES``
  (431 ``request_header_too_large``).
* **Access log.** A dashboard link carries its signed token in the path (a credential for days, ADR 0023);
  uvicorn's access log keeps the route and drops the token (``RedactDashboardTokens``).
* **Timeouts.** An idle keep-alive connection closes after 5 s (uvicorn's default, kept); a body that
  does not arrive in time is the app's 408 (kit/edge.py).
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

import orjson
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from reelscope.config import Settings
from reelscope.kit.errors import ApiError, RequestHeaderTooLarge, ValidationFailed
from reelscope.kit.ids import new_id


class EdgeProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, answering requests that do not parse in the §2.8 shape, and
    refusing a request line and headers over ``max_header_bytes`` with 431 (httptools has no limit)."""

    max_header_bytes = 32 * 1024
    _in_head = True
    _head_bytes = 0
    _tail = b""

    def data_received(self, data: bytes) -> None:
        if self._in_head:
            # count up to the blank line that ends the head: a body in the same read is not the head's
            seen = self._tail + data
            end = seen.find(b"\r\n\r\n")
            self._head_bytes += len(data) if end < 0 else max(0, end - len(self._tail))
            self._tail = seen[-3:]
            if self._head_bytes > self.max_header_bytes:
                self._refuse(
                    RequestHeaderTooLarge(
                        f"The request line and headers must be at most {self.max_header_bytes} bytes"
                    )
                )
                return
        super().data_received(data)

    def on_headers_complete(self) -> None:
        self._in_head, self._head_bytes, self._tail = False, 0, b""
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._in_head, self._head_bytes, self._tail = True, 0, b""
        super().on_message_complete()

    def send_400_response(self, msg: str) -> None:
        self._refuse(ValidationFailed(msg))

    def _refuse(self, error: ApiError) -> None:
        request_id = new_id()
        quote = f"Quote request id {request_id} when reporting it"
        if isinstance(error.message, list):
            error.message = [f"{error.message[0]} {quote}"]
        else:
            error.message = f"{error.message}. {quote}"
        body = orjson.dumps(error.body())
        reason = HTTPStatus(error.status).phrase.encode()
        headers = [b"HTTP/1.1 " + str(error.status).encode() + b" " + reason + b"\r\n"]
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


DASHBOARD_PAGE = "/dashboard/"
DASHBOARD_ASSETS = "/dashboard/assets/"


class RedactDashboardTokens(logging.Filter):
    """uvicorn's access records are ``(client, method, path with query, http version, status)``: a dashboard
    page's path is its signed link, so it is logged as ``/dashboard/<token>``; its assets are logged as is."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            path = args[2]
            if path.startswith(DASHBOARD_PAGE) and not path.startswith(DASHBOARD_ASSETS):
                record.args = (*args[:2], DASHBOARD_PAGE + "<token>", *args[3:])
        return True


def _redact_access_log() -> None:
    access = logging.getLogger("uvicorn.access")
    if not any(isinstance(existing, RedactDashboardTokens) for existing in access.filters):
        access.addFilter(RedactDashboardTokens())


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """The keyword arguments of ``uvicorn.run``/``uvicorn.Config`` that ``serve`` and ``api`` share
    (and the access log's redaction, which uvicorn's own logging set-up leaves in place)."""
    _redact_access_log()
    trusted = settings.forwarded_allow_ips.strip()
    protocol = type("EdgeProtocol", (EdgeProtocol,), {"max_header_bytes": settings.max_header_bytes})
    return {
        "http": protocol,
        "proxy_headers": bool(trusted),
        "forwarded_allow_ips": trusted or None,
        "log_level": settings.log_level,
    }
