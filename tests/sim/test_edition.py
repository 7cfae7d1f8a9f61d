"""`acwc simulate --edition`: the preset's config, dates and pre-seeded players, the week's
match slots, and a run folder that remembers its edition."""

from __future__ import annotations

from pathlib import Path

import pytest

from acwc_sim.edition import sim_config, start_of
from acwc_sim.games import START
from acwc_sim.negotiation import slots
from acwc_sim.resume import OtherEdition, StepLog
from acwc_sim.run import simulate
from bot.features.rounds.weeks import first_round_start

URLS = ("sqlite+aiosqlite:///x.sqlite3", "http://127.0.0.1:1")


def test_2019_is_the_default_config_with_the_simulated_server() -> None:
    config = sim_config(*URLS)
    assert config.preset is None
    assert start_of(config) == START
    seeded = {(p.lichess, p.role, p.stage) for p in config.players.pre_seeded}
    assert seeded == {("arimakat", "champion", "final"), ("Ogul1", "runner_up", "candidates")}
    assert first_round_start(config).strftime("%A %Y-%m-%d") == "Monday 2019-09-30"


@pytest.mark.parametrize(
    ("edition", "first_round"),
    [
        ("acwc-2020", "Wednesday 2020-09-23"),
        ("acwc-2021", "Tuesday 2021-10-12"),
        ("acwc-2024", "Tuesday 2024-10-08"),
    ],
)
def test_a_preset_plays_its_own_format_dates_and_roles(edition: str, first_round: str) -> None:
    config = sim_config(*URLS, edition)
    assert config.preset == edition
    assert config.registration.auto_approve
    assert first_round_start(config).strftime("%A %Y-%m-%d") == first_round
    start = start_of(config)
    assert config.registration.opens_at < start < config.registration.closes_at
    # the simulated champion and runner-up, in the stage the format gives each role
    seeded = {(p.lichess, p.role, p.stage) for p in config.players.pre_seeded}
    assert seeded == {("arimakat", "champion", "candidates"), ("Ogul1", "runner_up", "candidates")}
    assert config.players.previous_champion == "arimakat"


def test_the_week_has_a_slot_per_match_until_the_round_ends() -> None:
    assert slots(72.0) == 30  # 2019: Thursday 03:00 to Sunday 18:00
    assert slots(96.0) == 22  # offers due a day later (2020-2024)


def test_an_unfinished_run_of_another_edition_is_refused(tmp_path: Path) -> None:
    log = StepLog(tmp_path / "progress.jsonl", seed=1, players=8, edition="acwc-2019")
    log.begin(fresh=True)
    other = StepLog(tmp_path / "progress.jsonl", seed=1, players=8, edition="acwc-2024")
    assert other.other_edition == "acwc-2019" and not other.resumable
    same = StepLog(tmp_path / "progress.jsonl", seed=1, players=8, edition="acwc-2019")
    assert same.resumable and same.other_edition is None


async def test_simulate_refuses_to_go_on_with_another_editions_run(tmp_path: Path) -> None:
    StepLog(tmp_path / "progress.jsonl", seed=1, players=8).begin(fresh=True)
    with pytest.raises(OtherEdition, match=r"unfinished acwc-2019 run.*--edition acwc-2019"):
        await simulate(8, 1, tmp_path, edition="acwc-2024")
    assert not (tmp_path / "acwc.sqlite3").exists()  # nothing was touched


def test_the_command_names_the_other_edition(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    StepLog(tmp_path / "progress.jsonl", seed=1, players=8, edition="acwc-2019").begin(fresh=True)
    import acwc_sim.run

    code = acwc_sim.run.run_cli(8, 1, tmp_path, edition="acwc-2021")
    assert code == 2
    assert "holds an unfinished acwc-2019 run" in capsys.readouterr().err
