"""Every rule the code cites ("III.E.5", "VI.D") is a rule of the rules text, numbered the
code's way (docs/RULES.md: 3.5.5 = III.E.5). A citation of a rule the text does not have
(the Candidates' pre-seeding was once cited as "III.B.4"; it is III.D) sends the reader to
nothing."""

from __future__ import annotations

import re
from pathlib import Path

from tests.layout.test_rules_doc import code_citation, text_numbers

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("bot", "cogs", "db", "sim/acwc_sim")
CITATION = re.compile(r"\b((?:VIII|VII|VI|IV|IX|III|II|I|V|X)\.[A-Z](?:\.\d+(?:\.[a-z])?)?)\b")


def unknown_citations(text: str, where: str) -> list[str]:
    rules = {code_citation(number) for number in text_numbers()}
    return [
        f"{where}:{line_number}: {found.group(1)}"
        for line_number, line in enumerate(text.splitlines(), 1)
        for found in CITATION.finditer(line)
        if found.group(1) not in rules
    ]


def test_every_rule_the_code_cites_is_in_the_rules_text() -> None:
    wrong = [
        problem
        for folder in FOLDERS
        for path in sorted((ROOT / folder).rglob("*.py"))
        for problem in unknown_citations(
            path.read_text(encoding="utf-8"), str(path.relative_to(ROOT))
        )
    ]
    assert wrong == []


def test_a_rule_the_text_does_not_have_is_found() -> None:
    planted = '"""The pre-seeded Candidates (rule III.B.4), seeded by III.E.3 and VI.D."""'
    assert unknown_citations(planted, "planted.py") == ["planted.py:1: III.B.4"]
