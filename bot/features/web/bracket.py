"""The bracket of the match stages for the web: which knock-out and final-match stages are
drawn together, in columns, each match with its two seats (the player, or where the seat
comes from: "Winner of Semifinal 1", "Upper pool #1"), its score and its winner.

Why not the tables feature's bracket (`bot.features.tables.bracket`): features do not import
each other, and that builder is tied to the tables' wording and score format. The web
draws the same structure from the same source, the format's entry rules
(`bot.format.flow.sources`: a stage drawn on another, or on the same stages, is in its
bracket), and fills it from the public read (`model.Site`): never from a stage's key.
"""

from __future__ import annotations

from typing import Any

from bot.features.web import text as wording
from bot.features.web.model import Site
from bot.format.flow import sources
from bot.format.model import (
    FinalMatchStage,
    Format,
    KnockoutStage,
    Losers,
    Places,
    PoolPlaces,
    PreSeeded,
    Top,
    Winners,
)
from bot.stage_kinds import MATCH_KINDS
from db.models import Match

Row = dict[str, Any]


def stage_matches(fmt: Format, key: str) -> list[tuple[str, int, int]]:
    """The matches a match stage plays: (name, seat a, seat b), seats counted from 1."""
    stage = fmt.stage(key)
    if isinstance(stage, KnockoutStage):
        return [(p.name, p.a, p.b) for p in stage.pairings]
    if isinstance(stage, FinalMatchStage):
        return [(stage.name, 1, 2)]
    return []


def group(fmt: Format, key: str) -> list[str]:
    """The match stages drawn with `key`, in format order; empty when `key` plays no
    matches or the bracket would be one match."""
    playing = [s.key for s in fmt.stages if s.kind in MATCH_KINDS]
    if key not in playing:
        return []
    drawn = {k: sources(fmt.stage(k)) for k in playing}
    found, todo = {key}, [key]
    while todo:
        here = todo.pop()
        for other in playing:
            linked = here in drawn[other] or other in drawn[here] or drawn[here] == drawn[other]
            if other not in found and linked:
                found.add(other)
                todo.append(other)
    keys = [k for k in playing if k in found]
    return keys if sum(len(stage_matches(fmt, k)) for k in keys) > 1 else []


def _seats(fmt: Format, key: str) -> list[tuple[str, tuple[str, int, bool] | None]]:
    """Stage `key`'s seats in entry order: where each comes from, and the match (stage,
    index, True for its winner) that fills it."""
    seats: list[tuple[str, tuple[str, int, bool] | None]] = []
    for rule in fmt.stage(key).entry:
        if isinstance(rule, Top | Places):
            places = range(1, rule.count + 1) if isinstance(rule, Top) else rule.places
            name = fmt.stage(rule.stage).name
            seats.extend((wording.seat_place(name, p), None) for p in places)
        elif isinstance(rule, PoolPlaces):
            pools = {p.key: p.name for p in getattr(fmt.stage(rule.stage), "pools", ())}
            seats.extend(
                (wording.seat_place(pools.get(pool, pool), place), None)
                for pool, place in rule.places
            )
        elif isinstance(rule, Winners | Losers):
            won = isinstance(rule, Winners)
            seats.extend(
                (wording.seat_from(name, won), (rule.stage, index, won))
                for index, (name, _, _) in enumerate(stage_matches(fmt, rule.stage))
            )
        elif isinstance(rule, PreSeeded):
            seats.append((wording.seat_pre_seeded(rule.role), None))
    return seats


def bracket(site: Site, key: str) -> Row | None:
    """The bracket stage `key` is drawn in, as played so far; None when it is in none."""
    fmt = site.config.format
    keys = group(fmt, key)
    if not keys:
        return None
    depth: dict[str, int] = {}
    for k in keys:
        before = [depth[s] for s in sources(fmt.stage(k)) if s in depth]
        depth[k] = 1 + max(before) if before else 0
    played: dict[tuple[str, int], Row] = {}
    for k in keys:
        for row in site.rows.get(k, [])[:1]:
            latest: dict[int, Match] = {}
            for match in site.snapshot.matches_of(row):
                if match.player_b_id is not None:
                    latest[match.board] = match  # a replacement's round comes later
            for board, match in latest.items():
                played[(k, board - 1)] = site.match(match, games=False)

    def sent(feeder: tuple[str, int, bool] | None) -> Row | None:
        source = played.get(feeder[:2]) if feeder else None
        if feeder is None or source is None or source["winner"] is None:
            return None
        won = source["winner"]["name"] == source["a"]["name"]
        side: Row | None = source["a"] if won == feeder[2] else source["b"]
        return side

    columns: list[Row] = [
        {"title": " / ".join(fmt.stage(k).name for k in keys if depth[k] == d), "matches": []}
        for d in range(max(depth.values()) + 1)
    ]
    for k in keys:
        seats = _seats(fmt, k)
        for index, (name, seat_a, seat_b) in enumerate(stage_matches(fmt, k)):
            done = played.get((k, index))
            slots = []
            for side, seat in zip(("a", "b"), (seat_a, seat_b), strict=True):
                origin, feeder = seats[seat - 1] if seat <= len(seats) else ("", None)
                player = done[side] if done else sent(feeder)
                slots.append(
                    {
                        "player": player,
                        "from": origin,
                        "score": done["score"][0 if side == "a" else 1] if done else None,
                        "won": bool(done and done["winner"] and player == done["winner"]),
                    }
                )
            columns[depth[k]]["matches"].append(
                {"name": name, "url": done["url"] if done else None, "slots": slots}
            )
    return {"stages": [{"key": k, "name": fmt.stage(k).name} for k in keys], "columns": columns}
