"""Wire shapes of the digest family (spec §2.1, §2.2, §4.1); used for OpenAPI, rows are built as dicts."""

from __future__ import annotations

from pydantic import Field

from reelscope.kit.schemas import LimitUpTo100, QueryModel, Schema


class DigestQuery(QueryModel):
    """§4.1: ``limit`` only; any other parameter is a 400."""

    limit: LimitUpTo100 = Field(default=50, description="1 to 100, default 50; above 100 is treated as 100")


class SoundOut(Schema):
    id: str
    title: str
    duration: int | None = Field(description="Null on YouTube")
    platform: str
    cover_url: str
    is_original: bool
    usage_count: int | None = Field(description="Null on YouTube")
    owner_handle: str | None
    owner_nickname: str | None
    is_commerce_music: bool | None


class VideoOut(Schema):
    id: str
    external_id: str
    url: str
    type: str
    description: str | None
    publish_date: str = Field(description="UTC YYYY-MM-DDTHH:MM:SS, no Z")
    views: int
    number_of_likes: int
    number_of_comments: int
    number_of_shares: int | None
    bookmarks: int | None
    hashtags: list[str] | None
    thumbnail_url: str | None
    duration: int | None
    transcript_raw: str | None
    sound: SoundOut | None
    upload_region: str | None
    upload_region_source: str | None
    is_duet: bool | None
    is_stitch: bool | None
    is_eligible_for_commission: bool | None
    author_id: str | None
    region: str | None = Field(description="Legacy; always null on YouTube")
    niche: str = Field(description='Legacy; always "unknown"')
