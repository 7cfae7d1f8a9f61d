"""Test harnesses. See :mod:`tests.harness.discord` for the offline Discord driver."""

from acwc_sim.harness import *  # noqa: F403 (the harness's public names, re-exported)
from acwc_sim.harness import __all__ as __all__
