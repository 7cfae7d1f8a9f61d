"""The Swiss stage the engine runs, as the format describes it: its tiebreak chain, its
qualifiers, what a tie across the qualifying places leads to (`SwissStage`).

The live engine runs the 2019 stage shape (one Swiss); every reader of the Swiss table (the
end of the Swiss, the standings post and picture, /standings, the console's export and
`acwc standings`, the simulator's result) asks this for the chain it ranks by.
"""

from __future__ import annotations

from bot.format.model import Format, Registered, SwissStage

__all__ = ["swiss_stage"]

#: The 2019 edition's Swiss: what a format without a Swiss stage falls back to.
DEFAULT_SWISS = SwissStage(key="swiss", name="Qualification", entry=(Registered(),))


def swiss_stage(fmt: Format) -> SwissStage:
    """The format's Swiss stage (the first, if a format had several), or the 2019 one."""
    for stage in fmt.of_kind("swiss"):
        if isinstance(stage, SwissStage):
            return stage
    return DEFAULT_SWISS
