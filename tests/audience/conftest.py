"""The tracking fixtures (the audience of a tracked creator is read through tracking)."""

from tests.tracking.conftest import advance  # noqa: F401  (a fixture)
