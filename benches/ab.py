"""Compare two builds of the reference benchmark (docs/performance.md): are their results the same,
and which is faster?

    .venv/bin/python benches/ab.py same  OLD_BENCH NEW_BENCH [--only NAME ...]   # results byte for byte
    .venv/bin/python benches/ab.py speed OLD_BENCH NEW_BENCH [--rounds 12] [key=value ...]

OLD_BENCH and NEW_BENCH are `bench8x8` benchmark binaries (`cargo bench -p flashsched --bench
bench8x8 --no-run` prints the path; copy it before rebuilding). For the old build, a worktree:
`git worktree add /tmp/old <commit>` and `CARGO_TARGET_DIR=/tmp/old/target cargo bench --no-run`
there.

`same` runs both on twenty configurations that exercise every policy slot (the default, VIOS, the
heaviest combination, Slacker with suspension, dynamic allocation, Pattern with RBWL, multi-plane,
PASS, `compat=mqsim`, `compat=ssdsim`, PIQ with held requests, a preconditioned GC run, FCFS with
suspension and GC, FCFS with RR/WR's idle-time re-programs, the data cache with the mapping table,
flashsched's and MQSim's, VIOS with the data cache, SSDSim's buffer under `compat=ssdsim`) and
compares their JSON without the wall-clock fields (the benchmark's `FLASHSCHED_BENCH_JSON`).
Exit status 1 if any differs. `--added ssd.some_field` (repeatable) accepts an output field that
only the new build writes (a change that adds one), printing its values.

`speed` runs the two binaries in turn, `--rounds` times, 3 runs each, and prints for each the
best, the 90th-percentile-fastest and the median simulated requests per second over all its runs.
On a shared virtual machine whose speed drifts within minutes, only such interleaved pairs say
which build is faster; the best and the 90th percentile are steadier than the median.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from configs import CONFIGS  # benches/configs.py, beside this script

# The report's wall-clock fields (`report::WALL_CLOCK_KEYS`) and the per-policy timings.
WALL_CLOCK = {"timestamp", "timestamp_ms", "time", "run_info", "grouping_wall_ns", "wall_ns", "decide_wall_s"}


def strip(doc):
    if isinstance(doc, dict):
        return {k: strip(v) for k, v in doc.items() if k not in WALL_CLOCK}
    if isinstance(doc, list):
        return [strip(v) for v in doc]
    return doc


def differences(a, b, path: str = "", added: frozenset[str] = frozenset()) -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        keys = sorted(set(a) | set(b))
        return [d for k in keys if not (f"{path}.{k}"[1:] in added and k not in a) for d in differences(a.get(k), b.get(k), f"{path}.{k}", added)]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{path}[{i}]", added)]
    return [] if a == b else [f"{path}: {str(a)[:60]} != {str(b)[:60]}"]


def run(binary: str, sets: list[str], repeats: int, json_path: str | None = None) -> str:
    env = dict(os.environ, FLASHSCHED_BENCH_REPEATS=str(repeats))
    if json_path:
        env["FLASHSCHED_BENCH_JSON"] = json_path
    p = subprocess.run([binary, *sets], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{binary} {' '.join(sets)} failed:\n{p.stderr}")
    return p.stdout


def field(doc, path: str):
    for k in path.split("."):
        doc = doc.get(k) if isinstance(doc, dict) else None
    return doc


def same(old: str, new: str, added: frozenset[str] = frozenset(), only: list[str] | None = None) -> int:
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, sets in CONFIGS.items():
            if only and name not in only:
                continue
            docs = []
            for i, binary in enumerate((old, new)):
                path = str(Path(tmp) / f"{name}.{i}.json")
                run(binary, sets, 1, path)
                docs.append(strip(json.loads(Path(path).read_text())))
            diff = differences(*docs, added=added)
            extra = "".join(f", {f} = {field(docs[1], f)}" for f in sorted(added))
            print(f"{name:12} {'same' if not diff else 'DIFFERENT'}{extra}")
            for d in diff[:10]:
                print(f"    {d}")
            bad |= bool(diff)
    return bad


def speed(old: str, new: str, rounds: int, sets: list[str]) -> int:
    rates: dict[str, list[float]] = {old: [], new: []}
    for _ in range(rounds):
        for binary in (old, new):
            out = run(binary, sets, 3)
            requests = next(int(line.split()[1]) for line in out.splitlines() if line.startswith("requests "))
            walls = next(line.split()[1:] for line in out.splitlines() if line.startswith("wall_s_each"))
            rates[binary] += [requests / float(w) for w in walls]
    summary = {}
    for label, binary in (("old", old), ("new", new)):
        r = sorted(rates[binary], reverse=True)
        summary[label] = (r[0], r[len(r) // 10], statistics.median(r))
        print(f"{label}: {len(r)} runs, best {r[0]:,.0f}, 90th percentile {r[len(r) // 10]:,.0f}, median {statistics.median(r):,.0f} requests/s")
    o, n = summary["old"], summary["new"]
    print(f"new / old: best {n[0] / o[0]:.3f}, 90th percentile {n[1] / o[1]:.3f}, median {n[2] / o[2]:.3f}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["same", "speed"])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--added", action="append", default=[], help="same: an output field only the new build writes (dotted path)")
    ap.add_argument("--only", action="append", default=[], choices=sorted(CONFIGS), help="same: run only this configuration (repeatable; a build older than a configuration's keys cannot run it)")
    ap.add_argument("sets", nargs="*", help="key=value overrides (speed only)")
    a = ap.parse_intermixed_args()
    for b in (a.old, a.new):
        if not os.access(b, os.X_OK):
            sys.exit(f"{b}: not an executable benchmark binary")
    if a.what == "same":
        if a.sets:
            sys.exit("same: overrides are not taken (it runs its own twenty configurations)")
        return same(a.old, a.new, frozenset(a.added), a.only or None)
    return speed(a.old, a.new, a.rounds, a.sets)


if __name__ == "__main__":
    sys.exit(main())
