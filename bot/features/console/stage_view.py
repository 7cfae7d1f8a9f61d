"""Each stage of the format as it ran, for `acwc export` and the simulator's `result.json`:
its rows (pools), rounds, matches and standings, and which entry rule moved each player on.

The entries come from the audit entry the stage flow writes when a stage starts
(`stage_started`, details `{"key": <stage key>, "entries": [{"player": <lichess id>,
"rule", "source", "place", "pool", "moved_up"}, ...]}`, the fields of
`bot.rules.advancement.Entry`). A stage started before that entry existed (the 2019 engine)
has its entries read from its rows instead: its players in seeding order, taken by the
format's entry rules in order (a pre-seeded player by the configured role, the others as the
rule counts them), each `moved_up` 0.
"""

from __future__ import annotations

from typing import Any

from bot.config import Config
from bot.features.console.snapshot import Snapshot
from bot.features.console.standings import row_table
from bot.format.model import (
    Losers,
    Places,
    PoolPlaces,
    PreSeeded,
    Registered,
    Top,
    Winners,
)
from bot.format.model import Stage as FormatStage
from db.models import Player, Stage

Row = dict[str, Any]
STARTED = "stage_started"  # the audit action the stage flow records as a stage starts
ENTRY_FIELDS = ("player", "rule", "source", "place", "pool", "moved_up")


def _entry(player: str, rule: str, source: str = "", place: int | None = None) -> Row:
    return {"player": player, "rule": rule, "source": source, "place": place, "pool": None,
            "moved_up": 0}  # fmt: skip


def recorded_entries(snapshot: Snapshot) -> dict[str, list[Row]]:
    """The entries the stage flow recorded, by stage key (players by Lichess username)."""
    by_lichess = {p.lichess_id: p.lichess_username for p in snapshot.players}
    keys = {s.id: s.key for s in snapshot.stages}
    out: dict[str, list[Row]] = {}
    for entry in snapshot.audit:
        details = entry.details or {}
        if entry.action != STARTED or not isinstance(details.get("entries"), list):
            continue
        key = details.get("key") or keys.get(entry.subject_id or 0)
        if not isinstance(key, str):
            continue
        out[key] = [
            {
                **{name: item.get(name) for name in ENTRY_FIELDS},
                "player": by_lichess.get(str(item.get("player", "")).lower(), item.get("player")),
                "moved_up": item.get("moved_up") or 0,
            }
            for item in details["entries"]
            if isinstance(item, dict)
        ]
    return out


def derived_entries(stage: FormatStage, rows: list[Stage], snapshot: Snapshot,
                    config: Config) -> list[Row]:  # fmt: skip
    """A stage's entries read from its rows' seeding and the format's entry rules."""
    by_id = snapshot.players_by_id
    players: list[Player] = []
    for row in rows:
        players.extend(by_id[i] for i in row.seeding if i in by_id and by_id[i] not in players)
    roles = {p.lichess.lower(): p.role for p in config.players.pre_seeded}
    seeded = {p.id for p in players if p.pre_seeded_stage is not None and p.lichess_id in roles}
    others = [p for p in players if p.id not in seeded]
    out: list[Row] = []

    def take(count: int) -> list[Player]:
        taken = others[:count]
        del others[:count]
        return taken

    for rule in stage.entry:
        if isinstance(rule, Registered):
            out.extend(_entry(p.lichess_username, "registered") for p in take(len(others)))
        elif isinstance(rule, PreSeeded):
            found = [p for p in players if p.id in seeded and roles[p.lichess_id] == rule.role]
            if found:
                out.append(_entry(found[0].lichess_username, "pre_seeded"))
            elif rule.if_absent is not None:
                places = _places(rule.if_absent)
                out.extend(
                    _entry(p.lichess_username, rule.if_absent.rule, rule.if_absent.stage, place)
                    for p, place in zip(take(len(places[:1])), places, strict=False)
                )
        elif isinstance(rule, Top):
            out.extend(
                _entry(p.lichess_username, "top", rule.stage, place)
                for place, p in enumerate(take(rule.count), start=1)
            )
        elif isinstance(rule, Places | PoolPlaces):
            places = _places(rule)
            taken = take(len(places))
            out.extend(
                _entry(p.lichess_username, rule.rule, rule.stage, place)
                for p, place in zip(taken, places, strict=False)
            )
            if isinstance(rule, PoolPlaces) and taken:
                for made, (pool, _) in zip(out[-len(taken) :], rule.places, strict=False):
                    made["pool"] = pool
        elif isinstance(rule, Winners | Losers):
            out.extend(
                _entry(p.lichess_username, rule.rule, rule.stage, place)
                for place, p in enumerate(take(len(others)), start=1)
            )
    return out


def _places(rule: Places | PoolPlaces) -> list[int]:
    if isinstance(rule, PoolPlaces):
        return [place for _, place in rule.places]
    return list(rule.places)


def stage_entries(snapshot: Snapshot, config: Config) -> dict[str, list[Row]]:
    """Every started stage's entries by stage key: recorded, or read from its rows."""
    recorded = recorded_entries(snapshot)
    out: dict[str, list[Row]] = {}
    for stage in config.format.stages:
        rows = [s for s in snapshot.stages if s.key == stage.key]
        if stage.key in recorded:
            out[stage.key] = recorded[stage.key]
        elif rows:
            out[stage.key] = derived_entries(stage, rows, snapshot, config)
    return out


def entry_rows(snapshot: Snapshot, config: Config) -> list[Row]:
    """The export's `entries` table: one row per player and stage, in format order."""
    return [
        {"stage": key, **entry} for key, entries in stage_entries(snapshot, config).items()
        for entry in entries
    ]  # fmt: skip


def _matches(snapshot: Snapshot, row: Stage) -> list[Row]:
    by_id = snapshot.players_by_id
    numbers = {r.id: r.number for r in snapshot.rounds_of(row)}

    def name(player_id: int | None) -> str | None:
        return by_id[player_id].lichess_username if player_id in by_id else None

    out = []
    for m in snapshot.matches_of(row):
        winner = m.forfeit_winner_id
        if winner is None and m.points_a is not None and m.points_b is not None:
            if m.points_a != m.points_b:
                winner = m.player_a_id if m.points_a > m.points_b else m.player_b_id
        out.append(
            {
                "pool": row.pool or None,
                "round": numbers[m.round_id],
                "board": m.board,
                "a": name(m.player_a_id),
                "b": name(m.player_b_id),
                "score": [m.score_a, m.score_b],
                "state": m.state.value,
                "winner": name(winner),
            }
        )
    return out


def describe(snapshot: Snapshot, config: Config) -> list[Row]:
    """Each stage in format order (the 2019 tiebreak matches after the Swiss): its kind,
    name, pools, rounds played, matches, standings and entries."""
    entries = stage_entries(snapshot, config)
    out: list[Row] = []
    for position, stage in enumerate(config.format.stages):
        keys = [stage.key]
        keys += sorted({s.key for s in snapshot.stages if s.position == position} - {stage.key})
        for key in keys:
            rows = [s for s in snapshot.stages if s.key == key]
            tables = [row_table(snapshot, config, row) for row in rows]
            out.append(
                {
                    "key": key,
                    "name": rows[0].name if rows and key != stage.key else stage.name,
                    "kind": stage.kind if key == stage.key else rows[0].kind.value,
                    "pools": [{"key": row.pool, "name": row.name} for row in rows if row.pool],
                    "rounds": sum(table.rounds_played for table in tables),
                    "matches": [m for row in rows for m in _matches(snapshot, row)],
                    "standings": [
                        {
                            "pool": row.pool or None,
                            "state": table.state,
                            "rows": [[r.rank, r.player, r.points] for r in table.rows],
                        }
                        for row, table in zip(rows, tables, strict=True)
                    ],
                    "entries": entries.get(key, []),
                }
            )
    return out
