"""One line of the setup report, and how the report is printed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

OK_MARK, FAIL_MARK = "✓", "✗"


@dataclass(frozen=True)
class CheckLine:
    """What one check found. `fatal` lines make the bot useless (`acwc run` stops on them);
    the others are warnings. `fix` says what to do, for a line that is not ok."""

    ok: bool
    title: str
    detail: str
    fix: str = ""
    fatal: bool = False

    def render(self) -> str:
        mark = OK_MARK if self.ok else FAIL_MARK
        text = f"{mark} {self.title}: {self.detail}"
        return text if self.ok or not self.fix else f"{text} Fix: {self.fix}"


def passed(title: str, detail: str) -> CheckLine:
    return CheckLine(True, title, detail)


def failed(title: str, detail: str, fix: str, *, fatal: bool = False) -> CheckLine:
    return CheckLine(False, title, detail, fix, fatal)


def render_report(lines: Sequence[CheckLine]) -> str:
    """Every line, then a verdict: what `acwc doctor` prints."""
    body = [line.render() for line in lines]
    problems = [line for line in lines if not line.ok]
    fatal = sum(line.fatal for line in problems)
    if not problems:
        body.append("Ready: every check passed.")
    elif fatal:
        body.append(f"{_count(len(problems))}; {fatal} of them stop `acwc run`.")
    else:
        body.append(f"{_count(len(problems))}; `acwc run` starts and warns about them.")
    return "\n".join(body)


def _count(problems: int) -> str:
    return "1 problem" if problems == 1 else f"{problems} problems"
