"""The championship format as data: the presets are the editions' rules pages, a config
names its preset and overrides any setting, and a bad format is refused with its reason."""

from __future__ import annotations

import typing
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot import cli
from bot.config import Config, ConfigError, load_config, with_preset
from bot.format import model
from bot.format.entry import entry_rules
from bot.format.presets import preset_names
from bot.rules.advancement import (
    ACWC_2019_ENTRY,
    ACWC_2020_ENTRY,
    ACWC_2021_ENTRY,
    EntryRule,
    StageKind,
)
from bot.rules.armageddon import EqualBids
from bot.rules.final import ClockChange, FinalScheme
from bot.rules.no_agreement import NoFault, NoOffers
from bot.rules.pools import PlacementMethod
from bot.rules.tiebreaks_robin import ROBIN_TIEBREAKS
from bot.rules.tiebreaks_swiss import SWISS_TIEBREAKS


def config_of(data: dict[str, Any]) -> Config:
    return Config.model_validate(with_preset(data))


def literal(annotation: Any) -> set[str]:
    return {str(v) for v in typing.get_args(annotation)}


def field_values(cls: type[model.BaseModel], name: str) -> set[str]:
    annotation = cls.model_fields[name].annotation
    if typing.get_origin(annotation) is tuple:
        annotation = typing.get_args(annotation)[0]
    return literal(annotation)


def test_the_formats_words_are_the_rules_catalogues() -> None:
    """Every key a format may name has a pure rule behind it, and every rule a key."""
    assert literal(model.SwissTiebreakKey) == {str(k) for k in SWISS_TIEBREAKS}
    assert literal(model.RobinTiebreakKey) == {str(k) for k in ROBIN_TIEBREAKS}
    kinds = {
        str(cls.model_fields["kind"].default) for cls in typing.get_args(model.Stage)[0].__args__
    }
    assert kinds == {str(k) for k in StageKind}
    assert field_values(model.FinalMatchStage, "scheme") == {str(s) for s in FinalScheme}
    assert field_values(model.FinalMatchStage, "clock_change") == {str(c) for c in ClockChange}
    assert field_values(model.RoundRobinStage, "placement") == {str(p) for p in PlacementMethod}
    assert field_values(model.Format, "equal_bids") == {str(e) for e in EqualBids}
    assert field_values(model.Format, "no_offers") == {str(n) for n in NoOffers}
    assert field_values(model.Format, "no_fault") == {str(n) for n in NoFault}


def test_the_presets_shipped() -> None:
    assert preset_names() == ("acwc-2019", "acwc-2020", "acwc-2021", "acwc-2024")


@pytest.mark.parametrize(
    ("preset", "stages"),
    [
        (
            "acwc-2019",
            [("swiss", "swiss"), ("candidates", "round_robin"), ("final", "final_match")],
        ),
        (
            "acwc-2020",
            [
                ("swiss", "swiss"),
                ("knockout", "knockout"),
                ("candidates", "round_robin"),
                ("grand_final", "final_match"),
                ("third_place", "final_match"),
            ],
        ),
        (
            "acwc-2024",
            [
                ("swiss", "swiss"),
                ("candidates", "round_robin"),
                ("semifinals", "knockout"),
                ("grand_final", "final_match"),
                ("third_place", "final_match"),
            ],
        ),
    ],
)
def test_each_preset_is_its_editions_stage_sequence(
    preset: str, stages: list[tuple[str, str]]
) -> None:
    config = config_of({"preset": preset})
    assert [(s.key, s.kind) for s in config.format.stages] == stages


def test_the_2019_preset_is_the_built_in_defaults() -> None:
    assert config_of({"preset": "acwc-2019"}).model_copy(update={"preset": None}) == Config()


@pytest.mark.parametrize(
    ("preset", "first_round", "closes"),
    [
        # 2019: "round 1 starts Monday 30 September"; registration closed the day before noon.
        ("acwc-2019", datetime(2019, 9, 30, tzinfo=UTC), datetime(2019, 9, 29, 12, tzinfo=UTC)),
        # 2020: "The pairings for the first matches will be published on Wednesday 23rd September"
        ("acwc-2020", datetime(2020, 9, 23, tzinfo=UTC), datetime(2020, 9, 22, 12, tzinfo=UTC)),
        # 2021: "Tuesday 12th October"; 2024: "Tuesday 8th October"
        ("acwc-2021", datetime(2021, 10, 12, tzinfo=UTC), datetime(2021, 10, 11, 12, tzinfo=UTC)),
        ("acwc-2024", datetime(2024, 10, 8, tzinfo=UTC), datetime(2024, 10, 7, 12, tzinfo=UTC)),
    ],
)
def test_a_presets_dates_are_its_rules_pages(
    preset: str, first_round: datetime, closes: datetime
) -> None:
    config = config_of({"preset": preset})
    assert config.swiss.first_round_start == first_round
    assert config.registration.closes_at == closes


def test_2024s_eligibility_and_seeding_dates() -> None:
    """2024: account before March 1, 100 games before September 1, the rating at September 1
    averaged with the peak from March 1 (all 00:00 UTC)."""
    config = config_of({"preset": "acwc-2024"})
    assert config.registration.account_created_before == datetime(2024, 3, 1, tzinfo=UTC)
    assert config.registration.games_before == datetime(2024, 9, 1, tzinfo=UTC)
    assert config.seeding.rating_at == datetime(2024, 9, 1, tzinfo=UTC)
    assert config.seeding.peak_from == datetime(2024, 3, 1, tzinfo=UTC)
    assert config.tournament.short_name == "ACWC 2024"


def test_a_preset_for_another_year_dates_that_year() -> None:
    """October 2025 starts on a Wednesday: its second Tuesday is the 14th."""
    config = config_of({"preset": "acwc-2024", "tournament": {"year": 2025}})
    assert config.swiss.first_round_start == datetime(2025, 10, 14, tzinfo=UTC)
    assert config.registration.opens_at == datetime(2025, 9, 1, tzinfo=UTC)
    assert config.tournament.name == "Antichess World Championship 2025"


def test_the_week_reaches_the_negotiation_deadlines() -> None:
    """2019: offers by Wednesday 23:59:59 = 72 h after Monday 00:00, the weekend at 120 h;
    2021 on: Tuesday start, offers by Friday 23:59 = 96 h, the weekend on Saturday = 96 h."""
    old, new = Config(), config_of({"preset": "acwc-2024"})
    assert (old.negotiation.offers_due_hours, old.negotiation.weekend_hours) == (72, 120)
    assert (new.negotiation.offers_due_hours, new.negotiation.weekend_hours) == (96, 96)


def test_one_stage_setting_is_overridden_by_its_key() -> None:
    config = config_of({"preset": "acwc-2024", "format": {"stages": {"swiss": {"qualifiers": 12}}}})
    swiss = config.format.stage("swiss")
    assert isinstance(swiss, model.SwissStage)
    assert swiss.qualifiers == 12 and config.swiss.qualifiers == 12
    assert swiss.tiebreaks == ("median_buchholz", "cumulative", "kashdan", "seed")


def test_an_unknown_stage_in_an_override_names_the_stages() -> None:
    with pytest.raises(ConfigError, match="no 'swis' to change; there are swiss, candidates"):
        with_preset({"preset": "acwc-2024", "format": {"stages": {"swis": {"qualifiers": 1}}}})


def test_an_unknown_preset_names_the_presets(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("preset: acwc-2030\n")
    with pytest.raises(ConfigError, match="no preset 'acwc-2030'; the presets are: acwc-2019"):
        load_config(path, environ={})


def test_an_old_key_still_sets_the_format() -> None:
    """A config written before formats: `swiss.qualifiers: 4` is the Swiss stage's."""
    config = Config.model_validate({"swiss": {"qualifiers": 4}, "stages": {"final_games": 14}})
    assert config.format.stage("swiss").qualifiers == 4  # type: ignore[union-attr]
    assert config.format.stage("final").games == 14  # type: ignore[union-attr]


def test_a_stage_drawing_from_a_later_stage_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        "format:\n  stages:\n"
        "    - {key: swiss, name: Q, kind: swiss, entry: [{rule: top, stage: final, count: 2}]}\n"
    )
    with pytest.raises(ConfigError, match="takes players from 'final', which is not an earlier"):
        load_config(path, environ={})


def test_a_pool_table_that_skips_a_place_is_refused() -> None:
    table = {0: {"upper": [1, 2], "lower": [4]}}
    change = {"stages": {"candidates": {"placement_table": table}}}
    with pytest.raises(ValueError, match=r"placement_table\[0\] must use places 1..N once"):
        config_of({"preset": "acwc-2024", "format": change})


def test_a_pre_seeded_player_must_enter_a_stage_of_the_format() -> None:
    with pytest.raises(ValueError, match="enters stage 'final', but the format's stages are"):
        config_of(
            {
                "preset": "acwc-2024",
                "players": {"pre_seeded": [{"lichess": "Someone", "stage": "final"}]},
            }
        )


def test_any_lichess_variant_with_a_rating() -> None:
    assert config_of({"tournament": {"variant": "atomic"}}).tournament.variant == "atomic"
    with pytest.raises(ValueError, match="variant"):
        config_of({"tournament": {"variant": "standard"}})


def test_new_edition_writes_a_config_that_loads_with_every_date(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "acwc2025.yaml"
    args = ["new-edition", "--preset", "acwc-2024", "--year", "2025", "--out", str(out)]
    code = cli.main([*args, "--champion", "Champ25", "--runner-up", "Second25"])
    assert code == cli.EXIT_OK
    assert "round 1 on Tuesday 2025-10-14" in capsys.readouterr().out
    config = load_config(out, environ={})
    assert config.tournament.year == 2025 and config.tournament.short_name == "ACWC 2025"
    assert config.registration.closes_at == datetime(2025, 10, 13, 12, tzinfo=UTC)
    assert config.registration.account_created_before == datetime(2025, 3, 1, tzinfo=UTC)
    assert [(p.lichess, p.role, p.stage) for p in config.players.pre_seeded] == [
        ("Champ25", "champion", "candidates"),
        ("Second25", "runner_up", "candidates"),
    ]
    assert config.players.previous_champion == "Champ25"
    assert config.discord.guild_id is None
    text = out.read_text()
    assert "# round 1: Tuesday 14 October 2025, 00:00 UTC" in text
    assert "offers are due by Friday 23:59:59 UTC" in text
    # A second run does not overwrite the TD's edited file.
    assert cli.main(args) == cli.EXIT_USAGE
    assert "exists: choose another --out, or add --force" in capsys.readouterr().err
    assert out.read_text() == text


def test_new_edition_without_pre_seeded_players_and_a_bad_year(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["new-edition", "--preset", "acwc-2019", "--year", "2027"]) == cli.EXIT_OK
    printed = capsys.readouterr().out
    assert "pre_seeded: []" in printed and "first_round_start: 2027-09-27T00:00:00Z" in printed
    assert cli.main(["new-edition", "--preset", "acwc-2019", "--year", "1999"]) == cli.EXIT_USAGE
    assert "--year must be from 2000 to 2200." in capsys.readouterr().err


def test_a_format_the_engine_cannot_run_is_refused_before_it_starts() -> None:
    """A round robin of every registrant, with no Swiss first: described and valid, but
    `acwc run` and `acwc doctor` refuse it with one fatal line."""
    from bot.doctor.edition import edition_problems

    robin_only = {
        "stages": [
            {
                "key": "league",
                "name": "League",
                "kind": "round_robin",
                "entry": [{"rule": "registered"}],
                "pools": [{"key": "league", "name": "League"}],
            }
        ]
    }
    config = Config.model_validate({"format": robin_only, "players": {"pre_seeded": []}})
    lines = edition_problems(config, datetime(2019, 1, 1, tzinfo=UTC), started=False)
    assert lines[0].fatal and lines[0].title == "Format"
    assert "League (round_robin) are described but not run yet" in lines[0].render()


@pytest.mark.parametrize(
    ("preset", "editions_rules"),
    [
        ("acwc-2019", ACWC_2019_ENTRY),
        ("acwc-2020", ACWC_2020_ENTRY),
        ("acwc-2021", ACWC_2021_ENTRY),
        ("acwc-2024", ACWC_2021_ENTRY),
    ],
)
def test_each_presets_entry_rules_are_its_editions(
    preset: str, editions_rules: dict[str, tuple[EntryRule, ...]]
) -> None:
    """The presets say in YAML what the rules' worked examples say in code
    (tests/rules/test_advancement.py plays them against the rules texts)."""
    fmt = config_of({"preset": preset}).format
    converted = {s.key: entry_rules(s) for s in fmt.stages if entry_rules(s)}
    assert converted == dict(editions_rules)
