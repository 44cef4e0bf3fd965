"""The Instagram Graph API source ``instagram`` (connectors reference §3): ``client.py`` (its Graph calls;
HTTP and errors in ``collectors/graph.py``), ``hashtags.py`` (30 unique hashtags per rolling 7 days),
``mapper.py`` (JSON → records), ``connector.py`` (the protocol)."""

from reelscope.collectors.instagram.connector import InstagramConnector, from_settings

__all__ = ["InstagramConnector", "from_settings"]
