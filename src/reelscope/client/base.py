"""The models every response shares: what a call cost (``CallMeta``), the ``{data}`` envelope (spec §1),
the ``{data, pagination}`` page (§8.3), a plain array (``GET /v1/webhooks``, §4.6) and an empty 204.

Every response model is an ``ApiModel``; the one a call returns carries ``.meta``, read from the
response's headers (§8.1, §8.2). Unknown fields are kept, not refused: the API only ever adds (§9).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Generic, TypeVar

import httpx
from pydantic import BaseModel, ConfigDict, PrivateAttr, RootModel

T = TypeVar("T")


@dataclass(frozen=True)
class RateLimit:
    """``X-RateLimit-*`` of a response (§8.1): the tightest window of the operation's feature."""

    limit: int
    remaining: int
    reset_at: int  # Unix seconds


@dataclass(frozen=True)
class CallMeta:
    """What one call cost and who answered it, from the headers of its final response (§8.2).

    ``cost`` is the charge in dollars (``X-Cost``, authoritative); ``credits_remaining`` and
    ``balance_remaining`` are present only on charged responses. ``attempts`` counts retries too;
    ``replayed`` is true when the server answered a retried request with the stored first response
    (``Idempotent-Replayed``), which is never charged again.
    """

    status: int
    cost: Decimal
    credits_used: int
    credits_remaining: int | None
    balance_remaining: Decimal | None
    rate_limit: RateLimit | None
    request_id: str | None
    idempotency_key: str | None
    replayed: bool
    attempts: int

    @classmethod
    def of(cls, response: httpx.Response, *, idempotency_key: str | None, attempts: int) -> CallMeta:
        headers = response.headers
        return cls(
            status=response.status_code,
            cost=Decimal(headers.get("X-Cost", "0")),
            credits_used=int(headers.get("X-Credits-Used", "0")),
            credits_remaining=_optional_int(headers, "X-Credits-Remaining"),
            balance_remaining=_optional_decimal(headers, "X-Balance-Remaining"),
            rate_limit=_rate_limit(headers),
            request_id=headers.get("X-Request-Id"),
            idempotency_key=idempotency_key,
            replayed=headers.get("Idempotent-Replayed") == "true",
            attempts=attempts,
        )


def _optional_int(headers: Mapping[str, str], name: str) -> int | None:
    value = headers.get(name)
    return int(value) if value is not None else None


def _optional_decimal(headers: Mapping[str, str], name: str) -> Decimal | None:
    value = headers.get(name)
    return Decimal(value) if value is not None else None


def _rate_limit(headers: Mapping[str, str]) -> RateLimit | None:
    limit = _optional_int(headers, "X-RateLimit-Limit")
    remaining = _optional_int(headers, "X-RateLimit-Remaining")
    reset = _optional_int(headers, "X-RateLimit-Reset")
    if limit is None or remaining is None or reset is None:
        return None
    return RateLimit(limit=limit, remaining=remaining, reset_at=reset)


class HasMeta:
    _meta: CallMeta | None

    @property
    def meta(self) -> CallMeta:
        """The call's cost and headers; only the model a call returned has them (not nested ones)."""
        if self._meta is None:
            raise AttributeError("meta is set on the model a call returns, not on the models inside it")
        return self._meta

    def attach(self, meta: CallMeta) -> None:
        self._meta = meta


class ApiModel(HasMeta, BaseModel):
    """Base of every model; fields are the spec's snake_case names, unknown fields are kept (§9)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, protected_namespaces=())
    _meta: CallMeta | None = PrivateAttr(default=None)


class Pagination(ApiModel):
    """The ``pagination`` block (§8.3): follow ``has_next_page``; ``total`` can be too low."""

    __schema_name__ = "Pagination"

    page: int
    limit: int
    total: int
    total_pages: int
    has_next_page: bool
    has_prev_page: bool


class Envelope(ApiModel, Generic[T]):
    """``{ "data": ... }``: how every endpoint but the webhook ones answers (§1)."""

    data: T


class Page(ApiModel, Generic[T]):
    """``{ "data": [...], "pagination": {...} }`` (§8.3)."""

    data: list[T]
    pagination: Pagination


class ListResponse(HasMeta, RootModel[list[T]], Generic[T]):
    """A plain JSON array (``GET /v1/webhooks``, §4.6), iterable like a list."""

    _meta: CallMeta | None = PrivateAttr(default=None)

    def __iter__(self) -> Iterator[T]:  # type: ignore[override]
        return iter(self.root)

    def __len__(self) -> int:
        return len(self.root)

    def __getitem__(self, index: int) -> T:
        return self.root[index]


class NoContent(ApiModel):
    """The empty answer of a delete (204); its ``meta`` still says what it cost (nothing)."""


def jsonable(value: Any) -> Any:
    """A request value as JSON: models by their fields (unset ones left out), the rest as given."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True, by_alias=True)
    if isinstance(value, list):
        return [jsonable(item) for item in value]
    if isinstance(value, dict):
        return {key: jsonable(item) for key, item in value.items()}
    return value
