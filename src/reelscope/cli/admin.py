"""``reelscope admin``: teams, keys, credits, limits (the --json output is a contract, issue 2 §7)."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from reelscope.auth import service as auth_service
from reelscope.billing import service as billing_service
from reelscope.cli.common import JsonFlag, _emit, _fail, _run_admin, app, console
from reelscope.config import load_settings
from reelscope.kit.clock import SystemClock, iso
from reelscope.kit.db import Database
from reelscope.rate_limit.features import FEATURE_LIMITS

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
        table = Table("team_id", "name", "credits", "created_at")
        for t in teams:
            table.add_row(t["team_id"], t["name"], str(t["credits_remaining"]), t["created_at"])
        console.print(table)

    _emit(as_json, {"teams": teams}, human)


# --- admin: keys -----------------------------------------------------------------------------------


@key_cli.command("create")
def key_create(
    team: Annotated[str, typer.Option("--team", help="Team name.")],
    read_only: Annotated[
        bool, typer.Option("--read-only", help="Only GET requests (others get 403).")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Issue an API key. This is the only time the key is shown."""
    clock = SystemClock()

    async def work(database: Database) -> dict[str, Any]:
        async with database.transaction() as session:
            found = await auth_service.team_by_name(session, team)
            issued = await auth_service.issue_key(
                session, found, clock.now(), "read" if read_only else "full"
            )
            return {"api_key": issued.api_key, "key_id": issued.key.id, "team_id": found.id}

    result = _run_admin(load_settings(), work)

    def human() -> None:
        console.print(f"key {result['key_id']} for team {team}; shown only now:")
        console.print(result["api_key"], markup=False, highlight=False)

    _emit(as_json, result, human)


@key_cli.command("list")
def key_list(
    team: Annotated[str, typer.Option("--team", help="Team name.")], as_json: JsonFlag = False
) -> None:
    """The team's keys (prefixes only; keys are stored hashed)."""

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
                }
                for k in await auth_service.list_keys(session, found)
            ]

    found_keys = _run_admin(load_settings(), work)

    def human() -> None:
        table = Table("key_id", "prefix", "scope", "active", "created_at", "revoked_at")
        for k in found_keys:
            table.add_row(
                k["key_id"],
                k["prefix"] + "…",
                k["scope"],
                str(k["is_active"]),
                k["created_at"],
                k["revoked_at"] or "",
            )
        console.print(table)

    _emit(as_json, {"keys": found_keys}, human)


@key_cli.command("revoke")
def key_revoke(key_id: str, as_json: JsonFlag = False) -> None:
    """Revoke a key; it stops working at once, also on a running server."""
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
        table = Table("team_id", "name", "balance", "ledger sum", "difference")
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
    """Replace the table's limits for one feature group of one team (§8.1)."""
    if feature not in FEATURE_LIMITS:
        _fail(f"unknown feature {feature!r}; use one of {', '.join(FEATURE_LIMITS)}")
    if per_minute is None and per_hour is None and per_day is None:
        _fail("give at least one of --per-minute, --per-hour, --per-day")
    clock = SystemClock()

    async def work(database: Database) -> dict[str, Any]:
        async with database.transaction() as session:
            found = await auth_service.team_by_name(session, team)
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
            }

    result = _run_admin(load_settings(), work)
    _emit(as_json, result, lambda: console.print(f"limits for {team} / {feature}: {result}"))
