"""`acwc export` and `acwc standings` end to end: the real CLI on a database with a played
Swiss round, a Candidates stage set up by hand and, in one test, a Final."""

from __future__ import annotations

import asyncio
import csv
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import cli
from bot.clock import FakeClock
from bot.config import Config
from bot.features.console.export import TABLES
from bot.rules import candidates
from db.engine import transaction
from db.models import (
    Game,
    IncidentKind,
    IncidentState,
    Match,
    MatchIncident,
    MatchState,
    OfferKind,
    OfferState,
    Registration,
    RegistrationState,
    Round,
    RoundState,
    StageKind,
    StageState,
    TimeOffer,
)
from tests.conftest import TD_ID
from tests.factories import (
    SeededRound,
    open_stage,
    seed_round,
    stage_row,
    wired,
)
from tests.running import ALICE, BOB

WEDNESDAY = datetime(2019, 10, 2, 18, 0, tzinfo=UTC)
NAMES = ["Alice", "Bob", "Carol", "Dave", "Eve"]


async def run_cli(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], db_url: str, *args: str
) -> tuple[int, str, str]:
    monkeypatch.setenv("DATABASE_URL", db_url)
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    code = await asyncio.to_thread(cli.main, list(args))
    out, err = capsys.readouterr()
    return code, out, err


def game(match_id: int, number: int, white: int, black: int, result_a: float) -> Game:
    start = WEDNESDAY + timedelta(minutes=15 * number)
    return Game(
        match_id=match_id,
        lichess_id=f"g{match_id}n{number:02d}x",
        number=number,
        white_player_id=white,
        black_player_id=black,
        status="mate",
        winner="white" if result_a == 1.0 else None,
        result_a=result_a,
        counted=True,
        created_at=start,
        ended_at=start + timedelta(minutes=10),
    )


async def played_round(
    sessions: async_sessionmaker[AsyncSession], config: Config, clock: FakeClock
) -> SeededRound:
    """Round 1 of the Swiss played (Alice 6–0 Bob with its games, Carol 2–5.5 Dave, Eve's
    bye), so round 2 is paired, with an offer, an incident and Alice's registration with
    its evidence."""
    seeded = await seed_round(sessions, config, [(ALICE, "Alice"), (BOB, "Bob")] + [
        (None, name) for name in NAMES[2:]
    ])  # fmt: skip
    ids = seeded.player_ids
    first, second, _bye = seeded.match_ids
    clock.set(WEDNESDAY)
    async with transaction(sessions) as session:
        session.add(
            Registration(
                player_id=ids["Alice"],
                state=RegistrationState.APPROVED,
                problems=["tos_violation"],
                evidence={"rated_games": 150, "created": "2017-01-01T00:00:00Z"},
                seeding_rating=2000.0,
                created_at=WEDNESDAY - timedelta(days=20),
                updated_at=WEDNESDAY - timedelta(days=19),
            )
        )
        session.add(
            TimeOffer(
                match_id=first,
                offered_by_id=ids["Alice"],
                kind=OfferKind.OFFER,
                proposed_time=WEDNESDAY,
                state=OfferState.ACCEPTED,
                created_at=WEDNESDAY - timedelta(days=1),
            )
        )
        session.add(
            MatchIncident(
                match_id=second,
                kind=IncidentKind.BREAK,
                state=IncidentState.RESOLVED,
                reporter_id=ids["Carol"],
                created_at=WEDNESDAY,
                details={"minutes": 10},
            )
        )
        a, b = ids["Alice"], ids["Bob"]
        session.add_all(
            [game(first, n, a if n % 2 else b, b if n % 2 else a, 1.0) for n in range(1, 7)]
        )
        match = await session.get(Match, first)
        assert match is not None
        match.agreed_time = WEDNESDAY
        match.challenge_url = "https://lichess.org/challenge1"
    services = wired(sessions, config, clock)
    await services.rounds.set_score(
        td_id=TD_ID, match_id=first, score_a=6.0, score_b=0.0, reason=None
    )
    await services.rounds.set_score(
        td_id=TD_ID, match_id=second, score_a=2.0, score_b=5.5, reason="late"
    )
    return seeded


async def candidates_by_hand(
    sessions: async_sessionmaker[AsyncSession], seeded: SeededRound
) -> dict[str, int]:
    """A Candidates stage of four: Alice beat Bob 6–4, Carol–Dave was disregarded (forfeited
    without a winner), Alice won against Carol by forfeit, Bob–Dave is still to be played."""
    ids = seeded.player_ids
    field = [ids[n] for n in ("Alice", "Bob", "Carol", "Dave")]
    async with transaction(sessions) as session:
        round_ = await open_stage(
            session,
            StageKind.CANDIDATES,
            field,
            total_rounds=3,
            starts_at=datetime(2019, 11, 4, tzinfo=UTC),
            deadline=datetime(2019, 11, 10, 23, 59, 59, tzinfo=UTC),
        )

        def match(a: str, b: str, state: MatchState, **fields: object) -> Match:
            return Match(
                round_id=round_.id,
                player_a_id=ids[a],
                player_b_id=ids[b],
                state=state,
                **fields,
            )

        session.add_all(
            [
                match("Alice", "Bob", MatchState.FINISHED, score_a=6.0, score_b=4.0,
                      points_a=1.0, points_b=0.0, board=1),
                match("Carol", "Dave", MatchState.FORFEITED, score_a=3.0, score_b=1.0, board=2),
                match("Alice", "Carol", MatchState.FORFEITED, score_a=1.0, score_b=2.0,
                      points_a=1.0, points_b=0.0, forfeit_winner_id=ids["Alice"], board=3),
                match("Bob", "Dave", MatchState.NEGOTIATING, score_a=0.0, score_b=0.0, board=4),
            ]
        )  # fmt: skip
    return ids


async def test_export_json_writes_the_whole_championship(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: FakeClock,
    db_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    seeded = await played_round(sessions, config, clock)
    await candidates_by_hand(sessions, seeded)
    out = tmp_path / "out"
    code, text, _ = await run_cli(
        monkeypatch, capsys, db_url, "export", "--format", "json", "--out", str(out)
    )
    assert code == 0, text
    assert [p.name for p in out.iterdir()] == ["championship.json"]
    assert "championship.json" in text
    data = json.loads((out / "championship.json").read_text())
    assert list(data) == list(TABLES)
    assert all(isinstance(rows, list) for rows in data.values())

    players = {p["lichess_username"]: p for p in data["players"]}
    assert set(players) == set(NAMES)
    assert players["Alice"]["discord_id"] == ALICE
    assert players["Alice"]["created_at"] == "2019-09-30T00:00:00Z"

    (registration,) = data["registrations"]
    assert registration["player"] == "Alice" and registration["state"] == "approved"
    assert registration["evidence"] == {"rated_games": 150, "created": "2017-01-01T00:00:00Z"}
    assert registration["problems"] == ["tos_violation"]

    seeding = [(s["seed"], s["player"]) for s in data["seeding"] if s["stage"] == "swiss"]
    assert seeding == list(enumerate(NAMES, start=1))
    assert {s["kind"] for s in data["stages"]} == {"swiss", "candidates"}

    first = next(m for m in data["matches"] if m["id"] == seeded.match_ids[0])
    assert (first["player_a"], first["player_b"], first["state"]) == ("Alice", "Bob", "finished")
    assert (first["score_a"], first["score_b"], first["points_a"]) == (6.0, 0.0, 1.0)
    assert first["agreed_time"] == "2019-10-02T18:00:00Z"
    assert first["challenge_url"] == "https://lichess.org/challenge1"
    assert first["game_links"] == [
        f"https://lichess.org/g{seeded.match_ids[0]}n{n:02d}x" for n in range(1, 7)
    ]
    assert first["stage"] == "swiss" and first["round"] == 1
    assert len([g for g in data["games"] if g["match_id"] == first["id"]]) == 6

    assert [o["offered_by"] for o in data["offers"]] == ["Alice"]
    assert data["offers"][0]["proposed_time"] == "2019-10-02T18:00:00Z"
    assert [(i["kind"], i["reporter"]) for i in data["incidents"]] == [("break", "Carol")]
    decisions = [(d["kind"], d["decision"], d["reason"]) for d in data["decisions"]]
    assert decisions == [("set_score", "6-0", None), ("set_score", "2-5.5", "late")]
    assert {"score_set"} <= {a["action"] for a in data["audit"]}
    assert all(a["at"].endswith("Z") for a in data["audit"])

    swiss = [r for r in data["standings"] if r["stage"] == "swiss"]
    alice = next(r for r in swiss if r["player"] == "Alice")
    assert (alice["points"], alice["wins_vs_tied"], alice["withdrawn"]) == (1.0, 0, False)
    assert {"wins_vs_tied", "median_buchholz", "stage_state"} <= set(swiss[0])
    table = await wired(sessions, config, clock).rounds.standings()
    assert [(r["player"], r["rank"], r["points"]) for r in swiss] == [
        (line.player, line.rank, line.points) for line in table
    ]
    cands = [(r["player"], r["points"], r["game_points"]) for r in data["standings"]
             if r["stage"] == "candidates"]  # fmt: skip
    assert cands[0] == ("Alice", 2.0, 16.0)  # 6 against Bob, all 10 for the forfeit
    assert ("Carol", 0.0, 0.0) in cands and ("Dave", 0.0, 0.0) in cands  # disregarded


async def test_export_csv_one_file_per_table(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: FakeClock,
    db_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    seeded = await played_round(sessions, config, clock)
    out = tmp_path / "csv"
    code, _, _ = await run_cli(
        monkeypatch, capsys, db_url, "export", "--format", "csv", "--out", str(out)
    )
    assert code == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(f"{t}.csv" for t in TABLES)

    def rows(table: str) -> list[dict[str, str]]:
        with (out / f"{table}.csv").open(newline="", encoding="utf-8") as handle:
            return list(csv.DictReader(handle))

    first = next(m for m in rows("matches") if m["id"] == str(seeded.match_ids[0]))
    assert first["player_a"] == "Alice" and first["score_a"] == "6.0"
    assert first["agreed_time"] == "2019-10-02T18:00:00Z"
    assert len(first["game_links"].split(" ")) == 6
    bye = next(m for m in rows("matches") if m["id"] == str(seeded.match_ids[2]))
    assert bye["state"] == "bye" and bye["player_b"] == "" and bye["game_links"] == ""
    (registration,) = rows("registrations")
    assert json.loads(registration["evidence"])["rated_games"] == 150
    alice = next(r for r in rows("standings") if r["player"] == "Alice")
    assert alice["points"] == "1.0" and alice["wins_vs_tied"] == "0"
    assert {r["stage"] for r in rows("standings")} == {"swiss"}
    assert len(rows("players")) == 5 and len(rows("decisions")) == 2
    assert json.loads(rows("stages")[0]["seeding"]) == [seeded.player_ids[n] for n in NAMES]


async def test_export_of_an_empty_championship_has_every_header(
    sessions: async_sessionmaker[AsyncSession],
    db_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, _ = await run_cli(
        monkeypatch, capsys, db_url, "export", "--format", "csv", "--out", str(tmp_path / "e")
    )
    assert code == 0
    header = (tmp_path / "e" / "matches.csv").read_text().splitlines()
    assert len(header) == 1 and header[0].startswith("id,stage,round,board,player_a_id")
    code, _, _ = await run_cli(monkeypatch, capsys, db_url, "export", "--out", str(tmp_path / "j"))
    assert code == 0
    data = json.loads((tmp_path / "j" / "championship.json").read_text())
    assert data == {table: [] for table in TABLES}


async def test_standings_prints_every_stage(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: FakeClock,
    db_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    seeded = await played_round(sessions, config, clock)
    await candidates_by_hand(sessions, seeded)
    code, out, err = await run_cli(monkeypatch, capsys, db_url, "standings")
    assert code == 0 and err == "", err
    # the same table as Discord's /standings (bot.features.tables), every row (issue 27)
    lines = out.splitlines()
    assert lines[0] == "Qualification standings · ACWC 2019, round 2 of 5 in progress"
    assert lines[1].split() == ["No", "Player", "Pts", "WvT", "MBH", "R1", "R2"]
    table = await wired(sessions, config, clock).rounds.standings()
    swiss_rows = [line.lstrip("* ").split() for line in lines[3 : 3 + len(table)]]
    assert [(int(r[0]), r[1], float(r[2])) for r in swiss_rows] == [
        (n, line.player, line.points) for n, line in enumerate(table, start=1)
    ]
    # Dave: his win and round 2's bye (published when round 1 closed); Eve's bye was seeded
    # without points
    assert swiss_rows[0] == ["1", "Dave", "2", "0", "0", "+3", "bye"]
    assert swiss_rows[1][:3] == ["2", "Alice", "1"]
    assert "* in the top 3." in lines and any(
        line.startswith("No: place in this table. Pts:") for line in lines
    )
    start = lines.index("Candidates crosstable · ACWC 2019, round 1 of 3 in progress")
    assert lines[start + 1].split() == ["No", "Player", "1", "2", "3", "4", "MP", "GP"]
    expected = candidates.standings(
        ["alice", "bob", "carol", "dave"],
        [("alice", "bob", 6.0, 4.0), ("alice", "carol", 10.0, 0.0)],
    )
    got = [line.lstrip("* ").split() for line in lines[start + 3 : start + 7]]
    assert [(int(r[0]), r[1].lower(), float(r[-2]), float(r[-1])) for r in got] == [
        (n, row.player, row.points, row.game_points) for n, row in enumerate(expected, start=1)
    ]
    assert lines[-1] == "Final: not started."
    assert not any(line.startswith("Tiebreak") for line in lines)

    code, out, _ = await run_cli(monkeypatch, capsys, db_url, "standings", "--stage", "Final")
    assert code == 0 and out.strip() == "Final: not started."


async def test_standings_of_a_final_game_by_game_and_with_a_config_file(
    sessions: async_sessionmaker[AsyncSession],
    config: Config,
    clock: FakeClock,
    db_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    seeded = await seed_round(sessions, config, [(ALICE, "Alice"), (BOB, "Bob")])
    a, b = seeded.player_ids["Alice"], seeded.player_ids["Bob"]
    async with transaction(sessions) as session:
        stage = stage_row(StageKind.FINAL, state=StageState.RUNNING, seeding=[a, b])
        session.add(stage)
        await session.flush()
        round_ = Round(
            stage_id=stage.id,
            number=1,
            state=RoundState.PUBLISHED,
            starts_at=datetime(2019, 12, 2, tzinfo=UTC),
            deadline=datetime(2019, 12, 8, 23, 59, 59, tzinfo=UTC),
        )
        session.add(round_)
        await session.flush()
        match = Match(
            round_id=round_.id,
            player_a_id=a,
            player_b_id=b,
            state=MatchState.IN_PROGRESS,
            score_a=1.5,
            score_b=0.5,
        )
        session.add(match)
        await session.flush()
        voided = game(match.id, 3, b, a, 0.0)
        voided.counted, voided.voided_reason = False, "wrong clock"
        session.add_all([game(match.id, 1, a, b, 1.0), game(match.id, 2, b, a, 0.5), voided])
    path = tmp_path / "config.yaml"
    path.write_text(f"database:\n  url: {db_url}\n")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    code = await asyncio.to_thread(
        cli.main, ["--config", str(path), "standings", "--stage", "final"]
    )
    out = capsys.readouterr().out
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Final · ACWC 2019: Alice vs Bob"
    assert lines[1].split() == ["Game", "TC", "White", "Black", "Result", "Score"]
    assert lines[3].split() == ["1", "2+5", "Alice", "Bob", "1-0", "1-0"]
    assert lines[4].split() == ["2", "2+5", "Bob", "Alice", "1/2-1/2", "1.5-0.5"]
    assert lines[6].split() == ["Total", "1.5-0.5"]  # the voided game 3 does not count
    assert "Score: Alice first. TC: time control." in lines


async def test_standings_of_an_unknown_stage_exits_2(
    sessions: async_sessionmaker[AsyncSession],
    db_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = await run_cli(monkeypatch, capsys, db_url, "standings", "--stage", "semis")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "Unknown stage 'semis'" in err
    assert "swiss" in err and "final" in err
    code, out, _ = await run_cli(monkeypatch, capsys, db_url, "standings", "--stage", "swiss")
    assert code == 0 and out.strip() == "Swiss qualification: not started."
