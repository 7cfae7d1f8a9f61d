"""Which championship a simulation plays: a preset's format and dates, in a server of its own.

`acwc simulate --edition NAME` plays the preset NAME (`bot/format/preset_files/`) as its own
year has it: registration opens on the preset's date, round 1 starts on the preset's week
start (a Monday in 2019, a Wednesday in 2020, a Tuesday from 2021), and the simulated
previous champion and runner-up (`acwc_sim.games.PRESEEDED`) enter the stages the format's
entry rules give their roles (`Format.pre_seeded_stage`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from acwc_sim.games import ANNOUNCE, GUILD, PAIRINGS, PRESEEDED, TD, TD_ALERTS
from bot.config import DEFAULT_PRESET, Config, DiscordConfig, PreSeededPlayer, with_preset

# The simulation starts this long after registration opens (2019: 10 September, 12:00 UTC).
START_AFTER_OPENING = timedelta(days=9, hours=12)


def sim_config(db_url: str, lichess_url: str, edition: str = DEFAULT_PRESET) -> Config:
    """The preset `edition` as configured by default, in a server of its own, with the
    simulated pre-seeded players in the stages their roles enter."""
    data: dict[str, Any] = with_preset({"preset": edition})
    data["lichess"] = {**(data.get("lichess") or {}), "base_url": lichess_url}
    data["database"] = {**(data.get("database") or {}), "url": db_url}
    data["preset"] = None if edition == DEFAULT_PRESET else edition  # 2019: the defaults
    base = Config.model_validate(data)
    champion = next(name for name, role, _, _ in PRESEEDED if role == "champion")
    pre_seeded = []
    for name, role, user, _ in PRESEEDED:
        stage = base.format.pre_seeded_stage(role)
        if stage is not None:
            pre_seeded.append(
                PreSeededPlayer(lichess=name, stage=stage, role=role, discord_id=user)
            )
    return base.model_copy(
        update={
            "discord": DiscordConfig(
                guild_id=GUILD,
                td_user_ids=(TD,),
                td_alert_channel_id=TD_ALERTS,
                announcement_channel_id=ANNOUNCE,
                pairings_channel_id=PAIRINGS,
            ),
            "registration": base.registration.model_copy(update={"auto_approve": True}),
            "players": base.players.model_copy(
                update={"previous_champion": champion, "pre_seeded": tuple(pre_seeded)}
            ),
        }
    )


def start_of(config: Config) -> datetime:
    """When the simulation begins: registration is open, round 1 weeks away."""
    return config.registration.opens_at + START_AFTER_OPENING
