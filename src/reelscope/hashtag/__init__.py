"""Hashtag statistics (spec §4.2, §2.3): daily rollups of counted videos, aggregated per request."""
