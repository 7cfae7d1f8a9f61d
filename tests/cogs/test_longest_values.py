"""Every free-text option and form field takes a bounded value, and its longest value is
delivered: the reply, every post and DM it causes (through the outbox, which must not give up
on any), each within Discord's limits. The harness refuses what Discord refuses and fails the
test at its exit, so a message over 2,000 characters anywhere fails here."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import discord
import pytest
from discord import app_commands
from sqlalchemy import select

from acwc_sim.harness import InteractionRecord, RecordedResponse
from cogs.errors import UNEXPECTED
from db.models import OutboxMessage
from tests.cogs.fuzz_world import PLAYERS, TD, World, add_offer_and_report, open_world

ALICE, BOB = PLAYERS[0][0], PLAYERS[1][0]
IDS = {"match": 1, "registration": 1, "incident": 1, "report": 1, "offer": 1}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    yield from open_world(tmp_path_factory)


def longest(limit: int) -> str:
    """A value of exactly `limit` characters that reads like text, with a line break."""
    text = "A long text, with words and a line break.\n" * (limit // 40 + 1)
    return text[:limit]


def free_text_options(world: World, command: app_commands.Command[Any, ..., Any]) -> dict[str, Any]:
    """The command's string options without choices, by name, as Discord receives them."""
    payload = command.to_dict(world.bot.tree)
    return {
        option["name"]: option.get("max_length")
        for option in payload.get("options") or []
        if option["type"] == discord.AppCommandOptionType.string.value and not option.get("choices")
    }


def other_value(param: app_commands.Parameter) -> Any:
    if param.choices:
        return param.choices[0].value
    kind = param.type
    if kind is discord.AppCommandOptionType.integer:
        return IDS.get(param.name, 1)
    if kind is discord.AppCommandOptionType.number:
        return 1.0
    if kind is discord.AppCommandOptionType.boolean:
        return False
    if kind is discord.AppCommandOptionType.user:
        return BOB
    return "x"


def assert_answered(record: InteractionRecord, what: str) -> None:
    assert record.responses, f"{what} left the user without an answer"
    assert not record.errors, (what, record.errors)
    assert UNEXPECTED not in record.text, (what, record.text[:300])


def assert_all_delivered(world: World) -> None:
    """The outbox sent every row (none failed or waits on a refusal), and Discord refused
    nothing the bot sent."""
    assert world.bot.outbox is not None and world.bot.sessions is not None
    world.loop.run_until_complete(world.bot.outbox.flush(None))

    async def rows() -> Sequence[OutboxMessage]:
        assert world.bot.sessions is not None
        async with world.bot.sessions() as session:
            return (await session.scalars(select(OutboxMessage))).all()

    for row in world.loop.run_until_complete(rows()):
        assert row.failed_at is None and row.attempts <= 1, (row.id, row.last_error)
        assert row.sent_at is not None, (row.id, row.last_error)
    assert world.h.breaches == []
    assert all(len(m.content) <= 2000 for m in world.h.messages)


def test_every_free_text_option_has_a_max_length(world: World) -> None:
    unbounded = [
        f"/{command.qualified_name} {name}"
        for command in world.commands
        for name, limit in free_text_options(world, command).items()
        if limit is None
    ]
    assert unbounded == []


def test_the_longest_value_of_every_option_is_delivered(world: World) -> None:
    add_offer_and_report(world)
    tried = 0
    for command in world.commands:
        texts = free_text_options(world, command)
        if not texts:
            continue
        options = {
            p.display_name: longest(texts[p.display_name])
            if p.display_name in texts
            else other_value(p)
            for p in command.parameters
        }
        user = TD if command.qualified_name.startswith("td ") else ALICE
        record = world.run(world.h.slash(command.qualified_name, user=user, options=options))
        assert_answered(record, f"/{command.qualified_name}")
        assert all(len(r.content) <= 2000 for r in record.responses)
        tried += 1
    assert tried >= 15
    assert_all_delivered(world)


def test_an_option_over_its_max_is_refused_clearly(world: World) -> None:
    record = world.run(
        world.h.slash(
            "td incident overrule", user=TD, options={"incident": 1, "reason": "x" * 4800}
        )
    )
    assert record.refusal is not None and record.ephemeral
    assert "4,800 characters" in record.text and "at most 1,000" in record.text


def modal_fields(response: RecordedResponse) -> dict[str, int]:
    """A modal's text inputs: custom id -> max_length (every one must have one)."""
    found: dict[str, int] = {}

    def walk(components: Sequence[Mapping[str, Any]]) -> None:
        for comp in components:
            if comp.get("type") == 4:
                assert comp.get("max_length"), comp
                found[str(comp["custom_id"])] = int(comp["max_length"])
            walk(comp.get("components") or [])
            inner = comp.get("component")
            if isinstance(inner, Mapping):
                walk([inner])

    walk(response.components)
    return found


def submit_longest(world: World, opened: InteractionRecord, user: int, **real: str) -> None:
    [modal] = [r for r in opened.responses if r.kind == "modal"]
    fields = {name: real.get(name, longest(limit)) for name, limit in modal_fields(modal).items()}
    record = world.run(world.h.submit_modal(modal.custom_id, fields, user=user))
    assert_answered(record, f"the form {modal.title}")
    assert record.refusal is None, record.text[:300]


def test_the_longest_form_fields_are_delivered(world: World) -> None:
    bob = BOB
    opened = world.run(world.h.slash("report", user=bob))
    link = "https://lichess.org/game{:04}"
    links = "\n".join(link.format(n) for n in range(1000 // (len(link.format(0)) + 1)))
    submit_longest(world, opened, bob, accused="Carol", links=links)
    assert_all_delivered(world)
    report = next(m for m in reversed(world.h.dms_to(TD)) if world.h.buttons(m))
    dismiss = next(b for b in world.h.buttons(report) if b["label"] == "Dismiss")
    opened = world.run(world.h.press(dismiss["custom_id"], user=TD, message=report, dm=True))
    submit_longest(world, opened, TD)
    assert_all_delivered(world)
