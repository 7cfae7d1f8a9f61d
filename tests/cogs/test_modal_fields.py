"""Every form the bot opens bounds each text field (so what it quotes fits a message) and is
within Discord's limits on modals: every subclass of FormModal is listed here, so a new form
without `max_length` fails."""

from __future__ import annotations

from typing import Any

import discord

from bot.discord_limits import modal_problems
from bot.features.fairplay.cog import NoteModal, ReportModal
from bot.features.registration.td_cog import DecisionModal
from bot.features.results.cog import BidModal
from cogs.common import FormModal


def every_form() -> list[FormModal]:
    return [
        ReportModal(),
        NoteModal(1, "dismissed"),
        NoteModal(1, "upheld"),
        DecisionModal(1, approve=True),
        DecisionModal(1, approve=False),
        BidModal(1),
    ]


def subclasses(cls: type) -> set[type]:
    found = set(cls.__subclasses__())
    for sub in list(found):
        found |= subclasses(sub)
    return found


def named(classes: set[type[Any]]) -> set[str]:
    """Classes by name: each bot started in a process loads its extensions afresh, so one
    form class may exist as several class objects."""
    return {f"{c.__module__}.{c.__qualname__}" for c in classes}


async def test_every_form_is_listed() -> None:
    mine = {c for c in subclasses(FormModal) if c.__module__.startswith(("bot.", "cogs."))}
    assert named({type(form) for form in every_form()}) == named(mine)


async def test_every_field_is_bounded_and_every_form_fits() -> None:
    for form in every_form():
        inputs = [c for c in form.children if isinstance(c, discord.ui.TextInput)]
        assert inputs, form.title
        assert all(i.max_length for i in inputs), form.title
        payload = form.to_dict()
        assert modal_problems(payload) == [], (form.title, modal_problems(payload))
        form.stop()
