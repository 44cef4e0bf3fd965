"""The child process's body with a fake YoutubeDL (ADR 0041; connectors reference §5.1, §5.5)."""

from __future__ import annotations

from types import TracebackType
from typing import Any

from reelscope.collectors.ytdlp.fetch import fetch
from tests.collectors.ytdlp.conftest import YOUTUBE


class DownloadError(Exception):
    """yt-dlp's error type, as far as the child can tell (by name)."""


class FakeYoutubeDL:
    """Answers ``extract_info`` with ``answer`` (or raises it), reporting ``logged`` errors to the
    logger as yt-dlp does with ``ignoreerrors``; keeps the options it was built with."""

    built: list[dict[str, Any]] = []

    def __init__(self, options: dict[str, Any], answer: Any, logged: tuple[str, ...] = ()) -> None:
        self.options, self.answer, self.logged = options, answer, logged
        FakeYoutubeDL.built.append(options)

    def __enter__(self) -> FakeYoutubeDL:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        return None

    def extract_info(self, target: str, download: bool = True) -> Any:
        assert download is False
        for message in self.logged:
            self.options["logger"].error(message)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def youtube_dl(answer: Any, *logged: str) -> Any:
    return lambda options: FakeYoutubeDL(options, answer, logged)


class TestFetch:
    def test_reads_metadata_only_with_the_reference_options(self) -> None:
        FakeYoutubeDL.built.clear()

        fetch("https://www.youtube.com/shorts/Zt3kQ9vLm0A", youtube_dl(YOUTUBE), items=7)

        (options,) = FakeYoutubeDL.built
        assert options["skip_download"] is True and options["quiet"] is True
        assert options["extract_flat"] == "in_playlist"
        assert options["ignoreerrors"] is True
        assert options["socket_timeout"] == 20
        assert options["playlistend"] == 7

    def test_answers_the_info_dict_without_its_heavy_parts(self) -> None:
        info = YOUTUBE | {
            "formats": [{"url": "https://r1.googlevideo.com/x"}] * 50,
            "automatic_captions": {"en": [{"url": "https://www.youtube.com/api/timedtext"}]},
            "thumbnails": [{"url": "small"}, {"url": "large"}],
            "entries": [{"id": "a", "formats": [{}], "thumbnails": [{"url": "s"}, {"url": "l"}]}, None],
        }

        answer = fetch("u", youtube_dl(info))

        kept = answer["info"]
        assert "formats" not in kept and "automatic_captions" not in kept
        assert kept["thumbnails"] == [{"url": "large"}]
        assert kept["entries"] == [{"id": "a", "thumbnails": [{"url": "l"}]}, None]
        assert kept["view_count"] == YOUTUBE["view_count"]

    def test_an_ignored_error_is_reported_with_its_message(self) -> None:
        message = "ERROR: [youtube] Zt3kQ9vLm0A: Sign in to confirm you're not a bot."

        answer = fetch("u", youtube_dl(None, "ERROR: first", message))

        assert answer == {"error": "DownloadError", "url": "u", "message": message}

    def test_a_raised_error_is_reported_by_name(self) -> None:
        answer = fetch("u", youtube_dl(DownloadError("ERROR: [TikTok] 1: Your IP address is blocked")))

        assert answer["error"] == "DownloadError"
        assert "IP address is blocked" in answer["message"]
