"""Configuration: every date, count and threshold of the rules lives here, not in code.

Built-in defaults reproduce the ACWC 2019 edition (the `acwc-2019` preset), so the bot and
the CLI work without a config file. A config names its preset (`preset: acwc-2024`) and
overrides any setting; the championship's stages are the `format` section
(`bot.format.model`), of which the older per-stage keys are a view (`bot.format.legacy`).
Secrets never come from files: `DISCORD_TOKEN` and `LICHESS_TOKEN` are read
from the environment only, and `LICHESS_BASE_URL` / `DATABASE_URL` override the file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from bot.format.legacy import reconcile
from bot.format.model import FinalMatchStage, Format, KnockoutStage
from bot.format.presets import PresetError, merge, preset_config
from bot.rules.final import ClockChange, FinalFormat, FinalScheme

#: Lichess's variant keys that have a rating of their own (`perfType`), so eligibility and
#: seeding can read the player's games and rating history of the variant. Standard chess
#: rates by speed (bullet, blitz ...), which a championship of one variant does not use.
LichessVariant = Literal[
    "antichess",
    "atomic",
    "chess960",
    "crazyhouse",
    "horde",
    "kingOfTheHill",
    "racingKings",
    "threeCheck",
]
DEFAULT_PRESET = "acwc-2019"


class ConfigError(Exception):
    """The configuration cannot be used; the message names every bad field."""


def _aware_utc(value: datetime) -> datetime:
    """Require an explicit offset, so no deadline silently depends on the host's time zone."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError("needs an explicit UTC offset, e.g. 2019-03-01T00:00:00Z")
    return value.astimezone(UTC)


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TimeControl(_Section):
    minutes: int = Field(2, ge=0, le=180)
    increment: int = Field(5, ge=0, le=60)  # Lichess allows at most 60

    @property
    def limit_seconds(self) -> int:
        return self.minutes * 60

    def __str__(self) -> str:
        return f"{self.minutes}+{self.increment}"


class TournamentConfig(_Section):
    # Both are quoted in messages, embed titles and thread names ("ACWC 2019 match #12"),
    # which Discord limits (a thread name to 100 characters): bounded so they always fit.
    name: str = Field("Antichess World Championship 2019", min_length=1, max_length=100)
    short_name: str = Field("ACWC 2019", min_length=1, max_length=40)
    variant: LichessVariant = "antichess"
    # The edition's year: `acwc new-edition` writes it, a preset's dates follow it, and
    # `acwc doctor` warns when the pre-seeded players are another year's.
    year: int = Field(2019, ge=2000, le=2200)
    time_control: TimeControl = TimeControl()
    match_games: int = Field(10, ge=1, le=100)
    early_stop_score: float = Field(5.5, gt=0)


class RegistrationConfig(_Section):
    opens_at: datetime = datetime(2019, 9, 1, tzinfo=UTC)
    closes_at: datetime = datetime(2019, 9, 29, 12, 0, tzinfo=UTC)
    account_created_before: datetime = datetime(2019, 3, 1, tzinfo=UTC)
    min_rated_games: int = Field(100, ge=0)
    games_before: datetime = datetime(2019, 9, 1, tzinfo=UTC)
    auto_approve: bool = False
    verification_code_prefix: str = Field("acwc-", min_length=1, max_length=20)

    _utc = field_validator("opens_at", "closes_at", "account_created_before", "games_before")(
        _aware_utc
    )

    @model_validator(mode="after")
    def _window_in_order(self) -> RegistrationConfig:
        if self.closes_at <= self.opens_at:
            raise ValueError("closes_at must be after opens_at")
        return self


class SeedingConfig(_Section):
    rating_at: datetime = datetime(2019, 8, 31, 22, 0, tzinfo=UTC)  # 2019-09-01 00:00 CEST
    peak_from: datetime = datetime(2018, 8, 31, 22, 0, tzinfo=UTC)  # 2018-09-01 00:00 CEST

    _utc = field_validator("rating_at", "peak_from")(_aware_utc)

    @model_validator(mode="after")
    def _peak_before_cutoff(self) -> SeedingConfig:
        if self.peak_from >= self.rating_at:
            raise ValueError("peak_from must be before rating_at")
        return self


class PreSeededPlayer(_Section):
    """The previous champion or runner-up: the format's entry rules say which stage each
    role enters (`stage` is that stage's key, checked against the format)."""

    lichess: str = Field(min_length=2, max_length=30)
    stage: str
    role: Literal["champion", "runner_up"] | None = None
    discord_id: int | None = None


class PlayersConfig(_Section):
    previous_champion: str | None = "arimakat"
    pre_seeded: tuple[PreSeededPlayer, ...] = (
        PreSeededPlayer(lichess="arimakat", stage="final", role="champion"),
        PreSeededPlayer(lichess="Ogul1", stage="candidates", role="runner_up"),
    )


class DiscordConfig(_Section):
    """The server: its guild, TDs and channels. Unlike the other sections it can change while
    the bot runs: `/td setup` sets the channels and the TD role in place (bot.server_settings),
    so every service, holding this one object, sees the change at once."""

    model_config = ConfigDict(extra="forbid", frozen=False, validate_assignment=True)

    guild_id: int | None = None
    td_user_ids: tuple[int, ...] = ()
    td_role_id: int | None = None
    announcement_channel_id: int | None = None
    pairings_channel_id: int | None = None
    td_alert_channel_id: int | None = None


class LichessConfig(_Section):
    base_url: str = "https://lichess.org"
    timeout_seconds: float = Field(20.0, gt=0)
    rate_limit_pause_seconds: float = Field(60.0, ge=60.0)

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value.rstrip("/")


class WebConfig(_Section):
    """The championship's public pages, calendar feeds and Lichess login (bot.features.web):
    served by `acwc run` when `enabled`, and by `acwc site` (read-only) any time. `host`
    stays on the loopback by default: a reverse proxy with TLS faces the internet, and
    `base_url` is the public address it serves (links, the OAuth redirect, the feeds)."""

    enabled: bool = False
    host: str = "127.0.0.1"
    port: int = Field(8080, ge=1, le=65535)
    base_url: str | None = None
    # The OAuth `client_id` "Log in with Lichess" sends (Lichess takes any; it names the
    # application): None is the public address's host.
    login_client_id: str | None = Field(None, min_length=1, max_length=100)

    @field_validator("base_url")
    @classmethod
    def _public_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value.rstrip("/") if value else value

    def public_url(self) -> str:
        """Where people reach the pages: `base_url`, else the address served."""
        return self.base_url or f"http://{self.host}:{self.port}"


class DatabaseConfig(_Section):
    url: str = "sqlite+aiosqlite:///acwc.sqlite3"


class SwissConfig(_Section):
    first_round_start: datetime = datetime(2019, 9, 30, tzinfo=UTC)  # a Monday, rule IV.D
    round_days: int = Field(7, ge=1, le=28)
    rounds_rounding: Literal["up", "down"] = "up"
    extra_rounds: int = Field(2, ge=0, le=10)
    qualifiers: int = Field(3, ge=1)
    bye_points: float = Field(1.0, ge=0)
    confirm_before_publish: bool = False
    short_median_buchholz: Literal["sum", "drop"] = "sum"  # fewer than 3 opponents (III.E.5)
    # A round the bot cannot pair within this many seconds is left to the TD, who is told.
    pairing_timeout_seconds: float = Field(60.0, gt=0)

    _utc = field_validator("first_round_start")(_aware_utc)


class NegotiationConfig(_Section):
    required_offers: int = Field(3, ge=1, le=10)
    min_gap_hours: float = Field(3.0, ge=0)
    max_offers_per_date: int = Field(2, ge=1)
    offers_due_hours: float = Field(72.0, gt=0)  # from round start: end of Wednesday
    weekend_hours: float = Field(120.0, gt=0)  # from round start: start of Saturday
    finish_margin_minutes: int = Field(120, ge=0)
    answer_reminder_hours: float = Field(24.0, gt=0)
    # One reminder, an hour before: the agreed time was posted with a mention when it was
    # agreed, and the match start mentions both players again (docs/MESSAGES.md).
    match_reminders_hours: tuple[float, ...] = (1.0,)


class StagesConfig(_Section):
    candidates_early_stop: bool = False  # rule III.F.2: Candidates matches are played out
    final_games: int = Field(12, ge=2)  # rule III.G.1
    final_lead: float = Field(2.0, gt=0)  # rule III.G.2
    final_extension_games: int = Field(2, ge=1)  # rule III.G.3
    final_lead_rule_games: int = Field(24, ge=2)  # rule III.G.4
    final_armageddon_after: int = Field(30, ge=2)  # rule III.G.6
    # Rule III.G.6.a: Black's clock in the Armageddon (3:00); White bids 1 s up to it.
    final_armageddon_black_seconds: int = Field(180, ge=2, le=3600)
    final_tiebreak_time_control: TimeControl = TimeControl(minutes=2, increment=0)  # III.G.5
    # Rule IV.C: the Final is played as the finalists see fit; the TD hears of it only if it
    # is still unfinished this many days after it is set up.
    final_days: int = Field(90, ge=1)
    # Stages whose decided matches may be played on to their full length (the 2021 and 2022
    # Finals went to all 12 games at 7-5): those games are recorded and shown, the result
    # stands. Elsewhere a game after the decision is not recorded and the TD is told.
    played_on: tuple[Literal["swiss", "tiebreak", "candidates", "final"], ...] = ()


class MatchDayConfig(_Section):
    create_challenge: bool = True  # post a Lichess open challenge at the agreed time
    game_time_margin_minutes: int = Field(15, ge=0)  # games created this early still count
    noshow_grace_minutes: int = Field(10, ge=0)  # rule VI.D grace, from the match time
    noshow_second_message_minutes: int = Field(10, ge=0)  # rule VI.D, after the first message
    noshow_claim_window_minutes: int = Field(120, ge=1)  # /noshow allowed this long after
    break_minutes: int = Field(10, ge=1)  # rule VI.A
    left_return_minutes: int = Field(10, ge=1)  # rule VI.E
    forfeits_for_disqualification: int = Field(2, ge=1)  # rule VI.F


class FairPlayConfig(_Section):
    account_check_hours: float = Field(24.0, gt=0)  # how often accounts are checked (VII.C)
    flag_public_accusations: bool = False  # needs the message content intent (VII.A)


class JobsConfig(_Section):
    outbox_flush_seconds: int = Field(5, ge=1)
    deadline_sweep_seconds: int = Field(60, ge=5)
    results_poll_seconds: int = Field(120, ge=30)
    results_stream: bool = True  # Lichess's game stream brings results within seconds
    results_stream_lead_minutes: int = Field(30, ge=1)  # watched this long before the time
    results_stream_check_minutes: int = Field(30, ge=1)  # a streamed match is polled this often


def _default_format() -> dict[str, Any]:
    return dict(preset_config(DEFAULT_PRESET)["format"])


class Config(_Section):
    preset: str | None = None  # the preset this config started from (informative)
    tournament: TournamentConfig = TournamentConfig()
    registration: RegistrationConfig = RegistrationConfig()
    seeding: SeedingConfig = SeedingConfig()
    players: PlayersConfig = PlayersConfig()
    swiss: SwissConfig = SwissConfig()
    negotiation: NegotiationConfig = NegotiationConfig()
    stages: StagesConfig = StagesConfig()
    match_day: MatchDayConfig = MatchDayConfig()
    fair_play: FairPlayConfig = FairPlayConfig()
    discord: DiscordConfig = DiscordConfig()
    lichess: LichessConfig = LichessConfig()
    database: DatabaseConfig = DatabaseConfig()
    jobs: JobsConfig = JobsConfig()
    web: WebConfig = WebConfig()
    format: Format = Format.model_validate(_default_format())

    @model_validator(mode="before")
    @classmethod
    def _one_truth(cls, data: Any) -> Any:
        """The old per-stage keys and the format say the same (bot.format.legacy)."""
        return reconcile(data, _default_format()) if isinstance(data, dict) else data

    @model_validator(mode="after")
    def _pre_seeded_fit_the_format(self) -> Config:
        keys = self.format.keys()
        for player in self.players.pre_seeded:
            if player.stage not in keys:
                raise ValueError(
                    f"players.pre_seeded: {player.lichess} enters stage {player.stage!r}, "
                    f"but the format's stages are {', '.join(keys)}"
                )
        return self

    def final_stage(self) -> FinalMatchStage:
        """The format's final match (the first `final_match` stage: the one the engine runs)."""
        stage = self.format.of_kind("final_match")[0]
        assert isinstance(stage, FinalMatchStage)
        return stage

    def final_format(self) -> FinalFormat:
        """This edition's Final (rule III.G; later editions' schemes, `bot.rules.final_schemes`):
        the match format of the format's first final stage (`match_format`)."""
        return self.match_format(self.final_stage().key)

    def row_match_format(self, key: str) -> FinalFormat:
        """The match format of a stage row by its key; a row whose key the format lacks (a
        2019 database's Final from before the format) plays the Final's."""
        return self.match_format(key) if key in self.format.keys() else self.final_format()

    def match_format(self, key: str) -> FinalFormat:
        """How a match of the stage `key` is played and decided, as every function of
        `bot.rules.final` and `bot.rules.final_schemes` takes it: a `final_match` stage's
        scheme (rule III.G; later editions' schemes); a `knockout` stage's match is
        `match_games` games won by more points (over once the result cannot change), a tie
        then `tie.games` more, then the Armageddon (`tiebreak_games`). KeyError for an
        unknown key, ValueError for a stage of another kind."""
        stage = self.format.stage(key)
        clock = str(self.tournament.time_control)
        if isinstance(stage, KnockoutStage):
            return FinalFormat(
                base_games=stage.match_games,
                time_control=clock,
                tiebreak_time_control=stage.tie.clock or clock,
                scheme=FinalScheme.TIEBREAK_GAMES,
                tiebreak_games=stage.tie.games,
            )
        if not isinstance(stage, FinalMatchStage):
            raise ValueError(f"stage {key!r} is a {stage.kind} stage, not a match stage")
        return FinalFormat(
            base_games=stage.games,
            lead=stage.lead,
            extension_games=stage.extension_games,
            lead_rule_games=stage.lead_rule_games,
            armageddon_after=stage.armageddon_after,
            time_control=clock,
            tiebreak_time_control=stage.tiebreak_clock,
            scheme=FinalScheme(stage.scheme),
            clock_change=ClockChange(stage.clock_change),
            tiebreak_games=stage.tiebreak_games,
            weeks=stage.weeks,
        )

    def match_armageddon_black_seconds(self, key: str) -> int:
        """Black's clock in the Armageddon of a match of the stage `key` (rule III.G.6.a):
        a final match's own; a knock-out's bids are the first final match's."""
        stage = self.format.stage(key)
        if isinstance(stage, FinalMatchStage):
            return stage.armageddon_black_seconds
        return self.final_stage().armageddon_black_seconds

    def pre_seeded_stage(self, lichess_name: str) -> str | None:
        """The stage a configured pre-seeded player enters at, or None for Swiss entrants."""
        for player in self.players.pre_seeded:
            if player.lichess.lower() == lichess_name.lower():
                return player.stage
        return None


class Secrets(BaseModel):
    """Tokens from the environment; kept out of repr so they never reach a log."""

    model_config = ConfigDict(frozen=True)
    discord_token: str | None = Field(default=None, repr=False)
    lichess_token: str | None = Field(default=None, repr=False)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Secrets:
        env = os.environ if environ is None else environ
        return cls(
            discord_token=env.get("DISCORD_TOKEN") or None,
            lichess_token=env.get("LICHESS_TOKEN") or None,
        )


def _format_errors(error: ValidationError, source: str) -> str:
    lines = [f"Invalid configuration in {source}:"]
    for item in error.errors():
        field = ".".join(str(part) for part in item["loc"]) or "(top level)"
        lines.append(f"  - {field}: {item['msg']}")
    return "\n".join(lines)


def with_preset(data: dict[str, Any]) -> dict[str, Any]:
    """`data` over the preset it names (none named: the built-in `acwc-2019`), dated for its
    `tournament.year` (else the preset's own year): mappings merge key by key, a list is
    replaced whole, and `format.stages` also takes a mapping of stage key to changes."""
    name = data.get("preset") or DEFAULT_PRESET
    if not isinstance(name, str):
        raise ConfigError("preset: must be the name of a preset, e.g. acwc-2024")
    tournament = data.get("tournament")
    year = tournament.get("year") if isinstance(tournament, dict) else None
    try:
        return merge(preset_config(name, year if isinstance(year, int) else None), data)
    except PresetError as exc:
        raise ConfigError(f"preset: {exc}") from exc


def load_config(path: str | Path | None = None, environ: Mapping[str, str] | None = None) -> Config:
    """Read the YAML file (if any), apply environment overrides, validate everything at once."""
    env = os.environ if environ is None else environ
    data: dict[str, Any] = {}
    source = "built-in defaults"
    if path is not None:
        source = str(path)
        try:
            raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise ConfigError(f"Configuration file not found: {path}") from exc
        except yaml.YAMLError as exc:
            raise ConfigError(f"Configuration file {path} is not valid YAML: {exc}") from exc
        if raw is not None and not isinstance(raw, dict):
            raise ConfigError(f"Configuration file {path} must be a mapping of sections")
        data = dict(raw or {})
    data = with_preset(data)
    if env.get("LICHESS_BASE_URL"):
        data["lichess"] = {**(data.get("lichess") or {}), "base_url": env["LICHESS_BASE_URL"]}
    if env.get("DATABASE_URL"):
        data["database"] = {**(data.get("database") or {}), "url": env["DATABASE_URL"]}
    try:
        return Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_format_errors(exc, source)) from exc
