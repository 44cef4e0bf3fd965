"""Schedules: rows with ``next_run_at`` that the dispatcher fires (ARCHITECTURE §5)."""
