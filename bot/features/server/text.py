"""Wording of /td setup: each setting with where it comes from, and how to change it."""

from __future__ import annotations

from collections.abc import Sequence

from bot.doctor.lines import CheckLine
from bot.message_text import fit
from bot.server_settings import LABELS, SettingValue

# What each setting is for, shown when it is not set.
UNSET_MEANS = {
    "announcement_channel_id": "no announcements (round out, standings, results) are posted",
    "pairings_channel_id": "no pairings post, match thread or ping: rounds wait for one",
    "td_alert_channel_id": "TD notices go only by DM to the TD user ids of the config file",
    "td_role_id": "only the TD user ids of the config file are TDs",
}


def _mention(value: SettingValue) -> str:
    if value.value is None:
        return "not set"
    return f"<@&{value.value}>" if value.field == "td_role_id" else f"<#{value.value}>"


def setting_line(value: SettingValue) -> str:
    label = LABELS[value.field]
    if value.source == "unset":
        return f"**{label}**: not set: {UNSET_MEANS[value.field]}."
    if value.source == "config":
        return f"**{label}**: {_mention(value)} · from the config file"
    was = ""
    if value.file_value is not None and value.file_value != value.value:
        file_value = SettingValue(value.field, value.file_value, "config", value.file_value)
        was = f" (the config file says {_mention(file_value)})"
    return f"**{label}**: {_mention(value)} · set here{was}"


def check_line(line: CheckLine) -> str:
    """A check as /td setup shows it: a passing one short, a failing one with its fix."""
    return f"✓ {line.title}" if line.ok else line.render()


def checks_failed(error: Exception) -> str:
    return f"✗ The checks could not ask Discord ({type(error).__name__}); try again."


def setup_text(
    values: Sequence[SettingValue], checks: Sequence[str] = (), *, waiting: Sequence[str] = ()
) -> str:
    """The /td setup panel: the settings, the checks, and the rules of the game; `waiting`:
    the checks that keep the bot in setup mode (bot.app.ChampionshipBot.setup_mode)."""
    lines = ["**Server setup**", *(setting_line(v) for v in values)]
    if waiting:
        lines += [
            "",
            f"**Setup mode**: until the {', '.join(waiting)} check passes, the bot answers only "
            "`/td setup` and `/help`, publishes nothing and runs no job. Fix it here and it "
            "goes on at once, with no restart.",
        ]
    if checks:
        lines += ["", "**Checks**", *checks]
    lines += [
        "",
        "Pick a channel or role below to set it; a value picked here wins over the config "
        "file. Clear a menu to use the config file's value again.",
        "Members who hold only the TD role do not see `/td` until you allow the role: Server "
        "Settings → Integrations → this bot → `/td` → Add Roles or Members.",
    ]
    text = "\n".join(lines)
    return fit(text)


NOT_A_TEXT_CHANNEL = "That is not a channel the bot can post in: pick a text or forum channel."


def setup_not_allowed() -> str:
    return "Only the TD or a server manager can change the server setup."
