"""One line of the setup report, and how the report is printed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.message_text import agrees, counted

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
    # A fatal line `/td setup` can fix from Discord (the pairings channel): `acwc run` does
    # not stop on it but starts in setup mode, where only `/td setup` and `/help` answer
    # (bot.doctor.at_start), so the TD can fix it with the bot running.
    setup: bool = False

    def render(self) -> str:
        mark = OK_MARK if self.ok else FAIL_MARK
        text = f"{mark} {self.title}: {self.detail}"
        return text if self.ok or not self.fix else f"{text} Fix: {self.fix}"


def passed(title: str, detail: str) -> CheckLine:
    return CheckLine(True, title, detail)


def failed(
    title: str, detail: str, fix: str, *, fatal: bool = False, setup: bool = False
) -> CheckLine:
    return CheckLine(False, title, detail, fix, fatal or setup, setup)


SETUP_MODE = (
    "`acwc run` starts in setup mode (only `/td setup` and `/help` answer, nothing is "
    "published) until {it} fixed with `/td setup`"
)


def render_report(lines: Sequence[CheckLine]) -> str:
    """Every line, then a verdict: what `acwc doctor` prints."""
    body = [line.render() for line in lines]
    problems = [line for line in lines if not line.ok]
    stopping = sum(line.fatal and not line.setup for line in problems)
    in_setup = sum(line.setup for line in problems)
    count = counted(len(problems), "problem")
    if not problems:
        body.append("Ready: every check passed.")
    elif stopping == len(problems):
        it = "it stops" if stopping == 1 else "they stop"
        body.append(f"{count}; {it} `acwc run`.")
    elif stopping:
        verb = agrees(stopping, "stops", "stop")
        body.append(f"{count}; {stopping} of them {verb} `acwc run`.")
    elif in_setup:
        it = "it is" if in_setup == 1 else "they are"
        body.append(f"{count}; " + SETUP_MODE.format(it=it) + ".")
    else:
        them = "it" if len(problems) == 1 else "them"
        body.append(f"{count}; `acwc run` starts and warns about {them}.")
    return "\n".join(body)
