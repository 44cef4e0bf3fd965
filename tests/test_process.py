"""`reelscope serve` as a real process: first start creates the demo team, the printed key works,
and admin commands take effect on the running server at once."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.process

BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until_up(base: str, proc: subprocess.Popen[str], deadline_s: float = 300) -> None:
    # a first start collects the sandbox catalog and runs the first trend runs: ~40 s on a quiet 2-core
    # box, over 70 s on a busy one; the deadline only catches a server that never comes up
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited early with {proc.returncode}")
        try:
            if httpx.get(base + "/", timeout=1).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.2)
    raise AssertionError("server did not come up")


@pytest.fixture(scope="class")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, str], Path]]:
    """One first start shared by the class's tests (a first start takes 40-90 s): each test reads only
    what it made itself, or what the first start made and nothing else changes (the demo team). Under
    pytest-xdist the class runs on one worker (tests/fixtures/scheduling.py)."""
    tmp_path = tmp_path_factory.mktemp("serve")
    port = free_port()
    env = {
        **os.environ,
        "REELSCOPE_DATA_DIR": str(tmp_path / "data"),
        "REELSCOPE_HOST": "127.0.0.1",
        "REELSCOPE_PORT": str(port),
        # one day of the sandbox before it answers, not three: the tests read the demo team and what they
        # make, and a real first start's stages are the same for any number of days
        "REELSCOPE_FIRST_START_DAYS": "1",
    }
    env.pop("REELSCOPE_DATABASE_URL", None)
    env.pop("REELSCOPE_REDIS_URL", None)
    env.pop("REELSCOPE_READ_WORKERS", None)  # the default: long reads in a read worker (ADR 0040)
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [str(BIN / "reelscope"), "serve"], env=env, stdout=out, stderr=subprocess.STDOUT, text=True
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base, proc)
        yield base, env, log
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


class TestServe:
    def test_health_and_demo_key(self, server: tuple[str, dict[str, str], Path]) -> None:
        base, _env, log = server
        assert httpx.get(base + "/").status_code == 200
        printed = log.read_text()
        keys = re.findall(r"reelscope_tkn_[A-Za-z0-9_-]+", printed)
        assert keys, printed
        curl = next(line for line in printed.splitlines() if line.strip().startswith("curl "))
        assert keys[0] in curl and base in curl
        response = httpx.get(base + "/v1/account/balance", headers={"Authorization": f"Bearer {keys[0]}"})
        assert response.status_code == 200
        assert response.json()["data"]["credits_remaining"] == 1000

    def test_admin_commands_take_effect_on_the_running_server(
        self, server: tuple[str, dict[str, str], Path]
    ) -> None:
        base, env, _log = server

        def admin(*args: str) -> dict[str, object]:
            done = subprocess.run(
                [str(BIN / "reelscope"), "admin", *args, "--json"],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            parsed: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
            return parsed

        admin("team", "create", "live", "--credits", "42")
        issued = admin("key", "create", "--team", "live")
        headers = {"Authorization": f"Bearer {issued['api_key']}"}
        assert (
            httpx.get(base + "/v1/account/balance", headers=headers).json()["data"]["credits_remaining"] == 42
        )
        admin("credits", "add", "--team", "live", "--credits", "8")
        assert (
            httpx.get(base + "/v1/account/balance", headers=headers).json()["data"]["credits_remaining"] == 50
        )
        admin("key", "revoke", str(issued["key_id"]))
        assert httpx.get(base + "/v1/account/balance", headers=headers).json()["code"] == "invalid_api_key"
