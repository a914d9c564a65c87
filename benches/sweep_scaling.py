"""Sweep scaling benchmark (docs/performance.md): 200 short runs with 1 worker, then one per core.

    .venv/bin/python benches/sweep_scaling.py
"""

from __future__ import annotations

import os
import time

from flashsched import sweep

SPEC = {
    "name": "scaling",
    "config": "tiny",
    "seeds": list(range(1, 51)),
    "grid": {"host.queue_depth": [4, 32], "ftl.gc.threshold": [0.05, 0.1]},
    "workloads": [{"name": "u", "set": {"kind": "synthetic", "synthetic.requests": 20000, "synthetic.interarrival": "400us"}}],
}


def main() -> None:
    cores = os.cpu_count() or 1
    times = {}
    for workers in (1, cores):
        t0 = time.perf_counter()
        table = sweep(SPEC, workers=workers, progress=False)
        times[workers] = time.perf_counter() - t0
        assert len(table) == 200 and (table["status"] == "ok").all()
        print(f"{len(table)} runs, {workers} worker(s): {times[workers]:.2f} s")
    print(f"speed-up with {cores} workers: {times[1] / times[cores]:.2f}x")


if __name__ == "__main__":
    main()
