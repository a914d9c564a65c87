"""Request-by-request comparisons (Slacker Figs. 8-10 (c)): the shares of requests a policy made
faster, left unchanged and made slower than a baseline on the same workload and seed, computed
from the runs' kept latencies and kept themselves (``results.paired.csv``) so that the latencies
may go.

"Unchanged" has no definition in the paper: every pair is compared at each of ``TOLERANCES``, a
relative band around the baseline's latency (0: equal to the nanosecond)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

SHARES = ("improved", "unchanged", "worse")
# Relative tolerances every pair is compared at (a request within tolerance x its baseline latency
# of it is unchanged).
TOLERANCES = (0.0, 0.01, 0.05)
_COLUMNS = ["base_run", "target_run", "tolerance", *SHARES]


def paired_shares(base: Any, other: Any, tolerance: float = 0.0) -> dict[str, float]:
    """Percentages of requests whose latency under ``other`` is lower than, within ``tolerance``
    (relative to the base latency; 0: equal to the nanosecond) of, and higher than under ``base``:
    arrays of the same requests in the same order."""
    import numpy as np

    if len(base) != len(other):
        raise ValueError(f"the runs measured different requests ({len(base)} and {len(other)}): "
                         "a paired comparison needs the same workload and seed")
    if not len(base):  # no request measured: no shares (not 100% unchanged)
        return {s: float("nan") for s in SHARES}
    n = len(base)
    band = np.asarray(base, dtype=np.float64) * tolerance
    diff = np.asarray(other, dtype=np.float64) - np.asarray(base, dtype=np.float64)
    improved = 100.0 * float(np.count_nonzero(diff < -band)) / n
    worse = 100.0 * float(np.count_nonzero(diff > band)) / n
    return {"improved": improved, "unchanged": 100.0 - improved - worse, "worse": worse}


def _load(path: Path) -> dict[tuple[str, str, float], dict[str, float]]:
    import pandas as pd

    cache: dict[tuple[str, str, float], dict[str, float]] = {}
    if path.exists():
        for r in pd.read_csv(path, dtype={"base_run": str, "target_run": str}).to_dict("records"):
            # (A cache written before tolerances were kept holds exact comparisons.)
            tol = float(r.get("tolerance", 0.0)) if r.get("tolerance") == r.get("tolerance") else 0.0
            cache[(r["base_run"], r["target_run"], tol)] = {s: float(r[s]) for s in SHARES}
    return cache


def compared_runs(path: Path) -> set[str]:
    """Run ids whose comparisons are kept at every tolerance (a run whose latencies are gone needs
    no rerun for them)."""
    cache = _load(path)
    pairs = {(b, t) for b, t, _ in cache}
    done = {p for p in pairs if all((*p, tol) in cache for tol in TOLERANCES)}
    return {r for p in done for r in p}


def collect(cmp: dict[str, Any], ok: "Any", latencies: Path, cache_path: Path, swept: list[str]) -> "Any":
    """Per workload, seed, value of each ``swept`` column (a grid key: pairs are made within one
    grid point), target, share and tolerance (``cmp["tolerances"]``, default exact) the
    percentage of requests; pairs not yet kept in ``cache_path`` are computed from the runs'
    latencies (``latencies/RUN_ID.npy``) and kept."""
    import numpy as np
    import pandas as pd

    from .output import atomic_write_text

    tolerances = [float(t) for t in cmp.get("tolerances", [0.0])]
    unknown = [t for t in tolerances if t not in TOLERANCES]
    if unknown:
        raise ValueError(f"paired comparison: tolerances {unknown} not among those kept, {list(TOLERANCES)}")
    cache = _load(cache_path)
    by, base = cmp["by"], cmp["baseline"]
    found: list[dict[str, Any]] = []
    for key, g in ok.groupby(["workload", "seed", *swept], sort=False, dropna=False):
        ids = dict(zip(g[by].astype(str), g["run_id"].astype(str)))
        if str(base) not in ids:
            continue
        for t in cmp["targets"]:
            if str(t) not in ids:
                continue
            pair = (ids[str(base)], ids[str(t)])
            if any((*pair, tol) not in cache for tol in TOLERANCES):
                # Computed once from the runs' latencies, at every tolerance, then kept: the
                # latencies may go.
                b, o = np.load(latencies / f"{pair[0]}.npy"), np.load(latencies / f"{pair[1]}.npy")
                for tol in TOLERANCES:
                    cache[(*pair, tol)] = paired_shares(b, o, tol)
            grid = dict(zip(swept, key[2:]))
            found += [{"workload": key[0], "seed": key[1], **grid, "target": t, "tolerance": tol, "share": s, "pct": v}
                      for tol in tolerances for s, v in cache[(*pair, tol)].items()]
    rows = [{"base_run": k[0], "target_run": k[1], "tolerance": k[2], **v} for k, v in sorted(cache.items())]
    atomic_write_text(cache_path, pd.DataFrame(rows, columns=_COLUMNS).to_csv(index=False, lineterminator="\n"))
    return pd.DataFrame(found)
