"""Niche monitor: a recurring research agent on a few keywords, and the creator outliers it finds that
you have not seen yet.

The first run creates the agent (recurring agents are free to create and $0.50 per scheduled run,
spec §4.4) and waits for its first run; later runs find it by name. Creators already reported are kept
in a state file (``NICHE_MONITOR_STATE``, default ``.niche_monitor.json``), so each run prints only
the new ones — run it daily from cron.

    REELSCOPE_API_KEY=reelscope_tkn_… python examples/niche_monitor.py sourdough "#baking"
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from reelscope.client import Reelscope


def find_or_create_agent(client: Reelscope, name: str, keywords: list[str]) -> str:
    """The id of the recurring agent called ``name``, created (with its first run) if there is none."""
    for agent in client.iter_agents():
        if agent.name == name and agent.is_recurring:
            return agent.id
    created = client.create_agent(name=name, keywords=keywords, is_recurring=True, cadence="daily")
    return created.data.id


def main(client: Reelscope, keywords: list[str], *, seen: set[str], name: str = "niche monitor") -> list[str]:
    """One line per creator outlier not in ``seen`` (which it updates), best first."""
    agent_id = find_or_create_agent(client, name, keywords)
    client.wait_for_agent(agent_id)  # §2.6: the latest run and its analysis are finalized
    lines = []
    for creator in client.iter_agent_creator_outliers(agent_id, order_by="weighted_score"):
        if creator["creator_id"] in seen:
            continue
        seen.add(creator["creator_id"])
        lines.append(
            f"{creator['platform']} @{creator['handle']}: {creator['outlier_ratio']:.1f}x their followers' "
            f"reach ({creator['follower_count']:,} followers, {creator['avg_views']:,.0f} average views)"
        )
    return lines


if __name__ == "__main__":
    state = Path(os.environ.get("NICHE_MONITOR_STATE", ".niche_monitor.json"))
    already = set(json.loads(state.read_text())) if state.exists() else set()
    with Reelscope.from_env() as reelscope:
        found = main(reelscope, sys.argv[1:] or ["sourdough", "#baking"], seen=already)
    state.write_text(json.dumps(sorted(already)))
    print("\n".join(found) or "no new outliers")
