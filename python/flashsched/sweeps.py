"""Sweeps: grids (or explicit lists) of simulations over config keys, presets, policies, workloads
and seeds, run on a local process pool or a Dask cluster, collected as one table.

A spec (TOML file or dict)::

    name = "gc-threshold"
    config = "vios2016"                 # or a list: a "config" column sweeps presets/files
    seeds = [1, 2, 3]
    [grid]                              # every combination of these config keys
    "ftl.gc.threshold" = [0.05, 0.10]
    "host.queue_depth" = [8, 32]
    [[workloads]]                       # each run is repeated per workload
    name = "hm_0"
    trace = "../shared/traces/msr/hm_0.window1000.csv"
    [[workloads]]
    name = "uniform"
    set = { kind = "synthetic", "synthetic.requests" = 5000 }
    [[workloads]]
    name = "src"
    profile = "vios2016/src"            # a trace profile (flashsched.profiles)
    requests = 20000

``keep_latencies = true`` keeps every run's per-request latencies (ns, in arrival order) in
``OUTPUT.latencies/RUN_ID.npy`` beside the table (an output path is then required), so that runs
can be compared request by request (``reproduce``'s ``paired`` comparisons, which keep what they
computed in ``OUTPUT.paired.csv``); a finished run whose file is missing is run again unless that
file already holds its comparisons.

``[[runs]]`` tables instead of (or besides) ``[grid]`` give an explicit list of override sets.
``[[variants]]`` tables name a policy made of several keys (``name = "vios-static"``, ``set =
{"hil.scheduler" = "vios", "hil.vios.unconflicted" = "static"}``); every grid combination is run
under every variant, and the table's ``variant`` column holds the name.
Each run is identified by a hash of its resolved configuration, workload and seed; results are one
row per run with every swept parameter and every summary metric as columns. A failed run is a row
with its error. Finished runs are checkpointed as they complete, so an interrupted sweep resumes
where it stopped.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import sys
import time
import tomllib
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Protocol, Sequence

from . import _core
from .api import _scalar, _sources, simulate_sources, workload_sets

if TYPE_CHECKING:
    import pandas as pd


class SweepError(ValueError):
    """The sweep spec is invalid."""


@dataclass(frozen=True)
class Run:
    """One simulation of a sweep: where its config comes from and what it overrides."""

    run_id: str
    params: dict[str, Any]
    sources: list[tuple[str, str, str]]
    sets: list[str]
    workload: str
    seed: int
    # Where to keep the run's per-request latencies (`keep_latencies`), or "".
    latency_file: str = ""
    # The files the run reads (its trace, config files), as absolute paths: a worker of a cluster
    # checks it can see them before it runs (`run_one`).
    files: tuple[str, ...] = ()


@dataclass
class Spec:
    name: str
    configs: list[Any]
    grid: dict[str, list[Any]]
    runs: list[dict[str, Any]]
    workloads: list[dict[str, Any]]
    seeds: list[int]
    variants: list[dict[str, Any]] = field(default_factory=list)
    base_dir: Path = field(default_factory=Path.cwd)
    keep_latencies: bool = False

    @staticmethod
    def load(spec: str | os.PathLike[str] | Mapping[str, Any]) -> "Spec":
        if isinstance(spec, Mapping):
            data, base = dict(spec), Path.cwd()
        else:
            path = Path(spec)
            if not path.exists():
                raise SweepError(f"{path}: no such sweep spec")
            try:
                data = tomllib.loads(path.read_text())
            except tomllib.TOMLDecodeError as e:
                raise SweepError(f"{path}: not valid TOML: {e}") from None
            # Absolute: the paths resolved against it are shipped to workers that may run in
            # another folder (or on another machine of a cluster).
            base = path.parent.resolve()
        known = {"name", "config", "grid", "runs", "variants", "workloads", "seeds", "output", "keep_latencies"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise SweepError(f"unknown sweep keys: {', '.join(unknown)} (known: {', '.join(sorted(known))})")
        configs = data.get("config", "tiny")
        configs = configs if isinstance(configs, list) else [configs]
        grid = data.get("grid", {})
        for k, v in grid.items():
            if not isinstance(v, list) or not v:
                raise SweepError(f"grid.{k}: expected a non-empty list of values")
        seeds = data.get("seeds", [42])
        if not isinstance(seeds, list) or not all(isinstance(s, int) for s in seeds):
            raise SweepError("seeds: expected a list of integers")
        keep = data.get("keep_latencies", False)
        if not isinstance(keep, bool):
            raise SweepError(f"keep_latencies: expected true or false (got {keep!r})")
        return Spec(
            name=str(data.get("name", "sweep")),
            configs=configs,
            grid=grid,
            runs=list(data.get("runs", [])),
            workloads=list(data.get("workloads", [])),
            seeds=seeds,
            variants=_check_variants(data.get("variants", [])),
            base_dir=base,
            keep_latencies=keep,
        )

    def expand(self) -> list[Run]:
        """Every run of the sweep, in a stable order."""
        keys = list(self.grid)
        combos = [dict(zip(keys, values)) for values in itertools.product(*(self.grid[k] for k in keys))]
        if self.runs:
            combos = combos + [dict(r) for r in self.runs] if keys else [dict(r) for r in self.runs]
        workloads = self.workloads or [{"name": "config"}]
        variants = self.variants or [None]
        out: list[Run] = []
        for config, variant, combo, wl, seed in itertools.product(self.configs, variants, combos, workloads, self.seeds):
            params: dict[str, Any] = {}
            if len(self.configs) > 1:
                params["config"] = config if isinstance(config, str) else json.dumps(config, sort_keys=True)
            keys_set = combo
            if variant is not None:
                # A grid key also in the variant wins: `reproduce --set` fixes a key for every run.
                params["variant"] = variant["name"]
                keys_set = {**variant.get("set", {}), **combo}
            params.update(combo)
            params["workload"] = wl.get("name", "workload")
            params["seed"] = seed
            sources = _sources(self._resolve_path(config))
            # The workload's keys first, so a grid or variant key (an axis someone chose to sweep)
            # overrides what a profile or trace sets by default (a profile's uniform addresses
            # under a grid of hot/cold ones); a key set both by the workload's own `set` and by
            # the grid or a variant is a contradiction, not a precedence question.
            clash = sorted(set(keys_set) & {s.split("=", 1)[0] for s in workload_sets(dict(wl.get("set", {})))})
            if clash:
                raise SweepError(f"workloads.{params['workload']}: {', '.join(clash)} set both by the workload's "
                                 "`set` and by the grid or a variant; set it in one place")
            sets = self._workload_sets(wl) + [f"{k}={_scalar(v)}" for k, v in keys_set.items()] + [f"seed={seed}"]
            files = tuple(payload for kind, payload, _ in sources if kind == "file")
            if "trace" in wl:
                files += (str(self._path(wl["trace"])),)
            out.append(Run(run_id=_run_id(sources, sets, wl, self.base_dir), params=params, sources=sources,
                           sets=sets, workload=params["workload"], seed=seed, files=files))
        seen: dict[str, Run] = {}
        for r in out:
            first = seen.setdefault(r.run_id, r)
            if first is not r:
                # Two rows of the table would be one simulation (for instance a grid key fixed by
                # `reproduce --set` that makes two variants the same): say so rather than keep one.
                raise SweepError(f"runs {first.params} and {r.params} are the same simulation "
                                 "(identical resolved configuration, workload and seed)")
        return out

    def _path(self, path: str | os.PathLike[str]) -> Path:
        """A path of the spec, absolute: relative ones are relative to the spec's folder."""
        p = Path(path)
        return p if p.is_absolute() else (self.base_dir / p).absolute()

    def _resolve_path(self, config: Any) -> Any:
        if isinstance(config, str) and config not in _core.preset_names():
            return str(self._path(config))
        return config

    def _workload_sets(self, wl: Mapping[str, Any]) -> list[str]:
        allowed = {"name", "trace", "format", "set", "profile", "requests"}
        unknown = set(wl) - allowed
        if unknown:
            raise SweepError(f"workloads.{wl.get('name', '?')}: unknown keys {sorted(unknown)} (known: {sorted(allowed)})")
        sets: list[str] = []
        if "trace" in wl:
            sets += workload_sets(self._path(wl["trace"]), wl.get("format"))
        if "profile" in wl:
            from . import profiles

            sets += profiles.get(wl["profile"]).sets(requests=wl.get("requests"))
        if "set" in wl:
            sets += workload_sets(dict(wl["set"]))
        return sets


def _check_variants(variants: Any) -> list[dict[str, Any]]:
    if not isinstance(variants, list):
        raise SweepError("variants: expected an array of tables ([[variants]])")
    seen: set[str] = set()
    for i, v in enumerate(variants):
        if not isinstance(v, dict) or not isinstance(v.get("name"), str) or not v["name"]:
            raise SweepError(f"variants[{i}]: expected a table with a non-empty name")
        unknown = sorted(set(v) - {"name", "set"})
        if unknown:
            raise SweepError(f"variants.{v['name']}: unknown keys {unknown} (known: name, set)")
        if not isinstance(v.get("set", {}), dict):
            raise SweepError(f"variants.{v['name']}.set: expected a table of config keys")
        if v["name"] in seen:
            raise SweepError(f"variants: {v['name']!r} appears twice")
        seen.add(v["name"])
    return variants


def _run_id(sources: Sequence[tuple[str, str, str]], sets: Sequence[str], wl: Mapping[str, Any], base: Path) -> str:
    """Hash of the resolved configuration (which includes the workload keys and the seed) and, for
    traces, the file's size and modification time."""
    try:
        toml_text, _ = _core.resolve_config(list(sources), list(sets))
    except _core.ConfigError:
        # An invalid configuration: the run will fail with its error; identify it by what it says.
        toml_text = "invalid\n" + json.dumps([list(sources), list(sets)])
    h = hashlib.sha256(toml_text.encode())
    if "trace" in wl:
        p = Path(wl["trace"])
        p = p if p.is_absolute() else base / p
        try:
            st = p.stat()
            h.update(f"{p.resolve()}:{st.st_size}:{st.st_mtime_ns}".encode())
        except OSError:
            h.update(str(p).encode())
    return h.hexdigest()[:16]


def latency_dir(output: Path) -> Path:
    """Where a sweep writing its table to ``output`` keeps per-request latencies."""
    return output.with_name(output.stem + ".latencies")


def paired_cache(output: Path) -> Path:
    """Where the request-by-request comparisons of a sweep's runs are kept (a CSV with columns
    ``base_run``, ``target_run``, ``tolerance``, ``improved``, ``unchanged``, ``worse``)."""
    return output.with_name(output.stem + ".paired.csv")


def _paired_runs(output: Path) -> set[str]:
    """Run ids whose request-by-request comparisons are already kept, at every tolerance."""
    from .paired import compared_runs

    return compared_runs(paired_cache(output))


def _save_latencies(path: Path, columns: dict[str, list[Any]]) -> None:
    """Each request's total latency (ns, int64), in arrival order (ties by offset, then length)."""
    import numpy as np

    arrival = np.asarray(columns["arrival_ns"], dtype=np.int64)
    lat = np.asarray(columns["lat_ns"], dtype=np.int64)
    order = np.lexsort((np.asarray(columns["len"], dtype=np.int64), np.asarray(columns["offset"], dtype=np.int64), arrival))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    with tmp.open("wb") as f:
        np.save(f, lat[order])
    os.replace(tmp, path)


def run_one(run: Run) -> dict[str, Any]:
    """Simulate one run; never raises: a failure becomes a row with its error."""
    row: dict[str, Any] = {"run_id": run.run_id, **run.params}
    t0 = time.perf_counter()
    try:
        missing = _missing_files(run.files)
        if missing:
            raise SweepError(f"{_where_am_i()} cannot see {', '.join(missing)}: the workers of a cluster must see "
                             "the files of a sweep at the same paths as the client (a shared file system)")
        r = simulate_sources(run.sources, run.sets, request_log=bool(run.latency_file))
        if run.latency_file:
            _save_latencies(Path(run.latency_file), r.request_columns or {})
            r.request_columns = None
        row.update({"status": "ok", "error": ""})
        row.update(r.summary)
        row["lat_percentiles"] = json.dumps({d: r.json["jobs"][0][d]["lat_ns"]["percentile"] for d in ("read", "write")})
        row["erase_count_histogram"] = json.dumps(r.json["ssd"]["erase_count"]["histogram"])
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # noqa: BLE001 - a sweep records every failure as a row (a Rust panic too)
        row.update({"status": "failed", "error": f"{type(e).__name__}: {e}"})
        if not isinstance(e, _core.FlashschedError):
            row["error"] += "\n" + traceback.format_exc(limit=3)
    row["wall_s"] = round(time.perf_counter() - t0, 4)
    return row


def _where_am_i() -> str:
    """This process, as a failed run's error names it: host, process and working folder."""
    import socket

    return f"worker {socket.gethostname()} (pid {os.getpid()}, in {os.getcwd()})"


def _missing_files(paths: Sequence[str]) -> list[str]:
    """On a worker: the files it cannot see."""
    return [p for p in paths if not os.path.exists(p)]


class Executor(Protocol):
    """Runs `fn` over `items`, yielding (item, result) as they finish. A result is the row, or an
    exception if the worker running it died (the sweep retries those once)."""

    workers: int

    def map_unordered(self, fn: Callable[[Run], dict[str, Any]], items: Sequence[Run]) -> Iterator[tuple[Run, Any]]: ...

    def close(self) -> None: ...


def _die_with_parent(parent: int) -> None:
    """A pool worker's initializer: end this worker when the process that started it ends, even
    by ``kill -9`` (which gives the pool no chance to stop its workers). Linux's parent-death
    signal does it at once; elsewhere a thread checks for the parent every second."""
    import signal

    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the parent ended before the signal was asked for
        os._exit(1)
    import threading

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True, name="flashsched-parent-watch").start()


def failed_runs(table: Any) -> Any:
    """The rows of a sweep's table whose run failed."""
    return table[table["status"] != "ok"] if "status" in table.columns else table.iloc[0:0]


def failures_are_bad_input(table: Any) -> bool:
    """Did every failed run fail on its input (a configuration or trace error), rather than in the
    simulation or its worker? The CLI's exit status: 2 then, 1 otherwise."""
    errors = failed_runs(table)["error"].astype(str)
    return bool(len(errors)) and bool(errors.str.startswith(("ConfigError", "TraceError")).all())


class LocalExecutor:
    """A process pool on this machine, one worker per core by default. Its workers end with the
    process that started them, however it ends (`_die_with_parent`)."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or os.cpu_count() or 1

    def map_unordered(self, fn: Callable[[Run], dict[str, Any]], items: Sequence[Run]) -> Iterator[tuple[Run, Any]]:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor, as_completed
        from concurrent.futures.process import BrokenProcessPool

        # 'spawn' keeps workers independent of the parent's threads (rich's refresh thread).
        pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=mp.get_context("spawn"),
                                   initializer=_die_with_parent, initargs=(os.getpid(),))
        try:
            futures = {pool.submit(fn, item): item for item in items}
            for fut in as_completed(futures):
                item = futures[fut]
                try:
                    yield item, fut.result()
                except (BrokenProcessPool, Exception) as e:  # noqa: BLE001 - the worker died or the result could not come back
                    yield item, e
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        pass


class DaskExecutor:
    """A Dask cluster: a scheduler address, a dask-jobqueue cluster (SLURM, PBS, ...), or a
    ``distributed.Client`` already made. Needs ``pip install flashsched[dask]``."""

    def __init__(self, address: str | None = None, client: Any = None, cluster: Any = None) -> None:
        try:
            from distributed import Client
        except ImportError as e:
            raise SweepError("Dask is not installed: pip install 'flashsched[dask]'") from e
        self._own = client is None
        self.client = client or Client(cluster if cluster is not None else address)
        info = self.client.scheduler_info()
        self.workers = max(1, sum(w.get("nthreads", 1) for w in info.get("workers", {}).values()))

    @staticmethod
    def from_jobqueue(spec_path: str | os.PathLike[str]) -> "DaskExecutor":
        """A dask-jobqueue cluster from a TOML file: ``kind = "slurm"`` (or pbs, sge, lsf, htcondor, or
        local: jobs as processes on this machine), ``jobs = N``, and the cluster class's keyword
        arguments under ``[cluster]``."""
        spec = tomllib.loads(Path(spec_path).read_text())
        try:
            import dask_jobqueue
        except ImportError as e:
            raise SweepError("dask-jobqueue is not installed: pip install dask-jobqueue") from e
        classes = {"slurm": "SLURMCluster", "pbs": "PBSCluster", "sge": "SGECluster", "lsf": "LSFCluster",
                   "htcondor": "HTCondorCluster", "local": "local.LocalCluster"}
        kind = spec.get("kind", "slurm")
        if kind not in classes:
            raise SweepError(f"{spec_path}: kind must be one of {', '.join(classes)}")
        # `local`: dask-jobqueue's own jobs run as processes on this machine (its test cluster): the
        # same path through the job queue machinery, without a batch system.
        if kind == "local":
            import importlib

            cls = importlib.import_module("dask_jobqueue.local").LocalCluster
        else:
            cls = getattr(dask_jobqueue, classes[kind])
        cluster = cls(**spec.get("cluster", {}))
        cluster.scale(jobs=int(spec.get("jobs", 1)))
        return DaskExecutor(cluster=cluster)

    def check_files(self, paths: Sequence[str]) -> None:
        """Before anything runs: every worker sees every file the runs read, at the same path; a
        SweepError names the workers and the files they cannot see."""
        if not paths:
            return
        missing = {w: m for w, m in self.client.run(_missing_files, sorted(set(paths))).items() if m}
        if missing:
            lines = [f"  {w}: {', '.join(m)}" for w, m in sorted(missing.items())]
            raise SweepError("workers cannot see files the runs read (workers must see the client's files at the same "
                             "paths, as on a cluster's shared file system):\n" + "\n".join(lines))

    def map_unordered(self, fn: Callable[[Run], dict[str, Any]], items: Sequence[Run]) -> Iterator[tuple[Run, Any]]:
        from distributed import as_completed

        self.check_files([f for item in items for f in item.files])
        futures = {self.client.submit(fn, item, pure=False): item for item in items}
        for fut in as_completed(list(futures)):
            item = futures[fut]
            try:
                yield item, fut.result()
            except Exception as e:  # noqa: BLE001 - a lost worker; retried by the sweep
                yield item, e

    def close(self) -> None:
        if self._own:
            self.client.close()


def _checkpoint_path(output: Path) -> Path:
    return output.with_name(output.name + ".partial.jsonl")


def _load_finished(output: Path | None) -> dict[str, dict[str, Any]]:
    if output is None:
        return {}
    rows: dict[str, dict[str, Any]] = {}
    if output.exists():
        import pandas as pd

        for row in pd.read_parquet(output).to_dict("records"):
            rows[str(row["run_id"])] = row
    cp = _checkpoint_path(output)
    if cp.exists():
        for line in cp.read_text().splitlines():
            if line.strip():
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut short by the interruption; that run is simply redone
                rows[str(row["run_id"])] = row
    return rows


def sweep(
    spec: str | os.PathLike[str] | Mapping[str, Any],
    output: str | os.PathLike[str] | None = None,
    *,
    csv: str | os.PathLike[str] | None = None,
    executor: Executor | None = None,
    workers: int | None = None,
    cluster: str | None = None,
    rerun_failed: bool = False,
    progress: bool | Callable[[int, int, int], Any] = True,
) -> "pd.DataFrame":
    """Run a sweep and return its table (one row per run). With ``output`` (a .parquet path) the
    table is written there, finished runs are checkpointed as they complete, and a rerun skips
    the runs already done. ``cluster`` is a Dask scheduler address; ``executor`` any
    :class:`Executor`."""
    import pandas as pd

    s = Spec.load(spec)
    runs = s.expand()
    # Absolute: the latencies' paths go to workers that may run in another folder.
    out = Path(output).absolute() if output is not None else None
    finished = _load_finished(out)
    if s.keep_latencies:
        if out is None:
            raise SweepError("keep_latencies needs an output path: the latencies are kept beside the table")
        import dataclasses

        lat = latency_dir(out)
        runs = [dataclasses.replace(r, latency_file=str(lat / f"{r.run_id}.npy")) for r in runs]
        # A run whose latencies are gone is done again, unless its comparisons were kept: they are
        # what the latencies are kept for.
        compared = _paired_runs(out)
        finished = {k: v for k, v in finished.items() if k in compared or (lat / f"{k}.npy").exists()}
    todo = [r for r in runs if r.run_id not in finished or (rerun_failed and finished[r.run_id].get("status") != "ok")]
    wanted = {r.run_id for r in runs}
    rows = {k: v for k, v in finished.items() if k in wanted}
    own = executor is None
    ex: Executor = executor or (DaskExecutor(cluster) if cluster else LocalExecutor(workers))
    cp = _checkpoint_path(out) if out is not None else None
    bar = _SweepProgress(len(runs), len(runs) - len(todo), progress)
    try:
        pending = todo
        for attempt in range(2):
            crashed: list[Run] = []
            for run, result in ex.map_unordered(run_one, pending):
                if isinstance(result, BaseException):
                    if attempt == 0:
                        crashed.append(run)
                        continue
                    result = {"run_id": run.run_id, **run.params, "status": "failed",
                              "error": f"worker crashed twice: {result!r}", "wall_s": 0.0}
                rows[run.run_id] = result
                if cp is not None:
                    cp.parent.mkdir(parents=True, exist_ok=True)
                    with cp.open("a") as f:
                        f.write(json.dumps(result, default=str) + "\n")
                bar.advance(result.get("status") == "ok")
            if not crashed:
                break
            pending = crashed  # a worker died under these: retry each once
    finally:
        bar.close()
        if own:
            ex.close()
    order = {r.run_id: i for i, r in enumerate(runs)}
    table = pd.DataFrame(sorted(rows.values(), key=lambda r: order.get(str(r["run_id"]), 0)))
    table.attrs["sweep"] = s.name
    if out is not None:
        from .output import atomic_write_bytes

        import io

        buf = io.BytesIO()
        table.to_parquet(buf, index=False)
        atomic_write_bytes(out, buf.getvalue())
        if cp is not None and cp.exists():
            cp.unlink()
    if csv is not None:
        from .output import atomic_write_text

        atomic_write_text(Path(csv), table.to_csv(index=False, lineterminator="\n"))
    return table


class _SweepProgress:
    def __init__(self, total: int, already: int, enabled: bool | Callable[[int, int, int], Any]) -> None:
        self.total, self.done, self.failed = total, already, 0
        self.callback = enabled if callable(enabled) else None
        self.progress: Any = None
        if enabled is True and (sys.stderr.isatty() or os.environ.get("FLASHSCHED_PROGRESS") == "1"):
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

            self.progress = Progress(TextColumn("sweep"), BarColumn(), TextColumn("{task.completed}/{task.total} runs"),
                                     TextColumn("{task.fields[failed]} failed"), TimeElapsedColumn(), TextColumn("ETA"),
                                     TimeRemainingColumn(), console=Console(stderr=True))
            self.progress.start()
            self.task = self.progress.add_task("sweep", total=total, completed=already, failed=0)

    def advance(self, ok: bool) -> None:
        self.done += 1
        self.failed += 0 if ok else 1
        if self.progress is not None:
            self.progress.update(self.task, completed=self.done, failed=self.failed)
        if self.callback is not None:
            self.callback(self.done, self.total, self.failed)

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()


def runs_of(spec: str | os.PathLike[str] | Mapping[str, Any]) -> list[Run]:
    """The runs a spec expands to (for inspection and tests)."""
    return Spec.load(spec).expand()


__all__ = ["DaskExecutor", "Executor", "LocalExecutor", "Run", "Spec", "SweepError", "failed_runs", "failures_are_bad_input",
           "run_one", "runs_of", "sweep"]

