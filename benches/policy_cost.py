"""What each policy adds to the run time of the reference benchmark (issue 4: no policy may add
more than 25% to the same simulation under FIFO; docs/performance.md, "Cost of the policies").

    .venv/bin/python benches/policy_cost.py BENCH [--rounds 6] [--runs 3] [--only NAME ...]
    .venv/bin/python benches/policy_cost.py BENCH --instructions     # valgrind, deterministic

BENCH is a `bench8x8` benchmark binary (`make bench` builds the profile-guided one under
target/pgo-use/release/deps/, `cargo bench -p flashsched --bench bench8x8 --no-run` a plain one;
FLASHSCHED_BENCH_TRACE as for the benchmark).

Wall time: each round runs every configuration once (`--runs` simulations in one process, the
median taken), in an order rotated from round to round, so that the machine's drift over minutes
falls on all of them alike. A policy's cost is its time over its base's time in the same round;
printed are the median over rounds and a 95% bootstrap interval of that median (a fixed seed:
the same timings give the same interval). The base is FIFO, or for a policy that needs a device
feature to act on (VIOS and WR/RR program speeds, Slacker's write pausing program suspension),
FIFO with that feature; both ratios are printed.

`--instructions` counts instructions instead (`valgrind --tool=cachegrind --cache-sim=no`, one
simulation each): deterministic. Counted on a plain build they understate what the papers'
policies cost in time, the profile-guided build taking more off FIFO's path than off theirs; on
the profile-guided build they come within a few points (docs/performance.md, "Cost of the policies").
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys

# name -> (overrides, base name or None). The rows of docs/performance.md's table.
POLICIES: dict[str, tuple[list[str], str | None]] = {
    "fifo": ([], None),
    "noop": (["host.scheduler=noop"], None),
    "deadline": (["host.scheduler=deadline"], None),
    "mq-deadline": (["host.scheduler=mq-deadline"], None),
    "cfq": (["host.scheduler=cfq"], None),
    "as": (["host.scheduler=as"], None),
    "pass": (["host.scheduler=pass"], None),
    "kyber": (["host.scheduler=kyber"], None),
    "irbw-fifo": (["host.scheduler=irbw-fifo"], None),
    "irbw-fifo-rp": (["host.scheduler=irbw-fifo-rp"], None),
    "piq": (["hil.scheduler=piq"], None),
    "paq": (["hil.scheduler=paq"], None),
    "frfcfs": (["tsu.scheduler=frfcfs"], None),
    "o3": (["tsu.scheduler=o3"], None),
    "dynamic": (["ftl.allocation.scheme=dynamic"], None),
    "channel-static": (["ftl.allocation.scheme=channel-static"], None),
    "suspension": (["device.suspend.program=true"], None),
    "slacker": (["tsu.scheduler=slacker", "device.suspend.program=true"], "suspension"),
    "variation": (["device.variation.enabled=true"], None),
    "vios": (["hil.scheduler=vios", "device.variation.enabled=true"], "variation"),
    "piq-sub": (["hil.scheduler=piq", "hil.piq.dispatch=sub_requests"], None),
    "vios-sub": (["hil.scheduler=vios", "hil.vios.dispatch=sub_requests", "device.variation.enabled=true"], "variation"),
    "piq-slots": (["hil.scheduler=piq", "hil.piq.dispatch=slots"], None),
    "vios-slots": (["hil.scheduler=vios", "hil.vios.dispatch=slots", "device.variation.enabled=true"], "variation"),
    "wr+rr": (["ftl.program_speed=wr", "ftl.idle_task=rr", "device.variation.enabled=true"], "variation"),
    "pattern+rbwl": (["ftl.write_grouping=pattern", "ftl.wear_leveling=rbwl"], None),
    # The controller's DRAM (issue 46: both on within 25% of the same run without them).
    "cache": (["cache.mode=write"], None),
    "mapping-cache": (["ftl.mapping_cache.capacity=256KiB"], None),
    "cache+mapping": (["cache.mode=write", "ftl.mapping_cache.capacity=256KiB"], None),
    "mqsim": (["compat=mqsim"], None),
    "mqsim-caches": (["compat=mqsim", "cache.mode=write", "cache.capacity=2MiB", "ftl.mapping_cache.capacity=16KiB"], "mqsim"),
}


def simulate(bench: str, sets: list[str], runs: int) -> float:
    """The median wall time (s) of `runs` simulations in one process."""
    env = dict(os.environ, FLASHSCHED_BENCH_REPEATS=str(runs))
    p = subprocess.run([bench, *sets], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{bench} {' '.join(sets)} failed:\n{p.stderr}")
    line = next((l for l in p.stdout.splitlines() if l.startswith("wall_s_median")), None)
    if line is None:
        sys.exit(f"{bench} printed no wall_s_median (is FLASHSCHED_BENCH_TRACE set?):\n{p.stdout}{p.stderr}")
    return float(line.split()[1])


def instructions(bench: str, sets: list[str]) -> int:
    env = dict(os.environ, FLASHSCHED_BENCH_REPEATS="1")
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", bench, *sets]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr[-2000:]}")
    line = next(l for l in p.stderr.splitlines() if "I   refs:" in l or "I refs:" in l)
    return int(line.split(":")[1].replace(",", "").strip())


def interval(xs: list[float], seed: int = 0, draws: int = 4000) -> tuple[float, float]:
    """A 95% bootstrap interval of the median of `xs`."""
    if len(xs) < 2:
        return (xs[0], xs[0])
    rng = random.Random(seed)
    meds = sorted(statistics.median(rng.choices(xs, k=len(xs))) for _ in range(draws))
    return (meds[int(0.025 * draws)], meds[int(0.975 * draws) - 1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench", help="a bench8x8 benchmark binary")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--runs", type=int, default=3, help="simulations per configuration and round (their median is taken)")
    ap.add_argument("--only", action="append", default=[], help="a policy to measure (repeatable; its base and FIFO come with it)")
    ap.add_argument("--instructions", action="store_true", help="count instructions under valgrind instead of timing")
    a = ap.parse_args()
    if not os.access(a.bench, os.X_OK):
        sys.exit(f"{a.bench}: not an executable benchmark binary")
    if a.rounds < 1 or a.runs < 1:
        sys.exit("--rounds and --runs must be at least 1")
    unknown = [n for n in a.only if n not in POLICIES]
    if unknown:
        sys.exit(f"unknown policy {', '.join(unknown)}; known: {', '.join(POLICIES)}")
    names = list(POLICIES)
    if a.only:
        bases = [POLICIES[n][1] for n in a.only if POLICIES[n][1]]
        names = list(dict.fromkeys(["fifo", *bases, *a.only]))

    if a.instructions:
        counts = {n: instructions(a.bench, POLICIES[n][0]) for n in names}
        print(f"{'policy':16} {'instructions':>14} {'vs FIFO':>8} {'vs base':>8}")
        for n in names:
            base = POLICIES[n][1]
            vs_base = f"{counts[n] / counts[base] - 1:+8.1%}" if base else ""
            print(f"{n:16} {counts[n]:>14,} {counts[n] / counts['fifo'] - 1:+8.1%} {vs_base:>8}")
        return 0

    times: dict[str, list[float]] = {n: [] for n in names}
    for r in range(a.rounds):
        order = names[r % len(names):] + names[: r % len(names)]
        for n in order:
            times[n].append(simulate(a.bench, POLICIES[n][0], a.runs))
        print(f"round {r + 1}/{a.rounds} done", file=sys.stderr)
    print(f"{a.rounds} rounds of {a.runs} runs; time over the base's in the same round: median [95% interval]")
    print(f"{'policy':16} {'median s':>9} {'vs FIFO':>24} {'vs base':>24}")
    for n in names:
        cols = []
        for base in ("fifo", POLICIES[n][1]):
            if base is None or n == "fifo":
                cols.append("")
                continue
            ratios = [t / b - 1 for t, b in zip(times[n], times[base])]
            lo, hi = interval(ratios)
            cols.append(f"{statistics.median(ratios):+7.1%} [{lo:+6.1%}, {hi:+6.1%}]")
        print(f"{n:16} {statistics.median(times[n]):9.4f} {cols[0]:>24} {cols[1]:>24}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
