"""The championship as the pages name it: every stage row, round, match and player of one
public read (`public.PublicRead`), with the readable keys the URLs use and the plain
values (JSON-ready dicts) the pages and their JSON twins share.

URLs use readable keys, never a database id (issue 32): a stage by its format key
(`/stages/semifinals`), a player by their Lichess id (`/players/alice`), a match by its
stage row, round and board (`/matches/swiss/3/2`; a pool's row is `<stage>-<pool>`:
`/matches/candidates-upper/1/2`).

What a stage row shows is asked of the format through `bot.stage_kinds` (never of its
key or name), so the pages follow whatever format runs.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from bot import stage_kinds
from bot.config import Config
from bot.features.console.snapshot import Snapshot
from bot.features.console.stage_view import stage_entries
from bot.features.matches.text import game_link, match_place, stage_label
from bot.features.web import text as wording
from bot.features.web.public import PublicGame, PublicRead
from bot.format.model import FinalMatchStage, KnockoutStage
from db.models import Match, MatchState, Player, RegistrationState, Round, Stage, StageState

Row = dict[str, Any]
DECIDED = (MatchState.FINISHED, MatchState.FORFEITED)


def iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def row_slug(row: Stage, pooled: bool) -> str:
    """A stage row in a URL: its key, and when its stage has several pools its pool after a
    dash (keys are identifiers); 2019's one pool, "candidates", is the stage's key alone."""
    return f"{row.key}-{row.pool}" if pooled and row.pool else row.key


@dataclass
class Site:
    """One read, indexed: rows by stage key (pools in the format's order), rounds by row,
    matches by row, round and board, and each match's plain value."""

    read: PublicRead
    config: Config
    rows: dict[str, list[Stage]] = field(default_factory=dict)
    rounds: dict[int, list[Round]] = field(default_factory=dict)
    by_slug: dict[tuple[str, int, int], Match] = field(default_factory=dict)
    by_player: dict[int, list[Match]] = field(default_factory=lambda: defaultdict(list))
    players: dict[int, Player] = field(default_factory=dict)
    by_lichess: dict[str, Player] = field(default_factory=dict)
    _match_rows: dict[int, tuple[Stage, Round]] = field(default_factory=dict)
    games_by_match: dict[int, list[PublicGame]] = field(default_factory=lambda: defaultdict(list))
    by_round: dict[int, list[Match]] = field(default_factory=lambda: defaultdict(list))
    by_row: dict[int, list[Match]] = field(default_factory=lambda: defaultdict(list))
    _views: dict[int, Row] = field(default_factory=dict)
    _memo: dict[str, Any] = field(default_factory=dict)
    #: Each page drawn from this read, by (path, JSON or not): its HTML or JSON text.
    drawn: dict[tuple[str, bool], str] = field(default_factory=dict)

    @classmethod
    def build(cls, read: PublicRead, config: Config) -> Site:
        site = cls(read, config)
        snap = read.snapshot
        site.players = snap.players_by_id
        site.by_lichess = {p.lichess_id: p for p in snap.players}
        order = {s.key: n for n, s in enumerate(config.format.stages)}
        for row in sorted(snap.stages, key=lambda s: (s.position, order.get(s.key, 99), s.id)):
            site.rows.setdefault(row.key, []).append(row)
        for rows in site.rows.values():
            pools = [p.key for p in getattr(_format_stage(config, rows[0]), "pools", ())]
            rows.sort(key=lambda r: pools.index(r.pool) if r.pool in pools else 0)
        rows_by_id = {s.id: s for s in snap.stages}
        for rnd in sorted(snap.rounds, key=lambda r: r.number):
            site.rounds.setdefault(rnd.stage_id, []).append(rnd)
        rounds_by_id = {r.id: r for r in snap.rounds}
        for game in read.games:
            site.games_by_match[game.match_id].append(game)
        for games in site.games_by_match.values():
            games.sort(key=lambda g: g.number)
        numbers = {r.id: r.number for r in snap.rounds}
        for match in sorted(
            snap.matches, key=lambda m: (numbers.get(m.round_id, 0), m.board, m.id)
        ):
            rnd = rounds_by_id[match.round_id]
            row = rows_by_id[rnd.stage_id]
            site._match_rows[match.id] = (row, rnd)
            site.by_round[rnd.id].append(match)
            site.by_row[row.id].append(match)
            site.by_slug[(site.slug(row), rnd.number, match.board)] = match
            for pid in (match.player_a_id, match.player_b_id):
                if pid is not None:
                    site.by_player[pid].append(match)
        return site

    @property
    def snapshot(self) -> Snapshot:
        return self.read.snapshot

    # ------------------------------------------------------------------ naming

    def stage_name(self, key: str) -> str:
        if key in self.config.format.keys():
            return self.config.format.stage(key).name
        rows = self.rows.get(key)
        return rows[0].name if rows else key

    def stage_ref(self, key: str) -> Row:
        return {"key": key, "name": self.stage_name(key), "url": f"/stages/{key}"}

    def row_name(self, row: Stage) -> str:
        """The row as posts name it ("Swiss", "Upper pool", "Grand Final")."""
        return stage_label(row.kind, row.name)

    def match_name(self, match: Match) -> str:
        """The match as people name it (issue 32): "Swiss round 3, board 2", "Semifinal 1",
        "Grand Final"; never its row id."""
        row, rnd = self._match_rows[match.id]
        fmt = self.config.format
        if stage_kinds.is_final_match(fmt, row):
            return self.row_name(row)
        stage = _format_stage(self.config, row)
        if isinstance(stage, KnockoutStage) and 1 <= match.board <= len(stage.pairings):
            return stage.pairings[match.board - 1].name
        return match_place(self.row_name(row), rnd.number, match.board, one_match=False)

    def player_ref(self, player_id: int | None) -> Row | None:
        if player_id is None or player_id not in self.players:
            return None
        player = self.players[player_id]
        return {"name": player.lichess_username, "url": f"/players/{player.lichess_id}"}

    def match_url(self, match: Match) -> str:
        row, rnd = self._match_rows[match.id]
        return f"/matches/{self.slug(row)}/{rnd.number}/{match.board}"

    def slug(self, row: Stage) -> str:
        return row_slug(row, self.pooled(row))

    def pooled(self, row: Stage) -> bool:
        """Whether the row is one of several pools of its stage."""
        return len(self.rows.get(row.key, ())) > 1

    def row_of(self, match: Match) -> tuple[Stage, Round]:
        return self._match_rows[match.id]

    # ------------------------------------------------------------------ matches

    def winner_id(self, match: Match) -> int | None:
        if match.forfeit_winner_id is not None:
            return match.forfeit_winner_id
        if match.state in DECIDED and match.points_a is not None and match.points_b is not None:
            if match.points_a != match.points_b:
                return match.player_a_id if match.points_a > match.points_b else match.player_b_id
        return None

    def match(self, match: Match, *, games: bool = True) -> Row:
        """A match's plain value: who, where, when, the score, the state, and its games."""
        if match.id in self._views and games:
            return self._views[match.id]
        row, rnd = self._match_rows[match.id]
        value: Row = {
            "name": self.match_name(match),
            "url": self.match_url(match),
            "stage": {
                "key": row.key,
                "name": self.stage_name(row.key),
                "url": f"/stages/{row.key}",
            },
            "pool": row.name if self.pooled(row) else None,
            "round": rnd.number,
            "board": match.board,
            "a": self.player_ref(match.player_a_id),
            "b": self.player_ref(match.player_b_id),
            "score": [match.score_a, match.score_b],
            "score_text": f"{wording.score(match.score_a)}–{wording.score(match.score_b)}",
            "state": match.state.value,
            "state_text": wording.state(match.state.value),
            "agreed_time": iso(match.agreed_time),
            "finished_at": iso(match.finished_at),
            "winner": self.player_ref(self.winner_id(match)),
            "forfeit": match.state is MatchState.FORFEITED,
        }
        if games:
            value["games"] = self.games(match)
            self._views[match.id] = value
        return value

    def forget_views(self) -> None:
        """Let the matches' values go once the hot pages are drawn: kept with the read,
        tens of thousands of small objects would lengthen every full collection of the
        cycle collector (which holds the GIL: every request waits)."""
        self._views.clear()

    def games(self, match: Match) -> list[Row]:
        out = []
        for game in self.games_by_match.get(match.id, []):
            white_points = (
                game.result_a
                if game.white_player_id == match.player_a_id
                else (1.0 - game.result_a)
            )
            out.append(
                {
                    "number": game.number,
                    "url": game_link(game.lichess_id),
                    "white": self.player_ref(game.white_player_id),
                    "black": self.player_ref(game.black_player_id),
                    "result": wording.game_result(white_points) if game.status != "started" else "",
                    "status": game.status,
                    "counted": game.counted,
                }
            )
        return out

    # ------------------------------------------------------------------ players

    def matches_of(self, row: Stage) -> list[Match]:
        """The row's matches by round, then board."""
        return self.by_row.get(row.id, [])

    def public_players(self) -> set[int]:
        if "public" not in self._memo:
            self._memo["public"] = self._public_players()
        found: set[int] = self._memo["public"]
        return found

    def entries(self) -> dict[str, list[Row]]:
        """Every started stage's entries (who moved on by which rule), by stage key."""
        if "entries" not in self._memo:
            self._memo["entries"] = stage_entries(self.snapshot, self.config)
        found: dict[str, list[Row]] = self._memo["entries"]
        return found

    def _public_players(self) -> set[int]:
        """Who a page may name: whoever plays or played a stage, the pre-seeded players,
        and once registration has closed the approved field (issue 22's post); a pending or
        refused entry never."""
        shown: set[int] = set()
        for rows in self.rows.values():
            for row in rows:
                shown.update(pid for pid in row.seeding if pid in self.players)
        shown.update(self.by_player)
        shown.update(p.id for p in self.snapshot.players if p.pre_seeded_stage is not None)
        if not self.read.window.is_open:
            shown.update(e["id"] for e in self.field())
        return shown

    def field(self) -> list[Row]:
        if "field" not in self._memo:
            self._memo["field"] = self._field()
        found: list[Row] = self._memo["field"]
        return found

    def _field(self) -> list[Row]:
        """The field at registration's close, by seed (issue 22: the public post's order):
        the Swiss's seeding once round 1 is out, before it the approved entries by seeding
        rating (unrated last, then by registration time). Empty while registration is open."""
        if self.read.window.is_open:
            return []
        regs = {r.player_id: r for r in self.snapshot.registrations}
        swiss = self.swiss_row()
        if swiss is not None and swiss.seeding:
            ids = [pid for pid in swiss.seeding if pid in self.players]
        else:
            approved = [
                r
                for r in self.snapshot.registrations
                if r.state is RegistrationState.APPROVED
                and (p := self.players.get(r.player_id)) is not None
                and p.pre_seeded_stage is None
                and p.withdrawn_at is None
                and p.disqualified_at is None
            ]
            approved.sort(
                key=lambda r: (
                    self.players[r.player_id].seeding_rating is None,
                    -(self.players[r.player_id].seeding_rating or 0.0),
                    r.created_at,
                    r.id,
                )
            )
            ids = [r.player_id for r in approved]
        out = []
        for seed, pid in enumerate(ids, start=1):
            player, reg = self.players[pid], regs.get(pid)
            out.append(
                {
                    "id": pid,
                    "seed": seed,
                    "player": self.player_ref(pid),
                    "seeding_rating": player.seeding_rating,
                    "rating_at_cutoff": reg.rating_at_cutoff if reg else None,
                    "rating_at_cutoff_game": reg.rating_at_cutoff_game if reg else None,
                    "peak_rating": reg.peak_rating if reg else None,
                    "peak_rating_game": reg.peak_rating_game if reg else None,
                }
            )
        return out

    def swiss_row(self) -> Stage | None:
        fmt = self.config.format
        for rows in self.rows.values():
            for row in rows:
                if stage_kinds.is_qualification(fmt, row) and not stage_kinds.is_tiebreak_matches(
                    row
                ):
                    return row
        return None

    # ------------------------------------------------------------------ champion

    def title_stage(self) -> FinalMatchStage | None:
        """The final match whose winner takes place 1 (the champion's)."""
        for stage in self.config.format.stages:
            if isinstance(stage, FinalMatchStage) and stage.places[0] == 1:
                return stage
        return None

    def final_places(self) -> list[Row]:
        """The places the decided final matches give (1 and 2, 3 and 4 ...), best first."""
        out: list[Row] = []
        for stage in self.config.format.stages:
            if not isinstance(stage, FinalMatchStage):
                continue
            match = self.latest_match(stage.key)
            winner = self.winner_id(match) if match is not None else None
            if match is None or winner is None:
                continue
            loser = match.player_b_id if winner == match.player_a_id else match.player_a_id
            out.append({"place": stage.places[0], "player": self.player_ref(winner)})
            out.append({"place": stage.places[1], "player": self.player_ref(loser)})
        return sorted(out, key=lambda r: r["place"])

    def latest_match(self, key: str) -> Match | None:
        """A final match stage's match: the latest of its row (a replacement after a player
        left is a new round)."""
        rows = self.rows.get(key, [])
        matches = [m for row in rows for m in self.matches_of(row)]
        played = [m for m in matches if m.player_b_id is not None]
        return played[-1] if played else None

    def champion(self) -> Row | None:
        stage = self.title_stage()
        match = self.latest_match(stage.key) if stage else None
        winner = self.winner_id(match) if match is not None else None
        if match is None or winner is None:
            return None
        return {"player": self.player_ref(winner), "match": self.match(match)}

    def running_rows(self) -> list[Stage]:
        return [
            row for rows in self.rows.values() for row in rows if row.state is StageState.RUNNING
        ]


def _format_stage(config: Config, row: Stage) -> Any:
    return config.format.stage(row.key) if row.key in config.format.keys() else None
