"""The fake Lichess lives in the simulator (`acwc_sim.fake_lichess`): `acwc simulate` uses it."""

from acwc_sim.fake_lichess import FakeLichess, fake_lichess, ms

__all__ = ["FakeLichess", "fake_lichess", "ms"]
