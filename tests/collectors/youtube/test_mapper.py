"""YouTube JSON → records (connectors reference §1.7), type drift (§10) and the Shorts rule (§8 rule 3)."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import Any

import pytest

from reelscope.collectors.base import CreatorRecord
from reelscope.collectors.youtube import mapper
from reelscope.kit.platforms import Platform
from tests.collectors.youtube import payloads

AT = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


@pytest.fixture
def loaf() -> dict[str, Any]:
    """The reference's second video: likes hidden, comments off, 175 s."""
    return copy.deepcopy(payloads.VIDEOS["items"][1])


@pytest.fixture
def crumb() -> dict[str, Any]:
    return copy.deepcopy(payloads.VIDEOS["items"][0])


class TestVideo:
    def test_maps_the_reference_video(self) -> None:
        creator = mapper.to_creator(payloads.CHANNELS["items"][0], AT)
        record = mapper.to_video(payloads.VIDEOS["items"][0], AT, creator=creator)
        assert record.platform is Platform.YOUTUBE
        assert record.external_id == "Zt3kQ9vLm0A"
        assert record.url == "https://www.youtube.com/shorts/Zt3kQ9vLm0A"
        assert record.published_at == datetime(2026, 10, 4, 16, 20, 5, tzinfo=UTC)
        assert record.fetched_at == AT
        assert record.description == "Sourdough in 40 seconds #shorts\nCrumb shot at the end #baking #Shorts"
        assert (record.views, record.likes, record.comments) == (88412, 3920, 57)
        assert record.shares is None and record.bookmarks is None
        # '#shorts' and '#Shorts' are one tag: the first spelling is kept, with its '#' (§0.2)
        assert record.hashtags == ("#shorts", "#baking")
        assert record.tags == ("bread", "sourdough")
        assert record.thumbnail_url == "https://i.ytimg.com/vi/Zt3kQ9vLm0A/maxresdefault.jpg"
        assert record.duration == 41
        assert record.language == "en"
        assert record.creator == creator
        assert (record.upload_region, record.upload_region_source) == ("GB", "inferred_channel_country")
        assert (record.is_duet, record.is_stitch, record.is_eligible_for_commission) == (None, None, None)
        assert record.sound is None and record.transcript is None and record.region is None

    def test_hidden_likes_and_comments_off_are_zero(self, loaf: dict[str, Any]) -> None:
        record = mapper.to_video(loaf, AT)
        assert (record.views, record.likes, record.comments) == (1207, 0, 0)
        # an empty description adds nothing to the title
        assert record.description == "Why my loaf collapsed"
        assert record.hashtags == () and record.tags == ()
        assert record.language is None
        assert record.creator is None and record.upload_region is None

    @pytest.mark.parametrize(
        ("statistics", "expected"),
        [
            ({"viewCount": 1207, "likeCount": 33, "commentCount": 4}, (1207, 33, 4)),
            ({"viewCount": "1207", "likeCount": "33", "commentCount": "4"}, (1207, 33, 4)),
            ({"viewCount": " 1207 ", "likeCount": "33.0"}, (1207, 33, 0)),
            ({"viewCount": "12345678901234567890"}, (12345678901234567890, 0, 0)),
            ({"viewCount": None, "likeCount": "n/a", "commentCount": -3}, (0, 0, 0)),
            ({}, (0, 0, 0)),
        ],
        ids=["numbers", "strings", "padded-and-float-string", "uint64", "garbage", "absent"],
    )
    def test_counts_are_coerced(
        self, loaf: dict[str, Any], statistics: dict[str, Any], expected: tuple[int, int, int]
    ) -> None:
        loaf["statistics"] = statistics
        record = mapper.to_video(loaf, AT)
        assert (record.views, record.likes, record.comments) == expected
        stats = mapper.to_stats(loaf, AT)
        assert (stats.views, stats.likes, stats.comments) == expected

    @pytest.mark.parametrize(
        "published",
        [
            "2026-10-03T09:12:40Z",
            "2026-10-03T09:12:40.123456Z",
            "2026-10-03T09:12:40.5Z",
            "2026-10-03T11:12:40+02:00",
        ],
    )
    def test_publication_time_with_or_without_fraction(self, loaf: dict[str, Any], published: str) -> None:
        loaf["snippet"]["publishedAt"] = published
        assert mapper.to_video(loaf, AT).published_at == datetime(2026, 10, 3, 9, 12, 40, tzinfo=UTC)

    @pytest.mark.parametrize("published", [None, "", "yesterday", 1696320000])
    def test_an_unreadable_publication_time_is_unmappable(self, loaf: dict[str, Any], published: Any) -> None:
        loaf["snippet"]["publishedAt"] = published
        with pytest.raises(mapper.UnmappableItem):
            mapper.to_video(loaf, AT)

    def test_no_id_is_unmappable(self, loaf: dict[str, Any]) -> None:
        del loaf["id"]
        with pytest.raises(mapper.UnmappableItem):
            mapper.to_video(loaf, AT)

    def test_unknown_thumbnail_keys_are_tolerated_and_the_largest_wins(self, loaf: dict[str, Any]) -> None:
        loaf["snippet"]["thumbnails"] = {
            "high": {"url": "https://i.ytimg.com/high.jpg", "width": 480, "height": 360},
            "uhd": {"url": "https://i.ytimg.com/uhd.jpg", "width": 3840, "height": 2160},
            "sparkle": {"url": "https://i.ytimg.com/sparkle.jpg", "width": "1920", "height": "1080"},
            "broken": "not an object",
            "nourl": {"width": 9999, "height": 9999},
        }
        assert mapper.to_video(loaf, AT).thumbnail_url == "https://i.ytimg.com/uhd.jpg"

    def test_thumbnails_without_sizes_rank_by_name(self, loaf: dict[str, Any]) -> None:
        loaf["snippet"]["thumbnails"] = {
            "default": {"url": "https://i.ytimg.com/default.jpg"},
            "standard": {"url": "https://i.ytimg.com/sd.jpg"},
            "medium": {"url": "https://i.ytimg.com/mq.jpg"},
        }
        assert mapper.to_video(loaf, AT).thumbnail_url == "https://i.ytimg.com/sd.jpg"

    def test_no_thumbnails(self, loaf: dict[str, Any]) -> None:
        del loaf["snippet"]["thumbnails"]
        assert mapper.to_video(loaf, AT).thumbnail_url is None

    def test_hashtags_come_from_title_and_description_not_tags(self, loaf: dict[str, Any]) -> None:
        loaf["snippet"]["title"] = "Loaf #Bread #66"
        loaf["snippet"]["description"] = "more #bread and #Crumb_Shot, #crumb_shot again"
        loaf["snippet"]["tags"] = ["#kitchen", "oven", "Oven", 7]
        record = mapper.to_video(loaf, AT)
        assert record.hashtags == ("#Bread", "#Crumb_Shot")
        assert record.tags == ("kitchen", "oven")

    @pytest.mark.parametrize(
        ("snippet", "expected"),
        [
            ({"defaultAudioLanguage": "en-US"}, "en"),
            ({"defaultAudioLanguage": "pt_BR"}, "pt"),
            ({"defaultLanguage": "de"}, "de"),
            ({"defaultAudioLanguage": "zxx", "defaultLanguage": "fr"}, "fr"),
            ({"defaultAudioLanguage": "und"}, None),
            ({}, None),
        ],
    )
    def test_language(self, loaf: dict[str, Any], snippet: dict[str, Any], expected: str | None) -> None:
        loaf["snippet"].update(snippet)
        assert mapper.to_video(loaf, AT).language == expected

    def test_feed_region_is_lower_case(self, loaf: dict[str, Any]) -> None:
        assert mapper.to_video(loaf, AT, feed_region="GB").feed_region == "gb"

    def test_an_upcoming_live_has_no_length(self, loaf: dict[str, Any]) -> None:
        loaf["contentDetails"]["duration"] = "P0D"
        assert mapper.to_video(loaf, AT).duration is None


class TestDuration:
    @pytest.mark.parametrize(
        ("value", "seconds"),
        [
            ("PT41S", 41),
            ("PT1M", 60),
            ("PT2M55S", 175),
            ("PT1H2M3S", 3723),
            ("P0D", 0),
            ("P1DT1S", 86401),
            ("PT1.6S", 2),
            ("PT", None),
            ("P", None),
            ("41", None),
            ("", None),
            (None, None),
            (41, None),
        ],
    )
    def test_iso_8601(self, value: Any, seconds: int | None) -> None:
        assert mapper.duration_seconds(value) == seconds


class TestShortsRule:
    @pytest.mark.parametrize(
        ("published", "duration", "short"),
        [
            # the reference's vectors (§8 rule 3)
            ("2026-10-04T16:20:05Z", "PT41S", True),
            ("2026-10-03T09:12:40Z", "PT2M55S", True),
            ("2024-10-14T12:00:00Z", "PT1M1S", False),
            ("2024-10-15T00:00:00Z", "PT1M1S", True),
            ("2026-10-04T16:20:05Z", "PT3M1S", False),
            ("2026-10-04T16:20:05Z", "P0D", False),
            # the limits themselves
            ("2024-10-14T23:59:59Z", "PT60S", True),
            ("2026-10-04T16:20:05Z", "PT3M", True),
            # a landscape clip of 20 minutes, and one with no length
            ("2026-10-04T16:20:05Z", "PT20M", False),
            ("2026-10-04T16:20:05Z", None, False),
        ],
    )
    def test_length_by_publication_date(
        self, loaf: dict[str, Any], published: str, duration: str, short: bool
    ) -> None:
        loaf["snippet"]["publishedAt"] = published
        loaf["contentDetails"]["duration"] = duration
        assert mapper.is_short(loaf) is short

    @pytest.mark.parametrize("live", ["live", "upcoming"])
    def test_live_and_upcoming_broadcasts_are_never_shorts(self, loaf: dict[str, Any], live: str) -> None:
        loaf["snippet"]["liveBroadcastContent"] = live
        assert mapper.is_short(loaf) is False

    def test_an_item_without_publication_time_is_not_kept(self, loaf: dict[str, Any]) -> None:
        del loaf["snippet"]["publishedAt"]
        assert mapper.is_short(loaf) is False

    def test_the_reference_videos_are_both_shorts(self) -> None:
        assert [mapper.is_short(item) for item in payloads.VIDEOS["items"]] == [True, True]


class TestCreator:
    def test_maps_the_reference_channel(self) -> None:
        assert mapper.to_creator(payloads.CHANNELS["items"][0], AT) == CreatorRecord(
            platform=Platform.YOUTUBE,
            handle="crumblab",
            display_name="Crumb Lab",
            platform_user_id="UCq7Rr2Tn8Wb0Yc5Ld3Hs1Kx",
            followers=48100,
            following=None,
            total_likes=None,
            total_views=5310442,
            video_count=311,
            verified=None,
            avatar_url="https://yt3.ggpht.com/crumb=s88",
            bio="Bread, fast.",
            country="GB",
            fetched_at=AT,
        )

    def test_hidden_subscribers_are_unknown(self) -> None:
        item = copy.deepcopy(payloads.CHANNELS["items"][0])
        item["statistics"] = {"viewCount": 10, "hiddenSubscriberCount": True, "videoCount": "3"}
        creator = mapper.to_creator(item, AT)
        assert (creator.followers, creator.total_views, creator.video_count) == (None, 10, 3)

    def test_a_channel_without_custom_url_is_known_by_its_id(self) -> None:
        item = copy.deepcopy(payloads.CHANNELS["items"][0])
        del item["snippet"]["customUrl"]
        del item["snippet"]["country"]
        creator = mapper.to_creator(item, AT)
        assert creator.handle == "UCq7Rr2Tn8Wb0Yc5Ld3Hs1Kx"
        assert creator.country is None

    def test_uploads_playlist_from_content_details(self) -> None:
        item = payloads.channel("UCabc", "abc", uploads="UUabc-listed")
        assert mapper.uploads_playlist(item) == "UUabc-listed"

    def test_uploads_playlist_by_convention_when_not_said(self) -> None:
        assert mapper.uploads_playlist(payloads.CHANNELS["items"][0]) == "UUq7Rr2Tn8Wb0Yc5Ld3Hs1Kx"
