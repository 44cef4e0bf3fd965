"""TikTok Research JSON → records (connectors reference §2.7, §0.2), one test per kind of type drift
(§10), and the query windows (§2.2: at most 30 days per query)."""

from __future__ import annotations

import copy
from datetime import UTC, date, datetime
from typing import Any

import pytest

from reelscope.collectors.tiktok_research import mapper
from reelscope.kit.platforms import Platform
from tests.collectors.tiktok_research import payloads

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def item(n: int = 0) -> dict[str, Any]:
    found: dict[str, Any] = copy.deepcopy(payloads.VIDEO_QUERY["data"]["videos"][n])  # type: ignore[index]
    return found


class TestVideo:
    def test_the_reference_fixture(self) -> None:
        video = mapper.to_video(item(0), NOW)
        assert video.platform is Platform.TIKTOK
        assert video.external_id == "7432109876543210987"  # beyond 2^53, exact
        assert video.url == "https://www.tiktok.com/@crumblab/video/7432109876543210987"
        assert video.published_at == datetime(2026, 10, 4, 16, 20, 5, tzinfo=UTC)
        assert (video.views, video.likes, video.comments) == (391020, 28410, 402)
        assert (video.shares, video.bookmarks) == (1877, 3301)
        assert video.hashtags == ("sourdough", "baking")
        assert video.duration == 41
        assert video.transcript == "first you fold the dough twice"
        assert video.sound is None and video.sound_external_id == "7400011122233344455"
        assert (video.upload_region, video.upload_region_source) == ("GB", "platform_account_region")
        assert video.is_eligible_for_commission is True
        assert video.is_duet is None and video.is_stitch is None
        assert video.thumbnail_url is None
        assert video.creator is not None
        assert (video.creator.handle, video.creator.country) == ("crumblab", "GB")

    def test_the_second_fixture_names_its_id_video_id_and_has_gaps(self) -> None:
        video = mapper.to_video(item(1), NOW)
        assert video.external_id == "7431998877665544332"
        assert video.transcript is None  # "" is no transcript
        assert video.hashtags == ()
        assert video.is_eligible_for_commission is False  # video_tag requested, and absent

    def test_ids_counts_and_times_as_strings(self) -> None:
        drifted = item(0) | {
            "id": "7432109876543210987",
            "create_time": "1791130805",
            "view_count": "391020",
            "share_count": "1877",
            "music_id": "7400011122233344455",
        }
        video = mapper.to_video(drifted, NOW)
        assert video.external_id == "7432109876543210987"
        assert video.published_at == datetime(2026, 10, 4, 16, 20, 5, tzinfo=UTC)
        assert (video.views, video.shares) == (391020, 1877)
        assert video.sound_external_id == "7400011122233344455"

    @pytest.mark.parametrize(
        ("tag", "earns"),
        [
            ([{"type": "AIGC", "number": 1}, {"type": "Branded", "number": 7}], True),
            ([{"type": "Branded", "number": 1}], False),
            ({"type": "branded", "number": "7"}, True),
            ([], False),
            ("Branded 7", False),
        ],
        ids=["list with it", "paid partnership only", "object, drifted case and number", "empty", "a string"],
    )
    def test_video_tag_as_one_object_or_a_list(self, tag: Any, earns: bool) -> None:
        assert mapper.to_video(item(0) | {"video_tag": tag}, NOW).is_eligible_for_commission is earns

    def test_hashtags_deduplicated_without_hash_or_from_the_description(self) -> None:
        listed = mapper.to_video(item(0) | {"hashtag_names": ["Sourdough", "#sourdough", "baking", ""]}, NOW)
        assert listed.hashtags == ("Sourdough", "baking")
        absent = item(0)
        del absent["hashtag_names"]
        assert mapper.to_video(absent, NOW).hashtags == ("sourdough", "baking")

    def test_missing_counts_are_zero_and_shares_unknown(self) -> None:
        sparse = {"id": 7432109876543210987, "create_time": 1791130805, "username": "crumblab"}
        video = mapper.to_video(sparse, NOW)
        assert (video.views, video.likes, video.comments) == (0, 0, 0)
        assert (video.shares, video.bookmarks, video.duration, video.upload_region) == (
            None,
            None,
            None,
            None,
        )

    @pytest.mark.parametrize(
        "broken",
        [{"id": None}, {"id": "73x"}, {"id": 1.5e18}, {"create_time": None}, {"create_time": "yesterday"}],
        ids=["no id", "not digits", "a float", "no time", "not a time"],
    )
    def test_an_item_without_id_or_time_is_unmappable(self, broken: dict[str, Any]) -> None:
        with pytest.raises(mapper.UnmappableItem):
            mapper.to_video(item(0) | broken, NOW)

    def test_a_feed_region_is_kept_lower_case(self) -> None:
        assert mapper.to_video(item(0), NOW, feed_region="GB").feed_region == "gb"


class TestCreatorAndComments:
    def test_user_info(self) -> None:
        creator = mapper.to_creator(payloads.USER_INFO["data"], "crumblab", NOW)  # type: ignore[arg-type]
        assert creator.handle == "crumblab" and creator.display_name == "Crumb Lab"
        assert (creator.followers, creator.following, creator.total_likes, creator.video_count) == (
            48100, 12, 1204400, 311,
        )  # fmt: skip
        assert creator.verified is False and creator.bio == "Bread, fast."
        assert creator.total_views is None and creator.platform_user_id is None

    def test_a_comment_stands_for_its_own_commenter(self) -> None:
        created = datetime(2026, 11, 20, tzinfo=UTC)
        comment = mapper.to_comment(
            payloads.comment(7433000000000000001, "7432109876543210987", created), "x", NOW
        )
        assert comment.external_id == "7433000000000000001"
        assert comment.video_external_id == "7432109876543210987"
        assert comment.author_handle == "comment-7433000000000000001"
        assert (comment.text, comment.likes, comment.posted_at) == ("so crispy!", 3, created)


class TestWindows:
    def test_a_short_range_is_one_window_of_its_days(self) -> None:
        since, until = datetime(2026, 11, 14, 10, tzinfo=UTC), datetime(2026, 11, 21, 12, tzinfo=UTC)
        assert mapper.windows(since, until) == [(date(2026, 11, 14), date(2026, 11, 21))]

    def test_until_at_midnight_excludes_that_day(self) -> None:
        since, until = datetime(2026, 11, 14, tzinfo=UTC), datetime(2026, 11, 21, tzinfo=UTC)
        assert mapper.windows(since, until) == [(date(2026, 11, 14), date(2026, 11, 20))]

    def test_a_long_range_is_split_newest_first_into_at_most_30_days(self) -> None:
        since, until = datetime(2026, 9, 1, tzinfo=UTC), datetime(2026, 11, 21, 12, tzinfo=UTC)
        found = mapper.windows(since, until)
        assert found == [
            (date(2026, 10, 23), date(2026, 11, 21)),
            (date(2026, 9, 23), date(2026, 10, 22)),
            (date(2026, 9, 1), date(2026, 9, 22)),
        ]
        assert all((end - start).days <= 29 for start, end in found)

    def test_an_empty_range_has_no_window(self) -> None:
        assert mapper.windows(NOW, NOW) == []

    def test_ids_are_grouped_by_the_time_they_carry(self) -> None:
        recent = payloads.video_id(datetime(2026, 11, 20, tzinfo=UTC))
        older = payloads.video_id(datetime(2026, 9, 1, tzinfo=UTC))
        windows = {(start, end): ids for start, end, ids in mapper.ids_window([recent, older, "12"], NOW)}
        assert windows == {
            (date(2026, 10, 23), date(2026, 11, 21)): [recent, "12"],  # "12" carries no plausible time
            (date(2026, 8, 24), date(2026, 9, 22)): [older],
        }
