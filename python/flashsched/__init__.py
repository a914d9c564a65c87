"""flashsched: a fast, deterministic, trace-driven SSD simulator for I/O scheduling research.

>>> import flashsched
>>> r = flashsched.simulate("tiny", {"kind": "synthetic", "synthetic": {"requests": 500}})
>>> r.json["flashsched"]["requests_completed"]
500
"""

from ._core import ConfigError, FlashschedError, SimulationError, TraceError, __version__
from .api import Result, resolve, simulate, trace_stats

__all__ = [
    "ConfigError",
    "FlashschedError",
    "Result",
    "SimulationError",
    "TraceError",
    "__version__",
    "presets",
    "resolve",
    "simulate",
    "trace_stats",
]


def presets() -> list[str]:
    """Names of the built-in drive presets."""
    from . import _core

    return list(_core.preset_names())
