"""When a polled resource is done and how long to wait before asking again (spec §2.6, §3, §8.4).

``finalized`` is the end-state signal, not ``status``: a run can be ``completed`` while its AI analysis
still runs (§3). Resources without ``finalized`` (deep post collections, audience snapshots) are done
once their status is terminal. Between polls the client waits the resource's ``retry_after_seconds``
(or the smallest of its pending jobs'), else the §8.4 default: 15 seconds, 60 for an agent's run.
"""

from __future__ import annotations

from typing import Any

DEFAULT_POLL_SECONDS = 15.0  # §8.4
AGENT_POLL_SECONDS = 60.0  # §8.4: "poll about every 60 seconds" for a one-shot agent
TERMINAL_STATUSES = frozenset({"completed", "failed", "expired"})

# a lookup's type (LookupJob.type, §6.3) → the free status operation that polls it (§4.7)
LOOKUP_STATUS_OPERATIONS = {
    "creator_lookup": "get_creator_lookup_status",
    "sound_lookup": "get_sound_lookup_status",
    "hashtag_lookup": "get_hashtag_lookup_status",
    "video_outlier": "get_video_outlier_status",
}


def is_done(data: Any) -> bool:
    """Finalized when the resource says so; otherwise a terminal status."""
    finalized = getattr(data, "finalized", None)
    if finalized is not None:
        return bool(finalized)
    return getattr(data, "status", None) in TERMINAL_STATUSES


def poll_delay(data: Any, default: float) -> float:
    """The wait the resource suggests: its ``retry_after_seconds``, else its pending jobs' smallest."""
    suggested = [getattr(data, "retry_after_seconds", None)]
    suggested += [job.get("retry_after_seconds") for job in getattr(data, "pending_jobs", None) or []]
    waits = [float(s) for s in suggested if isinstance(s, int | float) and s > 0]
    return min(waits) if waits else default


def lookup_status_operation(kind: str) -> str:
    try:
        return LOOKUP_STATUS_OPERATIONS[kind]
    except KeyError:
        raise ValueError(f"not a lookup type: {kind!r} (one of {sorted(LOOKUP_STATUS_OPERATIONS)})") from None
