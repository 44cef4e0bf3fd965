"""yt-dlp (connectors reference §5): ``mapper`` (info dict → records), ``fetch`` (the child process that
runs yt-dlp; kept light: this package imports nothing else), ``client`` and ``connector``."""
