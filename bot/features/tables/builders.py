"""Tables from plain data: the Swiss standings, the Candidates crosstable, the Final.

Pure functions: the numbers come from the rules (`bot.rules.tiebreaks.swiss_ranking` by the
format's chain, `bot.rules.candidates.standings`, `bot.rules.final`), never recomputed here;
this module only lays them out. Every cell is plain ASCII, so the picture's font has every
glyph and the text version lines up in any monospace font.

Rows are numbered by their line in the table ("No"); where the rules leave players equal on
everything (a shared rank), the footnote says so. A Swiss round cell names the opponent by
that number, with the match result from the row player's side: ``+3`` won against #3,
``=5`` drawn, ``-2`` lost, an ``f`` after it by forfeit, a bare ``4`` still to be played.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from bot.features.tables import text as wording
from bot.features.tables.types import Align, FinalGame, SwissPairing, Table
from bot.rules import candidates, final, final_schemes
from bot.rules import stages as stage_rules
from bot.rules import swiss_table as swiss_rules
from bot.rules.tiebreaks import SWISS_CHAIN_2019, SwissRow, SwissTiebreak, swiss_ranking

__all__ = [
    "candidates_table",
    "final_blocks",
    "final_table",
    "final_time_controls",
    "swiss_table",
]

ARMAGEDDON = "Armageddon"
RIGHT: Align = "right"
WITHDRAWN = " (wd)"


def points(value: float) -> str:
    """1, 2.5, 0: no trailing zeros, ASCII (the picture's font has no ½)."""
    return f"{value:g}"


def _shared_ranks(ranks: Sequence[int]) -> str:
    """ " Shared ranks (equal on every tiebreak): No 1-11, 12-13." or "": each group of rows
    with one rank as a range of lines (the table is in rank order, so they follow each
    other), short enough that the legend always fits in the message whole."""
    groups: dict[int, list[int]] = {}
    for position, rank in enumerate(ranks, start=1):
        groups.setdefault(rank, []).append(position)
    tied = [f"{group[0]}-{group[-1]}" for group in groups.values() if len(group) > 1]
    return f" Shared ranks (equal on every tiebreak): No {', '.join(tied)}." if tied else ""


def _through(ranks: Sequence[tuple[str, int]], places: int) -> set[str]:
    """Who is in the top ``places`` for sure: a tie across the last place marks nobody of
    it (after round 1, eleven players sharing first place are not all "in the top 3")."""
    if places <= 0:
        return set()
    return set(stage_rules.cut(stage_rules.shared_ranks(list(ranks)), places)[0])


# --------------------------------------------------------------------------- the Swiss


def _sign(mine: float, theirs: float) -> str:
    if mine > theirs:
        return "+"
    if mine < theirs or mine == 0:  # 0-0: both lost (a double forfeit)
        return "-"
    return "="


def _rounds_results(pairings: Sequence[SwissPairing]) -> list[list[swiss_rules.Result]]:
    """The decided boards (and every bye) round by round, round 1 first."""
    last = max((p.round for p in pairings), default=0)
    by_round: list[list[swiss_rules.Result]] = [[] for _ in range(last)]
    for p in pairings:
        if p.points_a is not None or p.b is None:
            by_round[p.round - 1].append((p.a, p.b, p.points_a or 0.0, p.points_b or 0.0))
    return by_round


def _ranked(
    seeding: Sequence[str],
    pairings: Sequence[SwissPairing],
    keys: tuple[SwissTiebreak, ...],
    withdrawn: Collection[str],
    short_median_buchholz: str,
    bye_points: float,
) -> list[SwissRow]:
    """The rows by the chain. The 2019 chain is `bot.rules.swiss_table.standings` itself
    (which `swiss_ranking` equals on it), read from the boards as they come."""
    if keys != SWISS_CHAIN_2019:
        return swiss_ranking(
            seeding,
            _rounds_results(pairings),
            keys,
            bye_points=bye_points,
            short_median_buchholz=short_median_buchholz,
            withdrawn=withdrawn,
        )
    results = [r for round_results in _rounds_results(pairings) for r in round_results]
    return [
        SwissRow(
            player=row.player,
            points=row.points,
            tiebreaks=(
                (SwissTiebreak.WINS_AGAINST_TIED, float(row.wins_vs_tied)),
                (SwissTiebreak.MEDIAN_BUCHHOLZ, row.median_buchholz),
            ),
            rank=row.rank,
            seed=row.seed,
            withdrawn=row.withdrawn,
        )
        for row in swiss_rules.standings(
            seeding, results, withdrawn=withdrawn, short_median_buchholz=short_median_buchholz
        )
    ]


def _tiebreak_cell(key: SwissTiebreak, row: SwissRow) -> str:
    value = row.value(key)
    whole = key in (SwissTiebreak.WINS_AGAINST_TIED, SwissTiebreak.SEED)
    return str(int(value)) if whole else points(value)


def swiss_table(
    seeding: Sequence[str],
    pairings: Sequence[SwissPairing],
    *,
    names: Mapping[str, str] | None = None,
    withdrawn: Collection[str] = (),
    rounds: int | None = None,
    qualifiers: int = 0,
    title: str = "Qualification standings",
    short_median_buchholz: str = "sum",
    chain: Sequence[str] = SWISS_CHAIN_2019,
    bye_points: float = 1.0,
) -> Table:
    """The Swiss table: #, player, points, the chain's tiebreaks, then R1..Rn.

    ``seeding`` are the player keys best seed first, ``pairings`` every board of the rounds
    so far, ``names`` the display name of each key (default: the key). The rows and their
    numbers are `bot.rules.tiebreaks.swiss_ranking` by the stage's tiebreak ``chain`` over
    the decided boards (2019: wins against tied players, then Median-Buchholz, shown as
    "WvT" and "MBH"; any other chain: one column per key, named in words). ``rounds`` is the
    number of round columns (default: the last round in ``pairings``). The rows ranked in
    the top ``qualifiers`` (withdrawn players left out) are highlighted.
    """
    shown = names or {}
    keys = tuple(SwissTiebreak(key) for key in chain)
    table = _ranked(seeding, pairings, keys, withdrawn, short_median_buchholz, bye_points)
    place = {row.player: position for position, row in enumerate(table, start=1)}
    columns = rounds if rounds is not None else max((p.round for p in pairings), default=0)
    cells: dict[tuple[str, int], str] = {}
    for p in pairings:
        if p.round > columns:
            continue
        if p.b is None:
            cells[(p.a, p.round)] = "bye"
            continue
        forfeit = "f" if p.forfeit else ""
        if p.points_a is None:
            cells[(p.a, p.round)], cells[(p.b, p.round)] = str(place[p.b]), str(place[p.a])
            continue
        pa, pb = p.points_a, p.points_b or 0.0
        cells[(p.a, p.round)] = f"{_sign(pa, pb)}{place[p.b]}{forfeit}"
        cells[(p.b, p.round)] = f"{_sign(pb, pa)}{place[p.a]}{forfeit}"
    rows = tuple(
        (
            str(position),
            shown.get(row.player, row.player) + (WITHDRAWN if row.withdrawn else ""),
            points(row.points),
            *(_tiebreak_cell(key, row) for key in keys),
            *(cells.get((row.player, r), "") for r in range(1, columns + 1)),
        )
        for position, row in enumerate(table, start=1)
    )
    footnote = (
        wording.swiss_legend(keys)
        + (" (wd): withdrawn or disqualified." if any(r.withdrawn for r in table) else "")
        + _shared_ranks([r.rank for r in table])
    )
    align: tuple[Align, ...] = ("right", "left", "right", *((RIGHT,) * len(keys)))
    through = _through([(r.player, r.rank) for r in table if not r.withdrawn], qualifiers)
    return Table(
        title=title,
        headers=(
            "No",
            "Player",
            "Pts",
            *wording.swiss_tiebreak_headers(keys),
            *(f"R{r}" for r in range(1, columns + 1)),
        ),
        rows=rows,
        align=align + (RIGHT,) * columns,
        highlight=tuple(r.player in through for r in table) if qualifiers else (),
        highlight_label=f"in the top {qualifiers}" if qualifiers else "",
        footnote=footnote,
    )


# --------------------------------------------------------------------------- the Candidates


def candidates_table(
    names: Sequence[str],
    results: Sequence[tuple[str, str, float, float]],
    *,
    title: str = "Candidates",
    withdrawn: Collection[str] = (),
    places: int = 1,
) -> Table:
    """The Candidates crosstable (rule III.F): rows and columns the players in rank order.

    ``names`` are the players in seeding order; ``results`` the finished matches as
    ``(a, b, games_a, games_b)`` (a disregarded match is simply absent). The order, match
    points and game points are `bot.rules.candidates.standings`. A cell holds the game
    points of the row player against the column player ("x" on the diagonal, empty while
    unplayed); then MP (match points) and GP (game points). The rows ranked in the top
    ``places`` are highlighted (0: none). Also the table of the Swiss tiebreak matches.
    """
    table = candidates.standings(names, results)
    order = [row.player for row in table]
    against: dict[tuple[str, str], float] = {}
    for a, b, games_a, games_b in results:
        against[(a, b)], against[(b, a)] = games_a, games_b
    gone = set(withdrawn)
    rows = []
    for position, row in enumerate(table, start=1):
        crossed = [
            "x"
            if other == row.player
            else points(against[(row.player, other)])
            if (row.player, other) in against
            else ""
            for other in order
        ]
        name = row.player + (WITHDRAWN if row.player in gone else "")
        rows.append((str(position), name, *crossed, points(row.points), points(row.game_points)))
    footnote = (
        "No: place in this table. Each cell: the row player's game points against that "
        "column's No. MP: match points. "
        "GP: game points (rule III.F.3)."
        + (" (wd): withdrawn or disqualified." if gone & set(order) else "")
        + _shared_ranks([r.rank for r in table])
    )
    n = len(order)
    align: tuple[Align, ...] = ("right", "left", *((RIGHT,) * (n + 2)))
    through = _through([(r.player, r.rank) for r in table if r.player not in gone], places)
    return Table(
        title=title,
        headers=("No", "Player", *(str(i) for i in range(1, n + 1)), "MP", "GP"),
        rows=tuple(rows),
        align=align,
        highlight=tuple(r.player in through for r in table) if places else (),
        highlight_label=("first place" if places == 1 else f"in the top {places}")
        if places
        else "",
        footnote=footnote,
    )


# --------------------------------------------------------------------------- the Final


def final_time_controls(results_a: Sequence[float], rules: final.FinalFormat) -> list[str]:
    """The time control each game was played at: what `bot.rules.final_schemes.status` said
    was next before it ("2+5", "2+0", or "Armageddon") under the edition's Final ``rules``
    (any scheme). A game after the decision keeps the control of the game before it."""
    controls: list[str] = []
    for index in range(len(results_a)):
        try:
            upcoming = final_schemes.status(results_a[:index], rules).next_game
        except ValueError:
            upcoming = None
        if upcoming is None:
            upcoming = controls[-1] if controls else rules.time_control
        controls.append(ARMAGEDDON if upcoming == final.ARMAGEDDON else upcoming)
    return controls


def final_blocks(
    results_a: Sequence[float], rules: final.FinalFormat
) -> list[tuple[str, int, int, float, float]]:
    """The blocks of a later scheme's Final once one was tied: (the block's kind, as
    `bot.rules.final_schemes.blocks` names it, first game, last game played, a's score,
    b's score) for the games before the Armageddon; empty for ``lead_by_two`` (its running
    score tells it) and a match still in its first block."""
    games = list(results_a[: final_schemes.armageddon_point(rules)])
    if rules.scheme is final.FinalScheme.LEAD_BY_TWO or len(games) <= rules.base_games:
        return []
    out = []
    for block in final_schemes.blocks(rules, len(games)):
        inside = games[block.first - 1 : block.last]
        a = sum(inside)
        out.append((block.kind, block.first, block.first + len(inside) - 1, a, len(inside) - a))
    return out


def deciding_games(played: int, rules: final.FinalFormat) -> int:
    """How many of a match's last games decided it, for a table that must never hide
    them: the games of its last block, with the Armageddon the block before it too."""
    reached = final_schemes.blocks(rules, played)
    if not reached:
        return 0
    last = reached[-2:] if reached[-1].kind == final.ARMAGEDDON else reached[-1:]
    return played - last[0].first + 1


def _game_result(white_result: float) -> str:
    if white_result == 1:
        return "1-0"
    if white_result == 0:
        return "0-1"
    return "1/2-1/2"


def final_table(
    a: str,
    b: str,
    games: Sequence[FinalGame],
    *,
    title: str | None = None,
    winner: str | None = None,
    blocks: str = "",
    keep_last: int = 0,
) -> Table:
    """The Final game by game: number, time control, White, Black, result, running score.

    ``a`` and ``b`` are the two players (the score reads a-b; ``result_a`` of each game is
    from ``a``'s side), ``games`` the counted games in order. An Armageddon game decides the
    match but adds nothing to the score (rule III.G.6); the footnote says who won it (a
    draw is Black's, `bot.rules.final.armageddon_winner`). The last row is the total;
    ``winner``, when given, is named in the footnote.
    """
    score_a = score_b = 0.0
    rows: list[tuple[str, ...]] = []
    notes: list[str] = []
    for game in games:
        if {game.white, game.black} != {a, b}:
            raise ValueError(f"game {game.number} is not between {a} and {b}")
        white_result = game.result_a if game.white == a else 1.0 - game.result_a
        if game.time_control == ARMAGEDDON:
            side = final.CHAMPION if game.white == a else final.CHALLENGER
            won = final.armageddon_winner(side, white_result)
            notes.append(
                f" Armageddon: {a if won == final.CHAMPION else b} wins it "
                "(a draw is a win for Black)."
            )
        else:
            score_a += game.result_a
            score_b += 1.0 - game.result_a
        rows.append(
            (
                str(game.number),
                game.time_control,
                game.white,
                game.black,
                _game_result(white_result),
                f"{points(score_a)}-{points(score_b)}",
            )
        )
    rows.append(("", "", "", "", "Total", f"{points(score_a)}-{points(score_b)}"))
    footnote = (
        f"Score: {a} first. TC: time control."
        + "".join(notes)
        + blocks
        + (f" {winner} wins the Final." if winner else "")
    )
    return Table(
        title=title or f"Final: {a} vs {b}",
        headers=("Game", "TC", "White", "Black", "Result", "Score"),
        rows=tuple(rows),
        align=("right", "left", "left", "left", "right", "right"),
        total_rows=1,
        footnote=footnote,
        keep_last=keep_last,
    )


# --------------------------------------------------------------------------- a knock-out


def knockout_table(
    matches: Sequence[tuple[str, str, str | None, float, float, str | None]],
    *,
    title: str,
) -> Table:
    """A knock-out stage as its matches: each ``(name, a, b, score_a, score_b, winner)``,
    in board order ("Semifinal 1: A v B 5½-3½, A"); the winner is empty while the match is
    undecided, and the winners' rows are highlighted."""
    rows = tuple(
        (name, a, b or "", f"{points(score_a)}–{points(score_b)}", winner or "")
        for name, a, b, score_a, score_b, winner in matches
    )
    decided = any(winner for *_, winner in matches)
    return Table(
        title=title,
        headers=("Match", "Player", "Player", "Score", "Winner"),
        rows=rows,
        align=("left", "left", "left", RIGHT, "left"),
        highlight=tuple(bool(winner) for *_, winner in matches) if decided else (),
        highlight_label="decided" if decided else "",
        footnote="Score: game points. Winner: who goes on (empty: still to be decided).",
    )
