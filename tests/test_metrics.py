"""GET /metrics (issue 29 item 2; beyond the spec): what a Prometheus scrape reads, and what it never shows.

Counters are process-wide (kit/metrics.py), so each test reads a value before and after what it does and
asserts the difference.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from reelscope.collectors.base import RateLimited
from reelscope.collectors.routing import Sources
from reelscope.config import Settings
from reelscope.kit import metrics
from reelscope.kit.clock import ManualClock
from reelscope.main import create_app
from reelscope.metrics import service as metrics_service
from reelscope.metrics import worker_port
from reelscope.runtime import Runtime, build_runtime
from reelscope.worker import enqueue
from reelscope.worker.engine import JobEngine
from reelscope.worker.jobs import service as jobs_service
from tests.conftest import TeamKey

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "scrape-secret-7f3a"


async def scrape(client: httpx.AsyncClient, headers: dict[str, str] | None = None) -> list[Sample]:
    response = await client.get("/metrics", headers=headers or {})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=")
    return [s for family in text_string_to_metric_families(response.text) for s in family.samples]


def value(samples: list[Sample], name: str, **labels: str) -> float:
    """The sample's value (0 when absent: a counter not yet incremented)."""
    return next((s.value for s in samples if s.name == name and s.labels == labels), 0.0)


@pytest.fixture
async def guarded(tmp_path: Path, database_url: str, clock: ManualClock) -> AsyncIterator[httpx.AsyncClient]:
    """An app whose /metrics asks for a bearer token."""
    settings = Settings(data_dir=tmp_path / "guarded", database_url=database_url, metrics_token=TOKEN)
    runtime = build_runtime(settings, clock)
    transport = httpx.ASGITransport(app=create_app(runtime=runtime))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http
    await runtime.close()


class TestRequests:
    async def test_counted_by_route_template_never_the_path(
        self, client: httpx.AsyncClient, team: TeamKey
    ) -> None:
        before = await scrape(client)
        ids = ["agent-one-3b1f", "agent-two-9c2e"]
        for agent_id in ids:
            assert (await client.get(f"/v1/agents/{agent_id}", headers=team.headers)).status_code == 404
        after = await scrape(client)
        labels = {"method": "GET", "route": "/v1/agents/{agent_id}", "status": "404"}
        name = "reelscope_http_requests_total"
        assert value(after, name, **labels) - value(before, name, **labels) == 2
        timed = {"method": "GET", "route": "/v1/agents/{agent_id}"}
        count = "reelscope_http_request_duration_seconds_count"
        assert value(after, count, **timed) - value(before, count, **timed) == 2
        shown = {v for s in after for v in s.labels.values()}
        assert not shown & {*ids, f"/v1/agents/{ids[0]}", team.team_id, team.key_id, team.api_key}

    async def test_an_unrouted_path_and_an_odd_method_are_one_label_each(
        self, client: httpx.AsyncClient
    ) -> None:
        before = await scrape(client)
        await client.get("/no/such/path/481516")
        await client.request("BREW", "/")
        after = await scrape(client)
        name = "reelscope_http_requests_total"
        unmatched = {"method": "GET", "route": "unmatched", "status": "404"}
        assert value(after, name, **unmatched) - value(before, name, **unmatched) == 1
        methods = {s.labels["method"] for s in after if s.name == name}
        assert "BREW" not in methods and "other" in methods
        assert not any("481516" in v for s in after for v in s.labels.values())

    async def test_credits_charged_by_feature_as_the_headers_say(
        self, client: httpx.AsyncClient, team: TeamKey
    ) -> None:
        before = await scrape(client)
        response = await client.get("/v1/videos/digest", headers=team.headers)
        assert response.status_code == 200, response.text
        charged = int(response.headers["x-credits-used"])
        assert charged > 0
        after = await scrape(client)
        labels = {"feature": "video_digests", "operation": "get_videos_digest"}
        name = "reelscope_credits_charged_total"
        assert value(after, name, **labels) - value(before, name, **labels) == charged

    async def test_pooled_connections_are_given_back(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        before = await scrape(client)
        for _ in range(3):
            await client.get("/v1/account/balance", headers=team.headers)
        after = await scrape(client)
        pools = {s.labels["pool"] for s in after if s.name == "reelscope_db_connections_in_use"}
        assert pools  # the test's SQLite file has a primary and a reader pool at least
        for pool in pools:
            name, labels = "reelscope_db_connections_in_use", {"pool": pool}
            assert value(after, name, **labels) == value(before, name, **labels)


class TestTheEndpoint:
    async def test_free_unlimited_and_outside_the_document(
        self, tmp_path: Path, database_url: str, clock: ManualClock
    ) -> None:
        # a per-IP burst of 1 (§5.5): a second request without a key is limited, a scrape never is
        settings = Settings(data_dir=tmp_path / "burst", database_url=database_url, ip_burst=1)
        runtime = build_runtime(settings, clock)
        transport = httpx.ASGITransport(app=create_app(runtime=runtime), client=("203.0.113.9", 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            for _ in range(3):
                response = await http.get("/metrics")
                assert response.status_code == 200
                assert response.headers["x-credits-used"] == "0"
                assert "x-ratelimit-limit" not in response.headers
            assert (await http.get("/v1/account/balance")).status_code == 401
            assert (await http.get("/v1/account/balance")).status_code == 429
            paths = (await http.get("/openapi.json")).json()["paths"]
        await runtime.close()
        assert "/metrics" not in paths

    @pytest.mark.parametrize(
        "authorization",
        [None, "Bearer wrong-token", f"Basic {TOKEN}", TOKEN],
        ids=["none", "wrong", "basic", "bare"],
    )
    async def test_a_token_is_asked_for_when_set(
        self, guarded: httpx.AsyncClient, authorization: str | None
    ) -> None:
        headers = {"Authorization": authorization} if authorization else {}
        response = await guarded.get("/metrics", headers=headers)
        assert response.status_code == 401
        assert response.json()["code"] == "invalid_metrics_token"
        assert response.headers["www-authenticate"].startswith("Bearer")
        assert TOKEN not in response.text

    async def test_the_token_opens_it(self, guarded: httpx.AsyncClient) -> None:
        samples = await scrape(guarded, {"Authorization": f"Bearer {TOKEN}"})
        assert any(s.name == "reelscope_scrape_part_up" for s in samples)
        assert not any(TOKEN in v for s in samples for v in s.labels.values())

    async def test_off_when_switched_off(self, tmp_path: Path, database_url: str, clock: ManualClock) -> None:
        settings = Settings(data_dir=tmp_path / "off", database_url=database_url, metrics=False)
        runtime = build_runtime(settings, clock)
        transport = httpx.ASGITransport(app=create_app(runtime=runtime))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            assert (await http.get("/metrics")).status_code == 404
        await runtime.close()


@pytest.mark.both_databases
class TestState:
    @pytest.mark.parametrize("queue_backend", ["sqlite"], indirect=True)
    async def test_waiting_jobs_by_task_and_lane_then_their_outcome(
        self,
        client: httpx.AsyncClient,
        runtime: Runtime,
        jobs: JobEngine,
        team: TeamKey,
        clock: ManualClock,
    ) -> None:
        async with runtime.db.transaction() as session:
            await jobs_service.create(
                session,
                task="test.credit",
                type="tracking_report",
                at=clock.now(),
                team_id=team.team_id,
                params={"team_id": team.team_id},
            )
        clock.advance(timedelta(seconds=30))
        waiting = await scrape(client)
        labels = {"task": "test.credit", "lane": "user"}
        assert value(waiting, "reelscope_jobs_waiting", **labels) == 1
        assert value(waiting, "reelscope_jobs_oldest_waiting_seconds", **labels) == 30
        assert value(waiting, "reelscope_queue_messages", lane="user") == 1
        assert value(waiting, "reelscope_scrape_part_up", part="jobs") == 1

        jobs.drain()
        done = await scrape(client)
        assert value(done, "reelscope_jobs_waiting", **labels) == 0
        assert value(done, "reelscope_queue_messages", lane="user") == 0
        outcome = {**labels, "outcome": "completed"}
        name = "reelscope_job_outcomes_total"
        assert value(done, name, **outcome) - value(waiting, name, **outcome) == 1

    async def test_plain_task_calls_by_outcome(
        self, client: httpx.AsyncClient, runtime: Runtime, jobs: JobEngine, team: TeamKey
    ) -> None:
        before = await scrape(client)
        async with runtime.db.transaction() as session:  # Huey's immediate mode: run at commit
            enqueue(session, "test.credit", team_id=team.team_id, label="plain")
            enqueue(session, "test.crash")
        after = await scrape(client)
        name = "reelscope_task_calls_total"
        for task, outcome in (("test.credit", "ok"), ("test.crash", "failed")):
            labels = {"task": task, "lane": "user", "outcome": outcome}
            assert value(after, name, **labels) - value(before, name, **labels) == 1

    async def test_sandbox_quota_and_parts_all_read(self, client: httpx.AsyncClient) -> None:
        samples = await scrape(client)
        parts = {s.labels["part"]: s.value for s in samples if s.name == "reelscope_scrape_part_up"}
        assert parts == {"jobs": 1, "queue": 1, "webhooks": 1, "collectors": 1}
        assert value(samples, "reelscope_webhook_deliveries_due") == 0

    async def test_a_part_that_fails_is_reported_and_the_rest_served(
        self, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        async def unreachable(*_: object) -> list[object]:
            raise ConnectionError("refused")

        monkeypatch.setitem(metrics_service.PARTS, "webhooks", unreachable)
        samples = await scrape(client)
        assert value(samples, "reelscope_scrape_part_up", part="webhooks") == 0
        assert value(samples, "reelscope_scrape_part_up", part="jobs") == 1
        assert not any(s.name == "reelscope_webhook_deliveries_due" for s in samples)


class _Source:
    """The least a source needs to be routed: a name, and no capabilities (called directly)."""

    name = "probe_source"
    capabilities: dict[object, frozenset[object]] = {}
    platforms: frozenset[object] = frozenset()


class _Throttled(RateLimited):
    """A source's own refinement of a protocol error: counted under the protocol's name."""


class TestCollectorCalls:
    async def test_each_call_by_source_and_outcome(self, clock: ManualClock) -> None:
        sources = Sources([_Source()], None)  # type: ignore[list-item]

        async def answers(_: object) -> str:
            return "ok"

        async def throttled(_: object) -> str:
            raise _Throttled("spent", retry_at=clock.now())

        def count(outcome: str) -> float:
            labels = {"source": "probe_source", "outcome": outcome}
            return metrics.REGISTRY.get_sample_value("reelscope_collector_calls_total", labels) or 0.0

        before = {outcome: count(outcome) for outcome in ("ok", "RateLimited", "_Throttled")}
        await sources.call(sources.connectors[0], answers)
        with pytest.raises(RateLimited):
            await sources.call(sources.connectors[0], throttled)
        assert count("ok") - before["ok"] == 1
        assert count("RateLimited") - before["RateLimited"] == 1
        assert count("_Throttled") == 0  # never a label of its own


CHILD = """
import sys
from pathlib import Path
from reelscope.kit import metrics
metrics.use_directory(Path(sys.argv[1]))
metrics.HTTP_REQUESTS.labels("GET", "/v1/agents/{agent_id}", "200").inc(int(sys.argv[2]))
metrics.JOB_OUTCOMES.labels("agent.run", "user", "completed").inc()
"""


class TestSeveralProcesses:
    async def test_a_scrape_sums_every_process_of_the_directory(
        self, tmp_path: Path, runtime: Runtime, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        directory = tmp_path / "metrics"
        for count in (2, 5):  # two processes, as two API or worker processes of one host
            subprocess.run([sys.executable, "-c", CHILD, str(directory), str(count)], check=True, cwd=ROOT)
        monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(directory))
        text = (await metrics_service.exposition(runtime)).decode()
        samples = [s for family in text_string_to_metric_families(text) for s in family.samples]
        requests = {"method": "GET", "route": "/v1/agents/{agent_id}", "status": "200"}
        assert value(samples, "reelscope_http_requests_total", **requests) == 7
        outcome = {"task": "agent.run", "lane": "user", "outcome": "completed"}
        assert value(samples, "reelscope_job_outcomes_total", **outcome) == 2


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class TestWorkerPort:
    def test_a_worker_serves_its_counters_behind_the_token(self, tmp_path: Path) -> None:
        settings = Settings(
            data_dir=tmp_path, host="127.0.0.1", worker_metrics_port=free_port(), metrics_token=TOKEN
        )
        server = worker_port.serve(settings)
        assert server is not None
        try:
            metrics.JOB_OUTCOMES.labels("test.credit", "user", "retry").inc()
            base = f"http://127.0.0.1:{settings.worker_metrics_port}"
            assert httpx.get(f"{base}/metrics").status_code == 401
            assert httpx.get(f"{base}/livez").json() == {"status": "ok"}
            assert httpx.get(f"{base}/other", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 404
            response = httpx.get(f"{base}/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
            assert response.status_code == 200
            samples = [s for f in text_string_to_metric_families(response.text) for s in f.samples]
            outcome = {"task": "test.credit", "lane": "user", "outcome": "retry"}
            assert value(samples, "reelscope_job_outcomes_total", **outcome) >= 1
        finally:
            server.shutdown()
            server.server_close()

    def test_none_without_a_port(self, tmp_path: Path) -> None:
        assert worker_port.serve(Settings(data_dir=tmp_path)) is None
