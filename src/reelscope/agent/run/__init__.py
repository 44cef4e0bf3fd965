"""One agent run: collection through the connectors, analytics, the run lifecycle (spec §3)."""
