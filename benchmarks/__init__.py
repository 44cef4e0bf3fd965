"""Every benchmark measures this checkout's code: its own process and the servers it starts.

The virtualenv's editable install points at the checkout it was made in, so a benchmark run from
another checkout (a worktree) would import, and its servers would run, that other code: session 15's
first read_ops run measured main's code from a worktree. A script that imports ``benchmarks.*`` runs
this first (before it imports ``reelscope``), so this checkout's ``src`` goes first on the path and
into ``PYTHONPATH``, which the servers inherit; ``meta.machine()`` records where ``reelscope`` came
from.
"""

import os
import sys
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")
if sys.path[:1] != [SRC]:
    sys.path.insert(0, SRC)
os.environ["PYTHONPATH"] = os.pathsep.join([SRC, *filter(None, [os.environ.get("PYTHONPATH")])])
