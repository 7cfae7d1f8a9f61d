"""`acwc check-player` end to end: the real CLI against the fake Lichess server over HTTP."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

import pytest

from bot import cli
from tests.conftest import add_player
from tests.fakes.lichess import FakeLichess


async def run_cli(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    base_url: str,
    *args: str,
) -> tuple[int, str, str]:
    monkeypatch.setenv("LICHESS_BASE_URL", base_url)
    code = await asyncio.to_thread(cli.main, list(args))
    out, err = capsys.readouterr()
    return code, out, err


async def test_json_report_of_an_eligible_player(
    fake: FakeLichess, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    add_player(fake, "Alice", games=150, rating=1700)
    fake.add_game(
        white="Alice",
        black="x",
        created_at=datetime(2019, 1, 5, tzinfo=UTC),
        white_rating=2000,
        white_rating_diff=15,
        id="peakgame",
    )
    code, out, _ = await run_cli(
        monkeypatch, capsys, fake.base_url, "check-player", "alice", "--json"
    )
    assert code == 0
    report = json.loads(out)
    assert report["username"] == "Alice"
    assert report["exists"] is True
    assert report["created_at"] == "2017-01-01T00:00:00Z"
    assert report["rated_games_before_cutoff"] == 100  # counting stops at the minimum
    assert report["problems"] == []
    assert report["eligible"] is True
    assert report["rating_at_cutoff"] == 1700
    assert report["peak_rating"] == 2015
    assert report["peak_rating_game"] == "https://lichess.org/peakgame"
    assert report["seeding_rating"] == 1857.5
    assert report["rating_at_cutoff_game"].startswith("https://lichess.org/")


async def test_json_report_of_problems(
    fake: FakeLichess, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    add_player(
        fake, "Late", created_at=datetime(2019, 3, 1, tzinfo=UTC), games=0, tos_violation=True
    )
    code, out, _ = await run_cli(
        monkeypatch, capsys, fake.base_url, "check-player", "Late", "--json"
    )
    report = json.loads(out)
    assert code == 0
    assert report["problems"] == ["account_too_new", "too_few_games", "tos_violation"]
    assert report["eligible"] is False
    assert report["seeding_rating"] is None and report["peak_rating_game"] is None


async def test_unknown_closed_and_bot(
    fake: FakeLichess, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake.add_user("Gone", created_at=datetime(2015, 1, 1, tzinfo=UTC), closed=True, disabled=True)
    add_player(fake, "Robot", title="BOT")
    expected = {"nobody": ["not_found"], "Gone": ["closed_account"], "Robot": ["bot_account"]}
    for name, problems in expected.items():
        code, out, _ = await run_cli(
            monkeypatch, capsys, fake.base_url, "check-player", name, "--json"
        )
        report = json.loads(out)
        assert code == 0
        assert report["problems"] == problems, name
        assert report["exists"] is (name != "nobody")


async def test_lichess_unreachable_exits_2(
    fake: FakeLichess, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake.set_down(True)
    code, out, err = await run_cli(
        monkeypatch, capsys, fake.base_url, "check-player", "Alice", "--json"
    )
    assert code == 2
    assert out == ""
    assert "could not be reached" in err


async def test_human_readable_report(
    fake: FakeLichess, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    add_player(fake, "Alice", games=10)
    code, out, _ = await run_cli(monkeypatch, capsys, fake.base_url, "check-player", "Alice")
    assert code == 0
    assert "problems: too_few_games" in out
    assert "https://lichess.org/@/Alice" in out


def test_run_without_token_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    assert cli.main(["run"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "DISCORD_TOKEN is not set: export your Discord bot token and run again."


def test_bad_config_names_every_bad_field(
    tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        "tournament:\n  match_games: zero\nregistration:\n  min_rated_games: -1\n"
        "lichess:\n  base_url: ftp://x\nunknown_section: 1\n"
    )
    assert cli.main(["--config", str(path), "check-player", "x"]) == 2
    err = capsys.readouterr().err
    for field in (
        "tournament.match_games",
        "registration.min_rated_games",
        "lichess.base_url",
        "unknown_section",
    ):
        assert field in err


def test_config_accepted_after_the_subcommand(
    tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    path = tmp_path / "ok.yaml"
    path.write_text("tournament:\n  name: Test\n")
    assert cli.main(["run", "--config", str(path)]) == 2


def test_db_upgrade_and_drift_check(
    tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'cli.sqlite3'}")
    assert cli.main(["db", "upgrade"]) == 0
    assert cli.main(["db", "check"]) == 0
    assert "agree" in capsys.readouterr().out


async def test_no_games_in_the_peak_window_uses_the_rating_held_before_it(
    fake: FakeLichess, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Every game ends before 2018-09-01 00:00 CEST: the rating held then is both figures.
    add_player(fake, "Retired", games=120, rating=1600, games_end=datetime(2018, 6, 1, tzinfo=UTC))
    fake.add_game(
        white="Retired",
        black="x",
        created_at=datetime(2018, 8, 31, 21, 0, tzinfo=UTC),
        last_move_at=datetime(2018, 8, 31, 21, 10, tzinfo=UTC),
        white_rating=1600,
        white_rating_diff=-12,
        id="lastgame",
    )
    code, out, _ = await run_cli(
        monkeypatch, capsys, fake.base_url, "check-player", "Retired", "--json"
    )
    report = json.loads(out)
    assert code == 0
    assert report["rating_at_cutoff"] == report["peak_rating"] == 1588
    assert (
        report["rating_at_cutoff_game"]
        == report["peak_rating_game"]
        == ("https://lichess.org/lastgame")
    )
    assert report["seeding_rating"] == 1588


async def test_rate_limited_then_success(
    fake: FakeLichess,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path,
) -> None:
    """After HTTP 429 the client pauses (60 s by config minimum; patched short here), retries."""
    import bot.lichess.client as client_module

    slept: list[float] = []
    original_sleep = client_module.asyncio.sleep

    async def fast_sleep(seconds: float) -> None:
        slept.append(seconds)
        await original_sleep(0)

    monkeypatch.setattr(client_module.asyncio, "sleep", fast_sleep)
    add_player(fake, "Alice")
    fake.fail_next("/api/user/", 429)
    code, out, _ = await run_cli(
        monkeypatch, capsys, fake.base_url, "check-player", "Alice", "--json"
    )
    assert code == 0 and json.loads(out)["eligible"] is True
    assert slept and slept[0] > 59.9  # the configured minimum pause of 60 s


def test_audit_export_lists_who_changed_what(
    tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import asyncio as aio

    from bot.audit import Actor, record
    from db import migrate
    from db.engine import make_engine, make_sessionmaker, transaction

    url = f"sqlite+aiosqlite:///{tmp_path / 'audit.sqlite3'}"

    async def seed() -> None:
        await migrate.upgrade(url)
        engine = make_engine(url)
        async with transaction(make_sessionmaker(engine)) as session:
            record(
                session,
                at=datetime(2019, 9, 10, tzinfo=UTC),
                actor=Actor.td(900),
                action="registration_approved",
                subject_type="registration",
                subject_id=1,
                details={"reason": None},
            )
            record(
                session,
                at=datetime(2019, 9, 11, tzinfo=UTC),
                actor=Actor.job(),
                action="round_published",
                subject_type="round",
                subject_id=1,
            )
        await engine.dispose()

    aio.run(seed())
    monkeypatch.setenv("DATABASE_URL", url)
    assert cli.main(["audit", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(e["actor"], e["action"]) for e in lines] == [
        ("td", "registration_approved"),
        ("job", "round_published"),
    ]
    assert lines[0]["at"] == "2019-09-10T00:00:00Z" and lines[0]["actor_id"] == 900
    assert cli.main(["audit", "--limit", "1"]) == 0
    out = capsys.readouterr().out
    assert "round_published" in out and "registration_approved" not in out


async def test_rule_ii_a_2_counts_only_games_played_and_rated_before_the_cutoff(
    fake: FakeLichess, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Lichess's index holds never-played and rating-less games, and filters the last move
    with `until` inclusive: only games played to a rated end before the cut-off count."""
    cutoff = datetime(2019, 9, 1, tzinfo=UTC)
    add_player(fake, "Edge", games=97)

    def game(created: datetime, ended: datetime, **fields: object) -> None:
        fake.add_game(
            white="Edge", black="sparring", created_at=created, last_move_at=ended, **fields
        )

    minute = timedelta(minutes=1)
    game(cutoff - 10 * minute, cutoff - timedelta(milliseconds=600))  # counts: before 00:00
    game(cutoff - 5 * minute, cutoff + 3 * minute)  # begun before, played to its end after
    for n in (1, 2):  # never played: the index holds them, without a rating change
        game(cutoff - n * 20 * minute, cutoff - n * 20 * minute, status="noStart",
             winner=None, white_rating_diff=None, black_rating_diff=None)  # fmt: skip
    game(cutoff - 90 * minute, cutoff - 80 * minute, status="cheat", white_rating_diff=None)
    code, out, _ = await run_cli(
        monkeypatch, capsys, fake.base_url, "check-player", "Edge", "--json"
    )
    report = json.loads(out)
    assert code == 0
    assert report["rated_games_before_cutoff"] == 98, report
    assert report["problems"] == ["too_few_games"]
