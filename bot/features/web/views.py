"""Each public page as one plain value: the HTML page is drawn from it and its JSON twin is
it, so the two always carry the same facts (issue 33). None: no such page (404).

The tables are the console's (`bot.features.console.standings.row_table`, the tables
`acwc standings` prints): the Swiss ranked by the format's tiebreak chain, a round robin by
match and game points, a final match game by game. Which a stage row shows is asked of
`bot.stage_kinds`, never of the row's key or name.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from bot import stage_kinds
from bot.config import PreSeededPlayer
from bot.features.console.standings import row_table
from bot.features.console.types import StageTable, StandingRow
from bot.features.web import text as wording
from bot.features.web.bracket import bracket
from bot.features.web.model import Site, iso
from bot.format.flow import sources
from bot.format.swiss import swiss_stage
from db.models import Match, MatchState, RoundState, Stage, StageState

Row = dict[str, Any]
UPCOMING = 12  # matches with an agreed time the home page lists


def _base(site: Site, page: str, title: str) -> Row:
    t = site.config.tournament
    return {
        "page": page,
        "title": title,
        "tournament": {"name": t.name, "short_name": t.short_name},
    }


# --------------------------------------------------------------------------- home


def home(site: Site, now: datetime) -> Row:
    """The championship, its stages, where it stands and what happens next and when."""
    fmt, window = site.config.format, site.read.window
    out = _base(site, "home", wording.home_title(site.config.tournament.name))
    stages = []
    for key in _stage_keys(site):
        rows = site.rows.get(key, [])
        state = _stage_state(rows)
        stages.append(
            {
                "key": key,
                "name": site.stage_name(key),
                "url": f"/stages/{key}",
                "state": state,
                "state_text": wording.state(state),
                "pools": [r.name for r in rows if site.pooled(r)],
            }
        )
    running = []
    for row in site.running_rows():
        rnd = _latest_round(site, row)
        if rnd is None:
            continue
        running.append(
            {
                "stage": row.key,
                "name": site.row_name(row),
                "round": rnd.number,
                "total_rounds": row.total_rounds,
                "deadline": iso(rnd.deadline) if not stage_kinds.at_own_pace(row) else None,
                "url": f"/stages/{row.key}/rounds/{rnd.number}",
            }
        )
    nexts: list[Row] = []
    if window.is_open:
        nexts.append(
            {"text": wording.registration_open(window.closes_at), "at": iso(window.closes_at)}
        )
    elif not site.rows and now < window.opens_at:
        nexts.append(
            {"text": wording.registration_not_open(window.opens_at), "at": iso(window.opens_at)}
        )
    elif not site.rows:
        nexts.append({"text": wording.waiting_for_round_one(), "at": None})
    for item in running:
        if item["deadline"]:
            when = datetime.fromisoformat(item["deadline"])
            nexts.append(
                {
                    "text": wording.round_ends(item["name"], item["round"], when),
                    "at": item["deadline"],
                }
            )
    started = {k for k in site.rows}
    for stage in fmt.stages:
        if stage.key not in started and site.rows:
            after = [fmt.stage(s).name for s in sorted(sources(stage)) if s in fmt.keys()]
            nexts.append({"text": wording.next_stage(stage.name, after), "at": None})
            break
    upcoming = sorted(
        (m for m in site.snapshot.matches if m.agreed_time is not None and m.agreed_time >= now
         and m.finished_at is None),
        key=lambda m: (m.agreed_time, m.board),
    )  # fmt: skip
    out.update(
        registration={
            "open": window.is_open,
            "opens_at": iso(window.opens_at),
            "closes_at": iso(window.closed_at or window.closes_at),
        },
        stages=stages,
        running=running,
        next=nexts,
        upcoming=[site.match(m, games=False) for m in upcoming[:UPCOMING]],
        champion=site.champion(),
        links={"field": "/field", "champion": "/champion", "calendar": "/calendar.ics"},
    )
    return out


def _next(text: str, at: datetime | None) -> Row:
    return {"text": text, "at": iso(at)}


def _stage_keys(site: Site) -> list[str]:
    """The format's stages in order, each row of its own key (2019's tiebreak matches)
    after its stage."""
    keys: list[str] = []
    for stage in site.config.format.stages:
        keys.append(stage.key)
        keys += [
            k
            for k in site.rows
            if k not in site.config.format.keys() and k.startswith(stage.key + "_")
        ]
    return keys


def _stage_state(rows: list[Stage]) -> str:
    if not rows:
        return "not_started"
    if all(r.state is StageState.FINISHED for r in rows):
        return "finished"
    if any(r.state is StageState.RUNNING for r in rows):
        return "running"
    return rows[0].state.value


def _latest_round(site: Site, row: Stage) -> Any:
    published = [r for r in site.rounds.get(row.id, []) if r.state is not RoundState.DRAFT]
    return published[-1] if published else None


# --------------------------------------------------------------------------- stage


def stage(site: Site, key: str) -> Row | None:
    """A stage: each row's table (standings with every tiebreak column, crosstable,
    scoreboard), the bracket it is drawn in, its rounds and the latest round's pairings."""
    if key not in _stage_keys(site):
        return None
    rows = site.rows.get(key, [])
    out = _base(site, "stage", wording.stage_title(site.stage_name(key)))
    state = _stage_state(rows)
    out.update(
        key=key,
        name=site.stage_name(key),
        url=f"/stages/{key}",
        state=state,
        state_text=wording.state(state),
        sections=[_section(site, row) for row in rows],
        bracket=bracket(site, key),
    )
    return out


def _section(site: Site, row: Stage) -> Row:
    fmt = site.config.format
    table = row_table(site.snapshot, site.config, row)
    crosstable = stage_kinds.is_robin(fmt, row) or stage_kinds.is_tiebreak_matches(row)
    one_match = stage_kinds.is_final_match(fmt, row)
    rounds = [r for r in site.rounds.get(row.id, []) if r.state is not RoundState.DRAFT]
    latest = rounds[-1] if rounds else None
    return {
        "name": site.row_name(row),
        "pool": row.pool if site.pooled(row) else None,
        "state": row.state.value,
        "state_text": wording.state(row.state.value),
        "rounds_played": table.rounds_played,
        "total_rounds": row.total_rounds,
        "standings": _standings(site, row, table) if table.rows and not one_match else None,
        "crosstable": _crosstable(site, row) if crosstable else None,
        "scoreboard": _scoreboard(site, row) if one_match else None,
        "rounds": [
            {
                "number": r.number,
                "url": f"/stages/{row.key}/rounds/{r.number}",
                "state": r.state.value,
                "starts_at": iso(r.starts_at),
                "deadline": iso(r.deadline),
            }
            for r in rounds
        ],
        "latest_round": {
            "number": latest.number,
            "matches": [site.match(m, games=False) for m in _round_matches(site, latest.id)],
        }
        if latest is not None
        else None,
    }  # fmt: skip


def _round_matches(site: Site, round_id: int) -> list[Match]:
    return site.by_round.get(round_id, [])


def _standings(site: Site, row: Stage, table: StageTable) -> Row:
    """Every column of the table and a legend line for each (issue 24's legends)."""
    fmt = site.config.format
    if stage_kinds.is_qualification(fmt, row) and not stage_kinds.is_tiebreak_matches(row):
        chain = list(swiss_stage(fmt).tiebreaks)
        heads = [(wording.POINTS[0], wording.POINTS[1])] + [
            wording.SWISS_TIEBREAKS[k] for k in chain
        ]

        def values(r: StandingRow) -> list[float | None]:
            own = dict(r.tiebreaks)
            found: dict[str, float | None] = {
                "wins_against_tied": r.wins_vs_tied, "median_buchholz": r.median_buchholz,
            }  # fmt: skip
            return [r.points] + [found[k] if k in found else own.get(k) for k in chain]
    else:
        heads = list(wording.ROBIN_COLUMNS)

        def values(r: StandingRow) -> list[float | None]:
            return [r.points, r.game_points, r.matches]

    return {
        "columns": [{"head": h, "legend": t} for h, t in [wording.RANK, ("Player", ""), *heads]],
        "rows": [
            {
                "rank": r.rank,
                "player": site.player_ref(r.player_id),
                "values": values(r),
                "texts": [wording.score(v) if v is not None else "" for v in values(r)],
                "withdrawn": r.withdrawn,
            }
            for r in table.rows
        ],
        "legend": [{"head": h, "text": t} for h, t in [wording.RANK, *heads]]
        + [{"head": "†", "text": wording.WITHDRAWN}],
    }


def _crosstable(site: Site, row: Stage) -> Row:
    """Each player against each other in the row, scores from the row player's side."""
    players = [pid for pid in row.seeding if pid in site.players]
    for m in site.matches_of(row):
        for pid in (m.player_a_id, m.player_b_id):
            if pid is not None and pid not in players:
                players.append(pid)
    cells: dict[tuple[int, int], Row] = {}
    for m in site.matches_of(row):
        if m.player_b_id is None:
            continue
        view = site.match(m, games=False)
        played = m.finished_at is not None or view["forfeit"]
        for me, other, mine, theirs in (
            (m.player_a_id, m.player_b_id, m.score_a, m.score_b),
            (m.player_b_id, m.player_a_id, m.score_b, m.score_a),
        ):
            text = f"{wording.score(mine)}–{wording.score(theirs)}" if played else "·"
            cells[(me, other)] = {"text": text, "url": view["url"]}
    return {
        "players": [site.player_ref(p) for p in players],
        "cells": [[cells.get((a, b)) for b in players] for a in players],
    }


def _scoreboard(site: Site, row: Stage) -> Row | None:
    """A final match game by game with the running score."""
    matches = [m for m in site.matches_of(row) if m.player_b_id is not None]
    if not matches:
        return None
    match = matches[-1]
    view = site.match(match)
    score_a = score_b = 0.0
    games = []
    for game in view["games"]:
        stored = next(g for g in site.games_by_match[match.id] if g.number == game["number"])
        if stored.counted:
            score_a += stored.result_a
            score_b += 1.0 - stored.result_a
        games.append({**game, "score_text": f"{wording.score(score_a)}–{wording.score(score_b)}"})
    return {**view, "games": games}


# --------------------------------------------------------------------------- round


def round_page(site: Site, key: str, number: int) -> Row | None:
    """A round's pairings in each of the stage's rows, with agreed times, scores and games."""
    sections = []
    for row in site.rows.get(key, []):
        found = [r for r in site.rounds.get(row.id, []) if r.number == number]
        if not found or found[0].state is RoundState.DRAFT:
            continue
        rnd = found[0]
        sections.append(
            {
                "name": site.row_name(row),
                "pool": row.pool if site.pooled(row) else None,
                "state": rnd.state.value,
                "state_text": wording.state(rnd.state.value),
                "starts_at": iso(rnd.starts_at),
                "deadline": None if stage_kinds.at_own_pace(row) else iso(rnd.deadline),
                "matches": [site.match(m) for m in _round_matches(site, rnd.id)],
            }
        )
    if not sections:
        return None
    name = site.stage_name(key)
    out = _base(site, "round", wording.round_title(name, number))
    out.update(
        stage={"key": key, "name": name, "url": f"/stages/{key}"}, number=number, sections=sections
    )
    return out


# --------------------------------------------------------------------------- match


def match_page(site: Site, slug: str, number: int, board: int) -> Row | None:
    match = site.by_slug.get((slug, number, board))
    if match is None:
        return None
    view = site.match(match)
    out = _base(site, "match", view["name"])
    row, _ = site.row_of(match)
    out.update(match=view, round_url=f"/stages/{row.key}/rounds/{number}")
    return out


# --------------------------------------------------------------------------- player


def player(site: Site, lichess_id: str) -> Row | None:
    """A player: seed, seeding rating with its two games, stages entered and every match."""
    found = site.by_lichess.get(lichess_id.lower())
    if found is None or found.id not in site.public_players():
        return None
    field = {e["id"]: e for e in site.field()}
    entry = field.get(found.id)
    roles = {p.lichess.lower(): p.role for p in site.config.players.pre_seeded}
    entered = []
    for key, entries in site.entries().items():
        for e in entries:
            if str(e["player"]).lower() == found.lichess_id:
                source = site.stage_name(e["source"]) if e.get("source") else ""
                entered.append(
                    {
                        "key": key,
                        "name": site.stage_name(key),
                        "url": f"/stages/{key}",
                        "rule": e["rule"],
                        "rule_text": wording.entry_rule(e["rule"], source, e["place"], e["pool"]),
                    }
                )
    matches = []
    for m in sorted(site.by_player.get(found.id, []), key=lambda m: m.id):
        view = site.match(m)
        mine_a = m.player_a_id == found.id
        winner = view["winner"]
        result = None
        if winner is not None:
            result = "won" if winner["name"] == found.lichess_username else "lost"
        elif m.state is MatchState.FINISHED:
            result = "drawn"
        mine, theirs = (m.score_a, m.score_b) if mine_a else (m.score_b, m.score_a)
        matches.append(
            {**view, "opponent": view["b"] if mine_a else view["a"], "result": result,
             "own_score": [mine, theirs],
             "own_score_text": f"{wording.score(mine)}–{wording.score(theirs)}"}
        )  # fmt: skip
    out = _base(site, "player", wording.player_title(found.lichess_username))
    status = (
        "disqualified" if found.disqualified_at else "withdrawn" if found.withdrawn_at else None
    )
    out.update(
        name=found.lichess_username,
        url=f"/players/{found.lichess_id}",
        calendar=f"/players/{found.lichess_id}/calendar.ics",  # the schedule feature's feed
        lichess_url=f"https://lichess.org/@/{found.lichess_username}",
        seed=entry["seed"] if entry else None,
        seeding_rating=found.seeding_rating,
        rating_at_cutoff=_rating(entry, "rating_at_cutoff"),
        peak_rating=_rating(entry, "peak_rating"),
        pre_seeded=roles.get(found.lichess_id) if found.pre_seeded_stage is not None else None,
        status=status,
        stages=entered,
        matches=matches,
    )  # fmt: skip
    return out


def _rating(entry: Row | None, name: str) -> Row | None:
    """A rating of the seeding evidence and the game it was read from (rule II)."""
    return {"rating": entry[name], "game": entry[f"{name}_game"]} if entry else None


# --------------------------------------------------------------------------- field, champion


def field(site: Site) -> Row:
    """The field at registration's close (issue 22's public post): nothing while it is open."""
    window = site.read.window
    out = _base(site, "field", wording.field_title())
    pre = [p for p in site.snapshot.players if p.pre_seeded_stage is not None]
    roles = {p.lichess.lower(): p for p in site.config.players.pre_seeded}
    out.update(
        open=window.is_open,
        closes_at=iso(window.closed_at or window.closes_at),
        entries=[{k: v for k, v in e.items() if k != "id"} for e in site.field()],
        pre_seeded=[_pre_seeded(site, p.id, roles.get(p.lichess_id)) for p in pre],
    )  # fmt: skip
    return out


def _pre_seeded(site: Site, player_id: int, entry: PreSeededPlayer | None) -> Row:
    role = entry.role if entry else None
    return {
        "player": site.player_ref(player_id),
        "role": role,
        "role_text": wording.seat_pre_seeded(role),
        "stage": site.stage_name(entry.stage) if entry else None,
    }


def champion(site: Site) -> Row:
    """The champion at the end, with the title match and every place the finals gave."""
    out = _base(site, "champion", wording.champion_title())
    won = site.champion()
    out.update(
        champion=won["player"] if won else None,
        final=won["match"] if won else None,
        places=site.final_places(),
        line=wording.champion_line(won["player"]["name"], site.config.tournament.name)
        if won
        else wording.no_champion_yet(),
    )
    return out


__all__ = ["champion", "field", "home", "match_page", "player", "round_page", "stage"]
