"""The child process that runs yt-dlp (ADR 0041; connectors reference §5.1).

    python -m reelscope.collectors.ytdlp.fetch TARGET [--items N]

``TARGET`` is a URL or a ``ytsearchN:terms`` query. It prints one JSON object on stdout and exits 0:
``{"info": {...}}`` (the info dict, heavy keys dropped) or ``{"error": "DownloadError", "message": "..."}``
(the shape connectors reference §5.5 records). The parent (``client.py``) kills it at its timeout.

yt-dlp runs with ``ignoreerrors``, so a failure is not raised but reported through its logger and the
result is ``None``; the logger here keeps the messages so the parent can classify them (§5.3).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Callable
from typing import Any

# yt-dlp's options for reading metadata only (§5.1); approximate_date gives flat entries of search
# results a timestamp, which lets the parent skip entries far outside a window before resolving them
OPTIONS: dict[str, Any] = {
    "skip_download": True,
    "quiet": True,
    "no_warnings": True,
    "noprogress": True,
    "extract_flat": "in_playlist",
    "socket_timeout": 20,
    "ignoreerrors": True,
    "extractor_args": {"youtubetab": {"approximate_date": ["true"]}},
}
# what the mapper never reads and can weigh hundreds of kilobytes (formats, captions, storyboards)
HEAVY = frozenset(
    {
        "formats",
        "requested_formats",
        "requested_downloads",
        "requested_subtitles",
        "subtitles",
        "automatic_captions",
        "heatmap",
        "http_headers",
        "fragments",
        "storyboards",
        "_format_sort_fields",
    }
)

YoutubeDLFactory = Callable[[dict[str, Any]], Any]


class _Messages:
    """A yt-dlp logger keeping the error messages."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def debug(self, message: str) -> None:
        pass

    info = debug
    warning = debug

    def error(self, message: str) -> None:
        self.errors.append(message)


def lean(value: Any) -> Any:
    """The info dict without ``HEAVY`` keys (entries too), thumbnails cut to the best one."""
    if isinstance(value, dict):
        kept = {k: lean(v) for k, v in value.items() if k not in HEAVY}
        if isinstance(kept.get("thumbnails"), list):
            kept["thumbnails"] = kept["thumbnails"][-1:]
        return kept
    if isinstance(value, list | tuple):
        return [lean(v) for v in value]
    return value


def fetch(target: str, youtube_dl: YoutubeDLFactory, *, items: int | None = None) -> dict[str, Any]:
    """Run ``youtube_dl(options).extract_info(target, download=False)``; the child's answer."""
    messages = _Messages()
    options = {**OPTIONS, "logger": messages}
    if items is not None:
        options["playlistend"] = items
    try:
        with youtube_dl(options) as ydl:
            info = ydl.extract_info(target, download=False)
    # the child's whole job is to report: whatever yt-dlp raises (DownloadError, an extractor's bug)
    # goes to the parent by name and message, where it is classified
    except Exception as exc:
        return {"error": type(exc).__name__, "url": target, "message": str(exc)}
    if info is None:
        message = messages.errors[-1] if messages.errors else "yt-dlp returned nothing"
        return {"error": "DownloadError", "url": target, "message": message}
    return {"info": lean(info)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="reelscope.collectors.ytdlp.fetch")
    parser.add_argument("target")
    parser.add_argument("--items", type=int, default=None)
    args = parser.parse_args(argv)
    try:
        from yt_dlp import YoutubeDL
    except ImportError:
        answer: dict[str, Any] = {"error": "ImportError", "message": "yt-dlp is not installed"}
    else:
        # yt-dlp must not write on our stdout, which carries the answer
        with contextlib.redirect_stdout(sys.stderr):
            answer = fetch(args.target, YoutubeDL, items=args.items)
    sys.stdout.write(json.dumps(answer, default=str))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
