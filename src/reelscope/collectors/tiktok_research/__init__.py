"""The TikTok Research API source ``tiktok_research`` (connectors reference §2): ``client.py`` (the client
token, HTTP, quota, vendor errors → typed errors), ``mapper.py`` (JSON → records, query windows),
``connector.py`` (the protocol)."""

from reelscope.collectors.tiktok_research.connector import TikTokResearchConnector, from_settings

__all__ = ["TikTokResearchConnector", "from_settings"]
