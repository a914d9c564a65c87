"""Means with 95% confidence intervals over seeds, as every reproduction reports them."""

from __future__ import annotations

from typing import Any

# Two-sided 95% quantiles of Student's t by degrees of freedom (beyond 30: the normal's 1.96).
_T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
         11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093,
         20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064, 25: 2.060, 26: 2.056, 27: 2.052, 28: 2.048,
         29: 2.045, 30: 2.042}


def mean_ci(values: Any) -> tuple[float, float, int]:
    """Mean, half-width of the 95% confidence interval (Student's t, sample standard deviation) and
    the number of values; the half-width is NaN for fewer than two values."""
    import math

    import pandas as pd

    # Drop NaN and None (a value a run did not measure, as the projected first failure of a run
    # that erased no block).
    xs = [float(v) for v in values if not pd.isna(v)]
    n = len(xs)
    if n == 0:
        return float("nan"), float("nan"), 0
    mean = sum(xs) / n
    if n < 2:
        return mean, float("nan"), n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    return mean, _T975.get(n - 1, 1.96) * sd / math.sqrt(n), n


def windows_as_seeds(runs: "Any", kinds: dict[str, str]) -> tuple["Any", dict[str, str]]:
    """Replicates of a deterministic trace replay: workloads named ``TRACE/K`` are windows of one
    trace (its K-th slice, replayed alone), and K stands in for the seed, so that comparisons pair
    policies within a window and give the mean and interval over windows. Runs of more than one
    seed are refused: a window and a seed cannot both be the replicate. ``kinds`` (workload name:
    kind) is keyed by trace instead."""
    if runs["seed"].nunique() > 1:
        raise ValueError("replicates = \"windows\" needs one seed: trace windows are the replicates")
    names = runs["workload"].astype(str)
    if not names.str.contains("/").all():
        bad = sorted(set(names[~names.str.contains("/")]))
        raise ValueError(f"replicates = \"windows\" needs workloads named TRACE/WINDOW; not: {', '.join(bad)}")
    parts = names.str.rsplit("/", n=1)
    runs = runs.assign(workload=parts.str[0], seed=parts.str[1])
    return runs, {w.rsplit("/", 1)[0]: k for w, k in kinds.items()}
