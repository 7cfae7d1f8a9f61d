"""A format stage's entry rules as the pure rules take them (`bot.rules.advancement`).

Why a translation: the configuration's rules are validated data a TD writes (pydantic), the
pure rules are plain frozen values the engine and their tests share; this is the one place
that knows both spellings.
"""

from __future__ import annotations

from bot.format.model import (
    Losers,
    Places,
    PoolPlaces,
    PreSeeded,
    Registered,
    Stage,
    Top,
    Winners,
)
from bot.rules import advancement as adv

__all__ = ["entry_rules"]


def _rule(rule: Top | Places | PoolPlaces | Winners | Losers | PreSeeded) -> adv.EntryRule:
    if isinstance(rule, Top):
        return adv.top(rule.stage, rule.count, plus_absent_pre_seeded=rule.plus_absent_pre_seeded)
    if isinstance(rule, Places):
        return adv.places(rule.stage, *rule.places)
    if isinstance(rule, PoolPlaces):
        return adv.pool_places(rule.stage, *rule.places)
    if isinstance(rule, Winners):
        return adv.winners(rule.stage)
    if isinstance(rule, Losers):
        return adv.losers(rule.stage)
    fallback = _rule(rule.if_absent) if rule.if_absent is not None else None
    return adv.pre_seeded(adv.PreSeededRole(rule.role), fallback=fallback)


def entry_rules(stage: Stage) -> tuple[adv.EntryRule, ...]:
    """The stage's rules for `advancement.stage_entrants`; `registered` is left out (the
    first stage's field is the approved registrations, which the registration feature
    keeps)."""
    return tuple(_rule(rule) for rule in stage.entry if not isinstance(rule, Registered))
