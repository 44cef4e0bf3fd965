"""yt-dlp info dicts → normalized videos (connectors reference §5.4), with the reference's fixtures."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from reelscope.collectors.jsonl import BadLine, parse_line
from reelscope.collectors.ytdlp.mapper import (
    UnmappableInfo,
    info_to_video,
    is_short,
    media_id_to_shortcode,
    shortcode_to_media_id,
)
from reelscope.kit.platforms import Platform

NOW = datetime(2026, 11, 21, 12, tzinfo=UTC)
TIKTOK = {
    "id": "7432109876543210987",
    "title": "Sourdough in 40 seconds #sourdough #baking",
    "description": "Sourdough in 40 seconds #sourdough #baking #Sourdough",
    "uploader": "crumblab",
    "uploader_id": "6901234500011122233",
    "channel": "Crumb Lab",
    "timestamp": 1791130805,
    "upload_date": "20261004",
    "duration": 41,
    "view_count": 391020,
    "like_count": 28410,
    "comment_count": 402,
    "repost_count": 1877,
    "save_count": 3301,
    "thumbnail": "https://p16-sign.tiktokcdn-us.com/cover1.jpeg",
    "webpage_url": "https://www.tiktok.com/@crumblab/video/7432109876543210987",
    "extractor_key": "TikTok",
}
YOUTUBE = {
    "id": "Zt3kQ9vLm0A",
    "title": "Sourdough in 40 seconds #shorts",
    "description": "Crumb shot at the end #baking",
    "channel": "Crumb Lab",
    "channel_id": "UCq7Rr2Tn8Wb0Yc5Ld3Hs1Kx",
    "channel_follower_count": 48100,
    "uploader_id": "@crumblab",
    "duration": 41,
    "view_count": 88412,
    "like_count": 3920,
    "comment_count": 57,
    "upload_date": "20261004",
    "webpage_url": "https://www.youtube.com/watch?v=Zt3kQ9vLm0A",
    "extractor_key": "Youtube",
}
INSTAGRAM = {
    "id": "DAx7kLmPq2R",
    "description": "Sourdough in 40 seconds #sourdough",
    "channel": "crumblab",
    "uploader": "Crumb Lab",
    "uploader_id": "5123456789",
    "timestamp": 1791130805,
    "duration": 40.6,
    "view_count": 6120,
    "like_count": 214,
    "comment_count": 9,
    "webpage_url": "https://www.instagram.com/reel/DAx7kLmPq2R/",
    "extractor_key": "Instagram",
}


class TestMapping:
    def test_tiktok(self) -> None:
        video = info_to_video(TIKTOK, NOW)
        assert video.platform is Platform.TIKTOK and video.external_id == "7432109876543210987"
        assert video.published_at == datetime(2026, 10, 4, 16, 20, 5, tzinfo=UTC)
        assert (video.views, video.likes, video.comments, video.shares, video.bookmarks) == (
            391020,
            28410,
            402,
            1877,
            3301,
        )
        assert video.hashtags == ("sourdough", "baking")  # deduplicated case-insensitively, no "#"
        assert video.creator is not None and video.creator.handle == "crumblab"
        assert video.creator.platform_user_id == "6901234500011122233"

    def test_youtube(self) -> None:
        video = info_to_video(YOUTUBE, NOW)
        assert video.url == "https://www.youtube.com/shorts/Zt3kQ9vLm0A"
        assert video.description == "Sourdough in 40 seconds #shorts\nCrumb shot at the end #baking"
        assert video.hashtags == ("#shorts", "#baking")
        assert video.published_at == datetime(2026, 10, 4, tzinfo=UTC)  # upload_date when no timestamp
        assert video.shares is None and video.bookmarks is None
        assert (
            video.creator is not None
            and video.creator.handle == "crumblab"
            and video.creator.followers == 48100
        )

    def test_instagram_uses_the_numeric_media_id(self) -> None:
        video = info_to_video(INSTAGRAM, NOW)
        assert video.external_id == "3472818758777482641" == shortcode_to_media_id("DAx7kLmPq2R")
        assert video.duration == 41
        assert video.creator is not None and video.creator.handle == "crumblab"
        assert video.creator.display_name == "Crumb Lab"


class TestLines:
    def test_bad_lines_say_why(self) -> None:
        cases = {
            "{": "not JSON",
            "[]": "not a JSON object",
            '{"extractor_key": "Vimeo", "id": "1"}': "unsupported extractor",
            '{"extractor_key": "TikTok", "webpage_url": "u"}': "no id",
            '{"record": "video", "platform": "tiktok"}': "external_id",
            '{"record": "podcast"}': "unknown record",
        }
        for line, reason in cases.items():
            try:
                parse_line(line, NOW)
            except BadLine as exc:
                assert reason in str(exc)
            else:
                raise AssertionError(f"{line!r} was accepted")

    def test_normalized_records_without_offsets_are_utc(self) -> None:
        record = parse_line(
            '{"platform": "tiktok", "external_id": "9", "url": "u", "published_at": "2026-11-20T10:00:00"}',
            NOW,
        )
        assert record.published_at == datetime(2026, 11, 20, 10, tzinfo=UTC)  # type: ignore[union-attr]
        assert record.fetched_at == NOW  # type: ignore[union-attr]


class TestWhatTheSourceSays:
    """Issue 17 item 1 (ADR 0026): observation time, tags, region from the info dict."""

    def test_epoch_is_the_observation_time(self) -> None:
        observed = datetime(2026, 10, 6, 6, 30, tzinfo=UTC)
        video = info_to_video(TIKTOK | {"epoch": int(observed.timestamp())}, NOW)
        assert video.fetched_at == observed
        assert video.creator is not None and video.creator.fetched_at == observed
        assert info_to_video(TIKTOK, NOW).fetched_at == NOW  # no epoch: the ingest time

    def test_tags_are_kept_apart_from_hashtags(self) -> None:
        info = YOUTUBE | {
            "description": "Recap #66 of the week #LateNight #latenight",
            "tags": ["Late Night", " late  night ", "#Comedy", "", "66", "x" * 101, 7],
        }
        video = info_to_video(info, NOW)
        assert video.tags == ("Late Night", "Comedy")  # trimmed, deduplicated, no '#', no bare number
        assert video.hashtags == ("#shorts", "#LateNight")  # an episode number is not a hashtag

    def test_region_of_the_record_is_its_feed_region(self) -> None:
        assert info_to_video(YOUTUBE | {"region": "GB"}, NOW).feed_region == "gb"
        assert info_to_video(YOUTUBE, NOW).feed_region is None

    def test_ingest_region_applies_to_records_without_their_own(self) -> None:
        plain = parse_line(json.dumps(YOUTUBE), NOW, region="us")
        own = parse_line(json.dumps(YOUTUBE | {"region": "GB"}), NOW, region="us")
        assert plain.feed_region == "us" and own.feed_region == "gb"  # type: ignore[union-attr]


class TestRejections:
    """Values that cannot be true are rejected with the reason (issue 17 item 1)."""

    def rejected(self, line: dict[str, object]) -> str:
        try:
            parse_line(json.dumps(line), NOW)
        except BadLine as exc:
            return str(exc)
        raise AssertionError(f"{line!r} was accepted")

    def test_negative_counts(self) -> None:
        assert "views is negative (-5)" in self.rejected(TIKTOK | {"view_count": -5})
        assert "likes is negative" in self.rejected(YOUTUBE | {"like_count": -1})
        assert "creator.followers is negative" in self.rejected(YOUTUBE | {"channel_follower_count": -3})
        assert "comments is negative" in self.rejected({**NORMALIZED, "comments": -2})

    def test_ids_not_of_the_platforms_shape(self) -> None:
        assert "'#NAME?' is not a youtube video id" in self.rejected(YOUTUBE | {"id": "#NAME?"})
        assert "is not a youtube video id" in self.rejected(YOUTUBE | {"id": "Zt3kQ9vLm0"})  # 10 characters
        assert "is not a tiktok video id" in self.rejected(TIKTOK | {"id": "7.43e18"})
        assert "is not a tiktok video id" in self.rejected({**NORMALIZED, "external_id": "abc"})

    def test_timestamps_out_of_range(self) -> None:
        assert "published_at 1990-" in self.rejected(TIKTOK | {"timestamp": 631152000})
        assert "published_at 2027-" in self.rejected(TIKTOK | {"timestamp": 1798761600})  # after now
        assert "epoch out of range" in self.rejected(TIKTOK | {"epoch": 10**13})
        assert "observed at 2027-" in self.rejected(TIKTOK | {"epoch": 1798761600})
        assert "before it was posted" in self.rejected(TIKTOK | {"epoch": 1791130805 - 60})
        assert "expected seconds" in self.rejected(TIKTOK | {"epoch": "yesterday"})

    def test_a_region_that_is_not_a_country_code(self) -> None:
        assert "not a two-letter country code" in self.rejected(YOUTUBE | {"region": "USA"})


NORMALIZED = {
    "platform": "tiktok",
    "external_id": "7432109876543210987",
    "url": "https://www.tiktok.com/@crumblab/video/7432109876543210987",
    "published_at": "2026-10-04T16:20:05Z",
    "fetched_at": "2026-10-05T16:20:05Z",
}


class TestConnectorHelpers:
    """What the yt-dlp connector needs of the mapper (issue 26 item 4; reference §3.7, §8)."""

    def test_a_media_id_goes_back_to_its_link_code(self) -> None:
        assert media_id_to_shortcode("3472818758777482641") == "DAx7kLmPq2R"
        for code in ("DAx7kLmPq2R", "B_-09azAZ", "C"):
            assert media_id_to_shortcode(shortcode_to_media_id(code)) == code

    def test_a_media_id_that_is_not_a_number_is_refused(self) -> None:
        try:
            media_id_to_shortcode("DAx7kLmPq2R")
        except UnmappableInfo as exc:
            assert "media id" in str(exc)
        else:
            raise AssertionError("a link code was taken for a media id")

    def test_shorts_by_media_type_then_by_link(self) -> None:
        assert is_short(YOUTUBE | {"media_type": "short"}) is True
        assert is_short(YOUTUBE | {"media_type": "video", "url": "https://www.youtube.com/shorts/x"}) is False
        assert is_short(YOUTUBE | {"media_type": "livestream"}) is False
        assert is_short({"url": "https://www.youtube.com/shorts/Zt3kQ9vLm0A"}) is True
        assert is_short(YOUTUBE) is None  # the watch link of a full dict says nothing

    def test_flat_entries_name_their_extractor_in_ie_key_and_their_page_in_url(self) -> None:
        entry = {key: TIKTOK[key] for key in ("id", "description", "uploader", "timestamp", "view_count")} | {
            "_type": "url",
            "ie_key": "TikTok",
            "url": TIKTOK["webpage_url"],
        }
        video = info_to_video(entry, NOW)
        assert (video.platform, video.url, video.views) == (
            Platform.TIKTOK,
            TIKTOK["webpage_url"],
            391020,
        )
        assert video.likes == 0  # not in the entry: not reported
