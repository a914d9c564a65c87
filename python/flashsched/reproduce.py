"""Paper reproductions described as data: ``python/flashsched/experiments/NAME.toml`` holds a sweep
spec, the figure to draw, and the paper's reported numbers to set beside ours.
``flashsched reproduce NAME`` runs the sweep and writes, into one folder: the results table
(``results.parquet``), the figure (PNG and PDF), ``comparison.csv`` (paper vs. simulator, and
whether each workload is real or synthetic; with several seeds, the mean and 95% confidence
interval), ``policy_stats.csv`` (mean and 95% interval of each reported metric per workload and
policy) and a self-contained ``report.html``.
"""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from . import _core, plot, report
from .sweeps import sweep

if TYPE_CHECKING:
    import pandas as pd

EXPERIMENTS = Path(__file__).with_name("experiments")


def names() -> list[str]:
    return sorted(p.stem for p in EXPERIMENTS.glob("*.toml"))


def load(name: str) -> dict[str, Any]:
    path = EXPERIMENTS / f"{name}.toml"
    if not path.exists():
        import difflib

        close = difflib.get_close_matches(name, names(), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise KeyError(f"unknown experiment {name!r}{hint}; known: {', '.join(names())}")
    return tomllib.loads(path.read_text())


def _workload_kinds(spec: dict[str, Any]) -> dict[str, str]:
    kinds = {}
    for w in spec.get("workloads", []):
        kind = ("real trace" if "trace" in w else "synthetic profile" if "profile" in w
                else "closed-loop jobs" if w.get("set", {}).get("kind") == "jobs" else "synthetic")
        kinds[w.get("name", "workload")] = kind
    return kinds


def comparison(exp: dict[str, Any], table: "pd.DataFrame") -> "pd.DataFrame":
    import pandas as pd

    cmp = exp.get("compare")
    if not cmp:
        return pd.DataFrame()
    ok = table[table["status"] == "ok"]
    if cmp.get("kind") == "gain_over_best":
        return _gain_over_best(cmp, ok, _workload_kinds(exp["sweep"]))
    if cmp.get("kind") == "target_over_each":
        return _target_over_each(cmp, ok, _workload_kinds(exp["sweep"]))
    for k, v in cmp.get("where", {}).items():
        ok = ok[ok[k] == v]
    kinds = _workload_kinds(exp["sweep"])
    rows = []
    for wl, paper_value in cmp["paper"].items():
        ours = ok[ok["workload"] == wl][cmp["metric"]]
        value = float(ours.mean()) if len(ours) else float("nan")
        rows.append({"workload": wl, "workload_kind": kinds.get(wl, "?"), "metric": cmp["metric"],
                     "paper": paper_value, "flashsched": round(value, 4),
                     "difference_pct": round(100 * (value - paper_value) / paper_value, 1) if paper_value else None,
                     "paper_source": cmp.get("paper_source", "")})
    return pd.DataFrame(rows)


# Two-sided 95% quantiles of Student's t by degrees of freedom (beyond 30: the normal's 1.96).
_T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
         11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093,
         20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064, 25: 2.060, 26: 2.056, 27: 2.052, 28: 2.048,
         29: 2.045, 30: 2.042}


def mean_ci(values: Any) -> tuple[float, float, int]:
    """Mean, half-width of the 95% confidence interval (Student's t, sample standard deviation) and
    the number of values; the half-width is NaN for fewer than two values."""
    import math

    xs = [float(v) for v in values if v == v]  # drop NaN
    n = len(xs)
    if n == 0:
        return float("nan"), float("nan"), 0
    mean = sum(xs) / n
    if n < 2:
        return mean, float("nan"), n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    return mean, _T975.get(n - 1, 1.96) * sd / math.sqrt(n), n


def _by_seed(cmp: dict[str, Any], ok: "pd.DataFrame") -> "Iterator[tuple[str, pd.DataFrame]]":
    """Per workload, the compared metric as a seed x policy table (workloads without the target
    policy are skipped)."""
    for wl, group in ok.groupby("workload", sort=False):
        table = group.pivot_table(index="seed", columns=cmp["by"], values=cmp["metric"], aggfunc="mean")
        if cmp["target"] in table.columns:
            yield str(wl), table


def _row(cmp: dict[str, Any], kinds: dict[str, str], wl: str, metric: str, paper: Any, values: "pd.Series",
         **extra: Any) -> dict[str, Any]:
    mean, ci, n = mean_ci(values)
    return {"workload": wl, "workload_kind": kinds.get(wl, "?"), "metric": metric, **extra, "paper": paper,
            "flashsched": round(mean, 1), "ci95": None if ci != ci else round(ci, 1), "seeds": n,
            "difference_pct": None if paper is None else round(mean - paper, 1),
            "paper_source": cmp.get("paper_source", "")}


def _gain_over_best(cmp: dict[str, Any], ok: "pd.DataFrame", kinds: dict[str, str]) -> "pd.DataFrame":
    """Per workload: the target policy's metric over the best other policy's (best by the mean over
    seeds), in percent; mean and 95% interval of the per-seed gains (paired by seed)."""
    import pandas as pd

    target = cmp["target"]
    rows = []
    for wl, t in _by_seed(cmp, ok):
        others = t.drop(columns=target)
        best = others.mean().idxmax()
        gains = 100 * (t[target] / t[best] - 1)
        rows.append(_row(cmp, kinds, wl, f"{cmp['metric']}: {target} vs best other (%)", cmp.get("paper", {}).get(wl),
                         gains, best_other=best))
    return pd.DataFrame(rows)


def _target_over_each(cmp: dict[str, Any], ok: "pd.DataFrame", kinds: dict[str, str]) -> "pd.DataFrame":
    """Per workload and per other policy: the target policy's metric as a percentage of it; mean
    and 95% interval of the per-seed ratios (paired by seed)."""
    import pandas as pd

    target = cmp["target"]
    rows = []
    for wl, t in _by_seed(cmp, ok):
        for other in t.columns.drop(target):
            pct = 100 * t[target] / t[other]
            rows.append(_row(cmp, kinds, wl, f"{cmp['metric']}: {target} as % of {other}",
                             cmp.get("paper", {}).get(str(other)), pct))
    return pd.DataFrame(rows)


def policy_stats(exp: dict[str, Any], table: "pd.DataFrame") -> "pd.DataFrame":
    """Per workload, policy and metric (the compared one and ``report_metrics``): mean and 95%
    interval over the seeds."""
    import pandas as pd

    cmp = exp.get("compare") or {}
    by = cmp.get("by") or exp.get("figure", {}).get("by")
    if not by:
        return pd.DataFrame()
    metrics = [m for m in [cmp.get("metric"), *cmp.get("report_metrics", [])] if m and m in table.columns]
    ok = table[table["status"] == "ok"]
    rows = []
    for (wl, policy), group in ok.groupby(["workload", by], sort=False):
        for m in metrics:
            mean, ci, n = mean_ci(group[m])
            rows.append({"workload": wl, by: policy, "metric": m, "mean": mean, "ci95": ci, "seeds": n})
    return pd.DataFrame(rows)


def reproduce(name: str, output: str | Path | None = None, *, requests: int | None = None,
              workers: int | None = None, cluster: str | None = None, progress: bool = True,
              seeds: list[int] | None = None, grid: dict[str, list[Any]] | None = None) -> Path:
    """Run experiment ``name``; returns the output folder (default ``reproduce-NAME``). ``seeds``
    replaces the experiment's seeds and ``grid`` entries replace (or add) grid keys: for quick
    looks and tests."""
    exp = load(name)
    spec = copy.deepcopy(exp["sweep"])
    spec["name"] = name
    if seeds:
        spec["seeds"] = list(seeds)
    if grid:
        # A mistyped key would otherwise fail every run of the sweep; check each against the
        # experiment's drive first, so the user gets the config error itself.
        from .api import _scalar, resolve

        configs = spec.get("config", [])
        for cfg in configs if isinstance(configs, list) else [configs]:
            resolve(cfg, sets=[f"{k}={_scalar(v)}" for k, vs in grid.items() for v in list(vs)])
        spec.setdefault("grid", {}).update({k: list(v) for k, v in grid.items()})
    if requests:
        for w in spec.get("workloads", []):
            if "profile" in w:
                w["requests"] = requests
            elif w.get("set", {}).get("kind") == "jobs":
                w["set"]["jobs.number_ios"] = requests  # per job
            else:
                w.setdefault("set", {})["synthetic.requests"] = requests
    out = Path(output or f"reproduce-{name}")
    out.mkdir(parents=True, exist_ok=True)
    table = sweep(spec, out / "results.parquet", workers=workers, cluster=cluster, progress=progress)
    failed = table[table["status"] != "ok"]
    if len(failed) == len(table):
        first = failed.iloc[0]
        raise _core.SimulationError(f"{name}: all {len(table)} runs failed (table in {out / 'results.parquet'}); "
                                    f"the first, workload {first['workload']}: {first['error']}")
    fig_spec = exp.get("figure", {})
    if fig_spec.get("kind") == "normalized_bars":
        ok = table[table["status"] == "ok"]
        for suffix in ("png", "pdf"):
            fig = plot.normalized_bars(ok, fig_spec["metric"], fig_spec["group"], fig_spec["by"], fig_spec["baseline"],
                                       title=exp.get("title"))
            plot.save(fig, out / f"figure.{suffix}")
        plot.normalized(ok, fig_spec["metric"], fig_spec["group"], fig_spec["by"], fig_spec["baseline"]).to_csv(
            out / "figure.csv")
    cmp = comparison(exp, table)
    from .output import atomic_write_text

    atomic_write_text(out / "comparison.csv", cmp.to_csv(index=False, lineterminator="\n"))
    stats = policy_stats(exp, table)
    if len(stats):
        atomic_write_text(out / "policy_stats.csv", stats.to_csv(index=False, lineterminator="\n"))
    report.write(table, out / "report.html", title=exp.get("title", name), by=fig_spec.get("by"),
                 group=fig_spec.get("group"), baseline=fig_spec.get("baseline"),
                 paper=cmp.to_dict("records") if len(cmp) else None, notes=exp.get("notes", ""))
    return out
