"""``/llms.txt`` and ``/llms-full.txt`` (issue 30 item 3): free, no key, generated from the app's own
OpenAPI document, so every operation it serves is listed and none it does not."""

from __future__ import annotations

import re

import httpx

from reelscope.llms_txt import operations


class TestLlmsTxt:
    async def test_every_operation_is_listed(self, client: httpx.AsyncClient) -> None:
        document = (await client.get("/openapi.json")).json()
        index = await client.get("/llms.txt")
        full = await client.get("/llms-full.txt")
        for response in (index, full):
            assert response.status_code == 200  # no key: like the reference pages
            assert response.headers["content-type"].startswith("text/plain")
            assert response.headers["X-Cost"] == "0.00"
        served = operations(document)
        assert len(served) >= 100
        for method, path, operation in served:
            assert f"[{method} {path}](/llms-full.txt#{operation['operationId']})" in index.text, path
            assert f"### {method} {path}\n\noperationId: {operation['operationId']}\n" in full.text, path
        # and nothing else: one index line per operation
        listed = re.findall(r"^- \[(GET|POST|PUT|PATCH|DELETE) (\S+)\]", index.text, flags=re.MULTILINE)
        assert sorted(listed) == sorted((m, p) for m, p, _ in served)

    async def test_prices_and_errors_come_from_the_contract(self, client: httpx.AsyncClient) -> None:
        index = (await client.get("/llms.txt")).text
        full = (await client.get("/llms-full.txt")).text
        assert index.startswith("# Reelscope")
        assert "[GET /v1/videos/digest](/llms-full.txt#get_videos_digest)" in index
        digest_line = next(line for line in index.splitlines() if "GET /v1/videos/digest]" in line)
        assert digest_line.endswith("($0.25)")  # §4.1
        assert "- dry_run (query, boolean)" in full
        assert "daily_cap_reached" in full and "insufficient_credits" in full

    async def test_linked_from_the_reference(self, client: httpx.AsyncClient) -> None:
        document = (await client.get("/openapi.json")).json()
        assert "(/llms.txt)" in document["info"]["description"]  # shown at the top of /docs
