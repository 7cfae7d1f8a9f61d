"""Configuration: defaults are the 2019 edition, the example documents every field."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from pydantic import BaseModel

from bot.config import Config, ConfigError, Secrets, load_config

EXAMPLE = Path(__file__).resolve().parents[1] / "config.example.yaml"


def test_defaults_are_the_2019_edition() -> None:
    config = load_config(None, environ={})
    assert config.registration.account_created_before == datetime(2019, 3, 1, tzinfo=UTC)
    assert config.registration.min_rated_games == 100
    assert config.seeding.rating_at == datetime(2019, 8, 31, 22, tzinfo=UTC)
    assert config.seeding.peak_from == datetime(2018, 8, 31, 22, tzinfo=UTC)
    assert str(config.tournament.time_control) == "2+5"
    assert config.pre_seeded_stage("ARIMAKAT") == "final"
    assert config.pre_seeded_stage("ogul1") == "candidates"
    assert config.pre_seeded_stage("someone") is None
    assert config.lichess.base_url == "https://lichess.org"


def test_example_file_equals_the_defaults() -> None:
    assert load_config(EXAMPLE, environ={}) == Config()


def _fields(model: type[BaseModel], prefix: str = "") -> list[str]:
    names = []
    for name, field in model.model_fields.items():
        names.append(prefix + name)
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            names.extend(_fields(annotation, prefix + name + "."))
    return names


def test_example_documents_every_setting_with_a_comment() -> None:
    text = EXAMPLE.read_text()
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(("#", "- ")) and stripped.endswith(":") is False:
            assert "#" in line, f"setting without a comment: {line!r}"
    data = yaml.safe_load(text)
    for dotted in _fields(Config):
        node = data
        for part in dotted.split("."):
            assert part in node, f"{dotted} missing from config.example.yaml"
            node = node[part]


def test_environment_overrides_urls() -> None:
    config = load_config(
        None, environ={"LICHESS_BASE_URL": "http://127.0.0.1:9/", "DATABASE_URL": "sqlite://"}
    )
    assert config.lichess.base_url == "http://127.0.0.1:9"
    assert config.database.url == "sqlite://"


def test_naive_datetimes_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("registration:\n  games_before: 2019-09-01T00:00:00\n")
    with pytest.raises(ConfigError, match=r"registration\.games_before"):
        load_config(path, environ={})


def test_every_bad_field_is_named_at_once(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        "seeding:\n  rating_at: 2018-01-01T00:00:00Z\n"
        "jobs:\n  outbox_flush_seconds: 0\n"
        "discord:\n  td_user_ids: [abc]\n"
    )
    with pytest.raises(ConfigError) as error:
        load_config(path, environ={})
    message = str(error.value)
    assert "seeding" in message and "jobs.outbox_flush_seconds" in message
    assert "discord.td_user_ids.0" in message


def test_missing_and_malformed_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.yaml", environ={})
    bad = tmp_path / "bad.yaml"
    bad.write_text("a: [")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad, environ={})


def test_secrets_come_from_the_environment_and_never_show() -> None:
    secrets = Secrets.from_env({"DISCORD_TOKEN": "discord-secret", "LICHESS_TOKEN": "lip_secret"})
    assert secrets.discord_token == "discord-secret"
    assert "secret" not in repr(secrets) and "secret" not in str(secrets)
    assert Secrets.from_env({}).discord_token is None


def test_an_increment_lichess_cannot_make_is_refused(tmp_path: Path) -> None:
    """Lichess's clock increment is at most 60 seconds: 61 could never become a game link."""
    path = tmp_path / "c.yaml"
    path.write_text("tournament:\n  time_control:\n    minutes: 2\n    increment: 61\n")
    with pytest.raises(ConfigError, match=r"tournament\.time_control\.increment"):
        load_config(path, environ={})
    path.write_text("tournament:\n  time_control:\n    minutes: 2\n    increment: 60\n")
    assert load_config(path, environ={}).tournament.time_control.increment == 60


def test_a_short_name_too_long_for_a_thread_name_is_refused(tmp_path: Path) -> None:
    """The short name names each match thread ("ACWC 2019 match #12"), which Discord limits
    to 100 characters: a longer one would leave every match without its thread."""
    path = tmp_path / "c.yaml"
    path.write_text(f"tournament:\n  short_name: {'X' * 41}\n")
    with pytest.raises(ConfigError, match=r"tournament\.short_name"):
        load_config(path, environ={})
    path.write_text(f"tournament:\n  short_name: {'X' * 40}\n")
    assert load_config(path, environ={}).tournament.short_name == "X" * 40
