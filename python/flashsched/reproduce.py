"""Paper reproductions described as data: ``python/flashsched/experiments/NAME.toml`` holds a sweep
spec, the figure to draw, and the paper's reported numbers to set beside ours.
``flashsched reproduce NAME`` runs the sweep and writes, into one folder: the results table
(``results.parquet``), the figure (PNG and PDF), ``comparison.csv`` (paper vs. simulator, and
whether each workload is real or synthetic) and a self-contained ``report.html``.
"""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from . import plot, report
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


def _policy_means(cmp: dict[str, Any], ok: "pd.DataFrame") -> "Iterator[tuple[str, pd.Series]]":
    """Per workload, the mean of the compared metric per policy (workloads without the target
    policy are skipped)."""
    for wl, group in ok.groupby("workload", sort=False):
        means = group.groupby(cmp["by"])[cmp["metric"]].mean()
        if cmp["target"] in means:
            yield str(wl), means


def _row(cmp: dict[str, Any], kinds: dict[str, str], wl: str, metric: str, paper: Any, ours: float, **extra: Any) -> dict[str, Any]:
    return {"workload": wl, "workload_kind": kinds.get(wl, "?"), "metric": metric, **extra, "paper": paper,
            "flashsched": round(ours, 1), "difference_pct": None if paper is None else round(ours - paper, 1),
            "paper_source": cmp.get("paper_source", "")}


def _gain_over_best(cmp: dict[str, Any], ok: "pd.DataFrame", kinds: dict[str, str]) -> "pd.DataFrame":
    """Per workload: the target policy's metric over the best other policy's, in percent."""
    import pandas as pd

    target = cmp["target"]
    rows = []
    for wl, means in _policy_means(cmp, ok):
        others = means.drop(target)
        gain = 100 * (means[target] / others.max() - 1) if others.max() else float("nan")
        rows.append(_row(cmp, kinds, wl, f"{cmp['metric']}: {target} vs best other (%)", cmp.get("paper", {}).get(wl),
                         gain, best_other=others.idxmax()))
    return pd.DataFrame(rows)


def _target_over_each(cmp: dict[str, Any], ok: "pd.DataFrame", kinds: dict[str, str]) -> "pd.DataFrame":
    """Per workload and per other policy: the target policy's metric as a percentage of it."""
    import pandas as pd

    target = cmp["target"]
    rows = []
    for wl, means in _policy_means(cmp, ok):
        for other, value in means.drop(target).items():
            pct = 100 * means[target] / value if value else float("nan")
            rows.append(_row(cmp, kinds, wl, f"{cmp['metric']}: {target} as % of {other}", cmp.get("paper", {}).get(str(other)), pct))
    return pd.DataFrame(rows)


def reproduce(name: str, output: str | Path | None = None, *, requests: int | None = None,
              workers: int | None = None, cluster: str | None = None, progress: bool = True) -> Path:
    """Run experiment ``name``; returns the output folder (default ``reproduce-NAME``)."""
    exp = load(name)
    spec = copy.deepcopy(exp["sweep"])
    spec["name"] = name
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
    report.write(table, out / "report.html", title=exp.get("title", name), by=fig_spec.get("by"),
                 group=fig_spec.get("group"), baseline=fig_spec.get("baseline"),
                 paper=cmp.to_dict("records") if len(cmp) else None, notes=exp.get("notes", ""))
    return out
