"""Retention (issue 31): the periodic purge of old events, webhook deliveries, finished jobs, tracking
snapshots and deleted agents' data."""
