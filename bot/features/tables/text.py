"""Wording of the tables: their titles, /pairings, and the replies when there is nothing to
show yet. The tables themselves are laid out in `builders.py` and drawn in `render.py`."""

from __future__ import annotations

from collections.abc import Sequence

from discord.utils import escape_markdown

from bot.features.matches.text import SWISS_TIEBREAK_COLUMNS, ordinal
from bot.features.tables.types import BoardLine, Bracket, RoundPairings, Slot
from bot.format.model import Format
from bot.message_text import fit
from bot.rules.tiebreaks import SWISS_CHAIN_2019, SwissTiebreak
from bot.timefmt import discord_time

LIMIT = 1990
GAME = "https://lichess.org/"

# How the 2019 stages are called in a sentence, by key (or kind); any other stage is called
# by its name in the format ("the Semifinals", "the Grand Final").
STAGE_NAMES = {
    "swiss": "the qualification (Swiss)",
    "tiebreak": "the tiebreak matches",
    "swiss_tiebreak": "the tiebreak matches",
    "candidates": "the Candidates",
    "final": "the Final",
}
# The stages whose name takes a plural verb ("The Candidates have not started yet").
PLURAL = {"candidates": True}


def nothing_yet() -> str:
    return "The championship has not started yet: there are no standings or pairings."


def _called(key: str, name: str | None) -> str:
    return STAGE_NAMES.get(key) or (f"the {name}" if name else key)


def not_started(key: str, name: str | None = None) -> str:
    called = _called(key, name)
    verb = "have" if PLURAL.get(key) else "has"
    return f"{called[0].upper()}{called[1:]} {verb} not started yet."


def no_rounds(key: str, name: str | None = None) -> str:
    return f"No round of {_called(key, name)} has been published yet."


def no_such_round(number: int, key: str, latest: int, name: str | None = None) -> str:
    return (
        f"There is no round {number} of {_called(key, name)} yet: "
        f"rounds 1 to {latest} are published."
    )


def unknown_stage(typed: str, keys: Sequence[str]) -> str:
    return f"There is no stage {typed!r}: the stages are {', '.join(keys)}."


def board_name(board: int) -> str:
    """A knock-out match the format does not name."""
    return f"Board {board}"


def _progress(number: int, total: int | None, finished: bool) -> str:
    of = f" of {total}" if total else ""
    return f"after round {number}{of}" if finished else f"round {number}{of} in progress"


def swiss_title(short_name: str, number: int, total: int | None, finished: bool) -> str:
    if number == 0:
        return f"Qualification standings · {short_name}"
    return f"Qualification standings · {short_name}, {_progress(number, total, finished)}"


def robin_title(name: str, short_name: str, number: int, total: int | None, finished: bool) -> str:
    """A round robin's or a knock-out's title by its row's name ("Upper pool crosstable",
    "Tiebreak matches", "Semifinals")."""
    if number == 0:
        return f"{name} · {short_name}"
    return f"{name} · {short_name}, {_progress(number, total, finished)}"


def final_title(short_name: str, a: str, b: str, name: str = "Final") -> str:
    """The scoreboard of a final match, by its stage's name ("Final", "Grand Final")."""
    return f"{name} · {short_name}: {a} vs {b}"


def final_blocks_note(blocks: Sequence[tuple[str, int, int, float, float]]) -> str:
    """The Final's blocks under a later scheme (`bot.features.tables.builders.final_blocks`):
    each week's score (a tied week is played again), or the first games' and the tiebreak
    games' (each block is won by whoever scores more in it)."""
    parts = []
    for number, (kind, first, last, a, b) in enumerate(blocks, start=1):
        games = f"games {first}–{last}"
        name = {"week": f"Week {number} ({games})", "first": games.capitalize()}.get(
            kind, f"tiebreak {games}"
        )
        parts.append(f"{name}: {_score(a)}-{_score(b)}")
    return (" " + "; ".join(parts) + ".") if parts else ""


# --------------------------------------------------------------------------- the Swiss table

_ROUNDS_LEGEND = (
    "R1...: the opponent's No, + won, = drawn, - lost, f by forfeit, no sign still to play; "
    "bye: no opponent that round."
)


def _is_2019(keys: Sequence[SwissTiebreak]) -> bool:
    return tuple(keys) == SWISS_CHAIN_2019


def swiss_tiebreak_headers(keys: Sequence[SwissTiebreak]) -> tuple[str, ...]:
    """The chain's columns, in its order. The 2019 chain keeps the short headers its tables
    have always had (WvT, MBH), which its legend explains."""
    if _is_2019(keys):
        return ("WvT", "MBH")
    return tuple(SWISS_TIEBREAK_COLUMNS[key][0] for key in keys)


def swiss_legend(keys: Sequence[SwissTiebreak]) -> str:
    """The Swiss table's footnote: its columns, the chain's tiebreaks in its order (rule
    III.E.5), and how to read a round cell."""
    if _is_2019(keys):
        return (
            "No: place in this table. Pts: points. WvT, the first tiebreak: matches won "
            "against the players on the same points (of players level on points, who beat "
            "more of the others ranks higher). MBH, the second: Median-Buchholz, the "
            "opponents' points without the highest and the lowest (rule III.E.5). " + _ROUNDS_LEGEND
        )
    tiebreaks = " ".join(
        f"{SWISS_TIEBREAK_COLUMNS[key][0]}: {SWISS_TIEBREAK_COLUMNS[key][1]}." for key in keys
    )
    order = " Ties on points are broken in that order." if keys else ""
    return f"No: place in this table. Pts: points. {tiebreaks}{order} {_ROUNDS_LEGEND}".replace(
        "  ", " "
    )


# --------------------------------------------------------------------------- /pairings


def _score(value: float) -> str:
    return f"{value:g}"


def _state(line: BoardLine) -> str:
    if line.player_b is None:
        return "bye" if line.points_a is None else f"bye (+{_score(line.points_a)})"
    score = f"**{_score(line.score_a)}–{_score(line.score_b)}**"
    if line.state == "forfeited":
        if line.forfeit_winner:
            return f"forfeit, won by {escape_markdown(line.forfeit_winner)}"
        return "forfeit, disregarded"
    if line.state == "finished":
        return score
    when = discord_time(line.agreed_time) if line.agreed_time else "time not agreed yet"
    if line.state == "in_progress":
        return f"playing, {score} · started {when}"
    return when


def _games(line: BoardLine, links: bool) -> str:
    if not line.games:
        return ""
    if not links:
        return f" · {len(line.games)} game(s)"
    return " · games " + " ".join(
        f"[{i}](<{GAME}{game}>)" for i, game in enumerate(line.games, start=1)
    )


def board_line(line: BoardLine, *, links: bool = True) -> str:
    a = escape_markdown(line.player_a)
    if line.player_b is None:
        return f"{line.board}. **{a}**: {_state(line)}"
    return (
        f"{line.board}. **{a}** vs **{escape_markdown(line.player_b)}** · {_state(line)}"
        f"{_games(line, links)}"
    )


def pairings_text(view: RoundPairings) -> str:
    """The round's boards, agreed times as Discord timestamps and the links to the counted
    games; under 2000 characters (the links, then boards, give way when it is too long)."""
    of = f" of {view.total_rounds}" if view.total_rounds else ""
    state = "finished" if view.finished else f"until {discord_time(view.deadline)}"
    head = f"**{view.stage} round {view.number}{of}** · {state}"
    for links in (True, False):
        lines = [head, *(board_line(b, links=links) for b in view.boards)]
        text = "\n".join(lines)
        if len(text) <= LIMIT:
            return text
    kept: list[str] = [head]
    for index, board in enumerate(view.boards):
        line = board_line(board, links=False)
        rest = len(view.boards) - index
        if len("\n".join([*kept, line])) + 60 > LIMIT:
            kept.append(f"… and {rest} more boards (see the round's pairings post).")
            break
        kept.append(line)
    return "\n".join(kept)


def stage_choices(fmt: Format) -> list[tuple[str, str]]:
    """/standings' and /pairings' stage choices: each stage of the format, then each pool of
    a stage with several ("upper": "Candidates · Upper pool"), as (key, name)."""
    out: list[tuple[str, str]] = []
    for stage in fmt.stages:
        out.append((stage.key, stage.name))
        pools = getattr(stage, "pools", ())
        if len(pools) > 1:
            out.extend((pool.key, f"{stage.name} · {pool.name}") for pool in pools)
    return out


# --------------------------------------------------------------------------- the bracket


def onward(winner: bool, stage: str) -> str:
    """Where a knock-out match's winner or loser goes: "Winner to the Candidates"."""
    return f"{'Winner' if winner else 'Loser'} to the {stage}"


def exit_label(stage: str) -> str:
    """The picture's arrow from a match to a stage outside the bracket: "to the Candidates"."""
    return f"to the {stage}"


def match_won(winner: str, armageddon: bool, forfeit: bool, place: int | None) -> str:
    """What a decided bracket match says: "Ann wins on Armageddon", "Cat wins: champion",
    "Eve wins by forfeit: 3rd place"."""
    how = " on Armageddon" if armageddon else " by forfeit" if forfeit else ""
    won = "champion" if place == 1 else f"{ordinal(place)} place" if place else ""
    return f"{winner} wins{how}" + (f": {won}" if won else "")


def names_together(names: Sequence[str]) -> str:
    """ "Grand Final & Third Place Playoff": the stages of one bracket column."""
    return " & ".join(names)


def bracket_title(names: Sequence[str], short_name: str) -> str:
    """ "Semifinals, Grand Final and Third Place Playoff · ACWC 2024"."""
    told = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return f"{told} · {short_name}"


def champion_line(name: str) -> str:
    return f"Champion: {name}"


def _slot(slot: Slot, markdown: bool) -> str:
    clean = escape_markdown if markdown else str
    if slot.player is None:
        return f"*{clean(slot.origin)}*" if markdown else f"[{slot.origin}]"
    name = clean(slot.player)
    if slot.won:
        name = f"**{name}**" if markdown else f"{name} (W)"
    return f"{name} ({clean(slot.origin)})" if slot.origin else name


def bracket_lines(bracket: Bracket, *, markdown: bool = True) -> list[str]:
    """The bracket in words, a line per match under each column's heading: the twin of the
    picture for screen readers and the terminal (`acwc standings`)."""
    clean = escape_markdown if markdown else str
    lines = [f"**{clean(bracket.title)}**" if markdown else bracket.title]
    for heading, column in zip(bracket.headings, bracket.columns, strict=True):
        lines.append(f"__{clean(heading)}__" if markdown else f"{heading}:")
        for match in column:
            a, b = match.slots
            between = f" {a.score}–{b.score} " if a.score or b.score else " v "
            line = f"{clean(match.name)}: {_slot(a, markdown)}{between}{_slot(b, markdown)}"
            notes = [clean(note) for note in match.notes]
            lines.append(" · ".join([line, *notes]) if markdown else "  ".join([line, *notes]))
    if bracket.champion:
        champion = champion_line(bracket.champion)
        lines.append(f"**{clean(champion)}**" if markdown else champion)
    return lines


def bracket_text(bracket: Bracket) -> str:
    """The bracket's twin as a Discord message (the picture's alt text, in effect): every
    match on one line, cut to Discord's 2,000 characters should names run long."""
    return fit("\n".join(bracket_lines(bracket)))
