"""Links to videos and profiles of the three platforms (issue 28, ADR 0043): the forms read, the rest
refused; a link is never fetched."""

from __future__ import annotations

import pytest

from reelscope.kit.platforms import Platform
from reelscope.kit.video_links import (
    ProfileLink,
    VideoLink,
    media_id_of,
    parse_profile_url,
    parse_video_url,
)

YT, TT = "dQw4w9WgXcQ", "7301234567890123456"


class TestVideoLinks:
    @pytest.mark.parametrize(
        ("url", "expected"),
        [
            (f"https://www.youtube.com/shorts/{YT}", VideoLink(Platform.YOUTUBE, YT)),
            (f"https://m.youtube.com/shorts/{YT}/", VideoLink(Platform.YOUTUBE, YT)),
            (f"youtube.com/watch?v={YT}&t=42", VideoLink(Platform.YOUTUBE, YT)),
            (f"https://youtu.be/{YT}?si=share", VideoLink(Platform.YOUTUBE, YT)),
            (f"https://www.tiktok.com/@glow.mia/video/{TT}?lang=en", VideoLink(Platform.TIKTOK, TT)),
            (
                "https://www.instagram.com/reel/CxYz_-1/",
                VideoLink(Platform.INSTAGRAM, media_id_of("CxYz_-1")),
            ),
            ("http://instagram.com/p/B/", VideoLink(Platform.INSTAGRAM, "1")),
        ],
    )
    def test_the_forms_read(self, url: str, expected: VideoLink) -> None:
        assert parse_video_url(url) == expected

    @pytest.mark.parametrize(
        "url",
        [
            "https://vm.tiktok.com/ZMabc123/",  # a short link: resolving it would need a request
            f"https://www.tiktok.com/@glow/photo/{TT}",
            f"https://www.tiktok.com/video/{TT}",
            "https://www.tiktok.com/@glow/video/abc",
            f"https://www.youtube.com/watch?v={YT}&v={YT}",
            "https://www.youtube.com/shorts/short",
            f"https://music.youtube.com/watch?v={YT}",
            f"ftp://youtu.be/{YT}",
            f"https://example.com/shorts/{YT}",
            "https://www.instagram.com/natgeo/",
            "https://www.instagram.com/reel/bad!code/",
            "not a link",
            "",
        ],
    )
    def test_anything_else_is_none(self, url: str) -> None:
        assert parse_video_url(url) is None

    def test_the_instagram_code_is_the_media_id_in_base_64(self) -> None:
        assert media_id_of("B") == "1" and media_id_of("BA") == "64"
        with pytest.raises(ValueError):
            media_id_of("no!")


class TestProfileLinks:
    @pytest.mark.parametrize(
        ("url", "expected"),
        [
            ("https://www.tiktok.com/@glow.mia", ProfileLink(Platform.TIKTOK, "glow.mia")),
            ("https://www.youtube.com/@MrBeast/", ProfileLink(Platform.YOUTUBE, "MrBeast")),
            ("instagram.com/nat_geo?hl=en", ProfileLink(Platform.INSTAGRAM, "nat_geo")),
        ],
    )
    def test_the_forms_read(self, url: str, expected: ProfileLink) -> None:
        assert parse_profile_url(url) == expected

    @pytest.mark.parametrize(
        "url",
        [
            "https://www.youtube.com/channel/UCX6OQ3DkcsbYNE6H8uQQuVA",
            "https://www.tiktok.com/glow",
            f"https://www.tiktok.com/@glow/video/{TT}",
            "https://www.instagram.com/reel/CxYz/",
            "https://www.instagram.com/explore/",
        ],
    )
    def test_anything_else_is_none(self, url: str) -> None:
        assert parse_profile_url(url) is None
