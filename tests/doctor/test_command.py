"""`acwc doctor` and `acwc invite-url` as a TD runs them: the report's lines, the exit code,
the invite URL with exactly the bot's scopes and permission integer."""

from __future__ import annotations

import asyncio
import base64
import logging
from datetime import UTC, datetime
from pathlib import Path

import discord
import pytest

from bot import cli
from bot.config import DiscordConfig
from bot.doctor.lines import CheckLine, failed, render_report
from bot.doctor.permissions import (
    BOT_PERMISSIONS,
    CHANNEL_NEEDS,
    application_id_from_token,
    invite_url,
)
from tests.doctor.server import GOOD, PAIRINGS, World, as_yaml, client_factory, config_file
from tests.fakes.lichess import FakeLichess
from tests.harness import DiscordHarness, RecordedRequest

INVITE = (
    "https://discord.com/oauth2/authorize?client_id=9000"
    "&scope=bot+applications.commands&permissions=309237763072"
)


@pytest.fixture
def database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    url = f"sqlite+aiosqlite:///{tmp_path / 'acwc.sqlite3'}"
    monkeypatch.setenv("DATABASE_URL", url)
    return url


def doctor(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    cfg: DiscordConfig = GOOD,
    world: World | None = None,
    *,
    token: str | None = "discord-token-123",
    migrate: bool = True,
    extra: str = "",
    args: tuple[str, ...] = (),
) -> int:
    path = config_file(tmp_path, cfg, extra=extra)
    if migrate:
        assert cli.main(["--config", str(path), "db", "upgrade"]) == cli.EXIT_OK
    if token is None:
        monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    else:
        monkeypatch.setenv("DISCORD_TOKEN", token)
    monkeypatch.setattr("bot.doctor.command.rest_client", client_factory(world))
    return cli.main(["--config", str(path), "doctor", *args])


def test_a_ready_setup_prints_every_line_with_a_tick_and_exits_0(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    database: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert doctor(monkeypatch, tmp_path) == 0
    out = capsys.readouterr().out.splitlines()[1:]  # after `db upgrade`'s line
    assert [line[:1] for line in out[:-2]] == ["✓"] * 11, out
    assert out[0] == "✓ Discord token: valid: logged in as acwc-bot (application id 9000)."
    assert out[8].startswith("✓ Lichess token: not set: the bot reads Lichess anonymously")
    assert out[9].startswith("✓ Database: reachable and at the latest schema (")
    assert out[10].startswith("✓ Edition: ACWC ")
    assert out[-2] == "Ready: every check passed."
    assert out[-1] == (
        "Invite URL (scopes bot, applications.commands; permissions 309237763072): " + INVITE
    )


def test_an_invalid_token_is_one_fatal_line_and_exit_1(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    database: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def real_token_differs(h: DiscordHarness) -> None:
        h.valid_token = "the-real-token"

    assert doctor(monkeypatch, tmp_path, world=real_token_differs) == 1
    out = capsys.readouterr().out
    assert (
        "✗ Discord token: the token is invalid (Discord answered 401). Fix: reset it in the "
        "Developer Portal (https://discord.com/developers/applications) → your app → Bot → "
        "Reset Token, and export the new one."
    ) in out
    assert "Discord server" not in out  # nothing on Discord can be checked without a login
    assert "1 problem; it stops `acwc run`." in out  # was "1 of them stop" (issue 32)
    assert "--client-id ID" in out  # no application id for the invite URL


def test_discord_out_of_reach_is_a_line_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    database: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def unreachable(req: RecordedRequest) -> None:
        raise OSError("Network is unreachable")

    def offline(h: DiscordHarness) -> None:
        h.on_request("GET", "/users/@me", unreachable)

    assert doctor(monkeypatch, tmp_path, world=offline) == 1
    out = capsys.readouterr().out
    assert (
        "✗ Discord token: Discord could not be asked (OSError: Network is unreachable). "
        "Fix: check the network and run again."
    ) in out
    assert "valid DISCORD_TOKEN" not in out  # the invite does not blame the token


# A token as Discord makes them: the base64 of the bot's id, a timestamp, an HMAC.
OFFLINE_APP = 123456789012345678
TOKEN_WITH_ID = base64.b64encode(str(OFFLINE_APP).encode()).decode().rstrip("=") + ".GxYz.s3cr3t"


def test_discord_out_of_reach_still_prints_the_invite_from_the_token_itself(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    database: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def offline(h: DiscordHarness) -> None:
        def unreachable(req: RecordedRequest) -> None:
            raise OSError("Network is unreachable")

        h.on_request("GET", "/users/@me", unreachable)

    assert application_id_from_token(TOKEN_WITH_ID) == OFFLINE_APP
    assert doctor(monkeypatch, tmp_path, world=offline, token=TOKEN_WITH_ID) == 1
    out = capsys.readouterr().out
    assert out.rstrip().endswith(invite_url(OFFLINE_APP))
    assert "--client-id" not in out and TOKEN_WITH_ID not in out and "s3cr3t" not in out
    monkeypatch.setattr("bot.doctor.command.rest_client", client_factory(offline))
    assert cli.main(["invite-url"]) == 0  # no network asked: the id is in the token
    assert capsys.readouterr().out == invite_url(OFFLINE_APP) + "\n"


@pytest.mark.parametrize("token", ["discord-token-123", "bm90LWRpZ2l0cw.x.y", "", "MTIz.x.y"])
def test_a_token_without_an_id_gives_none(token: str) -> None:
    assert application_id_from_token(token) is None  # "not-digits", "123": too short


def test_no_token_still_prints_the_invite_for_a_client_id(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    database: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert doctor(monkeypatch, tmp_path, token=None, args=("--client-id", "123")) == 1
    out = capsys.readouterr().out
    assert "✗ Discord token: DISCORD_TOKEN is not set. Fix: export DISCORD_TOKEN" in out
    assert out.rstrip().endswith(invite_url(123))


def test_a_broken_setup_lists_each_problem_with_its_fix_and_exits_1(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    database: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def no_threads(h: DiscordHarness) -> None:
        h.set_overwrite(PAIRINGS, h.bot_user_id + 1, deny=1 << 38)  # Send Messages in Threads

    broken = GOOD.model_copy(update={"td_role_id": 888, "announcement_channel_id": None})
    assert doctor(monkeypatch, tmp_path, broken, no_threads) == 1
    lines = capsys.readouterr().out.splitlines()
    failed = [line for line in lines if line.startswith("✗")]
    assert [line.split(":")[0] for line in failed] == [
        "✗ Pairings channel",
        "✗ Announcement channel",
        "✗ TD role",
    ]
    assert "the bot lacks Send Messages in Threads" in failed[0]
    # the pairings channel no longer stops the start: setup mode waits for /td setup
    assert lines[-2] == (
        "3 problems; `acwc run` starts in setup mode (only `/td setup` and `/help` answer, "
        "nothing is published) until it is fixed with `/td setup`."
    )


def test_a_fresh_database_passes_and_says_acwc_run_migrates_it(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    database: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A fresh install: nothing migrated yet. `acwc run` migrates at every start (bot.cli
    `_run`), so the doctor does not end on a ✗ the guide never explained (it did until
    issue 32); it says what happens and the command that does it now."""
    assert doctor(monkeypatch, tmp_path, migrate=False) == 0
    out = capsys.readouterr().out
    assert "✓ Database: reachable, at schema none (empty: a fresh install); `acwc run` " in out
    assert "migrates it to the latest (" in out and "or run `acwc db upgrade` now." in out
    assert "Ready: every check passed." in out


def test_a_database_that_cannot_be_reached_says_so_without_its_password(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    closed_port = "postgresql+asyncpg://acwc:s3cret-pw@127.0.0.1:1/acwc"
    monkeypatch.setenv("DATABASE_URL", closed_port)
    assert doctor(monkeypatch, tmp_path, migrate=False) == 1
    out = capsys.readouterr().out
    assert "✗ Database: cannot be reached (" in out
    assert "Fix: check database.url / DATABASE_URL and the server." in out
    assert "s3cret-pw" not in out
    # what `acwc run` does with it (it said "starts and warns", and `acwc run` stopped)
    assert out.splitlines()[-2] == "1 problem; it stops `acwc run`."


def test_acwc_run_stops_on_the_database_the_doctor_says_stops_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path}/no/such/x.db")
    assert doctor(monkeypatch, tmp_path, migrate=False) == 1
    assert capsys.readouterr().out.splitlines()[-2] == "1 problem; it stops `acwc run`."
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:  # the real start: migrating in a child process fails, and the start stops
        assert cli.main(["--config", str(tmp_path / "config.yaml"), "run"]) == cli.EXIT_FAILURE
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)
    assert "Migrating the database failed" in capsys.readouterr().err


def test_a_sqlite_file_in_a_missing_folder_says_which_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path}/no/such/x.db")
    assert doctor(monkeypatch, tmp_path, migrate=False) == 1
    out = capsys.readouterr().out
    assert f"✗ Database: the folder of the SQLite file, {tmp_path}/no/such, does not exist." in out


def test_the_watch_without_the_intent_is_a_fatal_line(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    database: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    watch = "fair_play:\n  flag_public_accusations: true\n"
    assert doctor(monkeypatch, tmp_path, extra=watch) == 1
    assert "✗ Message Content intent: off, but fair_play" in capsys.readouterr().out


def test_the_invite_asks_for_exactly_what_the_channels_need() -> None:
    needed = {need.flag for needs in CHANNEL_NEEDS.values() for need in needs}
    assert discord.Permissions(**dict.fromkeys(needed, True)) == BOT_PERMISSIONS
    assert BOT_PERMISSIONS.value == 309237763072
    assert BOT_PERMISSIONS == discord.Permissions(
        view_channel=True,
        send_messages=True,
        embed_links=True,
        attach_files=True,  # the standings picture on each round's post (issue 27)
        read_message_history=True,
        create_public_threads=True,
        send_messages_in_threads=True,
    )
    assert invite_url(9000) == INVITE


def test_invite_url_with_a_client_id_prints_only_the_url(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    assert cli.main(["invite-url", "--client-id", "123456789012345678"]) == 0
    assert capsys.readouterr().out == (
        "https://discord.com/oauth2/authorize?client_id=123456789012345678"
        "&scope=bot+applications.commands&permissions=309237763072\n"
    )


def test_invite_url_reads_the_application_id_from_the_token(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DISCORD_TOKEN", "discord-token-123")
    monkeypatch.setattr("bot.doctor.command.rest_client", client_factory())
    assert cli.main(["invite-url"]) == 0
    assert capsys.readouterr().out == INVITE + "\n"


def test_invite_url_without_token_or_client_id_says_what_it_needs(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    assert cli.main(["invite-url"]) == cli.EXIT_USAGE
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "set DISCORD_TOKEN to the bot's token (it carries the id), or pass --client-id ID" in (
        captured.err
    )


@pytest.mark.parametrize(
    ("token", "said"),
    [
        ("lip_good", "✓ Lichess token: valid, with the scopes challenge:write."),
        (
            "lip_readonly",
            "✗ Lichess token: refused. Fix: LICHESS_TOKEN lacks the `challenge:write`",
        ),
        ("lip_revoked", "✗ Lichess token: refused. Fix: Lichess says LICHESS_TOKEN is invalid"),
    ],
)
async def test_the_lichess_token_line(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    database: str,
    capsys: pytest.CaptureFixture[str],
    fake: FakeLichess,
    token: str,
    said: str,
) -> None:
    fake.add_token("lip_readonly", scopes=("preference:read",))
    fake.add_token("lip_good", scopes=("challenge:write",))
    monkeypatch.setenv("LICHESS_BASE_URL", fake.base_url)
    monkeypatch.setenv("LICHESS_TOKEN", token)
    code = await asyncio.to_thread(doctor, monkeypatch, tmp_path)  # the fake runs on this loop
    out = capsys.readouterr().out
    assert said in out, out
    assert code == (0 if token == "lip_good" else 1)


def test_last_years_config_is_two_warnings_with_their_fix(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    database: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A TD who set only the Discord ids runs the built-in 2019 edition: doctor says so."""
    path = tmp_path / "config.yaml"
    path.write_text(as_yaml(GOOD), encoding="utf-8")
    assert cli.main(["--config", str(path), "db", "upgrade"]) == cli.EXIT_OK
    monkeypatch.setenv("DISCORD_TOKEN", "discord-token-123")
    monkeypatch.setattr("bot.doctor.command.rest_client", client_factory(None))
    assert cli.main(["--config", str(path), "doctor"]) == cli.EXIT_FAILURE
    out = capsys.readouterr().out
    assert "✗ Edition: registration closed on 2019-09-29 12:00 UTC" in out
    assert "acwc new-edition --preset NAME --year YEAR" in out


def test_a_preset_for_a_new_year_keeps_last_years_players_and_doctor_says_so(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    database: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    year = datetime.now(UTC).year + 1
    path = tmp_path / "config.yaml"
    path.write_text(
        f"preset: acwc-2024\ntournament:\n  year: {year}\n" + as_yaml(GOOD), encoding="utf-8"
    )
    assert cli.main(["--config", str(path), "db", "upgrade"]) == cli.EXIT_OK
    monkeypatch.setenv("DISCORD_TOKEN", "discord-token-123")
    monkeypatch.setattr("bot.doctor.command.rest_client", client_factory(None))
    assert cli.main(["--config", str(path), "doctor"]) == cli.EXIT_FAILURE
    out = capsys.readouterr().out
    assert (
        "✗ Edition: the pre-seeded players (llIVIll, TheUnknownGuyReborn) are the acwc-2024 "
        f"preset's, for 2024, but this edition is {year}." in out
    )
    assert "registration closed" not in out
    assert "✗ Format:" not in out  # the engine runs the 2024 format's stages


@pytest.mark.parametrize(
    ("lines", "verdict"),
    [
        ([failed("A", "x.", "y.", fatal=True)], "1 problem; it stops `acwc run`."),
        (
            [failed("A", "x.", "y.", fatal=True), failed("B", "x.", "y.", fatal=True)],
            "2 problems; they stop `acwc run`.",
        ),
        (
            [failed("A", "x.", "y.", fatal=True), failed("B", "x.", "y.")],
            "2 problems; 1 of them stops `acwc run`.",
        ),
        (
            [*(failed(t, "x.", "y.", fatal=True) for t in "AB"), failed("C", "x.", "y.")],
            "3 problems; 2 of them stop `acwc run`.",
        ),
        ([failed("A", "x.", "y.")], "1 problem; `acwc run` starts and warns about it."),
        (
            [failed("A", "x.", "y."), failed("B", "x.", "y.")],
            "2 problems; `acwc run` starts and warns about them.",
        ),
    ],
)
def test_the_verdict_counts_in_english(lines: list[CheckLine], verdict: str) -> None:
    assert render_report(lines).splitlines()[-1] == verdict
