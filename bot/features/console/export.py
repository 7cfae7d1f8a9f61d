"""`acwc export`: the whole championship as JSON (one file) or CSV (one file per table).

Everything comes from one snapshot (`snapshot.py`, one session), so the tables agree with
each other. Times are ISO 8601 UTC (`2019-10-02T18:00:00Z`). In CSV, the JSON columns
(evidence, problems, details, seeding) are JSON text and a match's game links are separated
by spaces. Cheat reports are not exported: only the TD may know who reported whom (rule
VII.A); their audit entries are in the audit table.
"""

from __future__ import annotations

import csv
import json
from dataclasses import asdict, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot.config import Config
from bot.features.console.snapshot import Snapshot, read_snapshot
from bot.features.console.stage_view import entry_rows
from bot.features.console.standings import stage_tables
from bot.features.console.types import StageTable, StandingRow
from bot.features.matches.text import game_link

Row = dict[str, Any]
JSON_FILE = "championship.json"
FORMATS = ("json", "csv")
# Every table in the order it is written (one CSV file each, `<table>.csv`) with its columns,
# so that a CSV file has its header even before the table has rows.
COLUMNS: dict[str, tuple[str, ...]] = {
    "players": (
        "id", "lichess_id", "lichess_username", "discord_id", "pre_seeded_stage",
        "seeding_rating", "withdrawn_at", "disqualified_at", "disqualification_reason",
        "tos_marked_at", "created_at",
    ),
    "registrations": (
        "id", "player_id", "player", "state", "problems", "evidence", "account_created_at",
        "rated_games_before_cutoff", "rating_at_cutoff", "rating_at_cutoff_game", "peak_rating",
        "peak_rating_game", "seeding_rating", "exception_reason", "td_comment", "decided_by",
        "decided_at", "created_at", "updated_at",
    ),
    "stages": (
        "id", "key", "name", "position", "pool", "kind", "state", "total_rounds", "seeding",
        "started_at", "finished_at",
    ),
    "entries": ("stage", "player", "rule", "source", "place", "pool", "moved_up"),
    "seeding": ("stage", "seed", "player_id", "player"),
    "rounds": ("id", "stage", "number", "state", "starts_at", "deadline", "published_at"),
    "matches": (
        "id", "stage", "round", "board", "player_a_id", "player_a", "player_b_id", "player_b",
        "state", "agreed_time", "score_a", "score_b", "points_a", "points_b", "forfeit_winner",
        "challenge_url", "game_links", "finished_at",
    ),
    "games": (
        "id", "match_id", "number", "url", "white", "black", "status", "winner", "result_a",
        "counted", "voided_reason", "flagged", "created_at", "ended_at",
    ),
    "offers": (
        "id", "match_id", "offered_by", "kind", "proposed_time", "state", "created_at",
        "answered_at",
    ),
    "incidents": (
        "id", "match_id", "kind", "state", "reporter", "against", "created_at", "ends_at",
        "resolved_at", "details",
    ),
    "decisions": (
        "id", "kind", "subject_type", "subject_id", "decision", "reason", "td_discord_id",
        "created_at",
    ),
    "audit": (
        "id", "at", "actor", "actor_id", "action", "subject_type", "subject_id", "details",
    ),
    "standings": (*(f.name for f in fields(StandingRow) if f.name != "tiebreaks"), "stage_state"),
}  # fmt: skip
TABLES = tuple(COLUMNS)


def iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


async def collect(
    sessions: async_sessionmaker[AsyncSession], config: Config
) -> dict[str, list[Row]]:
    """Every table of the championship, read in one session."""
    snapshot = await read_snapshot(sessions)
    return tables(snapshot, stage_tables(snapshot, config), entry_rows(snapshot, config))


def tables(
    snapshot: Snapshot, standings: list[StageTable], entries: list[Row] | None = None
) -> dict[str, list[Row]]:
    """Every table; `entries` (which entry rule moved each player on, `stage_view`) is
    empty when not given."""
    names = {p.id: p.lichess_username for p in snapshot.players}
    stage_of_round = {r.id: r.stage_id for r in snapshot.rounds}
    kinds = {s.id: s.kind.value for s in snapshot.stages}
    numbers = {r.id: r.number for r in snapshot.rounds}

    def name(player_id: int | None) -> str | None:
        return names.get(player_id) if player_id is not None else None

    out: dict[str, list[Row]] = {
        "players": [
            {
                "id": p.id,
                "lichess_id": p.lichess_id,
                "lichess_username": p.lichess_username,
                "discord_id": p.discord_id,
                "pre_seeded_stage": p.pre_seeded_stage.value if p.pre_seeded_stage else None,
                "seeding_rating": p.seeding_rating,
                "withdrawn_at": iso(p.withdrawn_at),
                "disqualified_at": iso(p.disqualified_at),
                "disqualification_reason": p.disqualification_reason,
                "tos_marked_at": iso(p.tos_marked_at),
                "created_at": iso(p.created_at),
            }
            for p in snapshot.players
        ],
        "registrations": [
            {
                "id": r.id,
                "player_id": r.player_id,
                "player": name(r.player_id),
                "state": r.state.value,
                "problems": list(r.problems or []),
                "evidence": dict(r.evidence or {}),
                "account_created_at": iso(r.account_created_at),
                "rated_games_before_cutoff": r.rated_games_before_cutoff,
                "rating_at_cutoff": r.rating_at_cutoff,
                "rating_at_cutoff_game": r.rating_at_cutoff_game,
                "peak_rating": r.peak_rating,
                "peak_rating_game": r.peak_rating_game,
                "seeding_rating": r.seeding_rating,
                "exception_reason": r.exception_reason,
                "td_comment": r.td_comment,
                "decided_by": r.decided_by,
                "decided_at": iso(r.decided_at),
                "created_at": iso(r.created_at),
                "updated_at": iso(r.updated_at),
            }
            for r in snapshot.registrations
        ],
        "stages": [
            {
                "id": s.id,
                "key": s.key,
                "name": s.name,
                "position": s.position,
                "pool": s.pool or None,
                "kind": s.kind.value,
                "state": s.state.value,
                "total_rounds": s.total_rounds,
                "seeding": list(s.seeding or []),
                "started_at": iso(s.started_at),
                "finished_at": iso(s.finished_at),
            }
            for s in snapshot.stages
        ],
        "entries": list(entries or []),
        "seeding": [
            {"stage": s.kind.value, "seed": seed, "player_id": pid, "player": name(pid)}
            for s in snapshot.stages
            for seed, pid in enumerate(s.seeding or [], start=1)
        ],
        "rounds": [
            {
                "id": r.id,
                "stage": kinds.get(r.stage_id),
                "number": r.number,
                "state": r.state.value,
                "starts_at": iso(r.starts_at),
                "deadline": iso(r.deadline),
                "published_at": iso(r.published_at),
            }
            for r in snapshot.rounds
        ],
        "matches": [
            {
                "id": m.id,
                "stage": kinds.get(stage_of_round.get(m.round_id, 0)),
                "round": numbers.get(m.round_id),
                "board": m.board,
                "player_a_id": m.player_a_id,
                "player_a": name(m.player_a_id),
                "player_b_id": m.player_b_id,
                "player_b": name(m.player_b_id),
                "state": m.state.value,
                "agreed_time": iso(m.agreed_time),
                "score_a": m.score_a,
                "score_b": m.score_b,
                "points_a": m.points_a,
                "points_b": m.points_b,
                "forfeit_winner": name(m.forfeit_winner_id),
                "challenge_url": m.challenge_url,
                "game_links": [game_link(g.lichess_id) for g in snapshot.games_of(m) if g.counted],
                "finished_at": iso(m.finished_at),
            }
            for m in snapshot.matches
        ],
        "games": [
            {
                "id": g.id,
                "match_id": g.match_id,
                "number": g.number,
                "url": game_link(g.lichess_id),
                "white": name(g.white_player_id),
                "black": name(g.black_player_id),
                "status": g.status,
                "winner": g.winner,
                "result_a": g.result_a,
                "counted": g.counted,
                "voided_reason": g.voided_reason,
                "flagged": g.flagged,
                "created_at": iso(g.created_at),
                "ended_at": iso(g.ended_at),
            }
            for g in snapshot.games
        ],
        "offers": [
            {
                "id": o.id,
                "match_id": o.match_id,
                "offered_by": name(o.offered_by_id),
                "kind": o.kind.value,
                "proposed_time": iso(o.proposed_time),
                "state": o.state.value,
                "created_at": iso(o.created_at),
                "answered_at": iso(o.answered_at),
            }
            for o in snapshot.offers
        ],
        "incidents": [
            {
                "id": i.id,
                "match_id": i.match_id,
                "kind": i.kind.value,
                "state": i.state.value,
                "reporter": name(i.reporter_id),
                "against": name(i.against_id),
                "created_at": iso(i.created_at),
                "ends_at": iso(i.ends_at),
                "resolved_at": iso(i.resolved_at),
                "details": dict(i.details or {}),
            }
            for i in snapshot.incidents
        ],
        "decisions": [
            {
                "id": d.id,
                "kind": d.kind,
                "subject_type": d.subject_type,
                "subject_id": d.subject_id,
                "decision": d.decision,
                "reason": d.reason,
                "td_discord_id": d.td_discord_id,
                "created_at": iso(d.created_at),
            }
            for d in snapshot.decisions
        ],
        "audit": [
            {
                "id": a.id,
                "at": iso(a.at),
                "actor": a.actor_type,
                "actor_id": a.actor_id,
                "action": a.action,
                "subject_type": a.subject_type,
                "subject_id": a.subject_id,
                "details": dict(a.details or {}),
            }
            for a in snapshot.audit
        ],
        "standings": [_standing(row, table.state) for table in standings for row in table.rows],
    }
    return out


def _standing(row: StandingRow, state: str) -> Row:
    """A standings row: its fields, the Swiss chain's other tiebreaks as columns of their
    own (named by their keys: `cumulative`, `kashdan`, ...), then the stage's state."""
    fields_ = {k: v for k, v in asdict(row).items() if k != "tiebreaks"}
    return {**fields_, **dict(row.tiebreaks), "stage_state": state}


def _columns(table: str, rows: list[Row]) -> list[str]:
    """A table's CSV header: its columns, then any a row adds (the standings' tiebreaks of
    the format's chain beyond the 2019 ones), in the order they first come."""
    columns = list(COLUMNS[table])
    for row in rows:
        columns.extend(key for key in row if key not in columns)
    return columns


def write_json(data: dict[str, list[Row]], directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / JSON_FILE
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return [path]


def _cell(value: Any) -> Any:
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    if isinstance(value, list):
        if all(isinstance(v, str) for v in value):
            return " ".join(value)
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else value


def write_csv(data: dict[str, list[Row]], directory: Path) -> list[Path]:
    """One `<table>.csv` per table, with a header row even when the table is empty."""
    directory.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for table in TABLES:
        path = directory / f"{table}.csv"
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=_columns(table, data[table]))
            writer.writeheader()
            for row in data[table]:
                writer.writerow({key: _cell(value) for key, value in row.items()})
        written.append(path)
    return written


def write(data: dict[str, list[Row]], directory: Path, fmt: str) -> list[Path]:
    if fmt == "json":
        return write_json(data, directory)
    if fmt == "csv":
        return write_csv(data, directory)
    raise ValueError(f"unknown format {fmt!r}: choose {' or '.join(FORMATS)}")
