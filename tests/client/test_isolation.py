"""``reelscope.client`` runs without the server: importing it pulls in httpx and pydantic, never
FastAPI, SQLAlchemy or the app (checked in a fresh interpreter, where nothing else was imported)."""

from __future__ import annotations

import json
import subprocess
import sys

SERVER_MODULES = (
    "fastapi",
    "starlette",
    "sqlalchemy",
    "uvicorn",
    "huey",
    "reelscope.main",
    "reelscope.config",
)


def test_importing_the_client_imports_nothing_of_the_server() -> None:
    script = (
        "import json, sys\n"
        "from reelscope.client import AsyncReelscope, Reelscope, WebhookReceiver\n"
        f"print(json.dumps(sorted(m for m in {SERVER_MODULES!r} if m in sys.modules)))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert json.loads(result.stdout) == []
