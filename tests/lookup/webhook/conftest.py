"""The webhook family's real HTTPS receiver and its settings, for the lookup completion event."""

from tests.webhook.conftest import (  # noqa: F401  (fixtures, used by name)
    client,
    create_webhook,
    guard,
    receiver,
    receiver_server,
    settings,
    tls,
)
