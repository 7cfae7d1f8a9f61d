"""The bracket of the match stages for the web: which knock-out and final-match stages are
drawn together, in columns, each match with its two seats (the player, or where the seat
comes from: "Winner of Semifinal 1", "Upper pool 1st"), its score and its winner.

Which stages, their columns and where each seat comes from are `bot.format.bracket`'s, as
for the Discord bracket (`bot.features.tables.bracket`), in the same words
(`matches.text.seat_text`); this module fills them from the public read (`model.Site`).
"""

from __future__ import annotations

from typing import Any

from bot.features.matches.text import seat_text
from bot.features.web.model import Site
from bot.format.bracket import bracket_stages, columns_of, stage_matches
from bot.format.bracket import seats as bracket_seats
from db.models import Match

Row = dict[str, Any]


def bracket(site: Site, key: str) -> Row | None:
    """The bracket stage `key` is drawn in, as played so far; None when it is in none."""
    fmt = site.config.format
    keys = bracket_stages(fmt, key)
    if not keys:
        return None
    depth = columns_of(fmt, keys)
    played: dict[tuple[str, int], Row] = {}
    for k in keys:
        for row in site.rows.get(k, [])[:1]:
            latest: dict[int, Match] = {}
            for match in site.matches_of(row):
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
        seats = [(seat_text(seat), seat.feeder) for seat in bracket_seats(fmt, k)]
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
