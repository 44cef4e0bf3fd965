"""The YouTube Data API v3 source (connectors reference §1, §8): ``client.py`` (HTTP, quota, vendor errors
→ typed errors), ``mapper.py`` (JSON → records, the Shorts rule), ``connector.py`` (the protocol)."""

from reelscope.collectors.youtube.connector import YouTubeConnector, from_settings

__all__ = ["YouTubeConnector", "from_settings"]
