"""What /withdraw says a finalist's leaving does, by edition: 2019's Final keeps the
champion's seat (rule VIII.C: the Candidates runner-up steps in); from 2020 the players
below move up (the rules' "Disqualification and withdrawals")."""

from __future__ import annotations

from bot import stage_kinds
from bot.config import Config, with_preset
from bot.features.registration.text import withdraw_effect
from db.models import Stage, StageKind


def _config(preset: str) -> Config:
    return Config.model_validate(with_preset({"preset": preset}))


def test_2019s_final_keeps_the_champions_seat_and_2024s_finals_do_not() -> None:
    final_2019 = Stage(key="final", name="Final", kind=StageKind.FINAL)
    assert stage_kinds.keeps_a_seat(_config("acwc-2019").format, final_2019)
    fmt_2024 = _config("acwc-2024").format
    for key in ("grand_final", "third_place"):
        row = Stage(key=key, name=key, kind=StageKind.FINAL)
        assert not stage_kinds.keeps_a_seat(fmt_2024, row)
    # a stage of another kind keeps no seat
    semis = Stage(key="semifinals", name="Semifinals", kind=StageKind.KNOCKOUT)
    assert not stage_kinds.keeps_a_seat(fmt_2024, semis)


def test_the_confirmation_says_the_rule_of_the_edition() -> None:
    old = withdraw_effect(StageKind.FINAL, True, seat_kept=True)
    assert "Candidates runner-up" in old and "rule VIII.C" in old
    new = withdraw_effect(StageKind.FINAL, True, seat_kept=False)
    assert "move up one place" in new and "runner-up" not in new
    assert new.endswith("Only the TD can reinstate you.")
