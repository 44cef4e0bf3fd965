"""The dashboard page of a tracked creator or video (issue 20 item 6; ADR 0023): growth of views and
followers over the snapshots, the outlier posts, the posting cadence and the audience, as Bokeh charts.

The page loads BokehJS from Reelscope itself (``/dashboard/assets/``, the files of the installed bokeh
package), never from a CDN.

A page is drawn for its item, not for a link: the link's expiry is written as ``EXPIRES_AT`` and put in by
``for_link`` when the page is served, so one drawing serves every link to the item and can be kept in
the database (ADR 0061). The placeholder stands outside every inline script, so the page's
Content-Security-Policy (kit/pages.py, by the scripts' hashes) is the same before and after.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from datetime import datetime
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from reelscope.analysis.cadence import WEEKDAYS
from reelscope.kit.clock import as_utc, iso

if TYPE_CHECKING:
    from bokeh.models import Model

ASSETS_PATH = "/dashboard/assets"
# bokeh is imported when a page is drawn, not when the app starts
BOKEH_JS = f"bokeh-{version('bokeh')}.min.js"
LINE_COLOR = "#1f77b4"  # the growth lines (the browser test looks for it in a screenshot)
BAR_COLOR = "#ff7f0e"
NO_OUTLIERS = '<tr><td colspan="4">None yet</td></tr>'
# where the link's expiry goes; "<" never comes out of html.escape, so no collected text after it (the
# outliers, the audience note: all escaped) can contain it, and ``for_link`` replaces the last one
EXPIRES_AT = "<!--expires-at-->"


def asset_file(name: str) -> Path | None:
    """The BokehJS file served under ``ASSETS_PATH``; None for any other name."""
    if name != BOKEH_JS:
        return None
    from bokeh.util.paths import bokehjs_path

    return Path(bokehjs_path()) / "js" / "bokeh.min.js"


def _line(title: str, at: Sequence[datetime], values: Sequence[int | None]) -> Model | None:
    from bokeh.plotting import figure

    points = [(moment, value) for moment, value in zip(at, values, strict=True) if value is not None]
    if not points:
        return None
    chart = figure(
        title=title, x_axis_type="datetime", height=260, sizing_mode="stretch_width", toolbar_location=None
    )
    xs = [as_utc(moment).replace(tzinfo=None) for moment, _ in points]
    ys = [value for _, value in points]
    chart.line(xs, ys, line_width=3, color=LINE_COLOR)
    chart.scatter(xs, ys, size=7, color=LINE_COLOR)
    chart.yaxis.formatter.use_scientific = False  # type: ignore[attr-defined]
    return chart


def _bars(title: str, labels: Sequence[str], values: Sequence[float]) -> Model | None:
    if not labels or not any(values):
        return None
    from bokeh.models import FactorRange
    from bokeh.plotting import figure

    chart = figure(
        title=title,
        x_range=FactorRange(factors=list(labels)),
        height=240,
        sizing_mode="stretch_width",
        toolbar_location=None,
    )
    chart.vbar(x=list(labels), top=list(values), width=0.8, color=BAR_COLOR)
    chart.y_range.start = 0  # type: ignore[attr-defined]
    return chart


def _post_link(url: str, title: str) -> str:
    """A post's title linking to its URL; only an http(s) URL is a link. URLs come from collected data, and
    a ``javascript:`` one in an ``href`` would run in the dashboard's page when clicked (issue 31)."""
    if urlsplit(url.strip()).scheme.lower() not in ("http", "https"):
        return html.escape(title)
    return f'<a href="{html.escape(url)}" rel="noreferrer">{html.escape(title)}</a>'


def render(
    *,
    item: dict[str, Any],
    snapshots: Sequence[tuple[datetime, dict[str, Any]]],
    outliers: Sequence[dict[str, Any]],
    by_weekday: dict[str, int],
    audience: dict[str, Any] | None,
) -> str:
    """The whole page, with ``EXPIRES_AT`` for the link's expiry. ``snapshots`` oldest first as
    ``(taken_at, raw numbers)``."""
    from bokeh.embed import components

    at = [taken for taken, _ in snapshots]
    creator = item["kind"] == "creator"
    charts: dict[str, Model] = {}
    views_key = "total_views" if creator else "views"
    for key, title in (
        ("followers", "Followers"),
        (views_key, "Total views" if creator else "Views"),
        ("likes" if not creator else "total_likes", "Likes"),
    ):
        chart = _line(title, at, [numbers.get(key) for _, numbers in snapshots])
        if chart is not None:
            charts[key] = chart
    if creator:
        cadence = _bars(
            "Posts per weekday (UTC)", [d[:3] for d in WEEKDAYS], [by_weekday.get(d, 0) for d in WEEKDAYS]
        )
        if cadence is not None:
            charts["cadence"] = cadence
    if audience:
        countries = audience.get("geography", {}).get("country", {})
        top = list(countries.items())[:8]
        chart = _bars("Audience by country (share)", [c for c, _ in top], [s for _, s in top])
        if chart is not None:
            charts["audience"] = chart
    script, divs = components(charts) if charts else ("", {})
    name = html.escape(item.get("handle") or item.get("title") or item["id"])
    rows = "".join(
        "<tr><td>{post}</td><td>{views:,}</td><td>{ratio:.1f}×</td><td>{date}</td></tr>".format(
            post=_post_link(o["url"], (o.get("title") or o["url"])[:90]),
            views=o["views"],
            ratio=o["outlier_ratio"] or 0,
            date=html.escape(o["publish_date"]),
        )
        for o in outliers
    )
    sections = "".join(f'<section class="chart">{div}</section>' for div in divs.values())
    audience_note = ""
    if audience:
        audience_note = (
            f"<p>Audience sample: {int(audience.get('sample_size', 0))} commenters, confidence "
            f"{html.escape(str(audience.get('confidence_level')))}.</p>"
        )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>Reelscope · {name}</title>
<meta name="referrer" content="no-referrer">
<script src="{ASSETS_PATH}/{BOKEH_JS}"></script>
<style>
body {{ font-family: system-ui, sans-serif; margin: 1.5rem auto; max-width: 1100px; color: #222; }}
section.chart {{ margin: 1rem 0; }} table {{ border-collapse: collapse; width: 100%; }}
td, th {{ border-bottom: 1px solid #ddd; padding: .3rem .5rem; text-align: left; }}
</style>
{script}
</head><body>
<h1>{name} <small>({html.escape(item["platform"])} {html.escape(item["kind"])})</small></h1>
<p>{len(snapshots)} snapshots; status {html.escape(item["status"])}. This link expires {EXPIRES_AT}.</p>
{sections}
<h2>Outlier posts</h2>
<table><tr><th>Post</th><th>Views</th><th>× median</th><th>Published</th></tr>{rows or NO_OUTLIERS}</table>
{audience_note}
</body></html>
"""


def for_link(body: str, expires_at: datetime) -> str:
    """The page ``render`` drew, as served by a link that expires at ``expires_at``."""
    before, found, after = body.rpartition(EXPIRES_AT)
    return f"{before}{iso(expires_at)}{after}" if found else body
