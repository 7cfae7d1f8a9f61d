"""Wording of match-day results: the game link, the live scoreboard, announcements, TD notes.

Every game is shown as a link to Lichess so anyone can check the bot's reading.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bot.features.matches.text import game_link, score
from bot.timefmt import discord_time

LICHESS = "https://lichess.org/"


def challenge_post(a: str, b: str, url: str, clock: str, variant: str) -> str:
    return (
        f"♟️ **{a}** vs **{b}**: your match starts now. Join the rated {variant} {clock} "
        f"game here (only you two can): {url}\n"
        "Play the following games as rematches; the bot reads the results from Lichess."
    )


def challenge_dm(opponent: str, url: str, clock: str) -> str:
    return (
        f"Your match against **{opponent}** starts now. Game link ({clock}, only you two can "
        f"join): {url}"
    )


def result_announcement(
    stage: str, a: str, b: str, score_a: float, score_b: float, game_ids: Sequence[str]
) -> str:
    links = " ".join(f"[{n}]({game_link(g)})" for n, g in enumerate(game_ids, start=1))
    return (
        f"🏁 {stage} result: **{a}** {score(score_a)}–{score(score_b)} **{b}**"
        + (f"\nGames: {links}" if links else "")
    )[:2000]


def flagged_note(match_id: int, a: str, b: str, lichess_id: str, status: str) -> str:
    why = {
        "timeout": "a player left the game and the opponent claimed the win (rule VI.E)",
        "cheat": "Lichess ended it for a fair-play reason (rule VII)",
    }.get(status, status)
    return (
        f"⚠️ Match #{match_id} ({a} vs {b}): game {game_link(lichess_id)} ended with "
        f"`{status}`: {why}. It counts as Lichess scored it; void it with "
        f"`/td void-game game:{lichess_id}` if needed."
    )


def after_end_note(match_id: int, a: str, b: str, lichess_ids: Sequence[str]) -> str:
    links = ", ".join(game_link(g) for g in lichess_ids)
    return (
        f"Match #{match_id} ({a} vs {b}) was already over; these later games between them "
        f"do not count: {links}"
    )


def finished_note_for_final(match_id: int) -> str:
    return (
        f"Final match #{match_id}: the next game is the Armageddon game; the bot does not "
        "record it. Record the Final's result with /td set-score."
    )


def voided_reply(lichess_id: str, match_id: int, score_a: float, score_b: float) -> str:
    return (
        f"Game {game_link(lichess_id)} no longer counts for match #{match_id}. "
        f"Score now {score(score_a)}–{score(score_b)}."
    )


def void_thread_note(lichess_id: str, reason: str) -> str:
    return f"The TD voided game {game_link(lichess_id)}: {reason}"


def submitted_reply(lichess_id: str, number: int, score_a: float, score_b: float) -> str:
    return (
        f"Game {game_link(lichess_id)} is recorded as game {number} of your match. "
        f"Score: {score(score_a)}–{score(score_b)}."
    )


def already_recorded_reply(lichess_id: str, number: int) -> str:
    return f"Game {game_link(lichess_id)} is already recorded (game {number}); nothing to do."


def after_end_reply(lichess_id: str) -> str:
    return (
        f"Game {game_link(lichess_id)} was played after your match had ended: it does not "
        "count. The TD has been told."
    )


def refused_reply(lichess_id: str, reason: str) -> str:
    return f"Game {game_link(lichess_id)} does not count for your match: {reason}."


def bad_link() -> str:
    return (
        "That is not a Lichess game link. Paste the game's address, e.g. "
        "`https://lichess.org/abcdEFGH` (or its 8-character id)."
    )


def no_match_under_way(agreed_time: datetime | None) -> str:
    if agreed_time is None:
        return "You have no match under way: agree on a time first (/offer)."
    return f"Your match has not started yet: it starts {discord_time(agreed_time)}."


def final_next_game(
    a: str,
    b: str,
    score_a: float,
    score_b: float,
    number: int,
    time_control: str,
    *,
    new_link: bool,
) -> str:
    """The Final after a game: the score, and how the next game is played (III.G)."""
    if time_control == "armageddon":
        how = (
            "an **Armageddon** game (rule III.G.6): both of you bid a time for White; the "
            "bot asks you for your bid privately."
        )
    else:
        how = f"**{time_control}**" + (
            " — a new time control: a new game link follows at once." if new_link else "."
        )
    return f"👑 Final: **{a}** {score(score_a)}–{score(score_b)} **{b}**. Game {number} is " + how
