"""Dashboard pages drawn ahead (ADR 0061): kept in ``dashboard_pages`` for the hash of their inputs, drawn
again by the ``dashboard.draw`` job after a cycle changes them, served by a request without drawing, with
the link's expiry put in per request."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from reelscope.dashboard import page, repository
from reelscope.dashboard import service as dashboard_service
from reelscope.dashboard.links import links_for
from reelscope.kit.clock import ManualClock, as_utc, iso
from reelscope.kit.pages import content_security_policy
from reelscope.models import DashboardPage
from reelscope.runtime import Runtime
from reelscope.worker.engine import JobEngine
from tests.conftest import MakeTeam, TeamKey
from tests.dashboard.test_pages import CREATOR, path_of, tracked_with_history
from tests.kit.test_errors import assert_error
from tests.tracking.conftest import Advance
from tests.tracking.test_endpoints import track

pytestmark = pytest.mark.both_databases  # the kept page is written by one statement per dialect

# what Bokeh names anew in every drawing: its models ("p1042") and documents and roots (uuid4)
BOKEH_IDS = re.compile(r"\bp\d{4,}\b|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")


def bokeh_ids_in_order(body: str) -> str:
    """``body`` with Bokeh's ids renamed by order of first appearance: two drawings of the same inputs
    are then byte-identical."""
    names: dict[str, str] = {}
    return BOKEH_IDS.sub(lambda m: names.setdefault(m.group(), f"id{len(names)}"), body)


async def kept_row(runtime: Runtime, item_id: str) -> DashboardPage | None:
    async with runtime.db.transaction(write=False) as session:
        return (
            await session.execute(select(DashboardPage).where(DashboardPage.item_id == item_id))
        ).scalar_one_or_none()


@pytest.fixture
def draws(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The inputs of every page drawn from now on (``page.render`` still draws)."""
    drawn: list[dict[str, Any]] = []
    render: Callable[..., str] = page.render

    def spy(**inputs: Any) -> str:
        drawn.append(inputs)
        return render(**inputs)

    monkeypatch.setattr(page, "render", spy)
    return drawn


class TestKeptPages:
    async def test_the_kept_page_is_the_page_drawn_for_its_inputs(
        self, client: httpx.AsyncClient, team: TeamKey, jobs: JobEngine, advance: Advance, runtime: Runtime
    ) -> None:
        item = await tracked_with_history(client, team, advance)
        url = path_of(str(item["dashboard_url"]))
        served = await client.get(url)
        assert served.status_code == 200
        kept = await kept_row(runtime, str(item["id"]))
        assert kept is not None and kept.team_id == team.team_id
        assert page.EXPIRES_AT in kept.body and page.EXPIRES_AT not in served.text
        # served = kept + the link's expiry, and the policy's script hashes are the kept page's
        token = url.rsplit("/", 1)[1]
        links = links_for(runtime.settings, runtime.clock)
        expires_at = as_utc(links.serializer.loads(token, return_timestamp=True)[1]) + links.lifetime
        assert served.text == kept.body.replace(page.EXPIRES_AT, str(iso(expires_at)))
        assert f"This link expires {iso(expires_at)}." in served.text
        assert served.headers["content-security-policy"] == content_security_policy(kept.body)
        # and the kept page is what drawing its inputs at request time gives (but for Bokeh's fresh ids)
        async with runtime.db.transaction(write=False) as session:
            inputs = await dashboard_service.inputs_of(
                session, team.team_id, "creator", str(item["id"]), runtime.clock.now()
            )
        assert kept.drawn_from == dashboard_service.drawn_from(inputs)
        assert bokeh_ids_in_order(page.render(**inputs)) == bokeh_ids_in_order(kept.body)

    async def test_after_a_cycle_the_page_is_served_as_the_job_drew_it(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        jobs: JobEngine,
        advance: Advance,
        runtime: Runtime,
        clock: ManualClock,
        draws: list[dict[str, Any]],
    ) -> None:
        item = await tracked_with_history(client, team, advance)
        url = path_of(str(item["dashboard_url"]))
        assert "5 snapshots" in (await client.get(url)).text
        assert len(draws) == 1  # the first open draws the page (no page was kept: nobody had opened it)
        await advance(timedelta(days=1))  # a cycle adds a snapshot; the job draws the page again
        assert len(draws) == 2 and len(draws[1]["snapshots"]) == 6
        kept = await kept_row(runtime, str(item["id"]))
        assert kept is not None and "6 snapshots" in kept.body
        runtime.caches.clear()  # as a fresh process: only the database has it
        again = await client.get(url)
        assert again.status_code == 200 and "6 snapshots" in again.text
        assert len(draws) == 2  # served from the kept page, not drawn
        # a second link to the same item serves the same drawing with its own expiry
        clock.advance(timedelta(hours=1))
        fresh = (await client.get(f"/v1/tracking/creators/{item['id']}", headers=team.headers)).json()
        other = await client.get(path_of(fresh["data"]["dashboard_url"]))
        assert len(draws) == 2 and page.EXPIRES_AT not in other.text
        later = clock.now() + links_for(runtime.settings, clock).lifetime
        assert other.text == kept.body.replace(page.EXPIRES_AT, str(iso(later)))

    async def test_a_page_nobody_opened_is_not_drawn_ahead(
        self, client: httpx.AsyncClient, team: TeamKey, jobs: JobEngine, advance: Advance, runtime: Runtime,
        draws: list[dict[str, Any]],
    ) -> None:  # fmt: skip
        item = await tracked_with_history(client, team, advance)
        await advance(timedelta(days=1))
        assert draws == [] and await kept_row(runtime, str(item["id"])) is None

    async def test_another_teams_item_is_not_found(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        make_team: MakeTeam,
        jobs: JobEngine,
        advance: Advance,
        runtime: Runtime,
    ) -> None:
        item = await tracked_with_history(client, team, advance)
        assert (await client.get(path_of(str(item["dashboard_url"])))).status_code == 200  # kept now
        other = await make_team()
        links = links_for(runtime.settings, runtime.clock)
        # a well-signed link naming the other team and this team's item: no page, kept or not
        forged = links.url_for(other.team_id, "creator", str(item["id"]))
        assert_error(await client.get(path_of(forged)), 404, "not_found")

    async def test_an_expired_link_is_refused_though_its_page_is_kept(
        self, client: httpx.AsyncClient, make_team: MakeTeam, jobs: JobEngine, clock: ManualClock,
        runtime: Runtime,
    ) -> None:  # fmt: skip
        team = await make_team()
        item = await track(client, team, CREATOR)
        path = path_of(item["dashboard_url"])
        assert (await client.get(path)).status_code == 200
        assert await kept_row(runtime, str(item["id"])) is not None
        clock.advance(timedelta(hours=169))  # past the 168 hours a link lasts
        assert_error(await client.get(path), 403, "forbidden")


class TestKeptRows:
    async def test_a_kept_page_is_read_by_its_team_only_and_never_replaced_by_an_older_drawing(
        self, client: httpx.AsyncClient, team: TeamKey, advance: Advance, runtime: Runtime
    ) -> None:
        """Every team-owned read filters by team; a drawing from inputs read before the kept one's
        (a request that began before a cycle and finished after the job) does not replace it."""
        item = await tracked_with_history(client, team, advance)
        assert (await client.get(path_of(str(item["dashboard_url"])))).status_code == 200
        kept = await kept_row(runtime, str(item["id"]))
        assert kept is not None
        async with runtime.db.transaction(write=False) as session:
            assert await repository.kept_hash(session, kept.team_id, kept.item_id) == kept.drawn_from
            assert await repository.kept_hash(session, "another-team", kept.item_id) is None
            assert await repository.kept_body(session, "another-team", kept.item_id, kept.drawn_from) is None

        for moment, hash_ in ((kept.drawn_at - timedelta(seconds=1), "older"), (kept.drawn_at, "same")):
            async with runtime.db.transaction() as session:
                await repository.keep(
                    session,
                    item_id=kept.item_id,
                    team_id=kept.team_id,
                    drawn_from=hash_,
                    body="x",
                    now=moment,
                )
            now_kept = await kept_row(runtime, kept.item_id)
            assert now_kept is not None
            assert now_kept.drawn_from == (kept.drawn_from if hash_ == "older" else "same")
