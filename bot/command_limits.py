"""Discord's documented limits on application commands, checked on the JSON the bot syncs.

Discord refuses a whole sync (HTTP 400, code 50035) when one command breaks a rule, and a
bot whose commands cannot sync cannot start. The rules, from Discord's developer
documentation (application commands, "Registering a Command" and "Limits"):

- at most 100 chat-input commands per scope (global, or one guild);
- a name is 1-32 characters of letters, digits, `-`, `_` or `'`, lowercase where the letter
  has a lowercase form; a description is 1-100 characters; names are unique per level;
- at most 25 options, subcommands or subcommand groups per level; a group holds
  subcommands only; a subcommand holds no subcommand; required options come first;
- at most 25 choices per option, each name 1-100 characters and a string value at most 100;
- at most 4,000 characters in all of a command's names, descriptions and choice names and
  values, over the command, its groups, subcommands, options and choices (with
  localizations, the longest of each field counts; the bot has none).

`command_problems` lists what a payload breaks, in words a TD can act on; the bot checks its
tree before syncing (bot.app) and the test suite checks it with room to grow.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

MAX_COMMAND_CHARACTERS = 4000
MAX_COMMANDS_PER_SCOPE = 100
MAX_PER_LEVEL = 25
MAX_CHOICES = 25
MAX_NAME, MAX_DESCRIPTION, MAX_CHOICE = 32, 100, 100

SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
CHAT_INPUT = 1
_NAME_PUNCTUATION = frozenset("-_'")


def _longest(item: Mapping[str, Any], field: str) -> int:
    """A field's length as Discord counts it: the longest of the value and its localizations."""
    values = [str(item.get(field) or "")]
    localized = item.get(f"{field}_localizations") or {}
    values.extend(str(v) for v in localized.values())
    return max(len(v) for v in values)


def command_size(command: Mapping[str, Any]) -> int:
    """The characters a command counts against Discord's 4,000: every name, description and
    choice name and value in it, down to the last option."""
    total = _longest(command, "name") + _longest(command, "description")
    for option in command.get("options") or []:
        total += command_size(option)
    for choice in command.get("choices") or []:
        total += _longest(choice, "name") + len(str(choice.get("value", "")))
    return total


def _name_problem(name: str) -> str | None:
    if not 1 <= len(name) <= MAX_NAME:
        return f"is {len(name)} characters (1 to {MAX_NAME})"
    if any(not (ch.isalnum() or ch in _NAME_PUNCTUATION) for ch in name):
        return "may hold only letters, digits, '-', '_' and \"'\""
    if name != name.lower():
        return "must be lowercase"
    return None


def _item_problems(item: Mapping[str, Any], path: str, *, top: bool = False) -> list[str]:
    problems: list[str] = []
    name = str(item.get("name") or "")
    wrong_name = _name_problem(name)
    if wrong_name:
        problems.append(f"{path}: the name {name!r} {wrong_name}")
    description = str(item.get("description") or "")
    if not 1 <= len(description) <= MAX_DESCRIPTION:
        problems.append(
            f"{path}: the description is {len(description)} characters (1 to {MAX_DESCRIPTION})"
        )
    choices: Sequence[Mapping[str, Any]] = item.get("choices") or []
    if len(choices) > MAX_CHOICES:
        problems.append(f"{path}: {len(choices)} choices (at most {MAX_CHOICES})")
    for choice in choices:
        label = str(choice.get("name") or "")
        value = choice.get("value")
        if not 1 <= len(label) <= MAX_CHOICE:
            problems.append(f"{path}: the choice {label!r} is {len(label)} characters")
        if isinstance(value, str) and len(value) > MAX_CHOICE:
            problems.append(f"{path}: the choice value {value!r} is over {MAX_CHOICE}")
    problems.extend(_children_problems(item, path, top=top))
    return problems


def _children_problems(item: Mapping[str, Any], path: str, *, top: bool) -> list[str]:
    problems: list[str] = []
    options: Sequence[Mapping[str, Any]] = item.get("options") or []
    if len(options) > MAX_PER_LEVEL:
        problems.append(f"{path}: {len(options)} options or subcommands (at most {MAX_PER_LEVEL})")
    names = [str(o.get("name")) for o in options]
    if len(set(names)) != len(names):
        problems.append(f"{path}: two options or subcommands share a name")
    kinds = {o.get("type") for o in options}
    nested = kinds & {SUB_COMMAND, SUB_COMMAND_GROUP}
    if nested and kinds - nested:
        problems.append(f"{path}: mixes subcommands with plain options")
    # A top-level command's `type` is the command's kind (1 is chat input), not an option's.
    kind = None if top else item.get("type")
    if kind == SUB_COMMAND_GROUP and kinds - {SUB_COMMAND}:
        problems.append(f"{path}: a subcommand group may hold subcommands only")
    if kind == SUB_COMMAND and nested:
        problems.append(f"{path}: a subcommand may not hold subcommands")
    required = [bool(o.get("required")) for o in options if o.get("type") not in nested]
    if required != sorted(required, reverse=True):
        problems.append(f"{path}: a required option comes after an optional one")
    for option in options:
        problems.extend(_item_problems(option, f"{path} {option.get('name')}"))
    return problems


def shape_problems(command: Mapping[str, Any]) -> list[str]:
    """What one top-level command breaks besides its total size: names, descriptions,
    counts per level, choices, nesting and the order of options."""
    return _item_problems(command, f"/{command.get('name')}", top=True)


def command_problems(command: Mapping[str, Any]) -> list[str]:
    """Everything in one top-level command's payload that Discord would refuse."""
    path = f"/{command.get('name')}"
    problems = shape_problems(command)
    size = command_size(command)
    if size > MAX_COMMAND_CHARACTERS:
        problems.append(
            f"{path}: {size:,} characters of names, descriptions and choices "
            f"(Discord allows {MAX_COMMAND_CHARACTERS:,} per command)"
        )
    return problems


def tree_problems(commands: Iterable[Mapping[str, Any]]) -> list[str]:
    """Everything in one scope's commands (what one sync sends) that Discord would refuse."""
    payloads = list(commands)
    problems: list[str] = []
    chat_input = [c for c in payloads if c.get("type", CHAT_INPUT) == CHAT_INPUT]
    if len(chat_input) > MAX_COMMANDS_PER_SCOPE:
        problems.append(
            f"{len(chat_input)} slash commands (Discord allows {MAX_COMMANDS_PER_SCOPE} per scope)"
        )
    names = [str(c.get("name")) for c in chat_input]
    if len(set(names)) != len(names):
        problems.append("two slash commands share a name")
    for command in chat_input:
        problems.extend(command_problems(command))
    return problems
