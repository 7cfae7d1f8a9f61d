"""The bracket of the match stages as data: columns of matches, each with its two slots
(the player, or the seat they will come from, "Winner of Semifinal 1"; the pool place or
Swiss place a seat is; the score; the winner), what the match decided and where its
players go next. Drawn by `bracket_picture.py`, told in words by `text.bracket_text`.

Why from the format: which stages form a bracket, and what feeds what, is the entry rules'
(`winners`, `losers`, `pool_places`, `places` of `bot/format/model.py`), never a stage's
key: a knock-out and the final matches that draw on it (2021 on: Semifinals, then the
Grand Final and the Third Place Playoff), or the final matches that draw on one stage
together (2020: both finals from the pools), or one knock-out alone (2020: the Knock-Out,
its winners "to the Candidates"). A lone match (2019's Final) is no bracket: its
scoreboard says everything. Pure: the stored matches come in as plain `Played` values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.features.matches.text import seat_text
from bot.features.tables import text as wording
from bot.features.tables.builders import points
from bot.features.tables.kinds import match_places
from bot.features.tables.types import Bracket, BracketMatch, Played, Slot
from bot.format.bracket import Feeder, bracket_stages, columns_of, stage_matches
from bot.format.bracket import seats as bracket_seats
from bot.format.model import Format, Losers, Winners

__all__ = ["bracket_stages", "build_bracket"]  # which stages: bot.format.bracket


def _onward(fmt: Format, key: str, inside: Sequence[str]) -> tuple[list[str], list[str]]:
    """Where a match's winner and loser go next, by the later stages' entry rules: the
    notes ("Winner to the Candidates"), and the names of the stages outside the bracket
    (`inside`: its keys) that they go to."""
    notes, exits = [], []
    for stage in fmt.stages:
        for rule in stage.entry:
            if isinstance(rule, Winners | Losers) and rule.stage == key:
                notes.append(wording.onward(isinstance(rule, Winners), stage.name))
                if stage.key not in inside:
                    exits.append(wording.exit_label(stage.name))
    return notes, list(dict.fromkeys(exits))


# --------------------------------------------------------------------------- the bracket


def build_bracket(
    fmt: Format, key: str, played: Mapping[tuple[str, int], Played], short_name: str
) -> Bracket | None:
    """The bracket stage `key` belongs to (None: it belongs to none), filled from
    ``played``: the stored matches by (stage key, board), board N the stage's match N (a
    stage not started has none). A seat whose feeding match is decided shows its player
    before the next stage starts."""
    keys = bracket_stages(fmt, key)
    if not keys:
        return None
    depth = columns_of(fmt, keys)
    width = max(depth.values()) + 1
    where: dict[tuple[str, int], tuple[int, int]] = {}
    rows = [0] * width
    for k in keys:
        for index in range(len(stage_matches(fmt, k))):
            where[(k, index)] = (depth[k], rows[depth[k]])
            rows[depth[k]] += 1

    def result(k: str, index: int) -> Played | None:
        return played.get((k, index + 1))

    def known(feeder: Feeder | None) -> str | None:
        """The player a decided feeding match sends to the seat."""
        if feeder is None or (source := result(feeder[0], feeder[1])) is None:
            return None
        if source.winner is None:
            return None
        if feeder[2]:
            return source.winner
        return source.b if source.winner == source.a else source.a

    columns: list[list[BracketMatch]] = [[] for _ in range(width)]
    champion = None
    for k in keys:
        seats = [(seat_text(seat), seat.feeder) for seat in bracket_seats(fmt, k)]
        places = match_places(fmt, k)
        for index, (name, seat_a, seat_b) in enumerate(stage_matches(fmt, k)):
            match = result(k, index)
            slots = []
            for side, seat in enumerate((seat_a, seat_b)):
                origin, feeder = seats[seat - 1] if seat <= len(seats) else ("", None)
                player = (match.a if side == 0 else match.b) if match else known(feeder)
                score = ""
                if match and (match.score_a + match.score_b > 0 or match.winner):
                    score = points(match.score_a if side == 0 else match.score_b)
                slots.append(
                    Slot(
                        player,
                        origin,
                        score,
                        bool(match and player and match.winner == player),
                        where.get((feeder[0], feeder[1])) if feeder else None,
                        bool(feeder and not feeder[2]),
                    )
                )
            notes, exits = _onward(fmt, k, keys)
            if match and match.winner:
                place = places[0] if places else None
                won = wording.match_won(match.winner, match.armageddon, match.forfeit, place)
                notes.insert(0, won)
                if place == 1:
                    champion = match.winner
            columns[depth[k]].append(
                BracketMatch(name, (slots[0], slots[1]), tuple(notes), tuple(exits))
            )
    names = {k: fmt.stage(k).name for k in keys}
    return Bracket(
        wording.bracket_title([names[k] for k in keys], short_name),
        tuple(
            wording.names_together([names[k] for k in keys if depth[k] == d]) for d in range(width)
        ),
        tuple(tuple(column) for column in columns),
        champion,
    )
