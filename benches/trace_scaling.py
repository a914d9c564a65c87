"""Trace-length scaling (docs/performance.md): the reference trace replayed 1, 4 and 16 times in a
row through the whole CLI; run time should grow linearly and peak memory stay flat.

    .venv/bin/python benches/trace_scaling.py [--repeats 1 4 16]

The repeated traces are written to a temporary folder (never into the repository): pass k starts
where pass k-1 ended, plus the trace's mean gap, with the same offsets, so each pass rewrites the
same 16 GiB range and the drive never fills (no GC; the GC-heavy run is a benchmark of its own).
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRACE = ROOT.parent / "shared" / "bench" / "synth200k.mqsim.trace.gz"


def repeated(src: list[str], n: int, path: Path) -> None:
    rows = [line.split() for line in src if line.strip()]
    first, last = int(rows[0][0]), int(rows[-1][0])
    period = last - first + (last - first) // max(len(rows) - 1, 1)
    with gzip.open(path, "wt", compresslevel=1) as out:
        for k in range(n):
            shift = k * period
            for r in rows:
                out.write(f"{int(r[0]) + shift} {' '.join(r[1:])}\n")


def run(trace: Path, out: Path) -> tuple[float, float, float, int]:
    """Wall time, simulate_s, peak RSS (MB) and requests of one CLI run."""
    cmd = ["/usr/bin/time", "-v", str(ROOT / ".venv/bin/flashsched"), "run", "--preset", "bench8x8",
           "--trace", str(trace), "-q", "-o", str(out)]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t0
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
    doc = json.loads(out.read_text())
    return wall, doc["run_info"]["simulate_s"], rss_kb / 1024, doc["flashsched"]["requests_completed"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, nargs="+", default=[1, 4, 16])
    args = ap.parse_args()
    if not TRACE.exists():
        sys.exit(f"{TRACE} not found")
    src = gzip.open(TRACE, "rt").read().splitlines()
    with tempfile.TemporaryDirectory() as d:
        print("| repeats | requests | wall time (s) | simulate_s | requests/s (whole process) | peak RSS (MB) |")
        print("|---|---|---|---|---|---|")
        for n in args.repeats:
            t = Path(d) / f"x{n}.trace.gz"
            repeated(src, n, t)
            wall, sim, rss, reqs = run(t, Path(d) / "out.json")
            print(f"| {n} | {reqs:,} | {wall:.2f} | {sim:.2f} | {reqs / wall:,.0f} | {rss:.1f} |", flush=True)


if __name__ == "__main__":
    main()
