"""/livez and /readyz (issue 29 item 3; beyond the spec): no key, no charge, outside the document."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import text

from reelscope.kit.migrate import HEAD
from reelscope.runtime import Runtime


async def stamp(runtime: Runtime, *versions: str) -> None:
    """What `reelscope migrate` leaves (the tests' schema comes from the models, without the table)."""
    async with runtime.db.transaction() as session:
        await session.execute(text("CREATE TABLE IF NOT EXISTS alembic_version (version_num VARCHAR(32))"))
        await session.execute(text("DELETE FROM alembic_version"))
        for version in versions:
            await session.execute(text("INSERT INTO alembic_version VALUES (:v)"), {"v": version})


async def test_livez_answers_without_a_key(client: httpx.AsyncClient) -> None:
    response = await client.get("/livez")
    assert response.status_code == 200 and response.json() == {"status": "ok"}


@pytest.mark.both_databases
async def test_ready_at_the_migration_head(client: httpx.AsyncClient, runtime: Runtime) -> None:
    await stamp(runtime, HEAD)
    response = await client.get("/readyz")
    assert response.status_code == 200, response.text
    assert response.json() == {"status": "ready", "checks": {"database": "ok", "job_queue": "ok"}}


@pytest.mark.both_databases
@pytest.mark.parametrize("versions", [(), ("0021_part2",)], ids=["never_migrated", "behind"])
async def test_not_ready_until_migrated(
    client: httpx.AsyncClient, runtime: Runtime, versions: tuple[str, ...]
) -> None:
    if versions:
        await stamp(runtime, *versions)
    response = await client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "not_ready" and body["checks"]["job_queue"] == "ok"
    assert "reelscope migrate" in body["checks"]["database"]


async def test_not_ready_when_the_job_queue_does_not_answer(
    client: httpx.AsyncClient, runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    await stamp(runtime, HEAD)
    assert runtime.jobs is not None

    def unreachable() -> int:
        raise ConnectionError("refused")

    monkeypatch.setattr(runtime.jobs, "pending_count", unreachable)
    response = await client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"] == {"database": "ok", "job_queue": "unreachable (ConnectionError)"}


async def test_probes_are_not_in_the_document(client: httpx.AsyncClient) -> None:
    paths = (await client.get("/openapi.json")).json()["paths"]
    assert "/livez" not in paths and "/readyz" not in paths
