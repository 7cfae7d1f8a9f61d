"""The table of each stage from a snapshot: the Swiss (rule III.E.5), the tiebreak matches
and the Candidates (rule III.F.3), and the Final game by game.

Each table is computed as the rounds feature computes it: the Swiss with
`bot.rules.tiebreaks.swiss_ranking` by the format's tiebreak chain over the decided matches
of the stage's seeding, round by round; a round robin
stage with `bot.rules.candidates.standings` over its decided matches, where a match
forfeited without a winner (rule VIII.B: disregarded) counts for nobody.
"""

from __future__ import annotations

from dataclasses import replace

from bot import stage_kinds
from bot.config import Config
from bot.features.console.snapshot import Snapshot
from bot.features.console.types import FinalGame, StageTable, StandingRow
from bot.features.discipline.common import robin_match_result
from bot.features.matches.text import game_link
from bot.format.swiss import swiss_stage
from bot.rules import candidates, swiss
from bot.rules.tiebreaks import SwissTiebreak, swiss_ranking
from db.models import Match, MatchState, Player, RoundState, Stage, StageState

DECIDED = (MatchState.FINISHED, MatchState.FORFEITED, MatchState.BYE)
WINS, MEDIAN_BUCHHOLZ = SwissTiebreak.WINS_AGAINST_TIED, SwissTiebreak.MEDIAN_BUCHHOLZ
# The Swiss tiebreaks a row has a field of its own for (the 2019 chain's).
COLUMNS_2019 = (WINS, MEDIAN_BUCHHOLZ)


def stage_tables(snapshot: Snapshot, config: Config) -> list[StageTable]:
    """Every stage of the format in order, started or not: one table per row (each pool of a
    round robin, in the format's pool order), the Swiss's tiebreak matches after it when
    there are some."""
    out: list[StageTable] = []
    for stage in config.format.stages:
        pools = {pool.key: n for n, pool in enumerate(getattr(stage, "pools", ()))}
        rows = sorted(
            (s for s in snapshot.stages if s.key == stage.key),
            key=lambda s: pools.get(s.pool, 0),
        )
        rows += [
            s
            for s in snapshot.stages
            if stage_kinds.is_tiebreak_matches(s) and s.key.startswith(stage.key + "_")
        ]
        if not rows:
            out.append(StageTable(stage.key, "not_started"))
        out.extend(row_table(snapshot, config, row) for row in rows)
    return out


def row_label(config: Config, stage: Stage) -> str:
    """How the export names a row: the Swiss and its tiebreak matches by their 2019 words,
    a pool of several by its key ("upper"), any other row by its stage's key."""
    if stage_kinds.is_qualification(config.format, stage):
        return stage.kind.value
    if stage.pool and len(getattr(config.format.stage(stage.key), "pools", ())) > 1:
        return stage.pool
    return stage.key


def row_table(snapshot: Snapshot, config: Config, stage: Stage) -> StageTable:
    """One stage row's table (one pool of a round robin, a Grand Final, ...)."""
    kind = row_label(config, stage)
    rounds = snapshot.rounds_of(stage)
    played = sum(1 for r in rounds if r.state is RoundState.FINISHED)
    head = StageTable(kind, stage.state.value, played, stage.total_rounds)
    if stage.state is StageState.PLANNED:
        return head
    fmt = config.format
    if stage_kinds.is_tiebreak_matches(stage) or stage_kinds.is_robin(fmt, stage):
        return replace(head, rows=_robin(snapshot, stage, config))
    if stage_kinds.is_qualification(fmt, stage):
        return replace(head, rows=_swiss(snapshot, stage, config))
    if not stage_kinds.is_final_match(fmt, stage):
        return head  # a knock-out: its matches say who won
    return _final(snapshot, stage, head)


def _seeded(snapshot: Snapshot, stage: Stage) -> list[Player]:
    """The stage's players: its seeding, or (a stage set up by hand) those its matches name."""
    by_id = snapshot.players_by_id
    ids = [pid for pid in stage.seeding if pid in by_id]
    if not ids:
        for match in snapshot.matches_of(stage):
            for pid in (match.player_a_id, match.player_b_id):
                if pid is not None and pid not in ids:
                    ids.append(pid)
    return [by_id[pid] for pid in ids]


def _gone(player: Player) -> bool:
    return player.withdrawn_at is not None or player.disqualified_at is not None


def _swiss(snapshot: Snapshot, stage: Stage, config: Config) -> list[StandingRow]:
    """The Swiss ranked by the format's tiebreak chain (rule III.E.5)."""
    players = _seeded(snapshot, stage)
    by_id = snapshot.players_by_id
    number = {r.id: r.number for r in snapshot.rounds_of(stage)}
    by_round: list[list[swiss.Result]] = [[] for _ in range(max(number.values(), default=0))]
    for m in snapshot.matches_of(stage):
        if m.state not in DECIDED:
            continue
        b = by_id[m.player_b_id].lichess_id if m.player_b_id else None
        by_round[number[m.round_id] - 1].append(
            (by_id[m.player_a_id].lichess_id, b, m.points_a or 0.0, m.points_b or 0.0)
        )
    withdrawn = {p.lichess_id for p in players if _gone(p)}
    settings = swiss_stage(config.format)
    table = swiss_ranking(
        [p.lichess_id for p in players],
        by_round,
        settings.tiebreaks,
        bye_points=settings.bye_points,
        short_median_buchholz=config.swiss.short_median_buchholz,
        withdrawn=withdrawn,
    )
    known = {p.lichess_id: p for p in players}
    return [
        StandingRow(
            stage="swiss",
            rank=row.rank,
            player_id=known[row.player].id,
            player=known[row.player].lichess_username,
            points=row.points,
            wins_vs_tied=int(values[WINS]) if WINS in values else None,
            median_buchholz=values.get(MEDIAN_BUCHHOLZ),
            withdrawn=row.player in withdrawn,
            tiebreaks=tuple(
                (key.value, value) for key, value in row.tiebreaks if key not in COLUMNS_2019
            ),
        )
        for row in table
        for values in [dict(row.tiebreaks)]
    ]


def robin_result(
    match: Match, field: set[int], by_id: dict[int, Player], games: float
) -> candidates.CandidateResult | None:
    """A decided round robin match as the stage flow reads it (rule VIII.B)."""
    names = {pid: player.lichess_id for pid, player in by_id.items()}
    return robin_match_result(match, field, names, games)


def _robin(snapshot: Snapshot, stage: Stage, config: Config) -> list[StandingRow]:
    """Tiebreak matches and the Candidates: match points, game points, mutual matches."""
    players = _seeded(snapshot, stage)
    by_id = snapshot.players_by_id
    games = float(config.tournament.match_games)
    field = {p.id for p in players}
    results = [
        result
        for m in snapshot.matches_of(stage)
        if (result := robin_result(m, field, by_id, games)) is not None
    ]
    table = candidates.standings([p.lichess_id for p in players], results)
    known = {p.lichess_id: p for p in players}
    return [
        StandingRow(
            stage=row_label(config, stage),
            rank=row.rank,
            player_id=known[row.player].id,
            player=known[row.player].lichess_username,
            points=row.points,
            game_points=row.game_points,
            matches=row.matches,
            withdrawn=_gone(known[row.player]),
        )
        for row in table
    ]


def _final(snapshot: Snapshot, stage: Stage, head: StageTable) -> StageTable:
    """The Final's match game by game: counted games add to the running score."""
    by_id = snapshot.players_by_id
    matches = [m for m in snapshot.matches_of(stage) if m.player_b_id is not None]
    if not matches:
        return head
    match = matches[-1]
    assert match.player_b_id is not None
    a, b = by_id[match.player_a_id], by_id[match.player_b_id]
    lines: list[FinalGame] = []
    score_a = score_b = 0.0
    for game in snapshot.games_of(match):
        if game.counted:
            score_a += game.result_a
            score_b += 1.0 - game.result_a
        lines.append(
            FinalGame(
                number=game.number,
                url=game_link(game.lichess_id),
                white=by_id[game.white_player_id].lichess_username,
                black=by_id[game.black_player_id].lichess_username,
                result_a=game.result_a,
                score_a=score_a,
                score_b=score_b,
                counted=game.counted,
            )
        )
    rows = [
        StandingRow(head.stage, 1, a.id, a.lichess_username, match.score_a),
        StandingRow(head.stage, 1, b.id, b.lichess_username, match.score_b),
    ]
    rows.sort(key=lambda r: -r.points)
    if rows[0].points != rows[1].points:
        rows[1] = replace(rows[1], rank=2)
    return replace(
        head,
        rows=rows,
        final_players=(a.lichess_username, b.lichess_username),
        final_state=match.state.value,
        final_games=lines,
    )
