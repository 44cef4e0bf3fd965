"""yt-dlp: info dicts mapped to normalized records (connectors reference §5)."""
