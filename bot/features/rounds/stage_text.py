"""Wording of the stage transitions: who qualifies from the Swiss, the Candidates table for
the TD's tie question."""

from __future__ import annotations

from collections.abc import Sequence

from bot.features.matches.text import SWISS_TIEBREAK_COLUMNS
from bot.rules.candidates import CandidateStanding
from bot.rules.stages import SwissPlace
from bot.rules.tiebreaks import SwissTiebreak


def _after(chain: int) -> str:
    """The tiebreaks a tie across the cut survived (2019: "both tiebreaks")."""
    if chain == 2:
        return "after both tiebreaks"
    return "after every tiebreak" if chain else "on points"


def qualification_lines(
    rows: list[tuple[str, SwissPlace]],
    places: int,
    sure: list[str],
    tied: list[str],
    *,
    chain: int = 2,
    matches: bool = True,
    goes_to: list[str] | None = None,
    separated_by: Sequence[SwissTiebreak] = (),
) -> list[str]:
    """Who qualifies, and a tie across the last place if there is one; ``separated_by``:
    the tiebreaks that ordered equal points among those places, explained in a line (the
    table's columns alone left "wins against tied players" unexplained). ``chain`` is how
    many tiebreaks the stage has, ``matches`` whether the tied play tiebreak matches
    (rule III.E.5) or the TD breaks the tie, ``goes_to`` the stage each place goes to (the
    Candidates by default; 2020: places 5-12 to the Knock-Out). The final table itself (the
    chain's columns) is the standings post of the last round, just before this one in the
    same channel: one table per post, never the same table twice."""
    lines = ["🏁 **The qualification is over**; its final table is just above."]
    by_id = {row.player: name for name, row in rows}
    place = {row.player: row.rank for _, row in rows}
    stage_of = _destination(sure, goes_to)
    if tied:
        for stage, players in _grouped(sure, stage_of):
            lines.append(
                f"Qualified for the {stage}: "
                + ", ".join(f"{by_id[p]} ({_ordinal(place[p])})" for p in players)
                + "."
            )
        then = (
            f"They play 10-game tiebreak matches for {places - len(sure)} place(s) (rule III.E.5)."
            if matches
            else f"The TD decides who takes the {places - len(sure)} place(s) left."
        )
        lines.append(
            f"⚖️ Tied across place {places} {_after(chain)}: "
            + ", ".join(by_id[p] for p in tied)
            + ". "
            + then
        )
    else:
        for stage, players in _grouped(sure, stage_of):
            lines.append(
                f"Qualified for the {stage}: " + ", ".join(by_id[p] for p in players) + "."
            )
    if separated_by:
        lines.append(
            "Equal points were put in order by "
            + "; then ".join(
                f"{SWISS_TIEBREAK_COLUMNS[key][0]} ({SWISS_TIEBREAK_COLUMNS[key][1]})"
                for key in separated_by
            )
            + "."
        )
    return lines


def _destination(sure: list[str], goes_to: list[str] | None) -> dict[str, str]:
    """Each sure qualifier's next stage, by their place among the qualifiers."""
    stages = goes_to or []
    return {
        player: (stages[i] if i < len(stages) and stages[i] else "Candidates")
        for i, player in enumerate(sure)
    }


def _grouped(sure: list[str], stage_of: dict[str, str]) -> list[tuple[str, list[str]]]:
    """The qualifiers by next stage, in the order the stages first come."""
    groups: dict[str, list[str]] = {}
    for player in sure:
        groups.setdefault(stage_of[player], []).append(player)
    return list(groups.items())


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def candidates_lines(table: list[CandidateStanding], names: dict[str, str]) -> list[str]:
    """The final Candidates table, match points then game points (rule III.F.3), for the TD
    who breaks a tie (the announcement channel has the crosstable already)."""
    lines = ["🏁 **The Candidates are over.** Final table (match points · game points):"]
    for row in table:
        lines.append(f"{row.rank}. {names[row.player]} · {row.points:g} · {row.game_points:g}")
    return lines


# --- the stages after 2019's: pools, knock-outs, final matches --------------------------


def _names(names: list[str]) -> str:
    return ", ".join(f"**{n}**" for n in names)


def pools_start(stage: str, pools: list[tuple[str, list[str]]]) -> str:
    """A round robin stage of several pools starts: each pool and its players."""
    lines = [f"🏆 **{stage}** starts: a round robin in each pool."]
    lines += [f"**{pool}** ({len(names)} players): {_names(names)}" for pool, names in pools]
    return "\n".join(lines)


def pool_places(pool: str, names: list[str]) -> str:
    """A pool is over: its places, best first."""
    places = ", ".join(f"{i}. **{n}**" for i, n in enumerate(names, start=1))
    return f"🏁 **{pool}** is over. Places: {places}."


def pool_tie_question(pool: str, tied: list[str], place: int) -> str:
    """To the TD: a pool's tiebreak chain leaves a tie on a place that moves on."""
    return (
        f"⚖️ {pool} ends with a tie its tiebreaks leave to you: {', '.join(tied)}. "
        f"Press who takes place {place}."
    )


def knockout_start(stage: str, matches: list[tuple[str, str, str]], how: str) -> str:
    """A knock-out starts: each match by its name, the first named is side a, and how
    each match is played (`bot.features.matches.text.match_format_text`)."""
    lines = [f"🏆 **{stage}** starts:"]
    lines += [f"{name}: **{a}** vs **{b}**" for name, a, b in matches]
    lines.append(how)
    return "\n".join(lines)


def knockout_winners(stage: str, matches: list[tuple[str, str, str]]) -> str:
    """A knock-out is over: each match's winner."""
    lines = [f"🏁 **{stage}** is over."]
    lines += [f"{name}: **{winner}** beat {loser}" for name, winner, loser in matches]
    return "\n".join(lines)


def knockout_undecided(match: str) -> str:
    """To the TD: a knock-out match finished without a winner."""
    return f"{match} finished without a winner: record the decided score (/td round set-score)."


def final_match_start(stage: str, a: str, b: str, *, how: str) -> str:
    """A final match other than 2019's Final starts, with how it is played."""
    return f"🏆 **{stage}**: **{a}** vs **{b}**. {how}"


def place_decided(stage: str, place: int, winner: str, result: str) -> str:
    """A final match for lower places is decided (the Third Place Playoff); `result` from
    `bot.features.rounds.text.match_result`."""
    return f"🥉 **{winner}** takes place {place}! {stage}: {result}."


def stage_cannot_start(stage: str) -> str:
    """To the TD: the players a stage takes cannot be found (too many left)."""
    return f"{stage} cannot start: too few players are left for it. Set it up by hand."


# --- a player leaving a knock-out or a final match under way --------------------------------


def left_how(disqualified: bool) -> str:
    """How a player left, as the messages below say it."""
    return "was disqualified" if disqualified else "withdrew"


def stage_reseated(stage: str, left: str, how: str, matches: list[tuple[str, str, str]]) -> str:
    """Public: a knock-out or final match changes because a player left (the withdrawals
    rules: the players below them move up); each new match, the first named is side a."""
    lines = [f"🔁 **{stage}** changes: **{left}** {how}, and the players below move up."]
    lines += [f"{name}: **{a}** vs **{b}**" for name, a, b in matches]
    return "\n".join(lines)


def moved_up_dm(stage: str, left: str, how: str, match: str, opponent: str) -> str:
    """To a player who moves up into a stage under way in the place of one who left."""
    return (
        f"⬆️ **{left}** {how}, and you move up into the **{stage}**: you play {match} "
        f"against **{opponent}**. Your match's thread has what comes next."
    )


def stage_reseated_td(
    stage: str, left: str, how: str, voided: list[str], matches: list[tuple[str, str, str]]
) -> str:
    """To the TD: what the withdrawals rule changed in a stage under way; `voided`: each
    voided match by its place and players (no row id: issue 32)."""
    void = "; ".join(voided) or "none"
    new = "; ".join(f"{name}: {a} vs {b}" for name, a, b in matches)
    return (
        f"{left} {how}: the {stage} were re-seated, the players below moving up (the "
        f"withdrawals rules). Voided (no winner): {void}. New: {new}."
    )


def knockout_forfeit_dm(left: str, how: str, match: str) -> str:
    """To the opponent of a player who left a knock-out match under way; `match`: its name
    ("Semifinal 1"), which tells it (no row id: issue 32)."""
    return f"**{left}** {how}: you win {match} by forfeit, as the match was under way, and go on."


def knockout_forfeit_td(left: str, how: str, matches: list[tuple[str, str]]) -> str:
    """To the TD: a knock-out match under way given to the opponent (the rules are silent;
    as a Qualification match, rule VIII.A.1)."""
    won = "; ".join(f"{name}: {winner} wins by forfeit" for name, winner in matches)
    return (
        f"{left} {how} with their knock-out match under way (a game played, or a match a "
        "re-seating would change already under way): the opponent wins it, as a "
        f"Qualification match (rule VIII.A.1); the rules are silent here. {won}."
    )


def stage_not_reseated(stage: str, left: str, how: str) -> str:
    """To the TD: nobody is left to move up into the place of the one who left."""
    return (
        f"{left} {how} and nobody is left to move up into their place in the {stage}: "
        "set its match up by hand."
    )
