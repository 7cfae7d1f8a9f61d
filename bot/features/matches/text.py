"""The wording every match-day feature shares: scores, game links and the scoreboard.

Every game is shown as a link to Lichess so anyone can check the bot's reading.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from bot.features.matches.types import PLAYED_ON, GameLine, MatchProgress
from bot.format.bracket import Seat
from bot.message_text import fit
from bot.rules.final import ClockChange, FinalFormat, FinalScheme
from bot.rules.final_schemes import Block, armageddon_point
from bot.rules.tiebreaks import SwissTiebreak
from bot.timefmt import deadline_time, discord_time
from db.models import StageKind

LICHESS = "https://lichess.org/"

NOT_A_PLAYER = "You are not a player in the championship."
NO_CURRENT_MATCH = "You have no match in the current round."
BYE = "You have a bye this round: there is no opponent and nothing to arrange."


def no_such_match(match_id: int) -> str:
    """The reply to a match value the TD typed instead of picking it from the list: it
    echoes what they typed (no id the bot reveals) and says where to pick."""
    return f"There is no match {match_id}: pick the match from the list the command offers."


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
    blocks: Sequence[Block] | None = None,
) -> str:
    """The match's live scoreboard in its thread: one line per game, then the score. It does
    not say how long the match is: that depends on the stage (an early stop at 5.5 in the
    Swiss, every game in the Candidates, the Final's extensions), never "best of". With the
    `blocks` of a knock-out or final match, the games are grouped by block instead
    (`block_scoreboard`)."""
    if blocks is not None:
        return block_scoreboard(a, b, games, score_a, score_b, finished=finished, blocks=blocks)
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


def _point(value: float) -> str:
    return "½" if value == 0.5 else f"{value:g}"


def _block_title(block: Block) -> str:
    """A block's name as the rules say it (rules III.G.1-6; 2021's weeks, 2022's tiebreak
    games), with its games."""
    games = (
        f"game {block.first}"
        if block.first == block.last
        else (f"games {block.first}–{block.last}")
    )
    if block.kind == "extension":
        return f"Extension {block.number}, {games}"
    if block.kind == "tiebreak_games":
        return f"Tiebreak {games}"
    if block.kind == "week":
        return f"Week {block.number}, {games}"
    if block.kind == "armageddon":
        return f"Armageddon, {games}"
    return games[0].upper() + games[1:]


def _compact_game(g: GameLine) -> str:
    """One game in a block's line: its number linking to it, side a's points."""
    text = f"[{g.number}]({game_link(g.lichess_id)}) {_point(g.result_a)}"
    return text + " ⚠️" if g.flagged else text


def _armageddon_winner(games: Sequence[GameLine], a: str, b: str) -> str:
    """Who the Armageddon's result makes the winner: a draw is Black's (rule III.G.6.a)."""
    if not games:
        return ""
    game = games[0]
    if game.result_a == 0.5:
        return f", drawn: **{game.black}** wins with Black's draw odds"
    return f", won by **{a if game.result_a == 1.0 else b}**"


def block_scoreboard(
    a: str,
    b: str,
    games: Sequence[GameLine],
    score_a: float,
    score_b: float,
    *,
    finished: bool,
    blocks: Sequence[Block],
) -> str:
    """A knock-out or final match's scoreboard, one line per block of games (the first
    12, each extension, the tiebreak games, a week, the Armageddon) with the block's score:
    a tied block is why the next is played, so each block's score is what a reader looks
    for. Games are written compactly (number, link, side a's points) so the longest Final
    (31 games) stays well inside one message; games that do not count are listed apart."""
    counted = [g for g in games if g.counted]
    if blocks and blocks[-1].kind == "armageddon" and len(counted) >= blocks[-1].first:
        last = counted[blocks[-1].first - 1]  # it adds no point (rule III.G.6)
        score_a, score_b = score_a - last.result_a, score_b - (1.0 - last.result_a)
    head = f"**{a}** {score(score_a)}–{score(score_b)} **{b}**"
    state = "final result" if finished else "live"
    legend = f"each game: {a}'s points" + (
        " · ⚠️ under TD review" if any(g.flagged for g in games) else ""
    )
    lines = [f"📊 {head} ({state}) · {legend}"]
    for block in blocks:
        inside = counted[block.first - 1 : block.last]
        part = " · ".join(_compact_game(g) for g in inside)
        if block.kind == "armageddon":
            lines.append(f"**{_block_title(block)}**: {part}{_armageddon_winner(inside, a, b)}")
            continue
        got = sum(g.result_a for g in inside)
        lines.append(f"**{_block_title(block)}** ({score(got)}–{score(len(inside) - got)}): {part}")
    if not games:
        lines.append("No game yet.")
    on = [g for g in games if not g.counted and g.voided_reason == PLAYED_ON]
    if on:
        every = counted + on
        all_a = sum(g.result_a for g in every)
        lines.append(
            f"Played on after the decision: {score(all_a)}–{score(len(every) - all_a)} over "
            f"all {len(every)} games. Played on (the result stands): "
            + " · ".join(_compact_game(g) for g in on)
        )
    void = [g for g in games if not g.counted and g.voided_reason != PLAYED_ON]
    if void:
        lines.append(
            "Not counted: "
            + " · ".join(f"~~{_compact_game(g)}~~ ({g.voided_reason or 'void'})" for g in void)
        )
    return fit("\n".join(lines))


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


def match_place(stage_name: str, round_number: int, board: int, *, one_match: bool) -> str:
    """A match as people name it: "Swiss round 3, board 2", or "Final" (one match, no
    rounds); never its row id (issue 32)."""
    if one_match:
        return stage_name
    return f"{stage_name} round {round_number}, board {board}"


# What each kind of incident is called (IncidentKind's values).
INCIDENT_WORDS: dict[str, str] = {
    "no_show": "no-show claim",
    "left": "left-the-match claim",
    "break": "break",
    "forfeit_claim": "forfeit claim",
}


def incident_called(kind: str, by: str, against: str | None) -> str:
    """ "no-show claim by a against b", "break by a": how the TD's texts and the TD's pick
    list (`/td incident overrule`) name an incident; never its row id (issue 32)."""
    words = INCIDENT_WORDS.get(kind, kind.replace("_", " "))
    return f"{words} by {by}" if against is None else f"{words} by {by} against {against}"


def match_label(place: str, a: str, b: str) -> str:
    """ "Swiss round 3, board 2 (a vs b)": a match by its place and its two players."""
    return f"{place} ({a} vs {b})"


def round_post_header(stage_name: str, number: int, ends: str) -> str:
    """The pairings post's first line; it says what the number after each name is (it
    changes from stage to stage: issue 32)."""
    return (
        f"**{stage_name} round {number}** · ends {ends} · (n) after a name: the player's seed "
        "in this stage (their order when it began)"
    )


def own_pace_header(stage_name: str, number: int) -> str:
    """A final match's post: no round, no deadline (rule IV.C: the finalists set the pace);
    a match set up again after a withdrawal (rule VIII.C) says so."""
    again = f" (set up again, {number})" if number > 1 else ""
    return f"**{stage_name}**{again} · played in sessions at the players' own pace (rule IV.C)"


# --- the round thread's opening ---------------------------------------------------------------


def board_opening(board: int, a: str, b: str) -> str:
    """The first line of a match's thread; `a` and `b` are mentions (they ping). The board
    names the match (the thread's name says its stage and round); no row id (issue 32)."""
    return f"**Board {board}**: {a} vs {b}"


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
            "`wed 18:00`) and `/accept`. You set the pace: play as many sessions as you like "
            "(rule IV.C)."
        )
    owed, due = offers
    return (
        f"Agree on a start time with your opponent: `/offer` (times in UTC, e.g. "
        f"`wed 18:00`) and `/accept`. Each player owes {owed} offer{'s' if owed != 1 else ''} "
        f"by {deadline_time(due)} unless one is accepted first (rule V.C); every match must "
        f"be played by {discord_time(deadline)}."
    )


# --- how a knock-out or final match is played, told when it starts ---------------------------


def equal_bids_text(rule: str) -> str:
    """What equal Armageddon bids lead to, by edition (`bot.rules.armageddon.EqualBids`)."""
    if rule == "rock_paper_scissors":
        return "equal bids: a game of rock-paper-scissors decides, recorded by the TD"
    return "equal bids: the previous champion, rule III.G.6.c"


def clock_text(seconds: int) -> str:
    """A clock of `seconds` as players read it: 3:00."""
    return f"{seconds // 60}:{seconds % 60:02d}"


def _armageddon_rule(after: int, equal_bids: str, black_seconds: int) -> str:
    return (
        f"still level after game {after}, one **Armageddon** game decides: both players bid "
        f"a time for White privately and the lower bid plays White ({equal_bids_text(equal_bids)}"
        f"); Black has {clock_text(black_seconds)} and draw odds; no increment (rule III.G.6)."
    )


def _lead_by_two(fmt: FinalFormat) -> str:
    """Rules III.G.1-5 as this format sets them (2019; 2020's clock after game 24)."""
    clock = (
        f"If it is level after game {fmt.lead_rule_games}, the extensions go on at "
        f"**{fmt.tiebreak_time_control}** (rule III.G.5)"
        if fmt.clock_change == ClockChange.AT_EQUAL_SCORE
        else f"From game {fmt.lead_rule_games + 1} the clock is **{fmt.tiebreak_time_control}**"
    )
    return (
        f"**{fmt.base_games} games** at {fmt.time_control}; to win, a player must lead by "
        f"**{fmt.lead:g} points** (rule III.G.2). Without that lead, the match is extended by "
        f"{fmt.extension_games} games, again and again (rule III.G.3); after game "
        f"{fmt.lead_rule_games} any lead at the end of a block wins (rule III.G.4). {clock}; "
    )


def match_format_text(fmt: FinalFormat, *, equal_bids: str, black_seconds: int) -> str:
    """How a knock-out or final match is played, from first game to Armageddon, in one
    paragraph: said when the match starts so nobody meets a rule first after game 12."""
    after = armageddon_point(fmt)
    if fmt.scheme == FinalScheme.LEAD_BY_TWO:
        head = _lead_by_two(fmt)
    elif fmt.scheme == FinalScheme.WEEK_REPEATS:
        head = (
            f"**{fmt.base_games} games** a week at {fmt.time_control}; more points win. A level "
            f"week is played again, at most {fmt.weeks} weeks; "
        )
    elif fmt.tiebreak_games:
        head = (
            f"**{fmt.base_games} games** at {fmt.time_control}; more points win. Level after "
            f"them, **{fmt.tiebreak_games} tiebreak games** follow, won by more points in them; "
        )
    else:
        head = f"**{fmt.base_games} games** at {fmt.time_control}; more points win; "
    return "How it is played: " + head + _armageddon_rule(after, equal_bids, black_seconds)


# --- the Swiss tiebreaks in words (the tables' legend, the qualification post) ---------------

_T = SwissTiebreak
#: Each tiebreak: its column header and what it is, in words a player understands.
SWISS_TIEBREAK_COLUMNS: dict[SwissTiebreak, tuple[str, str]] = {
    _T.WINS_AGAINST_TIED: ("Wins v tied", "matches won against players on the same points"),
    _T.MEDIAN_BUCHHOLZ: (
        "Median-Buchholz",
        "the opponents' points added up, leaving out the best and the worst",
    ),
    _T.CUMULATIVE: ("Cumulative", "the running score after each round, added up"),
    _T.KASHDAN: ("Kashdan", "4 for a match won, 2 drawn, 1 lost, 0 for a bye"),
    _T.SONNEBORN_BERGER: (
        "Sonneborn-Berger",
        "the points of the opponents beaten, plus half of those drawn with",
    ),
    _T.SEED: ("Seed", "the seed in the qualification, 1 the best"),
}


# --- a bracket seat, in words (the Discord bracket and the web's) -----------------------------

_ROLES = {"champion": "Previous champion", "runner_up": "Previous runner-up"}


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th ... 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def seat_text(seat: Seat) -> str:
    """Where a bracket seat comes from: "Upper pool 1st", "Qualification 5th", "Winner of
    Semifinal 1", "Previous champion"."""
    if seat.place is not None:
        return f"{seat.where} {ordinal(seat.place)}"
    if seat.match:
        return f"{'Winner' if seat.won else 'Loser'} of {seat.match}"
    return _ROLES.get(seat.role or "", "Pre-seeded")
