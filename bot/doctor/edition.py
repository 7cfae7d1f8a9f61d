"""The check that the configuration is this year's championship: a TD who copied last
year's file, or set only the Discord ids, would otherwise start the wrong edition without a
word (registration "closed" years ago, last year's champion pre-seeded).

Warnings, not refusals: a finished championship or a simulation is looked at with its own
old dates on purpose.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.exc import SQLAlchemyError

from bot.config import Config
from bot.doctor.lines import CheckLine, failed, passed
from bot.format.presets import pre_seeded_names, preset_names, preset_year
from db.engine import make_engine
from db.models import Stage

TITLE = "Edition"
FINAL_SCHEMES = ("lead_by_two", "tiebreak_games", "week_repeats")  # bot.rules.final_schemes
FIX_NEW = "write this year's config with `acwc new-edition --preset NAME --year YEAR`."


def stale_pre_seeded(config: Config) -> str | None:
    """The preset whose pre-seeded players this config still has, when that preset is
    another year's than the config's edition (the players were not edited)."""
    names = frozenset(player.lichess.lower() for player in config.players.pre_seeded)
    same = [preset for preset in preset_names() if names and pre_seeded_names(preset) == names]
    if any(preset_year(preset) == config.tournament.year for preset in same):
        return None  # the same two pre-seeded in two years (2019 and 2020): that year's
    return same[-1] if same else None


def engine_runs(config: Config) -> bool:
    """Whether the running stage engine can play this format: one Swiss, first; then any
    round robin stages (one pool or several), knock-outs and final matches of a scheme the
    results feature plays (lead by two, tiebreak games or repeated weeks), started as the
    format's entry rules say (`bot.features.rounds.advance`)."""
    fmt = config.format
    return fmt.of_kind("swiss") == fmt.stages[:1] and all(
        getattr(stage, "scheme", None) in FINAL_SCHEMES for stage in fmt.of_kind("final_match")
    )


def edition_problems(config: Config, now: datetime, *, started: bool) -> list[CheckLine]:
    """Pure: the warnings for `config` at `now`; `started` says the database already holds
    a stage (then a past registration is the championship going on, not a mistake)."""
    lines: list[CheckLine] = []
    if not engine_runs(config):
        stages = " -> ".join(f"{stage.name} ({stage.kind})" for stage in config.format.stages)
        detail = (
            f"this version runs one Swiss first, then round robins, knock-outs and final "
            f"matches (lead by two, tiebreak games, repeated weeks); the "
            f"format's stages {stages} are described but not run yet."
        )
        fix = "use one of the presets (acwc-2019 ... acwc-2024) as a start."
        lines.append(failed("Format", detail, fix, fatal=True))
    closes = config.registration.closes_at
    if closes < now and not started:
        detail = (
            f"registration closed on {closes:%Y-%m-%d %H:%M} UTC, before now, and no stage "
            f"has started: /register would refuse everyone ({config.tournament.short_name})."
        )
        lines.append(failed(TITLE, detail, FIX_NEW))
    preset = stale_pre_seeded(config)
    if preset is not None:
        players = ", ".join(player.lichess for player in config.players.pre_seeded)
        detail = (
            f"the pre-seeded players ({players}) are the {preset} preset's, for "
            f"{preset_year(preset)}, but this edition is {config.tournament.year}."
        )
        fix = "set players: (or `acwc new-edition --champion NAME --runner-up NAME`)."
        lines.append(failed(TITLE, detail, fix))
    if not lines:
        detail = f"{config.tournament.short_name}: dates and pre-seeded players fit the year."
        lines.append(passed(TITLE, detail))
    return lines


async def championship_started(url: str) -> bool:
    """Whether the database holds a stage; an unreachable one counts as not started (the
    database check says what is wrong with it)."""
    engine = make_engine(url)
    try:
        async with engine.connect() as connection:
            count = await connection.scalar(select(func.count()).select_from(Stage))
        return bool(count)
    except (SQLAlchemyError, OSError):
        return False
    finally:
        await engine.dispose()
