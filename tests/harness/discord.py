"""The Discord harness lives in the simulator (`acwc_sim.harness`) so `acwc simulate` can use it."""

from acwc_sim.harness import *  # noqa: F403 (the harness's public names, re-exported)
from acwc_sim.harness import __all__ as __all__
