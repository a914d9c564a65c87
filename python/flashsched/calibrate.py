"""PASS's parameter rules (paper 001, §2.2 Fig. 2, §3.2, §3.3) applied to measured throughput
curves: throughput against queue depth, one curve per working-set size.

- The **peak depth** of a curve is the depth with the highest throughput (§2.2: "reaches its peak at
  a specific Qdep point, after which it drops gradually"). On a curve that only rises and levels off
  it is the deepest depth measured, which says nothing: the **knee depth**, the smallest depth whose
  throughput reaches ``fraction`` of the curve's highest [INFER: the paper's curves peak, so it gives
  no rule for one that saturates], is the batch threshold then (§3.3: "the optimal batch threshold
  ... can be determined empirically as in Section 2").
- The **rise** of a curve is its highest throughput over its throughput at the shallowest depth. The
  paper's 1 and 2 GB curves "remain nearly invariant regardless of the Qdep" and it chooses the
  smallest size whose curve does not (§3.2: "4 GB or multiple of 4 GB rather than 1 or 2 GB"): the
  **region size** is the smallest working set whose rise reaches ``flat`` [INFER: the paper does not
  say how flat is flat].

A curve is a mapping from depth to throughput; points without a value (NaN: a run that measured
nothing) are left out, and a curve with none left has no peak, knee or rise (NaN).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    import pandas as pd


def measured(curve: dict[Any, float]) -> dict[Any, float]:
    """The points of ``curve`` that have a value."""
    return {d: v for d, v in curve.items() if not math.isnan(v)}


def peak_depth(curve: dict[Any, float]) -> float:
    """The depth (key) with the highest throughput; the shallowest of equals."""
    c = measured(curve)
    return min(c, key=lambda d: (-c[d], d)) if c else float("nan")


def knee_depth(curve: dict[Any, float], fraction: float) -> float:
    """The smallest depth whose throughput reaches ``fraction`` of the curve's highest."""
    c = measured(curve)
    if not c:
        return float("nan")
    top = max(c.values())
    return min(d for d, v in c.items() if v >= fraction * top)


def rise(curve: dict[Any, float]) -> float:
    """The curve's highest throughput over its throughput at the shallowest depth measured."""
    c = measured(curve)
    first = c[min(c)] if c else 0.0
    return max(c.values()) / first if first > 0 else float("nan")


def region_size(rises: dict[Any, float], flat: float) -> Any:
    """The smallest working-set size whose curve rises by at least ``flat`` (``None``: none does)."""
    sizes = sorted(s for s, r in rises.items() if r >= flat)
    return sizes[0] if sizes else None


def knee_rows(cmp: dict[str, Any], ok: "pd.DataFrame", kinds: dict[str, str], row: Callable[..., dict[str, Any]]) -> "pd.DataFrame":
    """PASS's parameter rules (`calibrate`) per workload and seed: each ``group`` value's curve of
    ``metric`` against ``x`` gives its peak depth, knee depth (``fraction`` of its highest) and rise;
    the smallest group rising by ``flat`` is the region, its knee depth the batch threshold. Group
    values are shown divided by ``unit`` (default 1); paper values are keyed ``peak``, ``knee``,
    ``rise`` (then by shown group value), ``region`` and ``threshold``. ``row`` makes a comparison row
    (`reproduce._row`: mean and interval of the values given)."""
    import pandas as pd

    x, group, unit = cmp["x"], cmp["group"], cmp.get("unit", 1)
    paper = cmp.get("paper", {})
    depths = set(ok[x])
    rows = []
    for wl, runs in ok.groupby("workload", sort=False):
        t = runs.groupby(["seed", group, x])[cmp["metric"]].mean()
        per = {name: {} for name in ("peak", "knee", "rise")}  # name: (seed, group): value
        for (seed, g), c in t.groupby(level=[0, 1]):
            curve = {k[2]: float(v) for k, v in c.items()}
            per["peak"][seed, g] = peak_depth(curve)
            per["knee"][seed, g] = knee_depth(curve, cmp["fraction"])
            per["rise"][seed, g] = rise(curve)
        for name, label in (("peak", f"peak {x}"), ("knee", f"{x} reaching {cmp['fraction']:.0%} of the peak"),
                            ("rise", "rise (highest over shallowest)")):
            for g in sorted({g for _, g in per[name]}):
                shown = f"{g / unit:g}"
                values = pd.Series([v for (_, gg), v in per[name].items() if gg == g])
                rows.append(row(cmp, {f"{wl} {shown}": kinds.get(str(wl), "?")}, f"{wl} {shown}", label,
                                 paper.get(name, {}).get(shown), values))
        # The region and threshold are choices, not measurements: each seed's, when they agree;
        # otherwise the rule applied to the curves averaged over seeds, and the note says so.
        seeds = sorted({s for s, _ in per["rise"]})
        regions = [region_size({g: r for (s, g), r in per["rise"].items() if s == seed}, cmp["flat"]) for seed in seeds]
        knees = [per["knee"].get((seed, r)) if r is not None else None for seed, r in zip(seeds, regions)]
        notes = []
        short = sorted({f"{g / unit:g}" for (_, g), c in t.dropna().groupby(level=[0, 1])
                        if set(c.index.get_level_values(2)) != depths}, key=float)
        if short:
            notes.append(f"curves of {', '.join(short)} lack some {x} values (runs that failed)")
        if len(set(regions)) > 1:
            mean = t.groupby(level=[1, 2]).mean()
            curves = {g: {k[1]: float(v) for k, v in c.items()} for g, c in mean.groupby(level=0)}
            region = region_size({g: rise(c) for g, c in curves.items()}, cmp["flat"])
            notes.append(f"seeds disagree (regions {', '.join('none' if r is None else f'{r / unit:g}' for r in regions)}): "
                         "the rule applied to the seed-mean curves")
            regions = [region]
            knees = [None if region is None else knee_depth(curves[region], cmp["fraction"])]
        if regions[0] is None:
            notes.append(f"no curve rises by {cmp['flat']}x")
        note = "; ".join(notes) or None
        chosen = pd.Series([None if r is None else r / unit for r in regions], dtype=float)
        rows.append(row(cmp, kinds, str(wl), f"region: smallest {group} rising {cmp['flat']}x", paper.get("region"), chosen, note))
        rows.append(row(cmp, kinds, str(wl), "batch threshold: the region's knee", paper.get("threshold"),
                         pd.Series(knees, dtype=float), note))
    return pd.DataFrame(rows)
