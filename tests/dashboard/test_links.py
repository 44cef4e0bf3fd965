"""The dashboard's signing key: made once in the data directory, read once per process (not on every
tracking response that signs a link)."""

from __future__ import annotations

from pathlib import Path

from reelscope.config import Settings
from reelscope.dashboard.links import KEY_FILE, secret_of


def test_the_key_file_is_read_once(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    first = secret_of(settings)
    key_file = tmp_path / "data" / KEY_FILE
    assert key_file.read_text(encoding="utf-8").strip() == first
    key_file.write_text("changed-on-disk", encoding="utf-8")
    assert secret_of(settings) == first  # not read again


def test_a_configured_secret_wins(tmp_path: Path) -> None:
    assert secret_of(Settings(data_dir=tmp_path, dashboard_secret="s3cret")) == "s3cret"
