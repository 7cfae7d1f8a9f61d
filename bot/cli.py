"""The `acwc` command: run the bot, check its setup and print its invite URL, migrate the
database, check a player, print the audit log and the standings, and export the championship
from the terminal."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError

from bot.config import DEFAULT_PRESET, Config, ConfigError, Secrets, load_config, with_preset
from bot.features.registration.player_check import PlayerReport, check_player
from bot.features.rounds.weeks import first_round_start
from bot.features.web import site_command
from bot.format.presets import preset_names
from bot.lichess.client import LichessClient
from bot.lichess.errors import LichessError

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--verbose",
        action="store_true",
        default=argparse.SUPPRESS,
        help="on a failure, print the whole traceback instead of one line",
    )
    common.add_argument(
        "--config",
        metavar="PATH",
        default=argparse.SUPPRESS,
        help="YAML configuration file (default: the built-in 2019 edition settings)",
    )
    parser = argparse.ArgumentParser(
        prog="acwc",
        parents=[common],
        description="Discord bot that runs a Lichess variant world championship.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("run", parents=[common], help="start the bot (needs DISCORD_TOKEN)")
    client_id = argparse.ArgumentParser(add_help=False)
    client_id.add_argument(
        "--client-id", type=int, default=None, metavar="ID", help="the application id"
    )
    commands.add_parser(
        "doctor",
        parents=[common, client_id],
        help="check the token, server, channels, permissions, TDs and database; print the invite",
    )
    commands.add_parser(
        "invite-url", parents=[common, client_id], help="print the link that adds the bot"
    )
    db = commands.add_parser("db", parents=[common], help="database maintenance")
    db_commands = db.add_subparsers(dest="db_command", required=True, metavar="ACTION")
    db_commands.add_parser("upgrade", parents=[common], help="apply pending migrations")
    db_commands.add_parser(
        "check", parents=[common], help="fail if the models and the migrations disagree"
    )
    audit = commands.add_parser(
        "audit", parents=[common], help="print the audit log: who or what changed what"
    )
    audit.add_argument("--limit", type=int, default=None, help="only the last N entries")
    audit.add_argument("--json", action="store_true", help="one JSON object per line")
    export = commands.add_parser(
        "export", parents=[common], help="write the whole championship to files (JSON or CSV)"
    )
    export.add_argument(
        "--format", choices=("json", "csv"), default="json", help="json (one file) or csv"
    )
    export.add_argument("--out", metavar="DIR", required=True, help="directory to write to")
    standings = commands.add_parser(
        "standings", parents=[common], help="print the current standings of each stage"
    )
    standings.add_argument(
        "--stage",
        default=None,
        help="a stage of the edition's format by its key, e.g. swiss, candidates, semifinals "
        "or grand_final (default: all)",
    )
    sim = commands.add_parser(
        "simulate",
        parents=[common],
        help="run a whole championship offline (no Discord, no Lichess, no token)",
    )
    sim.add_argument("--players", type=int, default=24, help="entrants (default 24)")
    sim.add_argument("--seed", type=int, default=1, help="the same seed gives the same run")
    sim.add_argument("--out", type=Path, default=Path("simulation"), help="output folder")
    sim.add_argument(
        "--faults",
        action="store_true",
        help="inject Lichess 500/429, closed DMs and Discord 5xx/429 (nothing may be lost)",
    )
    sim.add_argument(
        "--fresh",
        action="store_true",
        help="start over even if --out holds an unfinished run (by default it goes on)",
    )
    sim.add_argument(
        "--edition",
        default=DEFAULT_PRESET,
        choices=preset_names(),
        help=f"the preset whose format is played (default {DEFAULT_PRESET})",
    )
    edition = commands.add_parser(
        "new-edition",
        parents=[common],
        help="write a commented config for a year from a preset, every date computed",
    )
    edition.add_argument("--preset", required=True, choices=preset_names(), help="the format")
    edition.add_argument("--year", type=int, required=True, help="the edition's year")
    edition.add_argument("--champion", default=None, help="the previous champion (Lichess)")
    edition.add_argument("--runner-up", default=None, help="the previous runner-up (Lichess)")
    edition.add_argument(
        "--out", metavar="PATH", default="-", help="file to write (default: print it)"
    )
    edition.add_argument("--force", action="store_true", help="overwrite an existing --out")
    site_command.add_parser(commands, common)
    check = commands.add_parser(
        "check-player", parents=[common], help="run the entry checks on a Lichess account"
    )
    check.add_argument("name", help="Lichess username")
    check.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "new-edition":
        return _new_edition(args)
    if args.command == "simulate":  # its own config: the 2019 edition in a server of its own
        if not 4 <= args.players <= 256:
            print("--players must be from 4 to 256.", file=sys.stderr)
            return EXIT_USAGE
        return _simulate(args)
    try:
        config = load_config(getattr(args, "config", None))
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return EXIT_USAGE
    secrets = Secrets.from_env()
    if args.command == "run":
        return _run(config, secrets, verbose=getattr(args, "verbose", False))
    try:
        return _dispatch(args, config, secrets)
    except (OSError, SQLAlchemyError) as failure:
        if getattr(args, "verbose", False):
            raise
        print(database_failure(args.command, config.database.url, failure), file=sys.stderr)
        return EXIT_FAILURE


SIMULATOR_MISSING = (
    "acwc simulate needs the simulator, which is installed apart from the bot: "
    "from the repository, run  pip install -c constraints.txt -e ./sim"
)


def _new_edition(args: argparse.Namespace) -> int:
    """Write (or print) a new edition's config; refuse a bad year or an existing file."""
    from bot.format.edition import new_edition_text

    if not 2000 <= args.year <= 2200:
        print("--year must be from 2000 to 2200.", file=sys.stderr)
        return EXIT_USAGE
    names = [n for n in (args.champion, args.runner_up) if n is not None]
    if any(not 2 <= len(n) <= 30 for n in names) or len({n.lower() for n in names}) < len(names):
        print(
            "--champion and --runner-up are two Lichess names (2-30 characters).", file=sys.stderr
        )
        return EXIT_USAGE
    text = new_edition_text(
        args.preset, args.year, champion=args.champion, runner_up=args.runner_up
    )
    if args.out == "-":
        print(text, end="")
        return EXIT_OK
    out = Path(args.out)
    if out.exists() and not args.force:
        print(f"{out} exists: choose another --out, or add --force.", file=sys.stderr)
        return EXIT_USAGE
    out.write_text(text, encoding="utf-8")
    config = load_config(out, environ={})
    print(
        f"Wrote {out}: {config.tournament.name}, registration "
        f"{config.registration.opens_at:%Y-%m-%d} to "
        f"{config.registration.closes_at:%Y-%m-%d %H:%M} UTC, "
        f"round 1 on {first_round_start(config):%A %Y-%m-%d}. "
        f"Next: acwc --config {out} doctor"
    )
    return EXIT_OK


def simulated(edition: str) -> bool:
    """Whether `acwc simulate` can play the preset: the stage engine runs its format
    (`bot.doctor.edition.engine_runs`, the guard `acwc run` and the doctor use too)."""
    from bot.doctor.edition import engine_runs

    return engine_runs(Config.model_validate(with_preset({"preset": edition})))


def _simulate(args: argparse.Namespace) -> int:
    """Run the offline championship of the preset `--edition` if the simulator (the
    acwc-sim distribution in sim/) is installed; the bot's own install leaves it out, so say
    how to add it."""
    if not simulated(args.edition):
        print(
            f"acwc simulate --edition {args.edition}: the bot's stage engine runs the "
            f"{DEFAULT_PRESET} format (Swiss, one round robin, Final) today; the "
            f"{args.edition} format is described (docs/presets/{args.edition}.md) but its "
            "stages are not run yet.",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        from acwc_sim.run import run_cli
    except ModuleNotFoundError as missing:
        if (missing.name or "").partition(".")[0] != "acwc_sim":
            raise  # the simulator is there but something it needs is not: show that
        print(SIMULATOR_MISSING, file=sys.stderr)
        return EXIT_FAILURE
    a = args
    done = run_cli(a.players, a.seed, a.out, faults=a.faults, fresh=a.fresh, edition=a.edition)
    if done == EXIT_OK:  # how to look at the run: its database served by `acwc site`
        from acwc_sim.edition import sim_config

        print(site_command.simulation_hint(sim_config, args.edition, args.out))
    return done


def database_failure(command: str, url: str, failure: BaseException) -> str:
    """One line for a database the command cannot use: which one (password hidden), why,
    and where to look; the traceback is for --verbose."""
    from sqlalchemy.engine import make_url

    shown = make_url(url).render_as_string(hide_password=True)
    reason = (str(failure).strip().splitlines() or [type(failure).__name__])[0]
    if isinstance(failure, SQLAlchemyError) and getattr(failure, "orig", None) is not None:
        reason = str(failure.orig).strip().splitlines()[0]  # type: ignore[attr-defined]
    return (
        f"acwc {command}: cannot use the database {shown}: {reason[:300]}. Check "
        "database.url in the config or DATABASE_URL (--verbose shows the traceback)."
    )


def _dispatch(args: argparse.Namespace, config: Config, secrets: Secrets) -> int:
    if args.command in ("doctor", "invite-url"):
        from bot.doctor import command

        if args.command == "doctor":
            return asyncio.run(command.doctor(config, secrets, client_id=args.client_id))
        return asyncio.run(command.invite(secrets, client_id=args.client_id))
    if args.command == "db":
        return _db(config, args.db_command)
    if args.command == "audit":
        return asyncio.run(_audit(config, limit=args.limit, as_json=args.json))
    if args.command == "export":
        return asyncio.run(_export(config, fmt=args.format, out=args.out))
    if args.command == "standings":
        return asyncio.run(_standings(config, stage=args.stage))
    if args.command == "site":
        from bot.wiring import WEB_PARTS

        return site_command.run(args, config, WEB_PARTS)
    return asyncio.run(_check_player(config, secrets, args.name, as_json=args.json))


def _run(config: Config, secrets: Secrets, *, verbose: bool = False) -> int:
    if not secrets.discord_token:
        print(
            "DISCORD_TOKEN is not set: export your Discord bot token and run again.",
            file=sys.stderr,
        )
        return EXIT_USAGE
    from sqlalchemy.engine import make_url

    from bot.app import ChampionshipBot
    from bot.lichess_token import check_token_at_start
    from bot.logging_setup import configure_logging
    from bot.startup import StartupRefused
    from db.schema import MigrationFailed, migrate_in_child

    # A PostgreSQL URL may carry a password: it is a secret like the tokens.
    database_password = make_url(config.database.url).password
    configure_logging([secrets.discord_token, secrets.lichess_token, database_password])
    try:
        check_token_at_start(config, secrets.lichess_token)  # a bad token stops the start
    except StartupRefused as refused:
        logging.getLogger("acwc.start").error("%s", refused)
        return EXIT_FAILURE
    try:
        migrate_in_child(config.database.url)  # Alembic stays out of the bot's memory
    except MigrationFailed as failure:  # logged, so the database password is redacted
        log = logging.getLogger("acwc.migrate")
        log.debug("the migration printed:\n%s", failure.output)
        log.error("Migrating the database failed: %s", failure.cause)
        return EXIT_FAILURE
    bot = ChampionshipBot(config, secrets)
    log = logging.getLogger("acwc.start")
    try:
        bot.run(secrets.discord_token, log_handler=None)
    except StartupRefused as refused:  # one line that says what to fix, not a traceback
        log.error("%s", refused)
        return EXIT_FAILURE
    except Exception as failure:
        line = start_failure(failure, config.database.url)
        if line is None:
            raise
        log.error("%s", line, exc_info=failure if verbose else None)
        return EXIT_FAILURE
    return EXIT_OK


def start_failure(failure: Exception, database_url: str) -> str | None:
    """One line for what stops `acwc run` from outside the bot: Discord refusing the token
    or out of reach, the database out of reach. None for anything else (a bug: traceback)."""
    import aiohttp
    import discord

    if isinstance(failure, discord.LoginFailure):
        return (
            "Discord refused DISCORD_TOKEN: it is wrong or was reset. Copy the bot's token "
            "again (Developer Portal → your application → Bot → Reset Token)."
        )
    if isinstance(failure, aiohttp.ClientError | discord.HTTPException | discord.GatewayNotFound):
        reason = str(failure).strip() or type(failure).__name__
        return f"Cannot reach Discord ({reason[:200]}): check the network and try again."
    if isinstance(failure, OSError | SQLAlchemyError):
        return database_failure("run", database_url, failure)
    return None


def _db(config: Config, action: str) -> int:
    from db import migrate

    if action == "upgrade":
        asyncio.run(migrate.upgrade(config.database.url))
        print("Database is at the latest schema.")
        return EXIT_OK
    differences = asyncio.run(migrate.drift(config.database.url))
    if differences:
        print("The models and the migrations disagree:", file=sys.stderr)
        for difference in differences:
            print(f"  {difference}", file=sys.stderr)
        return EXIT_FAILURE
    print("Models and migrations agree.")
    return EXIT_OK


async def _audit(config: Config, *, limit: int | None, as_json: bool) -> int:
    from bot.audit import export
    from db import migrate
    from db.engine import make_engine, make_sessionmaker

    await migrate.upgrade(config.database.url)
    engine = make_engine(config.database.url)
    try:
        entries = await export(make_sessionmaker(engine), limit=limit)
    finally:
        await engine.dispose()
    for entry in entries:
        if as_json:
            print(json.dumps(entry, ensure_ascii=False))
        else:
            who = entry["actor"] + (f" {entry['actor_id']}" if entry["actor_id"] else "")
            subject = f"{entry['subject']} {entry['subject_id'] or ''}".strip()
            print(f"{entry['at']}  {who:<24} {entry['action']:<28} {subject}")
    return EXIT_OK


async def _export(config: Config, *, fmt: str, out: str) -> int:
    from pathlib import Path

    from bot.features.console import export
    from db import migrate
    from db.engine import make_engine, make_sessionmaker

    await migrate.upgrade(config.database.url)
    engine = make_engine(config.database.url)
    try:
        data = await export.collect(make_sessionmaker(engine), config)
    finally:
        await engine.dispose()
    try:
        written = export.write(data, Path(out), fmt)
    except OSError as exc:
        print(f"Cannot write to {out}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILURE
    rows = sum(len(table) for table in data.values())
    print(f"Wrote {len(written)} file(s), {rows} rows, to {out}:")
    for path in written:
        print(f"  {path.name}")
    return EXIT_OK


async def _standings(config: Config, *, stage: str | None) -> int:
    """Each stage's table as Discord shows it (bot.features.tables), every row."""
    from sqlalchemy import select

    from bot.clock import SystemClock
    from bot.errors import WrongStage
    from bot.features.console import text as wording
    from bot.features.tables.render import render_plain
    from bot.features.tables.service import TablesService
    from db import migrate
    from db.engine import make_engine, make_sessionmaker
    from db.models import Stage

    keys = list(config.format.keys())
    wanted = stage.strip().lower() if stage is not None else None
    await migrate.upgrade(config.database.url)
    engine = make_engine(config.database.url)
    texts: list[str] = []
    try:
        sessions = make_sessionmaker(engine)
        tables = TablesService(sessions, config, SystemClock())
        async with sessions() as session:
            rows = (await session.scalars(select(Stage).order_by(Stage.position))).all()
        known = {*keys, *(s.key for s in rows), *(s.kind.value for s in rows)}
        known |= {s.pool for s in rows if s.pool}  # a pool by its key ("upper")
        if wanted is not None and wanted not in known:
            print(wording.unknown_stage(stage or "", keys), file=sys.stderr)
            return EXIT_USAGE
        # each stage of the format in order, and a row outside it (the 2019 tiebreak
        # matches) after the stage it belongs to
        present = [s.key for s in rows]
        extra = {k for k in present if k not in keys}
        order = [k for key in keys for k in (key, *sorted(e for e in extra if e.startswith(key)))]
        names = {s.key: s.name for s in config.format.stages}
        for key in [wanted] if wanted else list(dict.fromkeys(order)):
            try:
                texts.extend(render_plain(t) for t in await tables.standings_tables(key))
            except WrongStage:
                texts.append(wording.stage_not_started(key, names.get(key)))
    finally:
        await engine.dispose()
    print("\n\n".join(texts))
    return EXIT_OK


async def _check_player(config: Config, secrets: Secrets, name: str, *, as_json: bool) -> int:
    client = LichessClient(
        base_url=config.lichess.base_url,
        token=secrets.lichess_token,
        timeout=config.lichess.timeout_seconds,
        rate_limit_pause=config.lichess.rate_limit_pause_seconds,
    )
    try:
        report = await check_player(client, config, name)
    except LichessError as exc:
        print(f"Lichess could not be reached ({type(exc).__name__}); no report.", file=sys.stderr)
        return EXIT_USAGE
    finally:
        await client.aclose()
    print(json.dumps(report.to_json(), indent=2) if as_json else format_report(report, config))
    return EXIT_OK


def format_report(report: PlayerReport, config: Config) -> str:
    """The human-readable version of the JSON report."""
    data = report.to_json()
    lines = [f"Lichess account: {data['username']}"]
    if not report.exists:
        lines.append("  not found on Lichess")
    else:
        lines.append(f"  profile: {data['profile_url']}")
        lines.append(f"  created: {data['created_at'] or 'unknown (closed account)'}")
        before = config.registration.games_before.strftime("%Y-%m-%d %H:%M UTC")
        games = data["rated_games_before_cutoff"]
        lines.append(
            f"  rated {config.tournament.variant} games before {before}: "
            f"{'unknown' if games is None else games}"
            f" (counting stops at {config.registration.min_rated_games})"
        )
        lines.append(
            f"  rating at cut-off: {data['rating_at_cutoff']} "
            f"({data['rating_at_cutoff_game'] or 'no game'})"
        )
        lines.append(
            f"  peak rating: {data['peak_rating']} ({data['peak_rating_game'] or 'no game'})"
        )
        lines.append(f"  seeding rating: {data['seeding_rating']}")
    verdict = "eligible" if report.eligible else "problems: " + ", ".join(report.problems)
    lines.append(f"  {verdict}")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
