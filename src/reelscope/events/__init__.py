"""Events: the §6.2 catalogue, the §6.3 payload schemas, and publish() into the outbox."""
