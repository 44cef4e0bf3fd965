"""Signed, expiring links to dashboard pages (issue 20 item 6; ADR 0023).

A link carries the team, the kind and the id of a tracked item, signed with itsdangerous and stamped
with the time it was made (the service's clock, so tests move it); it opens the page without an API key
until ``dashboard_link_hours`` have passed. The key itself never appears in a URL.
"""

from __future__ import annotations

import functools
import secrets
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from itsdangerous import BadSignature, SignatureExpired, TimestampSigner, URLSafeTimedSerializer

from reelscope.config import Settings
from reelscope.kit.clock import Clock

SALT = "reelscope.dashboard"
PATH = "/dashboard"
KEY_FILE = "dashboard.key"


class LinkExpired(Exception):
    pass


class LinkInvalid(Exception):
    pass


@dataclass(frozen=True)
class Target:
    team_id: str
    kind: str
    item_id: str


def _signer_on(clock: Clock) -> type[TimestampSigner]:
    class ClockSigner(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(clock.now().timestamp())

    return ClockSigner


@dataclass(frozen=True)
class Links:
    serializer: URLSafeTimedSerializer
    base_url: str
    lifetime: timedelta

    def url_for(self, team_id: str, kind: str, item_id: str) -> str:
        token = self.serializer.dumps({"t": team_id, "k": kind, "i": item_id})
        return f"{self.base_url}{PATH}/{token}"

    def read(self, token: str) -> Target:
        try:
            data: Any = self.serializer.loads(token, max_age=int(self.lifetime.total_seconds()))
        except SignatureExpired:
            raise LinkExpired(token) from None
        except BadSignature:
            raise LinkInvalid(token) from None
        if not isinstance(data, dict) or not all(isinstance(data.get(k), str) for k in ("t", "k", "i")):
            raise LinkInvalid(token)
        return Target(team_id=data["t"], kind=data["k"], item_id=data["i"])


def secret_of(settings: Settings) -> str:
    """``REELSCOPE_DASHBOARD_SECRET``, or a random key made once and kept in the data directory (read
    once per process and path: every tracking response signs links with it)."""
    if settings.dashboard_secret:
        return settings.dashboard_secret
    return _key_file((Path(settings.data_dir) / KEY_FILE).resolve())


@functools.cache
def _key_file(path: Path) -> str:
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with path.open("x", encoding="utf-8") as file:  # another process may win the race
                file.write(secrets.token_urlsafe(32))
            path.chmod(0o600)
        except FileExistsError:
            pass
    return path.read_text(encoding="utf-8").strip()


def links_for(settings: Settings, clock: Clock) -> Links:
    base = (settings.public_url or f"http://{settings.host}:{settings.port}").rstrip("/")
    serializer = URLSafeTimedSerializer(secret_of(settings), salt=SALT, signer=_signer_on(clock))
    return Links(
        serializer=serializer, base_url=base, lifetime=timedelta(hours=settings.dashboard_link_hours)
    )
