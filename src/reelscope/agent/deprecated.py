"""The route classes of the agent family's deprecated endpoints: the request contract, plus deprecation
headers on every response, errors included (spec §4.4 proposals, §4.5 and §9 legacy orbit and comet)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError

from reelscope.contract import ContractRoute
from reelscope.kit.errors import ApiError
from reelscope.kit.validation import api_error_of

SUNSET = "Mon, 03 Aug 2026 00:00:00 GMT"  # §4.5: removed 2026-08-03 (RFC 8594 HTTP-date)
DEPRECATION_HEADERS = {"Deprecation": "true", "Sunset": SUNSET}


class DeprecatedRoute(ContractRoute):
    """The request contract, plus ``Deprecation: true`` on every response, errors included (the §4.4
    proposal endpoints)."""

    deprecation_headers: ClassVar[dict[str, str]] = {"Deprecation": "true"}

    def get_route_handler(self) -> Callable[[Request], Any]:
        inner = super().get_route_handler()
        headers = self.deprecation_headers

        async def handle(request: Request) -> Response:
            try:
                response: Response = await inner(request)
            except ApiError as error:
                error.headers.update(headers)
                raise
            except RequestValidationError as invalid:
                # rendered here rather than by the app's handler, to carry the headers too; the same
                # errors as the app's handler gives (kit/validation.py)
                failed = api_error_of(list(invalid.errors()))
                failed.headers.update(headers)
                raise failed from None
            response.headers.update(headers)
            return response

        return handle


class LegacyRoute(DeprecatedRoute):
    """The legacy paths (§4.5): ``Deprecation`` and ``Sunset`` on every response, errors included."""

    deprecation_headers = DEPRECATION_HEADERS
