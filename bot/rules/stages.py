"""What the rules text decides about stages and their rounds, over plain values: when a
stage's rounds fall and what follows a result (rule IV), which stage follows (rule III.B),
ranks shared after withdrawals, who is through a cut and who is tied across it (rule
III.E.4-5), what the Candidates table decides (rule III.F.3), who starts the Candidates
and the Final (rules III.C, III.D), and the ties the TD breaks.

The rounds service (`bot.features.rounds`) loads the tables and calls these; docs/RULES.md
maps each rule to its function.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Protocol

from bot.rules.candidates import CandidateStanding, winner_and_runner_up
from bot.rules.match import is_over
from bot.rules.tiebreaks import tied_across_cut


def round_window(first_start: datetime, round_days: int, number: int) -> tuple[datetime, datetime]:
    """Round ``number`` of the qualification runs from its Monday 00:00 UTC to the Sunday
    23:59:59 UTC ``round_days`` later (rule IV.A, IV.D): the rounds follow each other."""
    days = timedelta(days=round_days)
    starts_at = first_start + (number - 1) * days
    return starts_at, starts_at + days - timedelta(seconds=1)


def next_monday(after: datetime) -> datetime:
    """Monday 00:00 UTC after `after`: a round robin stage's next round, or the next stage,
    starts the Monday after a round deadline (Sunday 23:59:59; rule IV.B)."""
    day = (after + timedelta(seconds=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    if day < after:
        day += timedelta(days=1)
    return day + timedelta(days=(7 - day.weekday()) % 7)


def shared_ranks(rows: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Ranks again after some rows were dropped (withdrawn players do not take a place,
    rule VIII.A): 1, 2, 2, 4..."""
    out: list[tuple[str, int]] = []
    for index, (player, rank) in enumerate(rows):
        previous = out[-1] if out else None
        same = previous is not None and rows[index - 1][1] == rank
        out.append((player, previous[1] if same and previous else index + 1))
    return out


def cut(ranked: list[tuple[str, int]], places: int) -> tuple[list[str], list[str]]:
    """Who is in for sure, and who is tied across the last of ``places`` (empty when nobody
    is): the players tied across it play tiebreak matches (rule III.E.4-5)."""
    if len(ranked) <= places:
        return [p for p, _ in ranked], []
    last_in, first_out = ranked[places - 1][1], ranked[places][1]
    if last_in != first_out:
        return [p for p, _ in ranked[:places]], []
    return [p for p, r in ranked if r < last_in], [p for p, r in ranked if r == last_in]


def candidates_tie(ranked: list[tuple[str, int]]) -> tuple[list[str], list[str]]:
    """The Challenger and the runner-up as far as the table decides them, and the players
    tied for the first place still open (rule III.F.3; the runner-up matters for VIII.C)."""
    if not ranked:
        return [], []
    first = [p for p, r in ranked if r == ranked[0][1]]
    if len(first) > 1:
        return [], first
    if len(ranked) == 1:
        return first, []
    second = [p for p, r in ranked if r == ranked[1][1]]
    if len(second) > 1:
        return first, second
    return [first[0], second[0]], []


# --- which stage follows, and when the next round comes (rules III.B, IV.E) --------------

SWISS, TIEBREAK, CANDIDATES, FINAL = "swiss", "tiebreak", "candidates", "final"
ROUND_ROBIN = (TIEBREAK, CANDIDATES)


class RoundStep(StrEnum):
    """What follows a result of a round (rules 4.2, 4.5 / IV.B, IV.E)."""

    OPEN = "open"  # matches still without a result: the round stays open
    STAGE_OVER = "stage_over"  # the stage's last round is complete: the stage ends
    ROBIN_NEXT = "robin_next"  # a round robin's next round is published at once
    TD_PUBLISHES = "td_publishes"  # the Swiss waits for the TD (swiss.confirm_before_publish)
    PAIR_NEXT = "pair_next"  # the Swiss pairs the next round now, before its Monday


def after_result(
    stage: str, number: int, total_rounds: int, open_matches: int, *, confirm_before_publish: bool
) -> RoundStep:
    """Rule 4.5 (IV.E): the next pairings come on the next Monday, or as soon as every
    match of the round has finished; the last round of a stage ends it and the next stage
    follows (rule 3.2, III.B). A round robin's rounds follow each other (rule 4.2, IV.B).
    `stage` is a stage kind's value; the Final is one match, not played in rounds."""
    if stage == FINAL:
        raise ValueError("the Final is not played in rounds")
    if open_matches:
        return RoundStep.OPEN
    if number >= total_rounds:
        return RoundStep.STAGE_OVER
    if stage in ROUND_ROBIN:
        return RoundStep.ROBIN_NEXT
    return RoundStep.TD_PUBLISHES if confirm_before_publish else RoundStep.PAIR_NEXT


class MondayStep(StrEnum):
    """What the Monday after a Swiss round brings (rule 4.5, IV.E)."""

    NOTHING = "nothing"  # paired early, the stage over, not the Swiss, or the TD publishes
    WAIT_FOR_RESULTS = "wait_for_results"  # not paired on guesses: the TD is told
    PAIR = "pair"


def on_monday(
    stage: str,
    *,
    stage_running: bool,
    next_round_exists: bool,
    open_matches: int,
    confirm_before_publish: bool,
) -> MondayStep:
    """Rule 4.5 (IV.E): the Monday after a Swiss round its next round is published, unless
    it already is (all matches finished early), results are missing (a pairing on guesses
    could let two players meet again: the TD is told instead), or the TD publishes. Round
    robin rounds follow as results come in (rule 4.2, IV.B); the Final is one match."""
    if next_round_exists or not stage_running or stage != SWISS:
        return MondayStep.NOTHING
    if open_matches:
        return MondayStep.WAIT_FOR_RESULTS
    return MondayStep.NOTHING if confirm_before_publish else MondayStep.PAIR


def next_stage(finished: str, *, tie_across_cut: bool = False) -> str:
    """Rule 3.2 (III.B): three stages, Qualification (Swiss), Candidates (round robin),
    Final. A tie across the last qualifying place puts tiebreak matches between the Swiss
    and the Candidates (rule 3.5.5, III.E.5)."""
    if finished == SWISS:
        return TIEBREAK if tie_across_cut else CANDIDATES
    if finished == TIEBREAK:
        return CANDIDATES
    if finished == CANDIDATES:
        return FINAL
    raise ValueError(f"no stage follows {finished!r}")


# --- who plays the next stage (rules III.C, III.D, III.E.4-5, III.F.3) -------------------


class SwissPlace(Protocol):
    """A row of a Swiss table ranked by any chain (`bot.rules.swiss_table.Standing`, the
    2019 table; `bot.rules.tiebreaks.SwissRow`, a format's chain)."""

    @property
    def player(self) -> str: ...

    @property
    def rank(self) -> int: ...

    @property
    def withdrawn(self) -> bool: ...


@dataclass(frozen=True)
class _Place:
    player: str
    rank: int


def swiss_qualifiers(table: Sequence[SwissPlace], places: int) -> tuple[list[str], list[str]]:
    """Rule 3.5.4 (III.E.4): the best `places` of the Swiss go to the Candidates; players
    still tied across the last place after the stage's tiebreak chain (2019: both
    tiebreaks) play tiebreak matches or are the TD's (rule 3.5.5, III.E.5,
    :func:`bot.rules.tiebreaks.tied_across_cut`). Players who left take no place (rule 8.1,
    VIII.A). Returns (sure qualifiers best first, the tied group)."""
    ranks = shared_ranks([(row.player, row.rank) for row in table if not row.withdrawn])
    groups = tied_across_cut([_Place(player, rank) for player, rank in ranks], places)
    if not groups:
        return [player for player, _ in ranks[:places]], []
    tied = groups[0]
    rank = min(r for player, r in ranks if player in tied)
    return [player for player, r in ranks if r < rank], tied


@dataclass(frozen=True)
class TieState:
    """A tie the rules leave to the TD (rules 3.5.5, 3.6.3): who is decided, best first;
    who is still tied; how many places the tied still fill."""

    decided: list[str]
    tied: list[str]
    places: int

    @property
    def done(self) -> bool:
        return self.places == 0


def after_tiebreak(ranked: list[tuple[str, int]], places: int) -> TieState:
    """Rule 3.5.5 (III.E.5): the tiebreak matches' table (ranked like the Candidates)
    fills the `places` left; a tie across the last of them is the TD's."""
    won, tied = cut(ranked, places)
    return TieState(won, tied, 0 if not tied else places - len(won))


def candidates_outcome(table: Sequence[CandidateStanding], gone: Collection[str]) -> TieState:
    """Rule 3.6.3 (III.F.3): the Candidate with most points is the Challenger, the next
    the runner-up (kept for rule 8.3, VIII.C) (:func:`bot.rules.candidates.
    winner_and_runner_up`); players who left take no place (rule 8.2, VIII.B). A tie the
    table leaves for the first place still open is the TD's (one place)."""
    active = [row for row in table if row.player not in gone]
    ranks = shared_ranks([(row.player, row.rank) for row in active])
    reranked = [replace(row, rank=rank) for row, (_, rank) in zip(active, ranks, strict=True)]
    winner, runner_up = winner_and_runner_up(reranked)
    if winner is not None and (runner_up is not None or len(reranked) == 1):
        return TieState([winner] + ([runner_up] if runner_up else []), [], 0)
    decided, tied = candidates_tie(ranks)
    return TieState(decided, tied, 1 if tied else 0)


def break_tie(state: TieState, chosen: str, *, candidates: bool) -> TieState:
    """Rules 3.5.5 (III.E.5) and 3.6.3 (III.F.3): the TD picks `chosen` among the tied.
    In the Candidates the Challenger is picked first, then the runner-up from the rest;
    once as many remain as places are left, they fill them by themselves.
    ``ValueError`` when `chosen` is not tied."""
    if chosen not in state.tied:
        raise ValueError(f"{chosen!r} is not part of the tie")
    decided = [*state.decided, chosen]
    tied = [p for p in state.tied if p != chosen]
    places = state.places - 1
    if candidates and len(decided) < 2 and tied:
        places = 1  # the Challenger is chosen; the runner-up comes from the rest
    if places > 0 and len(tied) == places:
        return TieState(decided + tied, [], 0)
    return TieState(decided, tied if places > 0 else [], max(places, 0))


def candidates_field(qualified: Sequence[str], pre_seeded: Sequence[str]) -> list[str]:
    """Rule 3.4 (III.D): the previous runner-up goes straight to the Candidates, after the
    Swiss qualifiers (best first). `pre_seeded` are those still in (not withdrawn or
    disqualified)."""
    return [*qualified, *(p for p in pre_seeded if p not in qualified)]


@dataclass(frozen=True)
class FinalStart:
    """The two finalists as the Final starts: `first` takes the champion's side."""

    first: str
    second: str
    champion_replaced: bool  # the champion is out: the runner-up plays (rule 8.3.1, VIII.C.1)


def final_players(
    champion: str | None, challenger: str, runner_up: str | None
) -> FinalStart | None:
    """Rule 3.3 (III.C): the previous champion goes straight to the Final and meets the
    Candidates winner. A champion who is out (`None`: withdrawn, disqualified or none
    pre-seeded) is replaced by the Candidates runner-up (rule 8.3.1, VIII.C.1); without
    one the TD sets the Final up (None)."""
    if champion is not None:
        return FinalStart(champion, challenger, False)
    if runner_up is None:
        return None
    return FinalStart(runner_up, challenger, True)


def final_window(starts_at: datetime, final_days: int) -> tuple[datetime, datetime]:
    """Rule 4.3 (IV.C): the Final is played as the finalists see fit; its one round runs
    `final_days` from the Monday it starts (the TD hears if it is unfinished then)."""
    return starts_at, starts_at + timedelta(days=final_days) - timedelta(seconds=1)


class DeadlineStep(StrEnum):
    """What a round's deadline brings the TD (rules 4.3, 4.6 / IV.C, IV.F)."""

    NOTHING = "nothing"
    FINAL_UNFINISHED = "final_unfinished"  # the Final goes on as the finalists see fit
    OPEN_MATCHES = "open_matches"  # the TD decides each match still without a result


def at_deadline(stage: str, open_matches: int) -> DeadlineStep:
    """Rule 4.6 (IV.F): every match of a round ends by its Sunday, so the TD gets those
    still without a result; the Final has no fixed schedule (rule 4.3, IV.C), so the TD
    only hears that it is still unfinished."""
    if not open_matches:
        return DeadlineStep.NOTHING
    return DeadlineStep.FINAL_UNFINISHED if stage == FINAL else DeadlineStep.OPEN_MATCHES


class RoundOneBlock(StrEnum):
    """Why round 1 cannot be published yet (rule 4.4, IV.D)."""

    STARTED = "started"  # the qualification has started already
    REGISTRATION_OPEN = "registration_open"  # a later entrant could never be paired
    PENDING = "pending"  # registrations the TD has not decided


def round_one_block(
    *, started: bool, registration_open: bool, pending: int
) -> RoundOneBlock | None:
    """Rule 4.4 (IV.D): round 1 is published (before its Monday) from a final field: once,
    with registration closed and every registration decided. None when it may be."""
    if started:
        return RoundOneBlock.STARTED
    if registration_open:
        return RoundOneBlock.REGISTRATION_OPEN
    return RoundOneBlock.PENDING if pending else None


def robin_ranking(
    table: Sequence[CandidateStanding], gone: Collection[str]
) -> list[tuple[str, int]]:
    """Rule 3.6.3 (III.F.3): a round robin's table (match points, then game points, then
    the matches among the tied: :func:`bot.rules.candidates.standings`) as ranks, without
    the players who left (rules 8.1, 8.2); a tie that remains shares a rank."""
    return shared_ranks([(row.player, row.rank) for row in table if row.player not in gone])


def settle_absent(stage: str, a: str, b: str, gone: Collection[str]) -> tuple[bool, str | None]:
    """Rule 8.2 (VIII.B): a player who left plays no more. A new match of theirs is settled
    at once (True): in the Candidates it is disregarded (no winner), in tiebreak matches it
    goes to the opponent who stayed. (False, None) when both players are in."""
    absent = {a, b} & set(gone)
    if not absent:
        return False, None
    if stage == TIEBREAK and len(absent) == 1:
        return True, b if a in absent else a
    return True, None


@dataclass(frozen=True)
class ScoreProblem:
    """Why a score the TD records cannot stand: `what` is "game_by_game" (a final match is
    read game by game), "points" (`value` is not a side's possible score), "impossible" (`detail`
    says why) or "unfinished" (the match goes on; `early_stop` says how it ends)."""

    what: str
    value: float = 0.0
    detail: str = ""
    early_stop: bool = False


def td_score_problem(
    stage: str,
    score_a: float,
    score_b: float,
    *,
    games: int,
    tiebreak_players: int,
    candidates_early_stop: bool,
) -> ScoreProblem | None:
    """Rule 1.3 (I.C): the TD's decision is final, but a recorded score must end the match
    by its stage's rules: 0 to `games` game points a side, in halves; a Swiss match or a
    two-player tiebreak may stop once a side has more than half (rule 3.5.1, III.E.1),
    Candidates matches are played out (rule 3.6.2, III.F.2). None when it stands."""
    if stage == FINAL:
        return ScoreProblem("game_by_game")
    for value in (score_a, score_b):
        # compared before any arithmetic, so 1e308 or NaN is refused, not overflowed
        if not (0 <= value <= games and float(value * 2).is_integer()):
            return ScoreProblem("points", value=value)
    early_stop = (
        stage == SWISS
        or (stage == TIEBREAK and tiebreak_players == 2)
        or (stage == CANDIDATES and candidates_early_stop)
    )
    try:
        finished = is_over(score_a, score_b, games=games, early_stop=early_stop)
    except ValueError as exc:
        return ScoreProblem("impossible", detail=str(exc))
    return None if finished else ScoreProblem("unfinished", early_stop=early_stop)


def pool_tie(
    ranked: Sequence[tuple[str, int]], moving: Collection[int], fixed: Sequence[str] = ()
) -> TieState:
    """A pool's order once its tiebreak chain has ranked it (2020-2024: the places that
    move on must be one player's each): `ranked` is (player, shared rank) best first,
    `moving` the places later stages take, `fixed` the order the TD already gave. Done
    (``places`` 0) with the whole order in ``decided``; otherwise ``decided`` is the order
    above the first tie that spans a place moving on, ``tied`` that group and ``places``
    how many of its places the TD fills (the last is left to the rest)."""
    rank = dict(ranked)
    order = [*fixed, *(p for p, _ in ranked if p not in fixed)]
    last = max(moving, default=0)
    index = len(fixed)
    while index < min(len(order), last):
        group = [p for p in order[index:] if rank[p] == rank[order[index]]]
        span = range(index + 1, index + len(group) + 1)
        if len(group) > 1 and any(place in span for place in moving):
            return TieState(order[:index], group, min(len(group) - 1, last - index))
        index += len(group)
    return TieState(order, [], 0)
