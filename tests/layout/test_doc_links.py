"""The README and the docs link only inside the repository, and every link lands: the file
exists and, for `file.md#anchor`, the page has that heading (GitHub's anchor: lower case,
punctuation dropped, spaces to hyphens). Moving a section between pages breaks no link."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md"]
PAGES += sorted((ROOT / "docs").glob("*.md"))
LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def anchor(heading: str) -> str:
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return {anchor(h) for h in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def broken_links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    wrong: list[str] = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target):
            wrong.append(f"{page.name}: {target} leaves the repository")
            continue
        path, _, fragment = target.partition("#")
        landing = (page.parent / path).resolve() if path else page
        if not landing.exists():
            wrong.append(f"{page.name}: {target} names no file")
        elif fragment and landing.suffix == ".md" and fragment not in anchors(landing):
            wrong.append(f"{page.name}: {target} names no heading of {landing.name}")
    return wrong


def test_every_link_of_the_docs_stays_inside_and_lands() -> None:
    assert [problem for page in PAGES for problem in broken_links(page)] == []


def test_a_broken_or_outside_link_is_found(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Set up a new edition\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](other.md#set-up-a-new-edition) [gone](missing.md) "
        "[moved](other.md#run-it-on-your-server) [out](https://example.com)\n"
    )
    assert broken_links(page) == [
        "page.md: missing.md names no file",
        "page.md: other.md#run-it-on-your-server names no heading of other.md",
        "page.md: https://example.com leaves the repository",
    ]
