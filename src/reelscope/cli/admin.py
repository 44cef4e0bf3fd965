"""``reelscope admin``: teams, keys, credits, limits (the --json output is a contract, issue 2 §7)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Column, Table

from reelscope.cli.common import JsonFlag, _emit, _fail, _run_admin, app, console

# a table of plain dataclasses, light enough to load for the option's help (cli/common.py)
from reelscope.rate_limit.features import FEATURE_LIMITS

if TYPE_CHECKING:
    from reelscope.kit.db import Database

admin = typer.Typer(help="Operator commands: teams, keys, credits, limits.", no_args_is_help=True)
team_cli = typer.Typer(help="Teams.", no_args_is_help=True)
key_cli = typer.Typer(help="API keys.", no_args_is_help=True)
credits_cli = typer.Typer(help="Prepaid credits (1 credit = $0.01).", no_args_is_help=True)
limits_cli = typer.Typer(help="Per-team custom rate limits.", no_args_is_help=True)
app.add_typer(admin, name="admin")
admin.add_typer(team_cli, name="team")
admin.add_typer(key_cli, name="key")
admin.add_typer(credits_cli, name="credits")
admin.add_typer(limits_cli, name="limits")


# --- admin: teams ----------------------------------------------------------------------------------


@team_cli.command("create")
def team_create(
    name: str,
    credits: Annotated[int, typer.Option("--credits", min=0, help="Opening balance in credits.")] = 0,
    as_json: JsonFlag = False,
) -> None:
    """Create a team (with an owner user) and its opening balance."""
    from reelscope.auth import service as auth_service
    from reelscope.config import load_settings
    from reelscope.kit.clock import SystemClock

    clock = SystemClock()

    async def work(database: Database) -> dict[str, Any]:
        async with database.transaction() as session:
            team = await auth_service.create_team(session, name, credits, clock.now())
            return {"team_id": team.id, "name": team.name, "credits_remaining": team.credits}

    result = _run_admin(load_settings(), work)
    _emit(
        as_json,
        result,
        lambda: console.print(
            f"team {result['name']} created: {result['team_id']} ({result['credits_remaining']} credits)"
        ),
    )


@team_cli.command("list")
def team_list(as_json: JsonFlag = False) -> None:
    """All teams with their balances."""
    from reelscope.auth import service as auth_service
    from reelscope.config import load_settings
    from reelscope.kit.clock import iso

    async def work(database: Database) -> list[dict[str, Any]]:
        async with database.transaction(write=False) as session:
            return [
                {
                    "team_id": t.id,
                    "name": t.name,
                    "credits_remaining": t.credits,
                    "created_at": iso(t.created_at),
                }
                for t in await auth_service.list_teams(session)
            ]

    teams = _run_admin(load_settings(), work)

    def human() -> None:
        table = admin_table("team_id", "name", "credits", "created_at")
        for t in teams:
            table.add_row(t["team_id"], t["name"], str(t["credits_remaining"]), t["created_at"])
        console.print(table)

    _emit(as_json, {"teams": teams}, human)


# beyond the spec (issue 30, ADR 0047): what a key's requests may be charged in one UTC day
DailyCapOption = Annotated[
    str | None,
    typer.Option(
        "--daily-cap-usd",
        help="The most this key's requests may be charged per UTC day, in dollars (e.g. 5 or 2.50); "
        "past it they get 402 daily_cap_reached.",
    ),
]


def _cap_credits(usd: str | None) -> int | None:
    """Dollars with at most two decimals → credits (1 credit = $0.01)."""
    if usd is None:
        return None
    try:
        amount = Decimal(usd)
    except InvalidOperation:
        _fail(f"--daily-cap-usd: {usd!r} is not dollars (0 or more, 2 decimals at most)")
    credits = amount * 100
    if not amount.is_finite() or amount < 0 or credits != credits.to_integral_value():
        _fail(f"--daily-cap-usd: {usd!r} is not dollars (0 or more, 2 decimals at most)")
    return int(credits)


def _cap_words(credits: int | None) -> str:
    if credits is None:
        return ", no daily cap"
    return f", daily cap ${credits // 100}.{credits % 100:02d} ({credits} credits)"


def admin_table(*headers: str) -> Table:
    """A table that never cuts a value with an ellipsis on a narrow terminal: ids (``…_id``) stay whole
    on one line (one copied from the table must work), the other columns give way and fold."""
    return Table(
        *(
            Column(name, no_wrap=True, overflow="fold", min_width=36)
            if name.endswith("_id")
            else Column(name, overflow="fold")
            for name in headers
        )
    )


# --- admin: keys -----------------------------------------------------------------------------------


@key_cli.command("create")
def key_create(
    team: Annotated[str, typer.Option("--team", help="Team name.")],
    read_only: Annotated[
        bool, typer.Option("--read-only", help="Only GET requests (others get 403).")
    ] = False,
    daily_cap_usd: DailyCapOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Issue an API key. This is the only time the key is shown."""
    from reelscope.auth import service as auth_service
    from reelscope.config import load_settings
    from reelscope.kit.clock import SystemClock

    daily_cap = _cap_credits(daily_cap_usd)
    clock = SystemClock()

    async def work(database: Database) -> dict[str, Any]:
        async with database.transaction() as session:
            found = await auth_service.team_by_name(session, team)
            issued = await auth_service.issue_key(
                session, found, clock.now(), "read" if read_only else "full", daily_cap=daily_cap
            )
            return {
                "api_key": issued.api_key,
                "key_id": issued.key.id,
                "team_id": found.id,
                "daily_cap_credits": daily_cap,
            }

    result = _run_admin(load_settings(), work)

    def human() -> None:
        console.print(f"key {result['key_id']} for team {team}{_cap_words(daily_cap)}; shown only now:")
        console.print(result["api_key"], markup=False, highlight=False)

    _emit(as_json, result, human)


@key_cli.command("update")
def key_update(
    key_id: str,
    daily_cap_usd: DailyCapOption = None,
    no_daily_cap: Annotated[bool, typer.Option("--no-daily-cap", help="Remove the key's daily cap.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Change a key's daily spending cap; it holds from the key's next request, also on a running server."""
    from reelscope.auth import service as auth_service
    from reelscope.config import load_settings

    if no_daily_cap == (daily_cap_usd is not None):
        _fail("give --daily-cap-usd or --no-daily-cap")
    daily_cap = _cap_credits(daily_cap_usd)

    async def work(database: Database) -> dict[str, Any]:
        async with database.transaction() as session:
            key = await auth_service.set_daily_cap(session, key_id, daily_cap)
            return {"key_id": key.id, "team_id": key.team_id, "daily_cap_credits": key.daily_cap_credits}

    result = _run_admin(load_settings(), work)
    _emit(as_json, result, lambda: console.print(f"key {key_id}: {_cap_words(daily_cap).strip(', ')}"))


@key_cli.command("list")
def key_list(
    team: Annotated[str, typer.Option("--team", help="Team name.")], as_json: JsonFlag = False
) -> None:
    """The team's keys (prefixes only; keys are stored hashed)."""
    from reelscope.auth import service as auth_service
    from reelscope.config import load_settings
    from reelscope.kit.clock import iso

    async def work(database: Database) -> list[dict[str, Any]]:
        async with database.transaction(write=False) as session:
            found = await auth_service.team_by_name(session, team)
            return [
                {
                    "key_id": k.id,
                    "prefix": k.display_prefix,
                    "scope": k.scope,
                    "is_active": k.is_active,
                    "created_at": iso(k.created_at),
                    "revoked_at": iso(k.revoked_at),
                    "daily_cap_credits": k.daily_cap_credits,
                }
                for k in await auth_service.list_keys(session, found)
            ]

    found_keys = _run_admin(load_settings(), work)

    def human() -> None:
        table = admin_table("key_id", "prefix", "scope", "active", "daily cap", "created_at", "revoked_at")
        for k in found_keys:
            cap = k["daily_cap_credits"]
            table.add_row(
                k["key_id"],
                k["prefix"] + "…",
                k["scope"],
                str(k["is_active"]),
                "" if cap is None else f"${cap // 100}.{cap % 100:02d}",
                k["created_at"],
                k["revoked_at"] or "",
            )
        console.print(table)

    _emit(as_json, {"keys": found_keys}, human)


@key_cli.command("revoke")
def key_revoke(key_id: str, as_json: JsonFlag = False) -> None:
    """Revoke a key; it stops working at once, also on a running server."""
    from reelscope.auth import service as auth_service
    from reelscope.config import load_settings
    from reelscope.kit.clock import SystemClock, iso

    clock = SystemClock()

    async def work(database: Database) -> dict[str, Any]:
        async with database.transaction() as session:
            key = await auth_service.revoke_key(session, key_id, clock.now())
            return {"key_id": key.id, "team_id": key.team_id, "revoked_at": iso(key.revoked_at)}

    result = _run_admin(load_settings(), work)
    _emit(as_json, result, lambda: console.print(f"key {result['key_id']} revoked"))


# --- admin: credits --------------------------------------------------------------------------------


@credits_cli.command("add")
def credits_add(
    team: Annotated[str, typer.Option("--team", help="Team name.")],
    credits: Annotated[int, typer.Option("--credits", min=1, help="Credits to add (1 credit = $0.01).")],
    as_json: JsonFlag = False,
) -> None:
    """Top up a team's balance (a ledger row)."""
    from reelscope.auth import service as auth_service
    from reelscope.billing import service as billing_service
    from reelscope.config import load_settings
    from reelscope.kit.clock import SystemClock

    clock = SystemClock()

    async def work(database: Database) -> dict[str, Any]:
        async with database.transaction() as session:
            found = await auth_service.team_by_name(session, team)
            remaining = await billing_service.add_credits(
                session, found.id, credits, reference="admin credits add", at=clock.now()
            )
            return {"team_id": found.id, "credits_remaining": remaining}

    result = _run_admin(load_settings(), work)
    _emit(
        as_json, result, lambda: console.print(f"team {team} now has {result['credits_remaining']} credits")
    )


@credits_cli.command("auto-topup")
def credits_auto_topup(
    team: Annotated[str, typer.Option("--team", help="Team name.")],
    below: Annotated[
        int | None,
        typer.Option("--below", min=1, help="Refill when a charge leaves fewer credits than this."),
    ] = None,
    amount: Annotated[
        int | None, typer.Option("--amount", min=1, help="Credits added by each refill.")
    ] = None,
    off: Annotated[bool, typer.Option("--off", help="Switch auto top-up off.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Auto top-up (§8.2): refill AMOUNT when the balance drops below BELOW, at most once every 5 minutes."""
    from reelscope.auth import service as auth_service
    from reelscope.billing import service as billing_service
    from reelscope.config import load_settings

    if off and (below is not None or amount is not None):
        _fail("--off takes no --below or --amount")
    if not off and (below is None or amount is None):
        _fail("give both --below and --amount, or --off")

    async def work(database: Database) -> dict[str, Any]:
        async with database.transaction() as session:
            found = await auth_service.team_by_name(session, team)
            await billing_service.configure_auto_top_up(session, found.id, below=below, amount=amount)
            setting = None if off else {"below_credits": below, "amount_credits": amount}
            return {"team_id": found.id, "auto_top_up": setting}

    result = _run_admin(load_settings(), work)
    _emit(
        as_json,
        result,
        lambda: console.print(
            f"auto top-up for {team}: off"
            if off
            else f"auto top-up for {team}: add {amount} credits when below {below} (at most every 5 minutes)"
        ),
    )


@credits_cli.command("verify")
def credits_verify(as_json: JsonFlag = False) -> None:
    """Check that every team's balance equals the sum of its ledger; exit status 1 if any does not."""
    from reelscope.auth import service as auth_service
    from reelscope.billing import service as billing_service
    from reelscope.config import load_settings

    async def work(database: Database) -> dict[str, Any]:
        async with database.transaction(write=False) as session:
            checked = len(await auth_service.list_teams(session))
            mismatches = await billing_service.verify_ledger(session)
        return {
            "ok": not mismatches,
            "teams_checked": checked,
            "mismatches": [
                {
                    "team_id": m.team_id,
                    "name": m.name,
                    "balance": m.balance,
                    "ledger_sum": m.ledger_sum,
                    "difference": m.balance - m.ledger_sum,
                }
                for m in mismatches
            ],
        }

    result = _run_admin(load_settings(), work)

    def human() -> None:
        if result["ok"]:
            console.print(f"all {result['teams_checked']} teams: balance equals the sum of the ledger")
            return
        table = admin_table("team_id", "name", "balance", "ledger sum", "difference")
        for m in result["mismatches"]:
            table.add_row(
                m["team_id"], m["name"], str(m["balance"]), str(m["ledger_sum"]), str(m["difference"])
            )
        console.print(table)

    _emit(as_json, result, human)
    if not result["ok"]:
        raise typer.Exit(code=1)


# --- admin: limits ---------------------------------------------------------------------------------


@limits_cli.command("set")
def limits_set(
    team: Annotated[str, typer.Option("--team", help="Team name.")],
    feature: Annotated[str, typer.Option("--feature", help=f"One of: {', '.join(FEATURE_LIMITS)}.")],
    per_minute: Annotated[int | None, typer.Option("--per-minute", min=1)] = None,
    per_hour: Annotated[int | None, typer.Option("--per-hour", min=1)] = None,
    per_day: Annotated[int | None, typer.Option("--per-day", min=1)] = None,
    as_json: JsonFlag = False,
) -> None:
    """Replace the table's limits for one feature group of one team (§8.1); prints each window's limit
    before and after."""
    from reelscope.auth import service as auth_service
    from reelscope.config import load_settings
    from reelscope.kit.clock import SystemClock
    from reelscope.rate_limit.service import apply_override

    if feature not in FEATURE_LIMITS:
        _fail(f"unknown feature {feature!r}; use one of {', '.join(FEATURE_LIMITS)}")
    if per_minute is None and per_hour is None and per_day is None:
        _fail("give at least one of --per-minute, --per-hour, --per-day")
    clock = SystemClock()

    async def work(database: Database) -> dict[str, Any]:
        async with database.transaction() as session:
            found = await auth_service.team_by_name(session, team)
            before = apply_override(feature, await auth_service.limit_override(session, found, feature))
            row = await auth_service.set_limits(
                session,
                found,
                feature,
                per_minute=per_minute,
                per_hour=per_hour,
                per_day=per_day,
                at=clock.now(),
            )
            return {
                "team_id": found.id,
                "feature": feature,
                "per_minute": row.per_minute,
                "per_hour": row.per_hour,
                "per_day": row.per_day,
                # additive: the limits in force before, the table's where the team had none of its own
                "previous": {
                    "per_minute": before.per_minute,
                    "per_hour": before.per_hour,
                    "per_day": before.per_day,
                },
            }

    result = _run_admin(load_settings(), work)

    def human() -> None:
        console.print(f"limits of team {team} for {feature} (per API key):", markup=False, highlight=False)
        # a window the team did not set keeps the table's limit
        override = (result["per_minute"], result["per_hour"], result["per_day"])
        after = apply_override(feature, override)
        for window in ("minute", "hour", "day"):
            old, new = result["previous"][f"per_{window}"], getattr(after, f"per_{window}")
            change = f"{_limit(old)} → {_limit(new)}" if old != new else f"{_limit(new)} (unchanged)"
            console.print(f"  per {window}: {change}", markup=False, highlight=False)

    _emit(as_json, result, human)


def _limit(value: int | None) -> str:
    return "no cap" if value is None else f"{value:,}"
