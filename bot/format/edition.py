"""A new edition's configuration, written from a preset for a year (`acwc new-edition`).

Why: a TD preparing next year's championship should not copy last year's file and hunt
for every date; the preset's rules date the year (registration, eligibility cut-offs,
seeding, the first round) and the file says where each comes from. Discord ids are left to
`/td setup`; the format stays the preset's (docs/presets/ maps it to the rules text).
"""

from __future__ import annotations

import json
from datetime import datetime

from bot.format.model import WEEKDAYS, Format
from bot.format.presets import preset_config

__all__ = ["new_edition_text"]


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _day(moment: datetime) -> str:
    return f"{WEEKDAYS[moment.weekday()].capitalize()} {moment:%d %B %Y, %H:%M} UTC"


def _player(name: str, role: str, stage: str) -> str:
    return f"    - {{lichess: {json.dumps(name)}, role: {role}, stage: {stage}}}"


def new_edition_text(
    preset: str, year: int, *, champion: str | None = None, runner_up: str | None = None
) -> str:
    """The commented YAML of `preset` for `year`; the pre-seeded players are the ones given
    (none given: nobody is pre-seeded, and the format's fallbacks apply)."""
    config = preset_config(preset, year)
    fmt = Format.model_validate(config["format"])
    reg, seeding = config["registration"], config["seeding"]
    first = config["swiss"]["first_round_start"]
    week = fmt.week
    players = [
        _player(name, role, stage)
        for name, role in ((champion, "champion"), (runner_up, "runner_up"))
        if name is not None and (stage := fmt.pre_seeded_stage(role)) is not None
    ]
    stages = " -> ".join(stage.name for stage in fmt.stages)
    lines = [
        f"# {config['tournament']['name']}: written by `acwc new-edition --preset {preset}",
        f"# --year {year}`. Check every date against the rules page you publish.",
        f"# The format is the {preset} preset's:",
        f"#   {stages}.",
        f"# docs/presets/{preset}.md maps it to its rules text. To change one stage's setting:",
        "#   format: {stages: {swiss: {qualifiers: 12}}}",
        f"# The week: rounds start {week.start.capitalize()} 00:00 UTC and end "
        f"{week.round_end.weekday.capitalize()} {week.round_end.time} UTC;",
        f"# offers are due by {week.offers_due.weekday.capitalize()} {week.offers_due.time} UTC.",
        "# Secrets (DISCORD_TOKEN, LICHESS_TOKEN) come from the environment, never this file.",
        "",
        f"preset: {preset}",
        "",
        "tournament:",
        f"  year: {year}",
        f"  name: {config['tournament']['name']}",
        f"  short_name: {config['tournament']['short_name']}",
        "",
        "registration:",
        f"  opens_at: {_when(reg['opens_at'])}    # /register works from {_day(reg['opens_at'])}",
        f"  closes_at: {_when(reg['closes_at'])}   # ... until {_day(reg['closes_at'])}",
        f"  account_created_before: {_when(reg['account_created_before'])}"
        "   # rule II.A.1: the Lichess account is older",
        f"  games_before: {_when(reg['games_before'])}"
        "   # rule II.A.2: the rated games counted end before this",
        "",
        "seeding:",
        f"  rating_at: {_when(seeding['rating_at'])}   # the rating held at this moment",
        f"  peak_from: {_when(seeding['peak_from'])}   # the highest rating from here to rating_at",
        "",
        "swiss:",
        f"  first_round_start: {_when(first)}   # round 1: {_day(first)}",
        "",
        "players:",
        f"  previous_champion: {json.dumps(champion)}"
        "   # decides equal Armageddon bids where the format says so",
    ]
    if players:
        lines += ["  pre_seeded:                   # they skip the stages before theirs", *players]
    else:
        lines.append(
            "  pre_seeded: []   # nobody: more Swiss players go on (the format's fallbacks)"
        )
    lines += [
        "",
        "# The server: leave these empty and pick them in Discord with /td setup.",
        "discord:",
        "  guild_id: null",
        "  td_user_ids: []",
        "",
    ]
    return "\n".join(lines)
