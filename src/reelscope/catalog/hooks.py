"""What other families do when the catalog's videos change (new videos collected, stats refreshed).

A family that keeps something computed from the catalog (the digest lists) registers a coroutine with
``@after_change`` in its own ``tasks.py``; the catalog calls them after its writes committed and never
imports a consumer. The worker imports every family's ``tasks.py`` before it runs a task
(worker/registry.py ``discover``), so every hook is registered before the catalog first changes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime

from reelscope.kit.db import Database

AfterChange = Callable[[Database, datetime], Awaitable[object]]

_hooks: list[AfterChange] = []


def after_change(hook: AfterChange) -> AfterChange:
    if hook not in _hooks:
        _hooks.append(hook)
    return hook


async def changed(db: Database, now: datetime) -> None:
    """Run every hook, in the order they were registered."""
    for hook in list(_hooks):
        await hook(db, now)
