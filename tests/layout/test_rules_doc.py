"""docs/RULES.md maps every rule of the rules text to the code that decides it; this fails
when a rule of the text has no entry, when an entry's code citation is not the text's
number written the code's way (6.4 = VI.D), or when a `path::name` or a configuration key
it names does not exist. Only files are read (ast, yaml): nothing is imported or run."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
RULES_TEXT = ROOT / "docs" / "acwc-2019-rules.txt"
RULES_DOC = ROOT / "docs" / "RULES.md"

NUMBERED = re.compile(r"^( *)(\d+)\. ")
ENTRY = re.compile(r"^#{2,3} (\d+(?:\.\d+)*) · (\S+) ·", re.M)
REFERENCE = re.compile(r"`([\w/.-]+\.py)::([\w.]+)`")
FILE = re.compile(r"`([\w/.-]+\.py)(?:::[\w.]+)?`")
CONFIG_LINE = re.compile(r"^- Config: (.*)$", re.M)
CONFIG_KEY = re.compile(r"`([a-z_]+(?:\.[a-z_]+)*)`")
ROMAN = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X"]


def text_numbers() -> list[str]:
    """Every rule number of the rules text, as it writes them: "6.4", "3.7.6.1"."""
    path: list[int] = []
    numbers: list[str] = []
    for line in RULES_TEXT.read_text(encoding="utf-8").splitlines():
        found = NUMBERED.match(line)
        if not found:
            continue
        depth = len(found.group(1)) // 3
        path = [*path[:depth], int(found.group(2))]
        numbers.append(".".join(map(str, path)))
    return numbers


def code_citation(number: str) -> str:
    """The same rule as the code cites it: Roman, capital letter, number, small letter."""
    styles: tuple[Callable[[int], str], ...] = (
        lambda n: ROMAN[n - 1],
        lambda n: chr(ord("A") + n - 1),
        str,
        lambda n: chr(ord("a") + n - 1),
    )
    parts = [int(part) for part in number.split(".")]
    return ".".join(style(part) for style, part in zip(styles, parts, strict=False))


def entries() -> list[tuple[str, str]]:
    """(rule number, code citation) of every entry of docs/RULES.md, in order."""
    return ENTRY.findall(RULES_DOC.read_text(encoding="utf-8"))


@cache
def names_in(path: Path) -> frozenset[str]:
    """Dotted names defined in a module: functions, classes, their methods, constants."""
    names: set[str] = set()

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(prefix + node.name)
                walk(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, ast.Assign | ast.AnnAssign) and not prefix:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names.update(t.id for t in targets if isinstance(t, ast.Name))

    walk(ast.parse(path.read_text(encoding="utf-8")).body, "")
    return frozenset(names)


def config_keys() -> set[str]:
    """Every dotted key of config.example.yaml (sections and settings alike)."""

    def walk(tree: object, prefix: str) -> set[str]:
        if not isinstance(tree, dict):
            return set()
        keys: set[str] = set()
        for key, value in tree.items():
            keys |= {prefix + key} | walk(value, f"{prefix}{key}.")
        return keys

    return walk(yaml.safe_load((ROOT / "config.example.yaml").read_text(encoding="utf-8")), "")


def test_the_rules_text_is_read_whole() -> None:
    numbers = text_numbers()
    assert len(numbers) == len(set(numbers))
    assert {"1", "6.4", "3.7.6.4", "8.3.2"} <= set(numbers)
    assert code_citation("6.4") == "VI.D"
    assert code_citation("3.7.6.1") == "III.G.6.a"


def test_every_rule_of_the_text_has_an_entry_with_its_code_citation() -> None:
    found = entries()
    numbers = [number for number, _ in found]
    twice = sorted({n for n in numbers if numbers.count(n) > 1})
    assert not twice, f"rules with more than one entry in docs/RULES.md: {twice}"
    entries_by_number = dict(found)
    missing = [n for n in text_numbers() if n not in entries_by_number]
    assert not missing, f"rules of the text with no entry in docs/RULES.md: {missing}"
    extra = sorted(set(entries_by_number) - set(text_numbers()))
    assert not extra, f"entries for rules the text does not have: {extra}"
    wrong = {n: c for n, c in entries_by_number.items() if c != code_citation(n)}
    assert not wrong, f"entries whose code citation is not the text's number: {wrong}"


def test_every_path_and_name_the_doc_gives_exists() -> None:
    references = set(REFERENCE.findall(RULES_DOC.read_text(encoding="utf-8")))
    assert len(references) > 100, "the references were not found: has the format changed?"
    broken = []
    for file, name in sorted(references):
        path = ROOT / file
        if not path.is_file() or name not in names_in(path):
            broken.append(f"{file}::{name}")
    assert not broken, f"docs/RULES.md names what does not exist: {broken}"


def test_every_file_the_doc_gives_exists() -> None:
    files = set(FILE.findall(RULES_DOC.read_text(encoding="utf-8")))
    missing = sorted(f for f in files if not (ROOT / f).is_file())
    assert not missing, f"docs/RULES.md names files that do not exist: {missing}"


def test_every_configuration_key_the_doc_gives_exists() -> None:
    lines = CONFIG_LINE.findall(RULES_DOC.read_text(encoding="utf-8"))
    named = {key for line in lines for key in CONFIG_KEY.findall(line)}
    assert named, "no configuration keys found: has the format changed?"
    unknown = sorted(named - config_keys())
    assert not unknown, f"configuration keys not in config.example.yaml: {unknown}"


def entry_bodies() -> dict[str, str]:
    """The text under each entry's heading, by rule number."""
    doc = RULES_DOC.read_text(encoding="utf-8").split("\n## Summary")[0]
    heads = list(ENTRY.finditer(doc))
    return {
        head.group(1): doc[head.end() : following.start() if following else len(doc)]
        for head, following in zip(heads, [*heads[1:], None], strict=True)
    }


def field(body: str, name: str) -> str:
    found = re.search(rf"^- {name}: (.*)$", body, re.M)
    return found.group(1) if found else ""


HUMAN = "a human decision"


def test_every_rule_names_its_function_and_a_test() -> None:
    """Each rule of the text (a chapter's title aside) names the pure function in bot/rules/
    that decides it, or, where a person decides (the TD, Lichess), says so and names the code
    that records the decision; and a test of it."""
    bodies = entry_bodies()
    no_function, no_test = [], []
    for number in text_numbers():
        if "." not in number:
            continue  # a chapter's title: its rules have the entries
        body = bodies.get(number, "")
        pure = field(body, "Pure")
        # a heading of several rules may name the modules that decide them
        named = FILE.findall(pure) if "Rule: heading" in body else REFERENCE.findall(pure)
        decided = any(
            (path if isinstance(path, str) else path[0]).startswith("bot/rules/") for path in named
        )
        recorded = HUMAN in pure and REFERENCE.search(field(body, "Calls") + pure)
        if not (decided or recorded):
            no_function.append(number)
        if not [p for p, _ in REFERENCE.findall(field(body, "Tests")) if p.startswith("tests/")]:
            no_test.append(number)
    assert not no_function, f"rules with no function in docs/RULES.md: {no_function}"
    assert not no_test, f"rules with no test in docs/RULES.md: {no_test}"
