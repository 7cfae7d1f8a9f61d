"""Tests for bot.rules.no_agreement: a match without an agreed time (V.F, V.I; 2020-2024)."""

from __future__ import annotations

import pytest

from bot.rules.no_agreement import (
    NoAgreementOutcome,
    NoFault,
    NoOffers,
    both_made_no_offers,
    no_fault_found,
)


def test_the_setting_strings() -> None:
    assert [r.value for r in NoOffers] == ["td_assigns", "draw_both_forfeit_a_game"]
    assert [r.value for r in NoFault] == ["td_assigns", "draw"]


def test_2019_the_td_assigns_a_time_in_both_cases() -> None:
    # V.F: "a TD will assign a time"; V.I: "the TD will assign a match time". Nothing else.
    expected = NoAgreementOutcome(td_assigns=True)
    assert both_made_no_offers(NoOffers.TD_ASSIGNS, games=10) == expected
    assert no_fault_found(NoFault.TD_ASSIGNS, games=10) == expected
    assert expected.points is None and expected.forfeits == (False, False)


def test_2020_no_offers_is_a_draw_and_a_forfeit_each() -> None:
    # A draw: half a match point each; 10 games split 5-5; both forfeited.
    out = both_made_no_offers(NoOffers.DRAW_BOTH_FORFEIT_A_GAME, games=10)
    assert out == NoAgreementOutcome(False, (0.5, 0.5), (5.0, 5.0), (True, True))


def test_2020_no_fault_is_a_draw_without_forfeits() -> None:
    out = no_fault_found(NoFault.DRAW, games=10)
    assert out == NoAgreementOutcome(False, (0.5, 0.5), (5.0, 5.0), (False, False))
    # A 12-game final match ruled a draw: 6-6.
    assert no_fault_found(NoFault.DRAW, games=12).game_score == (6.0, 6.0)


@pytest.mark.parametrize("games", [0, -10, True, 10.0])
def test_a_draw_needs_a_match_with_games(games: object) -> None:
    with pytest.raises(ValueError):
        no_fault_found(NoFault.DRAW, games=games)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        both_made_no_offers(NoOffers.DRAW_BOTH_FORFEIT_A_GAME, games=games)  # type: ignore[arg-type]


def test_unknown_rules_raise() -> None:
    with pytest.raises(ValueError):
        both_made_no_offers("draw", games=10)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        no_fault_found("draw_both_forfeit_a_game", games=10)  # type: ignore[arg-type]
