"""The fake Lichess lives in the package (`bot.sim.fake_lichess`) so `acwc simulate` can use it."""

from bot.sim.fake_lichess import FakeLichess, fake_lichess, ms

__all__ = ["FakeLichess", "fake_lichess", "ms"]
