"""Every feature package is documented where a newcomer looks for it: a row of the feature
table in docs/ARCHITECTURE.md and a name in the README's layout."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FEATURES = sorted(path.parent.name for path in (ROOT / "bot" / "features").glob("*/__init__.py"))


def test_every_feature_has_a_row_in_the_architecture_table() -> None:
    doc = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `(\w+)` \|", doc, re.M))
    assert [f for f in FEATURES if f not in rows] == []


def test_every_feature_is_named_in_the_readme_layout() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme[readme.index("## Layout") :].split("```")[1]
    # The `bot/features/` entry: its line and the indented lines that carry it on.
    entry = re.search(r"^bot/features/ .*\n(?: {8,}.*\n)*", block, re.M)
    assert entry, "the README's layout has no bot/features/ entry"
    layout = entry.group(0)
    assert [f for f in FEATURES if not re.search(rf"\b{f}\b", layout)] == []
