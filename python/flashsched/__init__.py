"""flashsched: a fast, deterministic, trace-driven SSD simulator for I/O scheduling research.

>>> import flashsched
>>> r = flashsched.simulate("tiny", {"kind": "synthetic", "synthetic": {"requests": 500}})
>>> r.json["flashsched"]["requests_completed"]
500
"""

from __future__ import annotations

from ._core import ConfigError, FlashschedError, SimulationError, TraceError, __version__
from .api import Result, resolve, simulate, trace_stats

TYPE_CHECKING = False  # `typing` only for type checkers (CLI start-up; see api.py)
if TYPE_CHECKING:
    from typing import Any

# Submodules imported on first use, so `import flashsched` stays fast (plots pull in matplotlib).
_LAZY = {"plot", "report", "profiles", "reproduce", "sweeps"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def sweep(spec: Any, output: Any = None, **kwargs: Any) -> Any:
    """Run a sweep and return its table; see :func:`flashsched.sweeps.sweep`."""
    from .sweeps import sweep as _sweep

    return _sweep(spec, output, **kwargs)

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
    "sweep",
    "trace_stats",
]


def presets() -> list[str]:
    """Names of the built-in drive presets."""
    from . import _core

    return list(_core.preset_names())
