"""Wire shapes of the webhook endpoints (spec §2.7, §4.6, §8.3). Not wrapped in ``{data}`` (§1)."""

from __future__ import annotations

import re
from typing import Annotated, Self

from pydantic import AfterValidator, Field, model_validator

from reelscope.kit.schemas import RequestBody, Schema
from reelscope.webhook.network import url_problems

MAX_HEADERS = 5
MAX_HEADER_NAME = 64
MAX_HEADER_VALUE = 256
MAX_DESCRIPTION = 256
HEADER_NAME = re.compile(r"^[A-Za-z0-9-]+$")
# §4.6 reserved names, plus the Standard Webhooks headers we send and the hop-by-hop headers that
# would change how the request is framed or routed
RESERVED_HEADERS = frozenset(
    {
        "authorization",
        "content-type",
        "content-encoding",
        "content-length",
        "host",
        "user-agent",
        "webhook-id",
        "webhook-timestamp",
        "webhook-signature",
        "transfer-encoding",
        "connection",
        "keep-alive",
        "te",
        "trailer",
        "upgrade",
        "expect",
        "proxy-authorization",
        "proxy-connection",
    }
)
RESERVED_PREFIX = "service-"


def header_problems(headers: dict[str, str]) -> list[str]:
    problems: list[str] = []
    if len(headers) > MAX_HEADERS:
        problems.append(f"at most {MAX_HEADERS} headers are allowed")
    seen: set[str] = set()
    for name, value in headers.items():
        lowered = name.lower()
        if not HEADER_NAME.match(name) or len(name) > MAX_HEADER_NAME:
            problems.append(f"header name {name!r} must be 1 to {MAX_HEADER_NAME} letters, digits or dashes")
        elif lowered in RESERVED_HEADERS or lowered.startswith(RESERVED_PREFIX):
            problems.append(f"header name {name!r} is reserved")
        elif lowered in seen:
            problems.append(f"header name {name!r} is given twice")
        seen.add(lowered)
        if len(value) > MAX_HEADER_VALUE:
            problems.append(f"header {name!r} value must be at most {MAX_HEADER_VALUE} characters")
        elif any(not (ch == "\t" or 0x20 <= ord(ch) < 0x7F) for ch in value):
            problems.append(f"header {name!r} value must be printable ASCII text")
    return problems


def _check_url(url: str) -> str:
    problems = url_problems(url)
    if problems:
        raise ValueError("; ".join(problems))
    return url


def _check_headers(headers: dict[str, str]) -> dict[str, str]:
    problems = header_problems(headers)
    if problems:
        raise ValueError("; ".join(problems))
    return headers


def _unique(names: list[str]) -> list[str]:
    return list(dict.fromkeys(names))


WebhookUrl = Annotated[str, AfterValidator(_check_url)]
CustomHeaders = Annotated[dict[str, str], AfterValidator(_check_headers)]
EventNames = Annotated[list[str], Field(min_length=1), AfterValidator(_unique)]
Description = Annotated[str, Field(max_length=MAX_DESCRIPTION)]


class WebhookCreate(RequestBody):
    """§4.6 create body."""

    url: WebhookUrl
    enabled_events: EventNames
    headers: CustomHeaders = Field(default_factory=dict)
    description: Description = ""
    is_active: bool = True


class WebhookUpdate(RequestBody):
    """Any create field (ARCHITECTURE §6); absent fields stay as they are, null is refused."""

    url: WebhookUrl | None = None
    enabled_events: EventNames | None = None
    headers: CustomHeaders | None = None
    description: Description | None = None
    is_active: bool | None = None

    @model_validator(mode="after")
    def _no_nulls(self) -> Self:
        nulls = sorted(name for name in self.model_fields_set if getattr(self, name) is None)
        if nulls:
            raise ValueError(", ".join(nulls) + " must not be null")
        return self


# what an older client's test sends without naming an event (issue 28, ADR 0043)
DEFAULT_TEST_EVENT = "orbit.run.completed"


class TestEventRequest(RequestBody):
    """The event to send a sample of, as `event` or `event_type`; neither (or no body) sends
    `orbit.run.completed`."""

    event: str | None = Field(default=None, description="An event name of §6.2")
    event_type: str | None = Field(default=None, description="The same as `event`")

    @model_validator(mode="after")
    def _one_name(self) -> Self:
        if self.event is not None and self.event_type is not None and self.event != self.event_type:
            raise ValueError("event and event_type disagree: send one of them")
        return self

    @property
    def name(self) -> str:
        return self.event or self.event_type or DEFAULT_TEST_EVENT


class DeliveryLogQuery(RequestBody):
    """§8.3: cursor-paged, limit default 50, at most 100."""

    limit: int = Field(default=50, ge=1, le=100)
    cursor: str | None = None


class WebhookEndpointOut(Schema):
    """§2.7, plus the signing secret (beyond the spec, ADR 0010)."""

    id: str
    team_id: str
    url: str
    description: str
    enabled_events: list[str]
    headers: dict[str, str]
    is_active: bool
    status: str
    consecutive_failures: int
    last_success_at: str | None
    last_failure_at: str | None
    created_by: str
    created_at: str
    updated_at: str
    secret: str = Field(description="Standard Webhooks signing secret (whsec_…) for webhook-signature")


class DeliveryOut(Schema):
    """One delivery log entry (§2.7). ``id`` is the body's ``id`` and ``Service-Event-Id``."""

    id: str
    event_type: str
    status: str = Field(description="pending, delivered, failed, dead or payload_too_large")
    attempts: int
    last_attempt_at: str | None
    response_status: int | None
    next_attempt_at: str | None
    error: str | None
    created_at: str


class DeliveryLog(Schema):
    endpoint_id: str
    deliveries: list[DeliveryOut]
    limit: int
    next_cursor: str | None
