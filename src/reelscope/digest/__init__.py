"""Video digests (spec §4.1): the most-viewed videos of the last 48 hours, precomputed."""
