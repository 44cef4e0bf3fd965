"""deploy/compose.yaml (issue 29 item 5): what `docker compose up` would run, checked without Docker.

Every service built from the Reelscope image runs a `reelscope` subcommand that exists with options it
takes (resolved through the CLI's own click commands), with only environment variables Reelscope reads
(config.Settings under the REELSCOPE_ prefix), and with values those settings accept. The APIs are
probed at /readyz on the port they listen on, the worker at /livez on its metrics port, and Prometheus
scrapes exactly those.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.main import get_command

from reelscope.cli import app
from reelscope.config import Settings

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"
IMAGE = "reelscope:local"
PREFIX = str(Settings.model_config.get("env_prefix"))
# ${NAME}, ${NAME:-default}, ${NAME:?message}: Compose's interpolation, as `up` would resolve it when the
# operator sets only what it must
VARIABLE = re.compile(r"\$\{(?P<name>\w+)(?:(?P<op>:?[-?])(?P<rest>[^}]*))?\}")


def load(name: str) -> dict[str, Any]:
    found: dict[str, Any] = yaml.safe_load((DEPLOY / name).read_text())
    return found


def interpolated(value: str) -> str:
    """A value as Compose resolves it with no variable set but the required ones (set to a placeholder)."""

    def one(match: re.Match[str]) -> str:
        op = match.group("op") or ""
        return match.group("rest") if "-" in op else "required-value" if "?" in op else ""

    return VARIABLE.sub(one, value)


class NotACommand(Exception):
    """``reelscope`` would refuse these arguments with a usage error (exit status 2)."""


def resolve(args: list[str]) -> Any:
    """The `reelscope` command ``args`` name, its arguments parsed as the CLI parses them; nothing is run.
    Typer vendors its own click, so its commands are reached through the objects Typer builds: a group
    is what has subcommands, a usage error what exits with status 2."""
    command: Any = get_command(app)
    parent = command.context_class(command, info_name="reelscope")
    rest, info_name = list(args), "reelscope"
    while hasattr(command, "list_commands"):  # a group: the next word names a subcommand
        if not rest:
            raise NotACommand(f"`{info_name}` needs a subcommand")
        info_name, *rest = rest
        found = command.get_command(parent, info_name)
        if found is None:
            raise NotACommand(f"no such command {info_name!r}")
        if hasattr(found, "list_commands"):
            parent = found.context_class(found, info_name=info_name, parent=parent)
        command = found
    try:
        command.make_context(info_name, rest, parent=parent)
    except Exception as exc:
        if getattr(exc, "exit_code", None) == 2:
            raise NotACommand(str(exc)) from exc
        raise
    return command


def option(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return load("compose.yaml")


@pytest.fixture(scope="module")
def services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = compose["services"]
    return found


def reelscope_services(services: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {name: service for name, service in services.items() if service.get("image") == IMAGE}


def running(services: dict[str, dict[str, Any]], subcommand: str) -> list[str]:
    return [name for name, s in reelscope_services(services).items() if s["command"][0] == subcommand]


class TestTheResolver:
    @pytest.mark.parametrize(
        "args", [["serve", "--bogus"], ["nonesuch"], ["worker", "extra"], ["admin", "key", "nope"]]
    )
    def test_refuses_what_the_cli_refuses(self, args: list[str]) -> None:
        with pytest.raises(NotACommand):
            resolve(args)


class TestServices:
    def test_postgres_redis_two_apis_one_periodic_worker_and_optional_prometheus(
        self, services: dict[str, dict[str, Any]]
    ) -> None:
        assert {"postgres", "redis", "prometheus"} <= set(services)
        assert len(running(services, "api")) == 2
        workers = running(services, "worker")
        assert len(workers) == 1
        assert "--no-periodic" not in services[workers[0]]["command"]  # the one with periodic tasks
        assert services["prometheus"]["profiles"] == ["metrics"]
        assert all("profiles" not in s for name, s in services.items() if name != "prometheus")

    def test_every_reelscope_command_is_a_real_one(self, services: dict[str, dict[str, Any]]) -> None:
        built = reelscope_services(services)
        assert set(running(services, "migrate")) and set(running(services, "api"))
        for name, service in built.items():
            try:
                resolve(service["command"])
            except NotACommand as exc:
                pytest.fail(f"{name}: `reelscope {' '.join(service['command'])}`: {exc}")

    def test_every_variable_is_a_setting_with_a_value_it_takes(
        self, services: dict[str, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        for name, service in reelscope_services(services).items():
            environment: dict[str, Any] = service["environment"]
            for variable in environment:
                assert variable.startswith(PREFIX), f"{name}: {variable}"
                assert variable.removeprefix(PREFIX).lower() in Settings.model_fields, f"{name}: {variable}"
            for variable, value in environment.items():
                monkeypatch.setenv(variable, interpolated(str(value)))
            settings = Settings()  # raises on a value a setting refuses
            assert settings.database_url is not None and settings.database_url.startswith("postgresql")
            assert settings.redis_url is not None
            for variable in environment:
                monkeypatch.delenv(variable)

    def test_apis_and_worker_wait_for_the_migration(self, services: dict[str, dict[str, Any]]) -> None:
        (migrate,) = running(services, "migrate")
        assert services[migrate]["depends_on"]["postgres"]["condition"] == "service_healthy"
        for name in [*running(services, "api"), *running(services, "worker")]:
            assert services[name]["depends_on"][migrate]["condition"] == "service_completed_successfully"

    def test_apis_are_published_and_probed_at_readyz_on_their_port(
        self, services: dict[str, dict[str, Any]]
    ) -> None:
        published = []
        for name in running(services, "api"):
            service = services[name]
            port = option(service["command"], "--port")
            probe = " ".join(service["healthcheck"]["test"])
            assert f"127.0.0.1:{port}/readyz" in probe, name
            (mapping,) = service["ports"]
            host_port, container_port = mapping.split(":")
            assert container_port == port
            published.append(host_port)
        assert len(set(published)) == len(published)  # each replica on a port of its own

    def test_the_worker_is_probed_at_livez_on_its_metrics_port(
        self, services: dict[str, dict[str, Any]]
    ) -> None:
        (name,) = running(services, "worker")
        port = services[name]["environment"][f"{PREFIX}WORKER_METRICS_PORT"]
        assert f"127.0.0.1:{port}/livez" in " ".join(services[name]["healthcheck"]["test"])

    def test_the_image_runs_reelscope(self, services: dict[str, dict[str, Any]]) -> None:
        dockerfile = (DEPLOY / "Dockerfile").read_text()
        assert 'ENTRYPOINT ["reelscope"]' in dockerfile
        for service in reelscope_services(services).values():
            assert service["build"]["dockerfile"] == "deploy/Dockerfile"


class TestPrometheus:
    def test_scrapes_each_api_and_the_worker_where_they_serve_metrics(
        self, services: dict[str, dict[str, Any]]
    ) -> None:
        config = load("prometheus.yml")
        targets = {
            target
            for job in config["scrape_configs"]
            for static in job["static_configs"]
            for target in static["targets"]
        }
        assert all(job["metrics_path"] == "/metrics" for job in config["scrape_configs"])
        (worker,) = running(services, "worker")
        expected = {
            f"{name}:{option(services[name]['command'], '--port')}" for name in running(services, "api")
        }
        expected.add(f"{worker}:{services[worker]['environment'][f'{PREFIX}WORKER_METRICS_PORT']}")
        assert targets == expected

    def test_sends_the_token_the_services_ask_for(
        self, compose: dict[str, Any], services: dict[str, dict[str, Any]]
    ) -> None:
        config = load("prometheus.yml")
        files = {job["authorization"]["credentials_file"] for job in config["scrape_configs"]}
        mounted = {c["target"]: c["source"] for c in services["prometheus"]["configs"]}
        assert files <= set(mounted)
        for target in files:
            content = compose["configs"][mounted[target]]["content"]
            for service in reelscope_services(services).values():
                assert service["environment"][f"{PREFIX}METRICS_TOKEN"] == content
