"""Prometheus metrics: ``GET /metrics``, the request counting middleware and the scrape (ADR 0050)."""
