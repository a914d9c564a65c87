"""The Python API: ``flashsched.simulate(config, workload, **overrides)``.

``config`` is a preset name (``"vios2016"``), a path to a TOML file, a dict in the same shape as
the TOML, or a list of those applied in order. ``workload`` is a trace path, a dict of
``workload.*`` keys, or None to use the workload the config names. Keyword overrides use ``__``
for dots: ``device__geometry__channels=4`` is ``--set device.geometry.channels=4``.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from pathlib import Path

from . import _core

# `typing` is imported only by type checkers (which take any `TYPE_CHECKING` as true): it and
# `dataclasses` were a third of the CLI's start-up (docs/performance.md).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, Sequence, TypeAlias

    # pandas is imported when a DataFrame is asked for: the CLI starts faster without it.
    import pandas as pd

    ConfigLike: TypeAlias = str | os.PathLike[str] | Mapping[str, Any]
PERCENTILE_KEYS = ["1.000000", "5.000000", "10.000000", "20.000000", "30.000000", "40.000000",
                   "50.000000", "60.000000", "70.000000", "80.000000", "90.000000", "95.000000",
                   "99.000000", "99.500000", "99.900000", "99.950000", "99.990000"]


def _sources(config: ConfigLike | Sequence[ConfigLike] | None) -> list[tuple[str, str, str]]:
    if config is None:
        return []
    if isinstance(config, (list, tuple)):
        out: list[tuple[str, str, str]] = []
        for c in config:
            out.extend(_sources(c))
        return out
    if isinstance(config, Mapping):
        return [("json", json.dumps(_nest(config)), "python dict")]
    text = os.fspath(config)
    if text in _core.preset_names():
        return [("preset", text, f"preset {text}")]
    if Path(text).exists():
        return [("file", text, text)]
    if text.endswith(".toml") or os.sep in text:
        raise _core.ConfigError(f"{text}: no such config file")
    import difflib

    names = _core.preset_names()
    close = difflib.get_close_matches(text, names, n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    raise _core.ConfigError(f"\"{text}\" is neither a preset nor a config file{hint}; presets: {', '.join(names)}")


def _nest(d: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Accept both nested dicts and flat dotted keys ({"device.geometry.channels": 4}); a key given
    both ways (or twice) is a ConfigError, as the TOML reader makes it for a file, not a silent
    choice of one."""
    out: dict[str, Any] = {}

    def put(node: dict[str, Any], parts: list[str], v: Any, path: str) -> None:
        for i, p in enumerate(parts[:-1]):
            child = node.setdefault(p, {})
            if not isinstance(child, dict):
                raise _core.ConfigError(f"python dict: {'.'.join(parts[:i + 1])}: given twice, as a value and as a table")
            node = child
        last = parts[-1]
        if last in node:
            if isinstance(v, dict) and isinstance(node[last], dict):
                for k2, v2 in v.items():
                    put(node[last], [k2], v2, f"{path}.{k2}")
                return
            raise _core.ConfigError(f"python dict: {path}: given twice (as a dotted key and in a nested table, say): give it once")
        node[last] = v

    for k, v in d.items():
        path = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, Mapping):
            v = _nest(v, path)
        put(out, str(k).split("."), v, path)
    return out


def _scalar(v: Any) -> str:
    """A Python value as the TOML literal `--set` expects."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    return json.dumps(str(v))


def overrides_to_sets(overrides: Mapping[str, Any]) -> list[str]:
    return [f"{k.replace('__', '.')}={_scalar(v)}" for k, v in overrides.items()]


def workload_sets(workload: str | os.PathLike[str] | Mapping[str, Any] | None, fmt: str | None = None) -> list[str]:
    if workload is None:
        return [f"workload.trace.format={fmt}"] if fmt else []
    if isinstance(workload, Mapping):
        flat: dict[str, Any] = {}

        def walk(prefix: str, d: Mapping[str, Any]) -> None:
            for k, v in d.items():
                key = f"{prefix}.{k}" if prefix else str(k)
                if isinstance(v, Mapping):
                    walk(key, v)
                else:
                    flat[key] = v

        walk("", workload)
        return [f"workload.{k}={_scalar(v)}" for k, v in flat.items()]
    sets = ["workload.kind=\"trace\"", f"workload.trace.path={json.dumps(os.fspath(workload))}"]
    if fmt:
        sets.append(f"workload.trace.format={fmt}")
    return sets


class Result:
    """One simulation's results.

    ``json`` is the fio-shaped document (``result.json["jobs"][0]["read"]["clat_ns"]``); ``summary``
    the flat one-row summary; ``requests`` the per-request log (when asked for with
    ``request_log=True``); ``intervals`` the interval statistics (when ``stats.interval`` is set);
    ``lat_logs`` the fio-style latency logs written (``write_lat_log``); ``request_log_file`` the
    per-request log streamed to disk (``request_log_file``); ``intervals_file`` the interval
    statistics streamed to disk (``intervals_file``).
    """

    # A plain class rather than a dataclass: importing `dataclasses` cost the CLI 20 ms.
    __slots__ = ("json", "summary", "interval_lines", "request_columns", "lat_logs", "request_log_file",
                 "intervals_file")

    def __init__(self, json: dict[str, Any], summary: dict[str, Any], interval_lines: list[str] | None = None,
                 request_columns: dict[str, list[Any]] | None = None, lat_logs: list[Path] | None = None,
                 request_log_file: Path | None = None, intervals_file: Path | None = None) -> None:
        self.json = json
        self.summary = summary
        self.interval_lines = interval_lines if interval_lines is not None else []
        self.request_columns = request_columns
        self.lat_logs = lat_logs if lat_logs is not None else []
        self.request_log_file = request_log_file
        self.intervals_file = intervals_file

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__)
        return f"Result({fields})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Result):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    @property
    def summary_frame(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame([self.summary])

    @property
    def latency(self) -> pd.DataFrame:
        """Latency percentiles (ns) per direction and metric: rows (direction, metric)."""
        import pandas as pd

        rows = []
        job = self.json["jobs"][0]
        for direction in ("read", "write", "trim"):
            d = job[direction]
            if d["total_ios"] == 0:
                continue
            for metric in ("slat_ns", "clat_ns", "lat_ns"):
                m = d[metric]
                row = {"direction": direction, "metric": metric, "N": m["N"], "min": m["min"],
                       "mean": m["mean"], "stddev": m["stddev"], "max": m["max"]}
                row.update({f"p{float(k):g}": v for k, v in m["percentile"].items()})
                rows.append(row)
        return pd.DataFrame(rows)

    @property
    def stages(self) -> pd.DataFrame:
        """Mean and p99 of each stage of the latency breakdown, per direction (ns)."""
        import pandas as pd

        rows = []
        job = self.json["jobs"][0]
        for direction in ("read", "write"):
            d = job[direction]
            if d["total_ios"] == 0:
                continue
            for name, m in d["stages_ns"].items():
                rows.append({"direction": direction, "stage": name.removesuffix("_ns"), "mean": m["mean"],
                             "p99": m["percentile"]["99.000000"], "max": m["max"]})
        return pd.DataFrame(rows)

    @property
    def requests(self) -> pd.DataFrame | None:
        if self.request_columns is None:
            return None
        import pandas as pd

        return pd.DataFrame(self.request_columns)

    @property
    def intervals(self) -> pd.DataFrame:
        import pandas as pd

        if self.intervals_file is not None:
            with open(self.intervals_file) as f:
                return pd.DataFrame([json.loads(line) for line in f])
        return pd.DataFrame([json.loads(line) for line in self.interval_lines])

    @property
    def ssd(self) -> dict[str, Any]:
        return self.json["ssd"]


def simulate(
    config: ConfigLike | Sequence[ConfigLike] | None = None,
    workload: str | os.PathLike[str] | Mapping[str, Any] | None = None,
    *,
    format: str | None = None,
    sets: Iterable[str] = (),
    request_log: bool = False,
    full_invariant_check: bool = False,
    progress: Callable[[float, int, int, int], Any] | None = None,
    json_plus: bool = False,
    write_lat_log: str | os.PathLike[str] | None = None,
    request_log_file: str | os.PathLike[str] | None = None,
    intervals_file: str | os.PathLike[str] | None = None,
    **overrides: Any,
) -> Result:
    """Run one simulation and return its :class:`Result`.

    The call releases the GIL, and Ctrl-C stops it cleanly (KeyboardInterrupt). ``progress``, if
    given, is called about ten times a second with (fraction done, simulated ns, requests done,
    events). ``json_plus`` adds fio's json+ latency ``bins`` to the JSON (fio's
    ``--output-format=json+``). ``write_lat_log`` is a prefix: fio-style latency logs are written
    to ``PREFIX_lat.1.log``, ``PREFIX_clat.1.log`` and ``PREFIX_slat.1.log`` (fio's
    ``write_lat_log``), atomically; OSError if they cannot be.

    ``request_log=True`` keeps the per-request log in memory for ``Result.requests`` (a DataFrame);
    ``request_log_file`` streams it to disk during the run instead, as ``flashsched run
    --request-log`` does (CSV, or Parquet when the name ends in .parquet): memory does not grow with
    the number of requests. Both latency logs and request log files are written to temporary files
    and appear only when the run succeeds; an error or Ctrl-C leaves nothing behind.

    ``intervals_file`` streams the interval statistics (``stats.interval`` must be set) to that JSON
    Lines file as each window closes, as ``flashsched run --intervals`` does; ``Result.intervals``
    then reads them back from it. Without it they are kept in memory. Either way a run stops with a
    ConfigError if it would make more than ``stats.max_intervals`` windows.
    """
    all_sets = workload_sets(workload, format) + list(sets) + overrides_to_sets(overrides)
    return simulate_sources(_sources(config), all_sets, request_log=request_log,
                            full_invariant_check=full_invariant_check, progress=progress,
                            json_plus=json_plus, write_lat_log=write_lat_log, request_log_file=request_log_file,
                            intervals_file=intervals_file)


def lat_log_paths(prefix: str | os.PathLike[str]) -> list[Path]:
    """The files a latency-log prefix names, as fio names them: PREFIX_{lat,clat,slat}.1.log."""
    text = os.fspath(prefix)
    if not text:
        raise ValueError("write_lat_log: the prefix is empty")
    return [Path(f"{text}_{kind}.1.log") for kind in ("lat", "clat", "slat")]


def simulate_sources(sources: list[tuple[str, str, str]], sets: list[str], *, request_log: bool = False,
                     full_invariant_check: bool = False,
                     progress: Callable[[float, int, int, int], Any] | None = None,
                     json_plus: bool = False, write_lat_log: str | os.PathLike[str] | None = None,
                     request_log_file: str | os.PathLike[str] | None = None,
                     request_log_csv: str | os.PathLike[str] | None = None,
                     intervals_file: str | os.PathLike[str] | None = None) -> Result:
    """:func:`simulate` with the configuration already as native sources (used by sweeps).
    ``request_log_csv`` streams the per-request log to exactly that CSV file (the CLI's staging
    file, :func:`flashsched.output.streamed_request_log`)."""
    lat_logs = lat_log_paths(write_lat_log) if write_lat_log is not None else []
    prefix = os.fspath(write_lat_log) if write_lat_log is not None else None
    from .output import commit_request_log, streamed_request_log

    target = Path(request_log_file) if request_log_file is not None else None
    # A file of the caller's: streamed to a hidden file beside it, put in place (or converted to
    # Parquet) after the run.
    staging: Any = streamed_request_log(target) if target is not None else contextlib.nullcontext(request_log_csv)
    with staging as staged:
        csv = os.fspath(staged) if staged is not None else None
        intervals_path = os.fspath(intervals_file) if intervals_file is not None else None
        text, summary, intervals, log = _core.simulate(sources, sets, request_log, full_invariant_check, progress,
                                                       json_plus, prefix, csv, intervals_path)
        if target is not None:
            commit_request_log(staged, target)
    return Result(
        json=json.loads(text),
        summary={k: json.loads(v) for k, v in summary},
        interval_lines=intervals,
        request_columns=log,
        lat_logs=lat_logs,
        request_log_file=target,
        intervals_file=Path(intervals_file) if intervals_file is not None else None,
    )


def resolve(config: ConfigLike | Sequence[ConfigLike] | None = None, *, sets: Iterable[str] = (),
            **overrides: Any) -> str:
    """The resolved configuration as TOML, with units and where each non-default value came from."""
    text, _ = _core.resolve_config(_sources(config), list(sets) + overrides_to_sets(overrides))
    return text


def trace_stats(path: str | os.PathLike[str], format: str = "auto", device: int | None = None,
                blkparse_action: str = "Q") -> dict[str, Any]:
    """Summarise a trace file (request count, mix, sizes, footprint, inter-arrival times)."""
    return json.loads(_core.trace_stats(os.fspath(path), format, device, blkparse_action))
