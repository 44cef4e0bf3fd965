"""What every benchmark records beside its figures: the machine, its load and the commit measured."""

from __future__ import annotations

import os
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def machine() -> dict[str, Any]:
    import reelscope

    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    )
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "commit": commit.stdout.strip() or None,
        # the code measured: this checkout's src (benchmarks/__init__.py), unless run otherwise
        "code": str(Path(reelscope.__file__).resolve().parents[1]),
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
