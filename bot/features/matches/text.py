"""The wording every match-day feature shares: scores, game links and the scoreboard.

Every game is shown as a link to Lichess so anyone can check the bot's reading.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bot.features.matches.types import PLAYED_ON, GameLine, MatchProgress
from bot.message_text import fit
from bot.timefmt import deadline_time, discord_time
from db.models import StageKind

LICHESS = "https://lichess.org/"

NOT_A_PLAYER = "You are not a player in the championship."
NO_CURRENT_MATCH = "You have no match in the current round."
BYE = "You have a bye this round: there is no opponent and nothing to arrange."


def no_such_match(match_id: int) -> str:
    return f"There is no match {match_id}."


def for_player(name: str, content: str) -> str:
    """A DM that cannot be sent, posted in the match thread instead, naming its reader."""
    return f"**{name}**: {content}"


# How every message names a stage (StageKind is a str enum: its values work as keys too).
STAGE_LABELS: dict[str, str] = {
    StageKind.SWISS: "Swiss",
    StageKind.TIEBREAK: "Tiebreak",
    StageKind.CANDIDATES: "Candidates",
    StageKind.FINAL: "Final",
    StageKind.KNOCKOUT: "Knock-Out",
}


# The rows named by the engine's word, not the format's (2019's "Swiss round 3", whatever
# the Swiss stage is called; the tiebreak matches are no stage of the format).
ENGINE_WORDS: dict[str, str] = {
    StageKind.SWISS: STAGE_LABELS[StageKind.SWISS],
    StageKind.TIEBREAK: STAGE_LABELS[StageKind.TIEBREAK],
}


def stage_label(kind: StageKind, name: str) -> str:
    """How a round's posts, threads and announcements name a stage row: the Swiss and its
    tiebreak matches by their 2019 words, every other row by its name from the format
    ("Candidates", "Upper pool", "Semifinals", "Grand Final")."""
    return ENGINE_WORDS.get(kind) or name or STAGE_LABELS[kind]


def addressed(mentions: Sequence[str], text: str) -> str:
    """A thread post for the players it mentions first (the mention notifies them, so it
    is their one copy: no DM repeats it)."""
    return " ".join(mentions) + " " + text


def score(value: float) -> str:
    return f"{value:g}"


def game_link(lichess_id: str) -> str:
    return f"{LICHESS}{lichess_id}"


def _result_text(line: GameLine, a: str) -> str:
    if line.result_a == 0.5:
        return "½–½"
    white_won = (line.result_a == 1.0) == (line.white == a)
    return "1–0" if white_won else "0–1"


def scoreboard(
    a: str,
    b: str,
    games: Sequence[GameLine],
    score_a: float,
    score_b: float,
    *,
    finished: bool,
) -> str:
    """The match's live scoreboard in its thread: one line per game, then the score. It does
    not say how long the match is: that depends on the stage (an early stop at 5.5 in the
    Swiss, every game in the Candidates, the Final's extensions), never "best of"."""
    head = f"**{a}** {score(score_a)}–{score(score_b)} **{b}**"
    state = "final result" if finished else "live"
    lines = [f"📊 {head} ({state})"]
    for g in games:
        line = (
            f"{g.number}. [{g.white} – {g.black}]({game_link(g.lichess_id)}) {_result_text(g, a)}"
        )
        if not g.counted and g.voided_reason == PLAYED_ON:
            line += " (played on: the result stands)"
        elif not g.counted:
            line = f"~~{line}~~ (not counted: {g.voided_reason or 'void'})"
        elif g.flagged:
            line += " ⚠️ under TD review"
        lines.append(line)
    if not games:
        lines.append("No game yet.")
    on = [g for g in games if g.counted or g.voided_reason == PLAYED_ON]
    if len(on) > sum(1 for g in games if g.counted):
        all_a = sum(g.result_a for g in on)
        lines.append(
            f"Played on after the decision: {score(all_a)}–{score(len(on) - all_a)} "
            f"over all {len(on)} games."
        )
    return fit("\n".join(lines))  # edited in place: one message, cut and marked if long


def progress_board(progress: MatchProgress) -> str:
    """The scoreboard of a match as /match and refusals show it; a forfeit says who won."""
    if progress.state == "forfeited":
        winner = progress.forfeit_winner or "nobody"
        return (
            f"📊 **{progress.player_a}** vs **{progress.player_b}**: decided by forfeit, "
            f"won by **{winner}**."
        )
    return scoreboard(
        progress.player_a,
        progress.player_b,
        progress.games,
        progress.score_a,
        progress.score_b,
        finished=progress.decided,
    )


def round_post_header(stage_name: str, number: int, ends: str) -> str:
    """The pairings post's first line; it says what the number after each name is."""
    return f"**{stage_name} round {number}** · ends {ends} · (n) after a name: the seed"


# --- the round thread's opening ---------------------------------------------------------------


def board_opening(board: int, match_id: int, a: str, b: str) -> str:
    """The first line of a match's thread; `a` and `b` are mentions (they ping)."""
    return f"**Board {board}** (match {match_id}): {a} vs {b}"


def match_thread_name(
    short_name: str, stage: str, round_number: int, board: int, a: str, b: str
) -> str:
    """ "ACWC 2019 · Swiss round 2 · board 3: a vs b": the match's thread in the channel."""
    return f"{short_name} · {stage} round {round_number} · board {board}: {a} vs {b}"


def knockout_thread_name(short_name: str, match: str, a: str, b: str) -> str:
    """ "ACWC 2024 · Semifinal 1: a vs b": a knock-out match's thread, by the match's name."""
    return f"{short_name} · {match}: {a} vs {b}"[:100]


def bye_opening(a: str, points: float) -> str:
    return f"Bye this round: {a} (+{points:g})."


def round_instructions(deadline: datetime, offers: tuple[int, datetime] | None) -> str:
    """What every player of the round does next, said once above their boards. `offers`:
    how many offers each owes and by when (rule V.C); None in the Final, which has no weekly
    deadlines (rule IV.C): its sessions are agreed as the finalists go."""
    if offers is None:
        return (
            "Agree on each session's start time with `/offer` (times in UTC, e.g. "
            "`wed 18:00`) and `/accept`; the Final must be finished by "
            f"{discord_time(deadline)}."
        )
    owed, due = offers
    return (
        f"Agree on a start time with your opponent: `/offer` (times in UTC, e.g. "
        f"`wed 18:00`) and `/accept`. Each player owes {owed} offer{'s' if owed != 1 else ''} "
        f"by {deadline_time(due)} unless one is accepted first (rule V.C); every match must "
        f"be played by {discord_time(deadline)}."
    )
