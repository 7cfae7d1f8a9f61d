"""Discord's documented limits on what a bot sends: messages, embeds, components, modals,
autocomplete answers, threads and allowed mentions. The limits on commands are in
`bot.command_limits`.

Past any of these Discord answers HTTP 400 (code 50035, Invalid Form Body) and shows
nothing, so a reply over them leaves the user without an answer and an outbox row over them
is never delivered. The numbers come from Discord's developer documentation (discord-api-docs:
"Message Resource", "Embed Limits", "Component Reference", "Receiving and Responding",
"Threads", "Allowed Mentions"). The recorded Discord of the tests (`acwc_sim.harness`) refuses
every payload these functions find a problem in, and the bot uses the same numbers where it
cuts or splits a text (`bot.message_text`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

# Messages
MESSAGE_CONTENT = 2000
EMBEDS_PER_MESSAGE = 10
# Embeds
EMBED_TITLE, EMBED_DESCRIPTION, EMBED_FIELDS = 256, 4096, 25
EMBED_FIELD_NAME, EMBED_FIELD_VALUE, EMBED_FOOTER, EMBED_AUTHOR = 256, 1024, 2048, 256
EMBEDS_TOTAL = 6000  # titles, descriptions, field names and values, footers, author names
# Components
ACTION_ROWS = 5  # top-level rows of a message or a modal (without the components v2 flag)
BUTTONS_PER_ROW = 5
COMPONENTS_V2_TOTAL = 40  # every component of a message with the components v2 flag
CUSTOM_ID = 100
BUTTON_LABEL = 80
URL = 512
SELECT_PLACEHOLDER = 150
SELECT_OPTIONS = 25
SELECT_OPTION_TEXT = 100  # an option's label, value and description each
SELECT_VALUES = 25  # min_values at most, max_values at most
TEXT_DISPLAY_TOTAL = 4000
# Modals
MODAL_TITLE = 45
TEXT_INPUT_LABEL = 45
TEXT_INPUT_VALUE = 4000  # also the largest min_length and max_length
TEXT_INPUT_PLACEHOLDER = 100
LABEL_DESCRIPTION = 100
# Autocomplete
AUTOCOMPLETE_CHOICES, CHOICE_NAME, CHOICE_VALUE = 25, 100, 100
# Threads and forum posts
THREAD_NAME = 100
# Allowed mentions
MENTION_IDS = 100
MENTION_PARSE = frozenset({"roles", "users", "everyone"})

COMPONENTS_V2_FLAG = 1 << 15
ACTION_ROW, BUTTON, STRING_SELECT, TEXT_INPUT = 1, 2, 3, 4
SELECTS = frozenset({3, 5, 6, 7, 8})
TEXT_DISPLAY, LABEL = 10, 18
LINK_STYLE, PREMIUM_STYLE = 5, 6


def _over(problems: list[str], what: str, value: Any, limit: int) -> None:
    if isinstance(value, str) and len(value) > limit:
        problems.append(f"{what} is {len(value)} characters (max {limit})")


def embed_problems(embeds: Sequence[Mapping[str, Any]]) -> list[str]:
    """What Discord refuses in a message's embeds."""
    problems: list[str] = []
    if len(embeds) > EMBEDS_PER_MESSAGE:
        problems.append(f"{len(embeds)} embeds (max {EMBEDS_PER_MESSAGE})")
    total = 0
    for embed in embeds:
        footer = embed.get("footer") or {}
        author = embed.get("author") or {}
        fields: Sequence[Mapping[str, Any]] = embed.get("fields") or []
        texts = [
            ("embed title", embed.get("title"), EMBED_TITLE),
            ("embed description", embed.get("description"), EMBED_DESCRIPTION),
            ("embed footer", footer.get("text"), EMBED_FOOTER),
            ("embed author name", author.get("name"), EMBED_AUTHOR),
        ]
        for fld in fields:
            texts.append(("embed field name", fld.get("name"), EMBED_FIELD_NAME))
            texts.append(("embed field value", fld.get("value"), EMBED_FIELD_VALUE))
        if len(fields) > EMBED_FIELDS:
            problems.append(f"{len(fields)} embed fields (max {EMBED_FIELDS})")
        for what, text, limit in texts:
            _over(problems, what, text, limit)
            total += len(text) if isinstance(text, str) else 0
    if total > EMBEDS_TOTAL:
        problems.append(f"embeds hold {total} characters (max {EMBEDS_TOTAL})")
    return problems


def _in_range(
    problems: list[str], what: str, comp: Mapping[str, Any], keys: tuple[str, ...], high: int
) -> None:
    """Each of `keys` that `comp` sets is from 0 to `high`."""
    for key in keys:
        value = comp.get(key)
        if isinstance(value, int) and not 0 <= value <= high:
            problems.append(f"{what}'s {key} is {value} (0 to {high})")


def walk_components(components: Iterable[Mapping[str, Any]]) -> Iterable[Mapping[str, Any]]:
    """Every component dict, depth first (action rows, containers, sections, labels)."""
    for comp in components:
        yield comp
        children = comp.get("components")
        if isinstance(children, list):
            yield from walk_components(children)
        for key in ("accessory", "component"):
            child = comp.get(key)
            if isinstance(child, Mapping):
                yield from walk_components([child])


def _one_component_problems(comp: Mapping[str, Any]) -> list[str]:
    problems: list[str] = []
    kind = comp.get("type")
    custom_id = comp.get("custom_id")
    _over(problems, "a custom_id", custom_id, CUSTOM_ID)
    if kind == BUTTON:
        _over(problems, "a button label", comp.get("label"), BUTTON_LABEL)
        _over(problems, "a button url", comp.get("url"), URL)
        link = comp.get("style") in (LINK_STYLE, PREMIUM_STYLE)
        if not link and not custom_id:
            problems.append("a button has no custom_id")
    elif kind in SELECTS:
        _over(problems, "a select placeholder", comp.get("placeholder"), SELECT_PLACEHOLDER)
        options: Sequence[Mapping[str, Any]] = comp.get("options") or []
        if kind == STRING_SELECT and not 1 <= len(options) <= SELECT_OPTIONS:
            problems.append(f"a select has {len(options)} options (1 to {SELECT_OPTIONS})")
        for option in options:
            for key in ("label", "value", "description"):
                _over(problems, f"a select option {key}", option.get(key), SELECT_OPTION_TEXT)
        _in_range(problems, "a select", comp, ("min_values", "max_values"), SELECT_VALUES)
    elif kind == TEXT_INPUT:
        _over(problems, "a text input label", comp.get("label"), TEXT_INPUT_LABEL)
        _over(problems, "a text input value", comp.get("value"), TEXT_INPUT_VALUE)
        _over(problems, "a text input placeholder", comp.get("placeholder"), TEXT_INPUT_PLACEHOLDER)
        keys = ("min_length", "max_length")
        _in_range(problems, "a text input", comp, keys, TEXT_INPUT_VALUE)
    elif kind == LABEL:
        _over(problems, "a label", comp.get("label"), TEXT_INPUT_LABEL)
        _over(problems, "a label description", comp.get("description"), LABEL_DESCRIPTION)
    return problems


def _row_problems(row: Mapping[str, Any]) -> list[str]:
    children: Sequence[Mapping[str, Any]] = row.get("components") or []
    kinds = [c.get("type") for c in children]
    if not children:
        return ["an action row is empty"]
    if any(k == ACTION_ROW for k in kinds):
        return ["an action row holds an action row"]
    selects = sum(1 for k in kinds if k in SELECTS)
    if selects and len(children) > 1:
        return ["an action row holds a select and something else (one select per row)"]
    if kinds.count(BUTTON) > BUTTONS_PER_ROW:
        return [f"an action row holds {kinds.count(BUTTON)} buttons (max {BUTTONS_PER_ROW})"]
    return []


def component_problems(components: Sequence[Mapping[str, Any]], *, flags: int = 0) -> list[str]:
    """What Discord refuses in a message's (or a modal's) components."""
    problems: list[str] = []
    every = list(walk_components(components))
    if flags & COMPONENTS_V2_FLAG:
        if len(every) > COMPONENTS_V2_TOTAL:
            problems.append(f"{len(every)} components (max {COMPONENTS_V2_TOTAL})")
        shown = sum(len(str(c.get("content") or "")) for c in every if c.get("type") == 10)
        if shown > TEXT_DISPLAY_TOTAL:
            problems.append(f"text displays hold {shown} characters (max {TEXT_DISPLAY_TOTAL})")
    elif len(components) > ACTION_ROWS:
        problems.append(f"{len(components)} action rows (max {ACTION_ROWS})")
    for comp in every:
        if comp.get("type") == ACTION_ROW:
            problems.extend(_row_problems(comp))
        problems.extend(_one_component_problems(comp))
    ids = [c["custom_id"] for c in every if c.get("custom_id")]
    if len(set(ids)) != len(ids):
        problems.append("two components share a custom_id")
    return problems


def allowed_mentions_problems(mentions: Any) -> list[str]:
    """What Discord refuses in `allowed_mentions`: an unknown kind to parse, more than 100
    ids, or a kind both parsed and listed."""
    if mentions is None:
        return []
    if not isinstance(mentions, Mapping):
        return ["allowed_mentions is not an object"]
    problems: list[str] = []
    parse = list(mentions.get("parse") or [])
    unknown = [p for p in parse if p not in MENTION_PARSE]
    if unknown:
        problems.append(f"allowed_mentions parses {unknown} (only roles, users, everyone)")
    for kind in ("users", "roles"):
        ids = list(mentions.get(kind) or [])
        if len(ids) > MENTION_IDS:
            problems.append(f"allowed_mentions lists {len(ids)} {kind} (max {MENTION_IDS})")
        if ids and kind in parse:
            problems.append(f"allowed_mentions both parses and lists {kind}")
    return problems


def message_problems(data: Mapping[str, Any]) -> list[str]:
    """What Discord refuses in a message it is asked to create or edit (a channel message,
    an interaction's reply, followup or edit, a forum post's first message)."""
    problems: list[str] = []
    _over(problems, "content", data.get("content"), MESSAGE_CONTENT)
    problems.extend(embed_problems(data.get("embeds") or []))
    flags = int(data.get("flags") or 0)
    problems.extend(component_problems(data.get("components") or [], flags=flags))
    problems.extend(allowed_mentions_problems(data.get("allowed_mentions")))
    return problems


def modal_problems(data: Mapping[str, Any]) -> list[str]:
    """What Discord refuses in a modal: its title, custom id, rows and text inputs."""
    problems: list[str] = []
    _over(problems, "the modal title", data.get("title"), MODAL_TITLE)
    _over(problems, "the modal custom_id", data.get("custom_id"), CUSTOM_ID)
    components: Sequence[Mapping[str, Any]] = data.get("components") or []
    if not 1 <= len(components) <= ACTION_ROWS:
        problems.append(f"the modal has {len(components)} rows (1 to {ACTION_ROWS})")
    problems.extend(component_problems(components))
    return problems


def autocomplete_problems(data: Mapping[str, Any]) -> list[str]:
    """What Discord refuses in an autocomplete answer."""
    choices: Sequence[Mapping[str, Any]] = data.get("choices") or []
    problems: list[str] = []
    if len(choices) > AUTOCOMPLETE_CHOICES:
        problems.append(f"{len(choices)} choices (max {AUTOCOMPLETE_CHOICES})")
    for choice in choices:
        name = str(choice.get("name") or "")
        if not 1 <= len(name) <= CHOICE_NAME:
            problems.append(f"a choice name is {len(name)} characters (1 to {CHOICE_NAME})")
        _over(problems, "a choice value", choice.get("value"), CHOICE_VALUE)
    return problems


def interaction_response_problems(body: Mapping[str, Any]) -> list[str]:
    """What Discord refuses in an interaction callback, by its type (a message, an update, a
    modal, autocomplete choices; a deferral carries at most flags)."""
    kind = body.get("type")
    data: Mapping[str, Any] = body.get("data") or {}
    if kind == 9:
        return modal_problems(data)
    if kind == 8:
        return autocomplete_problems(data)
    return message_problems(data)


def thread_problems(body: Mapping[str, Any]) -> list[str]:
    """What Discord refuses in a thread or forum post it is asked to create."""
    problems: list[str] = []
    name = str(body.get("name") or "")
    if not 1 <= len(name) <= THREAD_NAME:
        problems.append(f"the thread name is {len(name)} characters (1 to {THREAD_NAME})")
    starter = body.get("message")
    if isinstance(starter, Mapping):
        problems.extend(message_problems(starter))
    return problems
