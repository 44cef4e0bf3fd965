"""The autopilot (spec §4.4): changes after runs, proposals, autonomy, breaking events (ADR 0032)."""
