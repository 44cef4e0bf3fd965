"""The Meta Ad Library source ``meta_ads`` (connectors reference §4): ``client.py`` (the ads_archive call;
HTTP and errors in ``collectors/graph.py``), ``mapper.py`` (archived ads → AdRecord), ``connector.py``."""

from reelscope.collectors.meta_ads.connector import MetaAdsConnector, from_settings

__all__ = ["MetaAdsConnector", "from_settings"]
