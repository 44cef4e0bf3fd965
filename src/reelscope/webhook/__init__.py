"""Webhooks: endpoints, durable delivery with retries, protection against misuse (spec §2.7, §4.6, §6)."""
