"""GET /v1/webhooks/{id}/deliveries (§2.7, §8.3): newest first, cursor-paged, `+` must be %2B-encoded."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest

from reelscope.kit.clock import ManualClock
from reelscope.kit.ids import new_id
from reelscope.webhook.service import encode_cursor
from tests.conftest import TeamKey
from tests.kit.test_errors import assert_error
from tests.webhook.conftest import CreateWebhook, Publish

pytestmark = pytest.mark.both_databases

LOOKUP = "satellite.lookup.completed"


@pytest.fixture
async def hook_with_ten(
    create_webhook: CreateWebhook, team: TeamKey, publish: Publish, clock: ManualClock
) -> str:
    """A webhook with 10 deliveries: 7 at distinct times, then 3 sharing one timestamp."""
    hook = await create_webhook(team)
    for n in range(7):
        await publish(LOOKUP, {"n": n}, team_id=team.team_id)
        clock.advance(timedelta(seconds=1))
    for n in range(7, 10):
        await publish(LOOKUP, {"n": n}, team_id=team.team_id)
    return str(hook["id"])


async def walk(client: httpx.AsyncClient, team: TeamKey, hook_id: str, limit: int) -> list[dict[str, Any]]:
    pages: list[dict[str, Any]] = []
    params: dict[str, Any] = {"limit": limit}
    while True:
        response = await client.get(f"/v1/webhooks/{hook_id}/deliveries", params=params, headers=team.headers)
        assert response.status_code == 200, response.text
        page = response.json()
        pages.append(page)
        if page["next_cursor"] is None:
            return pages
        params = {"limit": limit, "cursor": page["next_cursor"]}


class TestPaging:
    async def test_shape_and_default_limit(
        self, client: httpx.AsyncClient, team: TeamKey, hook_with_ten: str
    ) -> None:
        response = await client.get(f"/v1/webhooks/{hook_with_ten}/deliveries", headers=team.headers)
        assert response.status_code == 200
        assert response.headers["X-Cost"] == "0.00"
        page = response.json()
        assert set(page) == {"endpoint_id", "deliveries", "limit", "next_cursor"}
        assert (page["endpoint_id"], page["limit"], page["next_cursor"]) == (hook_with_ten, 50, None)
        assert len(page["deliveries"]) == 10
        entry = page["deliveries"][0]
        assert {"id", "event_type", "status", "attempts", "last_attempt_at", "response_status"} <= set(entry)
        assert (entry["status"], entry["attempts"], entry["last_attempt_at"]) == ("pending", 0, None)

    @pytest.mark.parametrize("limit", [1, 3, 5, 10, 100])
    async def test_every_delivery_once_newest_first(
        self, client: httpx.AsyncClient, team: TeamKey, hook_with_ten: str, limit: int
    ) -> None:
        pages = await walk(client, team, hook_with_ten, limit)
        seen = [d for page in pages for d in page["deliveries"]]
        assert len(seen) == 10
        assert len({d["id"] for d in seen}) == 10
        keys = [(d["created_at"], d["id"]) for d in seen]
        assert keys == sorted(keys, reverse=True)
        assert all(page["limit"] == limit for page in pages)

    async def test_last_page_may_be_empty(
        self, client: httpx.AsyncClient, team: TeamKey, hook_with_ten: str
    ) -> None:
        """§8.3: follow next_cursor until it is null; the last page can be empty."""
        pages = await walk(client, team, hook_with_ten, 5)
        assert [len(p["deliveries"]) for p in pages] == [5, 5, 0]


class TestCursor:
    async def test_plus_must_be_url_encoded(
        self, client: httpx.AsyncClient, team: TeamKey, hook_with_ten: str, clock: ManualClock
    ) -> None:
        """§8.3: a `+` in a cursor must be sent as %2B; a bare `+` arrives as a space and is a 400."""
        cursor = next(c for c in (encode_cursor(clock.now(), new_id()) for _ in range(10_000)) if "+" in c)
        path = f"/v1/webhooks/{hook_with_ten}/deliveries"
        bare = await client.get(f"{path}?cursor={cursor}", headers=team.headers)
        assert_error(bare, 400, "validation_error")
        assert "%2B" in " ".join(bare.json()["message"])
        encoded = await client.get(path, params={"cursor": cursor}, headers=team.headers)
        assert encoded.status_code == 200

    @pytest.mark.parametrize("query", ["limit=101", "limit=0", "limit=-1", "limit=ten", "offset=5", "page=2",
                                       "cursor=not-base64!", "cursor=AAAA"])  # fmt: skip
    async def test_bad_parameters(
        self, client: httpx.AsyncClient, team: TeamKey, hook_with_ten: str, query: str
    ) -> None:
        """§8.3: limit at most 100 (400 above); unknown parameters and foreign cursors are 400."""
        response = await client.get(f"/v1/webhooks/{hook_with_ten}/deliveries?{query}", headers=team.headers)
        assert_error(response, 400, "validation_error")

    async def test_limit_100_is_accepted(
        self, client: httpx.AsyncClient, team: TeamKey, hook_with_ten: str
    ) -> None:
        response = await client.get(
            f"/v1/webhooks/{hook_with_ten}/deliveries?limit=100", headers=team.headers
        )
        assert (response.status_code, response.json()["limit"]) == (200, 100)
