"""agent_videos keep the legacy orbit read's catalog orders (likes, comments, shares, bookmarks, the
creator's followers), each with a per-agent index: a page by any of them walks one index instead of
joining and sorting all the agent's links (issue 33 item 4, ADR 0058)

The existing links are filled from the catalog as it is now; each run refreshes them afterwards
(``agent.repository.refresh_link_orders``).

Revision ID: 0029_agent_video_orders
Revises: 0028_hook_library_group
Create Date: 2026-12-08 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0029_agent_video_orders"
down_revision: str | None = "0028_hook_library_group"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# as models/agent.LINK_CATALOG_ORDERS at this revision
COLUMNS = ("likes", "comments", "shares", "bookmarks", "author_followers")

_VIDEO = "(SELECT videos.{column} FROM videos WHERE videos.id = agent_videos.video_id)"
_FOLLOWERS = (
    "(SELECT creators.followers FROM videos JOIN creators ON creators.id = videos.creator_id"
    " WHERE videos.id = agent_videos.video_id)"
)
BACKFILL = "UPDATE agent_videos SET " + ", ".join(
    f"{column} = COALESCE({_FOLLOWERS if column == 'author_followers' else _VIDEO.format(column=column)}, 0)"
    for column in COLUMNS
)


def upgrade() -> None:
    for column in COLUMNS:
        op.add_column("agent_videos", sa.Column(column, sa.BigInteger(), server_default="0", nullable=False))
    op.execute(BACKFILL)
    # after the backfill: one build of each index, not an update per row
    for column in COLUMNS:
        op.create_index(
            f"ix_agent_videos_agent_{column}", "agent_videos", ["agent_id", column, "video_id"], unique=False
        )


def downgrade() -> None:
    for column in COLUMNS:
        op.drop_index(f"ix_agent_videos_agent_{column}", table_name="agent_videos")
    with op.batch_alter_table("agent_videos") as batch:
        for column in COLUMNS:
            batch.drop_column(column)
