"""Satellite lookups (spec §4.7): creators, batches, sounds, hashtags, video outliers, past runs."""
