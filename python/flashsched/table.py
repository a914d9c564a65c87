"""Human-readable tables for the terminal (rich; respects NO_COLOR)."""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` only for type checkers (CLI start-up; see api.py)
if TYPE_CHECKING:
    from typing import IO, Any

# rich is imported by the functions that print, not here: the CLI imports this module on every
# run, and a quiet run (`-q`) prints no table (rich's import is about a third of start-up).

from .api import Result


def _us(ns: float) -> str:
    return f"{ns / 1000:,.1f}"


def print_summary(result: Result, file: IO[str]) -> None:
    from rich.console import Console
    from rich.table import Table

    # Off a terminal rich assumes 80 columns and cuts wide latencies to "2,787…": give it room.
    tty = getattr(file, "isatty", lambda: False)()
    console = Console(file=file, highlight=False, width=None if tty else 120)
    job = result.json["jobs"][0]
    t = Table(title=f"{job['jobname']}: latency (us) and throughput", title_justify="left")
    for col in ("dir", "ios", "IOPS", "MiB/s", "mean", "p50", "p99", "p99.9", "max"):
        t.add_column(col, justify="right")
    for d in ("read", "write"):
        s = job[d]
        if s["total_ios"] == 0:
            continue
        lat = s["lat_ns"]
        p = lat["percentile"]
        t.add_row(d, f"{s['total_ios']:,}", f"{s['iops']:,.0f}", f"{s['bw_bytes'] / 2**20:,.1f}", _us(lat["mean"]),
                  _us(p["50.000000"]), _us(p["99.000000"]), _us(p["99.900000"]), _us(lat["max"]))
    console.print(t)
    ssd = result.json["ssd"]
    dev = Table(title="device", title_justify="left", show_header=False)
    dev.add_column("metric")
    dev.add_column("value", justify="right")
    dev.add_row("write amplification", f"{ssd['write_amplification']:.3f}")
    dev.add_row("GC invocations / pages moved", f"{ssd['gc_invocations']:,} / {ssd['gc_pages_moved']:,}")
    dev.add_row("erases during the run", f"{ssd['erases']:,}")
    # Erase counts include preconditioning (a drive aged to 12K P/E shows 12000 before any erase).
    dev.add_row("block erase count (max / mean)", f"{ssd['erase_count']['max']:,} / {ssd['erase_count']['mean']:,}")
    dev.add_row("channel / die utilisation", f"{ssd['channel_utilization']['mean']:.1%} / {ssd['die_utilization']['mean']:.1%}")
    dev.add_row("simulated time", f"{ssd['simulated_time_ns'] / 1e9:,.3f} s")
    if ssd["host_reads_unmapped"]:
        dev.add_row("reads of never-written pages", f"{ssd['host_reads_unmapped']:,}")
    if ssd["invariants"] != "ok":
        dev.add_row("FTL invariants", f"BROKEN: {ssd['invariants']}")
    console.print(dev)


def print_trace_stats(stats: dict[str, Any], file: IO[str]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(file=file, highlight=False)
    t = Table(title=f"{stats['file']} ({stats['format']})", title_justify="left", show_header=False)
    t.add_column("metric")
    t.add_column("value", justify="right")
    sz = stats["size_bytes"]
    ia = stats["interarrival_ns"]
    rows = [
        ("requests", f"{stats['requests']:,}"),
        ("reads / writes / trims / flushes", f"{stats['reads']:,} / {stats['writes']:,} / {stats['trims']:,} / {stats['flushes']:,}"),
        ("read fraction", f"{stats['read_fraction']:.1%}"),
        ("size mean / p50 / p99 / max (KiB)", f"{sz['mean'] / 1024:.1f} / {sz['p50'] / 1024:.1f} / {sz['p99'] / 1024:.1f} / {sz['max'] / 1024:.1f}"),
        ("footprint (4 KiB pages touched)", f"{stats['footprint_bytes'] / 2**20:,.1f} MiB"),
        ("written footprint", f"{stats['written_footprint_bytes'] / 2**20:,.1f} MiB"),
        ("page re-reads (read again before a rewrite)", f"{stats['page_rereads']:,} of {stats['page_reads']:,} page reads ({stats['reread_fraction']:.1%})"),
        ("address range", f"{stats['address_min']:,} .. {stats['address_max']:,} ({stats['address_max'] / 2**30:.1f} GiB)"),
        ("duration", f"{stats['duration_ns'] / 1e9:,.3f} s"),
        ("inter-arrival mean / p50 / p99 (us)", f"{ia['mean'] / 1000:,.1f} / {ia['p50'] / 1000:,.1f} / {ia['p99'] / 1000:,.1f}"),
        ("inter-arrival CV", f"{ia['cv']:.2f}"),
        ("request rate", f"{stats['request_rate_per_s']:,.1f} /s"),
        ("devices", ", ".join(str(d) for d in stats["devices"])),
    ]
    if stats["out_of_order"]:
        rows.append(("timestamps going backwards (replayed in order)", f"{stats['out_of_order']:,}"))
    for k, v in rows:
        t.add_row(k, v)
    console.print(t)
