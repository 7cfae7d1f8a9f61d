"""docs/ARCHITECTURE.md's events table says which features subscribe to which event; this
fails when it and the subscriptions `bot.wiring.build_services` really makes disagree."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from bot import events
from bot.wiring import build_services
from tests.running import RunningBot

ROOT = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\| `(\w+)` \| [^|]+ \| ([^|]+) \|$", re.M)


def documented() -> dict[str, set[str]]:
    """Event name -> the features the table names as subscribers ("feature: what it does")."""
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    text = text[text.index("## Events") : text.index("\n## ", text.index("## Events") + 1)]
    table: dict[str, set[str]] = {}
    for event, subscribers in ROW.findall(text):
        clauses = [c.strip() for c in subscribers.split(";")]
        table[event] = {c.split(":")[0].strip() for c in clauses if ":" in c}
    return table


def feature_of(handler: object) -> str:
    module = inspect.getmodule(handler)
    assert module is not None
    return module.__name__.split(".")[2]  # bot.features.<feature>....


async def test_the_events_table_matches_the_subscriptions(running_bot: RunningBot) -> None:
    async with running_bot() as (bot, _):
        assert bot.services is not None
        real: dict[str, set[str]] = {}
        for service in bot.services.all():
            for kind, handler in service.subscriptions():
                real.setdefault(kind.__name__, set()).add(feature_of(handler))
    declared = {
        name
        for name, value in vars(events).items()
        if inspect.isclass(value) and issubclass(value, events.Event) and value is not events.Event
    }
    table = documented()
    assert set(table) == declared, "every event in bot/events.py has one row, and no other"
    for event in declared:
        assert table[event] == real.get(event, set()), event
    assert build_services  # the one place subscriptions are made
