"""No code decides by a stage's name or kind outside the stage catalogue (docs/ARCHITECTURE.md,
"How to add a stage kind"): what a stage does is the format's settings and its kind's
modules, so a new kind or a renamed stage changes no feature's `if`.

A branch is a comparison (`==`, `!=`, `is`, `is not`, `in`, `not in`) whose one side is an
engine kind (`StageKind.X`) or a stage word as a string ("swiss", "candidates", "final",
"tiebreak", "knockout", "round_robin", "final_match"). The catalogue may branch: the format
and the pure rules (`bot/format/`, `bot/rules/`), the models, and the modules of each kind
listed in `CATALOGUE`. Everything else has none: `KNOWN` is where a branch that cannot be
avoided yet would be listed, file by file, with the count only going down (it is empty).
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STAGE_WORDS = {
    "swiss",
    "candidates",
    "final",
    "tiebreak",
    "knockout",
    "round_robin",
    "final_match",
}
CATALOGUE_DIRS = ("bot/format/", "bot/rules/")
CATALOGUE = {
    "db/models.py",
    # the catalogue's answers for the engine: what a stage row does, asked of the format
    "bot/stage_kinds.py",
    # the rounds feature's modules of the kinds after 2019's: how each kind starts and ends
    "bot/features/rounds/starters.py",
    "bot/features/rounds/stage_ends.py",
    # the tables' one registry of kinds: which table (crosstable, knock-out, scoreboard) a
    # stage row shows, asked of the format stage's kind
    "bot/features/tables/kinds.py",
}
# Branches on a stage kind outside the catalogue that are allowed, by file (none).
KNOWN: dict[str, int] = {}


def _is_stage_side(node: ast.expr) -> bool:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.value.id == "StageKind"
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value in STAGE_WORDS
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_is_stage_side(item) for item in node.elts)
    return False


def branches(source: str) -> int:
    """How many comparisons in `source` test a stage's kind or name."""
    count = 0
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_is_stage_side(side) for side in sides):
                count += 1
    return count


def stage_branches() -> Counter[str]:
    found: Counter[str] = Counter()
    for folder in ("bot", "cogs"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if name.startswith(CATALOGUE_DIRS) or name in CATALOGUE:
                continue
            count = branches(path.read_text(encoding="utf-8"))
            if count:
                found[name] = count
    return found


def test_the_detector_sees_a_branch_on_a_stage() -> None:
    assert branches('if stage == "candidates":\n    pass\n') == 1
    assert branches("if kind is StageKind.FINAL or x in (StageKind.SWISS,):\n    pass\n") == 2
    assert branches('if stage.key == key:\n    pass\nname = "final"\n') == 0


def test_no_new_branch_on_a_stage_kind_outside_the_catalogue() -> None:
    found = stage_branches()
    grown = {
        name: (count, KNOWN.get(name, 0))
        for name, count in found.items()
        if count > KNOWN.get(name, 0)
    }
    assert not grown, (
        "branches on a stage's kind or name outside the catalogue (file: (now, allowed)); "
        f"ask the format or the kind's module instead: {grown}"
    )


def test_the_known_debt_is_current() -> None:
    """A file that lost branches lowers its allowance here, so the ratchet holds."""
    found = stage_branches()
    stale = {name: (found.get(name, 0), allowed) for name, allowed in KNOWN.items()}
    assert {n: v for n, v in stale.items() if v[0] != v[1]} == {}
