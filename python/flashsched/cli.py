"""The ``flashsched`` command line.

Results go to stdout or ``-o``; progress and messages to stderr. Exit codes: 0 success, 1 a failed
simulation, 2 bad usage, configuration or input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from . import _core
from .api import Result, simulate, simulate_sources, trace_stats, workload_sets, _sources
from .output import atomic_write_text, commit_request_log, streamed_request_log, summary_csv
from .table import print_summary, print_trace_stats

TYPE_CHECKING = False  # `typing` only for type checkers (CLI start-up; see api.py)
if TYPE_CHECKING:
    from typing import Any, NoReturn, Sequence

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
DEMO_CONFIG = Path(__file__).with_name("workloads") / "demo.toml"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"flashsched: error: {message}\n")


def _parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser. With ``argv`` naming a command, only that command's parser is
    built: building all nine commands' parsers was 8-16 ms of every run's start-up (argparse looks up a
    translation for each help string); its help and errors are the same."""
    p = _Parser(prog="flashsched", description="A fast, deterministic, trace-driven SSD simulator.")
    p.add_argument("--version", action="version", version=f"flashsched {_core.__version__}")
    first = argv[0] if argv else None
    # With one command built, the metavar argparse makes of all of them, for the top level's usage
    # in an error message (only then: a metavar also renames the argument in the errors for a
    # missing or unknown command, which need every command built anyway).
    only = {"metavar": "{" + ",".join(_COMMANDS) + "}"} if first in _COMMANDS else {}
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser, **only)
    for name, add in _COMMANDS.items():
        if first not in _COMMANDS or first == name:
            add(sub)
    return p


def _add_run(sub: Any) -> None:
    run = sub.add_parser("run", help="simulate a workload on a drive")
    src = run.add_mutually_exclusive_group(required=True)
    src.add_argument("--preset", help=f"a built-in drive: {', '.join(_core.preset_names())}")
    src.add_argument("--config", type=Path, help="a TOML config file (may name a preset to start from)")
    run.add_argument("--trace", type=Path, help="trace file to replay (.gz and .zst are read directly)")
    run.add_argument("--format", help="trace format (default: detected): msr, spc, blkparse, disksim, mqsim, fio")
    run.add_argument("--set", dest="sets", action="append", default=[], metavar="PATH=VALUE",
                     help="override one config key, e.g. --set device.geometry.channels=4 (repeatable)")
    run.add_argument("-o", "--output", type=Path, help="write the JSON results here instead of stdout")
    run.add_argument("--output-format", choices=["json", "json+"], default="json",
                     help="json+ adds fio's latency histogram bins (clat_ns.bins etc.), as fio's json+ does")
    run.add_argument("--csv", type=Path, help="also write the one-row CSV summary here")
    run.add_argument("--request-log", type=Path, help="write every request's times and stages (.csv or .parquet)")
    run.add_argument("--intervals", type=Path, help="write interval statistics as JSON Lines (needs stats.interval)")
    run.add_argument("--write-lat-log", metavar="PREFIX",
                     help="write fio-style latency logs PREFIX_lat.1.log, PREFIX_clat.1.log, PREFIX_slat.1.log")
    run.add_argument("--check-invariants", action="store_true", help="walk the whole FTL at the end and check every invariant")
    run.add_argument("-q", "--quiet", action="store_true", help="no progress bar or summary table on stderr")


def _add_trace(sub: Any) -> None:
    trace = sub.add_parser("trace", help="inspect trace files")
    tsub = trace.add_subparsers(dest="trace_command", required=True, parser_class=_Parser)
    ts = tsub.add_parser("stats", help="request count, mix, sizes, footprint, inter-arrival times")
    ts.add_argument("file", type=Path)
    ts.add_argument("--format", default="auto")
    ts.add_argument("--device", type=int, help="only this volume / device / ASU")
    ts.add_argument("--blkparse-action", default="Q", choices=["Q", "D"])
    ts.add_argument("--json", action="store_true", help="print JSON instead of a table")
    tsyn = tsub.add_parser("synth", help="write a synthetic trace from a trace profile (MQSim ASCII)")
    tsyn.add_argument("profile", help="e.g. vios2016/src (see `flashsched trace profiles`)")
    tsyn.add_argument("-o", "--output", type=Path, required=True)
    tsyn.add_argument("--requests", type=int, help="default: the published request count")
    tsyn.add_argument("--seed", type=int, default=42)
    tsub.add_parser("profiles", help="list the trace profiles and what they reproduce")


def _add_sweep(sub: Any) -> None:
    sw = sub.add_parser("sweep", help="run a grid of simulations (local process pool or Dask)")
    sw.add_argument("spec", type=Path, help="sweep spec (TOML); see docs/experiments.md")
    sw.add_argument("-o", "--output", type=Path, default=None, help="results table (.parquet); default SPEC.parquet")
    sw.add_argument("--csv", type=Path, help="also write the table as CSV")
    sw.add_argument("--workers", type=int, help="local worker processes (default: one per core)")
    sw.add_argument("--cluster", help="Dask scheduler address (tcp://host:8786)")
    sw.add_argument("--jobqueue", type=Path, help="dask-jobqueue cluster spec (TOML: kind, jobs, [cluster])")
    sw.add_argument("--rerun-failed", action="store_true", help="run again the runs that failed last time")
    sw.add_argument("-q", "--quiet", action="store_true")


def _add_plot(sub: Any) -> None:
    pl = sub.add_parser("plot", help="draw a figure from a sweep table")
    pl.add_argument("kind", choices=["cdf", "ccdf", "bars", "erase"])
    pl.add_argument("table", type=Path, help="sweep results (.parquet or .csv)")
    pl.add_argument("-o", "--output", type=Path, required=True, help=".png, .pdf or .svg")
    pl.add_argument("--by", required=True, help="column compared (e.g. a policy key)")
    pl.add_argument("--direction", default="read", choices=["read", "write"])
    pl.add_argument("--metric", default="read_lat_mean_ns", help="bars: the summary column")
    pl.add_argument("--group", default="workload", help="bars: the column of the groups")
    pl.add_argument("--baseline", help="bars: the value of --by that is 1.0")


def _add_report(sub: Any) -> None:
    rp = sub.add_parser("report", help="a self-contained HTML report of a sweep table")
    rp.add_argument("table", type=Path)
    rp.add_argument("-o", "--output", type=Path, required=True)
    rp.add_argument("--title", default="flashsched report")
    rp.add_argument("--by")
    rp.add_argument("--group")
    rp.add_argument("--baseline")


def _add_reproduce(sub: Any) -> None:
    rpd = sub.add_parser("reproduce", help="run a paper experiment: figure, table, paper numbers beside ours")
    rpd.add_argument("name", nargs="?", help="experiment name; --list shows them")
    rpd.add_argument("--list", action="store_true")
    rpd.add_argument("-o", "--output", type=Path)
    rpd.add_argument("--requests", type=int, help="requests per workload, per job for closed-loop jobs, over all threads for sysbench (default: the experiment's)")
    rpd.add_argument("--seeds", help="comma-separated seeds replacing the experiment's (e.g. 1,2)")
    rpd.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                     help="fix a config key for every run, replacing the experiment's grid values for it "
                          "(e.g. ftl.allocation.scheme=static, for an ablation); repeatable")
    rpd.add_argument("--workloads", help="comma-separated workload names: run only these (e.g. src,mds)")
    rpd.add_argument("--workers", type=int)
    rpd.add_argument("--cluster")
    rpd.add_argument("-q", "--quiet", action="store_true")


def _add_config(sub: Any) -> None:
    cfg = sub.add_parser("config", help="show configurations and the config schema")
    csub = cfg.add_subparsers(dest="config_command", required=True, parser_class=_Parser)
    show = csub.add_parser("show", help="print the resolved configuration of a preset or file")
    show.add_argument("source", help="preset name or TOML file")
    show.add_argument("--set", dest="sets", action="append", default=[], metavar="PATH=VALUE")
    csub.add_parser("schema", help="print the JSON Schema of config files")
    csub.add_parser("presets", help="list the built-in presets")


def _add_policies(sub: Any) -> None:
    sub.add_parser("policies", help="every policy by layer, with its parameters, defaults and source")


def _add_demo(sub: Any) -> None:
    demo = sub.add_parser("demo", help="simulate the bundled synthetic workload on the vios2016 drive")
    demo.add_argument("-o", "--output-dir", type=Path, default=Path("demo-results"))
    demo.add_argument("-q", "--quiet", action="store_true")


_COMMANDS = {"run": _add_run, "trace": _add_trace, "sweep": _add_sweep, "plot": _add_plot, "report": _add_report,
             "reproduce": _add_reproduce, "config": _add_config, "policies": _add_policies, "demo": _add_demo}


class _ProgressBar:
    """A rich progress bar on stderr that appears only once a run has taken about a second."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and (sys.stderr.isatty() or os.environ.get("FLASHSCHED_PROGRESS") == "1")
        self.start = time.monotonic()
        self.progress: Any = None
        self.task: Any = None

    def __call__(self, fraction: float, sim_ns: int, done: int, events: int) -> None:
        if not self.enabled or time.monotonic() - self.start < 1.0:
            return
        if self.progress is None:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

            self.progress = Progress(TextColumn("simulating"), BarColumn(), TextColumn("{task.percentage:>5.1f}%"),
                                     TextColumn("{task.fields[done]} requests"), TimeElapsedColumn(),
                                     TextColumn("ETA"), TimeRemainingColumn(), console=Console(stderr=True),
                                     transient=True)
            self.progress.start()
            self.task = self.progress.add_task("sim", total=1.0, done=0)
        self.progress.update(self.task, completed=fraction, done=f"{done:,}")

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()


def _run(args: argparse.Namespace) -> int:
    config: Any = args.preset if args.preset else args.config
    if args.config is not None and not args.config.exists():
        raise _core.ConfigError(f"{args.config}: no such config file")
    if args.trace is not None and not args.trace.exists():
        raise _core.TraceError(f"{args.trace}:0: no such file")
    if args.write_lat_log is not None and not args.write_lat_log:
        raise ValueError("--write-lat-log: the prefix is empty")
    bar = _ProgressBar(not args.quiet)
    # The request log streams to a hidden file during the run (memory does not grow with it); it
    # takes its place with the other outputs, and is removed on any error.
    with streamed_request_log(args.request_log) as staged_log:
        try:
            result = simulate_sources(_sources(config), workload_sets(args.trace, args.format) + args.sets,
                                      full_invariant_check=args.check_invariants, progress=bar,
                                      json_plus=args.output_format == "json+", write_lat_log=args.write_lat_log,
                                      request_log_csv=staged_log, intervals_file=args.intervals)
        finally:
            bar.close()
        _write_outputs(result, args.output, args.csv, staged_log, args.request_log)
    if not args.quiet:
        print_summary(result, sys.stderr if args.output is None else sys.stdout)
    return EXIT_OK if result.ssd["invariants"] == "ok" else EXIT_FAILED


def _write_outputs(result: Result, output: Path | None, csv: Path | None,
                   staged_log: Path | None, request_log: Path | None) -> None:
    """All outputs are rendered first, then each is written atomically (temp file + rename); the
    request log, already streamed to ``staged_log``, is moved (or converted) to ``request_log``.
    The interval statistics were streamed to their file by the run itself."""
    text = json.dumps(result.json, indent=2) + "\n"
    if output is None:
        sys.stdout.write(text)
    else:
        atomic_write_text(output, text)
    if csv is not None:
        atomic_write_text(csv, summary_csv(result.summary))
    if staged_log is not None and request_log is not None:
        commit_request_log(staged_log, request_log)


def _demo(args: argparse.Namespace) -> int:
    out: Path = args.output_dir
    if not args.quiet:
        print(f"flashsched demo: {DEMO_CONFIG.name} (synthetic workload, vios2016 drive)", file=sys.stderr)
    bar = _ProgressBar(not args.quiet)
    t0 = time.monotonic()
    try:
        result = simulate(str(DEMO_CONFIG), progress=bar)
    finally:
        bar.close()
    wall = time.monotonic() - t0
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "result.json", json.dumps(result.json, indent=2) + "\n")
    atomic_write_text(out / "summary.csv", summary_csv(result.summary))
    print_summary(result, sys.stdout)
    n = result.json["flashsched"]["requests_completed"]
    print(f"\n{n:,} requests simulated in {wall:.2f} s. Results: {out / 'result.json'}, {out / 'summary.csv'}")
    return EXIT_OK


def _trace(args: argparse.Namespace) -> int:
    from . import profiles

    if args.trace_command == "profiles":
        for name in profiles.names():
            p = profiles.get(name)
            targets = ", ".join(f"{k}={v:.4g}" for k, v in p.targets.items())
            print(f"{name:32} {p.source:32} reads {p.read_fraction:6.1%}  {targets}")
        return EXIT_OK
    if args.trace_command == "synth":
        # Every failure is one line and exit 2; write_trace writes a temporary file and renames
        # it, so nothing is left at the output path (or beside it) on error.
        try:
            prof = profiles.get(args.profile)
            sets = prof.sets(args.requests, args.seed)
        except KeyError as e:
            raise ValueError(f"trace synth: {e.args[0]}") from None
        except ValueError as e:
            raise ValueError(f"trace synth: {e}") from None
        header = [f"flashsched synthetic trace: profile={prof.name} seed={args.seed} (not real data; {prof.source})",
                  "format: MQSim ASCII (time_ns device lsa size_sectors type; 1 = read, 0 = write)"]
        try:
            n = _core.write_trace([("preset", "bench8x8", "preset bench8x8")], sets, str(args.output), header)
        except (_core.ConfigError, _core.TraceError) as e:
            raise ValueError(f"trace synth: {'; '.join(str(e).splitlines())}") from None
        print(f"wrote {n:,} requests to {args.output}", file=sys.stderr)
        return EXIT_OK
    stats = trace_stats(args.file, args.format, args.device, args.blkparse_action)
    if args.json:
        print(json.dumps(stats, indent=2))
    else:
        print_trace_stats(stats, sys.stdout)
    return EXIT_OK


def _config(args: argparse.Namespace) -> int:
    if args.config_command == "schema":
        sys.stdout.write(_core.json_schema())
    elif args.config_command == "presets":
        for name in _core.preset_names():
            text = _core.preset_text(name) or ""
            first = next((l[2:] for l in text.splitlines() if l.startswith("# ")), "")
            print(f"{name:12} {first}")
    else:
        text, _ = _core.resolve_config(_sources(args.source), args.sets)
        sys.stdout.write(text)
    return EXIT_OK


def _policies(args: argparse.Namespace) -> int:
    layer = ""
    defaults = {k: d for k, _, d, _ in _core.config_keys()}
    for lay, key, name, summary, source, params in _core.policies():
        if lay != layer:
            layer = lay
            print(f"\n{layer} ({key} = ...)")
        print(f"  {name:12} {summary}")
        print(f"  {'':12} from: {source}")
        if params:
            print(f"  {'':12} parameters: " + ", ".join(f"{p} ({defaults.get(p, '?').strip(chr(34))})" for p in params))
    return EXIT_OK


def _sweep(args: argparse.Namespace) -> int:
    from .sweeps import DaskExecutor, failed_runs, sweep

    executor = DaskExecutor.from_jobqueue(args.jobqueue) if args.jobqueue else None
    out = args.output or args.spec.with_suffix(".parquet")
    table = sweep(args.spec, out, csv=args.csv, executor=executor, workers=args.workers, cluster=args.cluster,
                  rerun_failed=args.rerun_failed, progress=not args.quiet)
    failed = failed_runs(table)
    print(f"{len(table)} runs, {len(failed)} failed: {out}", file=sys.stderr)
    return _failed_exit(failed, "the table's status and error columns")


def _failed_exit(failed: Any, where: str) -> int:
    """Name each failed run (its error's first line; `where` has them all) and give the exit
    status: 0 with none, 2 when every failure was bad input, 1 otherwise."""
    from .sweeps import failures_are_bad_input

    if not len(failed):
        return EXIT_OK
    shown = 20
    for _, row in failed.head(shown).iterrows():
        first = str(row["error"]).splitlines()[0] if str(row["error"]) else "(no message)"
        print(f"  failed: run {row['run_id']}: {first}", file=sys.stderr)
    if len(failed) > shown:
        print(f"  ... and {len(failed) - shown} more ({where})", file=sys.stderr)
    return EXIT_USAGE if failures_are_bad_input(failed) else EXIT_FAILED


def _baseline(table: Any, column: str, value: str | None) -> Any:
    """A baseline given on the command line, as the column's own value (4 vs "4")."""
    if value is None:
        return None
    for v in table[column].unique():
        if str(v) == value:
            return v
    raise _core.ConfigError(f"--baseline {value}: not a value of column {column} (have {list(table[column].unique())})")


def _plot(args: argparse.Namespace) -> int:
    from . import plot
    from .report import load_table

    table = load_table(args.table)
    if args.by not in table.columns:
        raise _core.ConfigError(f"--by {args.by}: no such column (have {', '.join(table.columns)})")
    if args.kind in ("cdf", "ccdf"):
        fig = plot.latency_cdf(table, args.by, args.direction, tail=args.kind == "ccdf")
    elif args.kind == "erase":
        fig = plot.erase_distribution(table, args.by)
    else:
        base = _baseline(table, args.by, args.baseline)
        if base is None:
            raise _core.ConfigError("bars need --baseline VALUE (a value of --by)")
        fig = plot.normalized_bars(table, args.metric, args.group, args.by, base)
    print(plot.save(fig, args.output), file=sys.stderr)
    return EXIT_OK


def _report(args: argparse.Namespace) -> int:
    from . import report

    table = report.load_table(args.table)
    base = _baseline(table, args.by, args.baseline) if args.by else None
    print(report.write(table, args.output, title=args.title, by=args.by, group=args.group, baseline=base), file=sys.stderr)
    return EXIT_OK


def _toml_value(text: str) -> Any:
    """A `--set` value as TOML reads it (16, 0.5, true, "x"), or the text itself (static, 4KiB)."""
    import tomllib

    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def _reproduce(args: argparse.Namespace) -> int:
    from . import reproduce

    if args.list or not args.name:
        for n in reproduce.names():
            print(f"{n:20} {reproduce.load(n).get('title', '')}")
        return EXIT_OK
    try:
        seeds = [int(x) for x in args.seeds.split(",")] if args.seeds else None
        grid = {}
        for item in args.set:
            key, eq, value = item.partition("=")
            if not eq or not key.strip():
                raise _core.ConfigError(f"--set {item}: expected KEY=VALUE, e.g. ftl.allocation.scheme=static")
            grid[key.strip()] = [_toml_value(value.strip())]
        out = reproduce.reproduce(args.name, args.output, requests=args.requests, workers=args.workers,
                                  cluster=args.cluster, progress=not args.quiet, seeds=seeds, grid=grid or None,
                                  workloads=args.workloads.split(",") if args.workloads else None)
    except KeyError as e:
        raise _core.ConfigError(str(e.args[0])) from None
    import pandas as pd

    cmp = pd.read_csv(out / "comparison.csv")
    if len(cmp) > 60 and "paper" in cmp.columns:
        # Long comparisons (experiments with parts, sweeps across a parameter): print the rows with
        # a paper number and the means over workloads; the file has every row.
        cmp = cmp[cmp["paper"].notna() | reproduce.is_mean(cmp)]
        cmp = cmp.drop(columns=[c for c in ("paper_source", "workload_kind") if c in cmp.columns])
        print(f"(rows with a paper number, and means over workloads; every row is in {out / 'comparison.csv'})")
    if len(cmp):
        print(cmp.to_string(index=False, na_rep=""))
    print(f"\nresults, figure, comparison and report in {out}/", file=sys.stderr)
    return _reproduce_failures(out)


def _reproduce_failures(out: Path) -> int:
    """A reproduction whose runs partly failed still writes its results (over the runs that
    succeeded, as its comparison's notes say), but does not exit 0: 2 when every failure was bad
    input, 1 otherwise; each failed run is named."""
    import pandas as pd

    files = sorted(out.rglob("failed_runs.csv"))
    if not files:
        return EXIT_OK
    failed = pd.concat([pd.read_csv(f).assign(status="failed") for f in files], ignore_index=True)
    print(f"{len(failed)} runs failed (failed_runs.csv in {', '.join(str(f.parent) for f in files)}):", file=sys.stderr)
    return _failed_exit(failed, "failed_runs.csv")


class _Terminated:
    """Whether SIGTERM stopped the command (exit 143, as a shell reports it, not 130)."""

    seen = False


def _on_sigterm(signum: int, frame: Any) -> None:
    # SIGTERM is handled as Ctrl-C is: the run stops at its next check and every partial output
    # (temporary files of the request log, latency logs, intervals) is removed on the way out.
    _Terminated.seen = True
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)
    args = _parser(argv).parse_args(argv)
    commands = {"run": _run, "demo": _demo, "trace": _trace, "config": _config, "sweep": _sweep, "plot": _plot,
                "report": _report, "reproduce": _reproduce, "policies": _policies}
    try:
        return commands[args.command](args)
    except _core.ConfigError as e:
        print(f"flashsched: config error:\n{_indent(str(e))}", file=sys.stderr)
        return EXIT_USAGE
    except ValueError as e:  # a bad sweep spec, plot request or table
        print(f"flashsched: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except _core.TraceError as e:
        print(f"flashsched: trace error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except _core.SimulationError as e:
        print(f"flashsched: simulation failed: {e}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        if _Terminated.seen:
            print("flashsched: terminated", file=sys.stderr)
            return 143
        print("flashsched: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError as e:
        if _stdout_closed():
            # The reader of our output went away (`flashsched policies | head`): not an error of ours.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return EXIT_OK
        # Some other pipe broke (a worker's, multiprocessing's resource tracker's): a failure.
        print(f"flashsched: failed: {e}", file=sys.stderr)
        return EXIT_FAILED
    except (OSError, KeyError) as e:
        print(f"flashsched: {e}", file=sys.stderr)
        return EXIT_USAGE


def _stdout_closed() -> bool:
    """Is standard output a pipe (or socket) whose reader has gone? Only then is a broken pipe
    the reader's doing and a quiet exit; a pipe to a helper process breaking is a failure."""
    try:
        import select

        poll = select.poll()
        poll.register(sys.stdout.fileno(), select.POLLOUT)
        return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poll.poll(0))
    except (OSError, ValueError, AttributeError):
        return False


def _indent(text: str) -> str:
    return "\n".join(f"  {line}" for line in text.splitlines())


if __name__ == "__main__":
    sys.exit(main())
