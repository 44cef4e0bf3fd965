"""The tracking fixtures (dashboards show tracked items)."""

from tests.tracking.conftest import advance  # noqa: F401  (a fixture)
