"""Paper reproductions described as data: ``python/flashsched/experiments/NAME.toml`` holds a sweep
spec, the figure to draw, and the paper's reported numbers to set beside ours.
``flashsched reproduce NAME`` runs the sweep and writes, into one folder: the results table
(``results.parquet``), the figure (PNG and PDF), ``comparison.csv`` (paper vs. simulator, and
whether each workload is real or synthetic; with several seeds, the mean and 95% confidence
interval; a number the runs did not measure, as the GC time of a run too short to collect, is
left empty (``n/a`` in the report) and its ``note`` says why), ``policy_stats.csv`` (mean and 95%
interval of each reported metric per workload and policy) and a self-contained ``report.html``.
"""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from . import _core, calibrate, paired, plot, report
from .intervals import mean_ci, windows_as_seeds
from .paired import paired_shares  # noqa: F401  (part of this module's interface)
from .sweeps import Spec, sweep

if TYPE_CHECKING:
    import pandas as pd

EXPERIMENTS = Path(__file__).with_name("experiments")
ROOT = EXPERIMENTS.parents[2]  # the repository (python/flashsched/experiments)


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
                else "closed-loop jobs" if w.get("set", {}).get("kind") == "jobs"
                else "sysbench fileio" if w.get("set", {}).get("kind") == "sysbench" else "synthetic")
        kinds[w.get("name", "workload")] = kind
    return kinds


def _as_list(spec: Any) -> list[dict[str, Any]]:
    """``[compare]`` / ``[figure]`` may be one table or an array of tables."""
    return [] if not spec else list(spec) if isinstance(spec, list) else [spec]


def _numeric(frame: "pd.DataFrame", columns: Any) -> "pd.DataFrame":
    """``frame`` with each of ``columns`` it has as numbers. A value a run did not measure (the
    projected first failure of a run that erased no block) is None, which leaves a column of
    Python objects when no run measured it; text in a metric column is an error, and raises."""
    import pandas as pd

    cols = [c for c in dict.fromkeys(columns) if c and c in frame.columns and frame[c].dtype == object]
    if not cols:
        return frame
    frame = frame.copy()
    for c in cols:
        frame[c] = pd.to_numeric(frame[c])
    return frame


def comparison(exp: dict[str, Any], table: "pd.DataFrame", results: Path | None = None) -> "pd.DataFrame":
    """Paper vs. simulator, one row per compared number, for every ``[[compare]]`` block.
    ``results`` is the sweep's table path, beside which ``paired`` comparisons find the runs'
    per-request latencies and keep what they computed. A row without a value (a metric no run
    measured, a percentage of 0) or on fewer seeds than ran says why in its ``note``."""
    import pandas as pd

    cmps = _as_list(exp.get("compare"))
    table = _numeric(table, [c.get("metric") for c in cmps])
    frames = [f for f in (_comparison(exp, cmp, table, results) for cmp in cmps) if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _comparison(exp: dict[str, Any], cmp: dict[str, Any], table: "pd.DataFrame",
                results: Path | None = None) -> "pd.DataFrame":
    import pandas as pd

    ok = table[table["status"] == "ok"]
    if cmp.get("kind") == "ratio":
        return _ratio(cmp, ok, _workload_kinds(exp["sweep"]))
    if cmp.get("kind") == "paired":
        if results is None:
            raise ValueError("a paired comparison needs the sweep's per-request latencies (keep_latencies = true)")
        return _paired(cmp, ok, _workload_kinds(exp["sweep"]), results)
    if cmp.get("kind") == "gain_over_best":
        return _gain_over_best(cmp, ok, _workload_kinds(exp["sweep"]))
    if cmp.get("kind") == "target_over_each":
        return _target_over_each(cmp, ok, _workload_kinds(exp["sweep"]))
    if cmp.get("kind") == "knee":
        return _knee(cmp, ok, _workload_kinds(exp["sweep"]))
    for k, v in cmp.get("where", {}).items():
        ok = ok[ok[k] == v]
    kinds = _workload_kinds(exp["sweep"])
    rows = []
    # Paper numbers are keyed by workload, or by the values of another column (`by`, e.g. variant).
    col = cmp.get("by", "workload")
    for wl, paper_value in cmp["paper"].items():
        runs = ok[ok[col].astype(str) == str(wl)]
        ours = runs[cmp["metric"]]
        value = float(ours.mean()) if ours.notna().any() else float("nan")
        # Keyed by another column: the kind of the workloads those runs replayed.
        kind = kinds.get(wl, "?") if col == "workload" else ", ".join(sorted({kinds.get(w, "?") for w in runs["workload"]})) or "?"
        rows.append({"workload": wl, "workload_kind": kind, "metric": cmp["metric"],
                     "paper": paper_value, "flashsched": round(value, 4),
                     "difference_pct": round(100 * (value - paper_value) / paper_value, 1) if paper_value else None,
                     "note": _plain_note(runs, cmp["metric"], col, wl),
                     "paper_source": cmp.get("paper_source", "")})
    return pd.DataFrame(rows)


def _by_seed(cmp: dict[str, Any], ok: "pd.DataFrame") -> "Iterator[tuple[str, pd.DataFrame]]":
    """Per workload, the compared metric as a seed x policy table (workloads without the target
    policy are skipped)."""
    for wl, group in ok.groupby("workload", sort=False):
        table = _per_seed(group, ["seed"], cmp["by"], cmp["metric"])
        if cmp["target"] in table.columns:
            yield str(wl), table


def _per_seed(ok: "pd.DataFrame", index: list[str], by: str, metric: str) -> "pd.DataFrame":
    """``metric`` averaged per ``index`` (rows) and value of ``by`` (columns). Unlike a pivot table,
    it keeps the rows and columns without a value (a policy that measured nothing in a short run):
    the comparison says so instead of leaving them out unsaid."""
    return ok.groupby([*index, by])[metric].mean().unstack(by)


def _pct(num: "pd.Series", den: "pd.Series") -> "pd.Series":
    """``num`` as a percentage of ``den``, per seed; no value where either has none or ``den`` is 0
    (x / 0 is no percentage, 0 / 0 no number)."""
    return 100 * num / den.where(den != 0)


# A metric a run measured nothing for, and the count that says so: such a run has no value of the
# metric, or 0 to divide by.
_CAUSES = (("read_", "read_ios", "no reads"), ("write_", "write_ios", "no writes"),
           ("gc_", "gc_invocations", "no garbage collection"), ("run_erase", "run_erases", "no block erased"),
           ("first_failure", "run_erases", "no block erased"), ("erases", "erases", "no block erased"))


def _cause(runs: "pd.DataFrame", metric: str) -> str:
    """What ``runs`` had nothing of, for ``metric`` (``no writes``...), or empty when unknown."""
    for prefix, count, what in _CAUSES:
        if metric.startswith(prefix) and count in runs.columns and len(runs) and (runs[count].fillna(0) == 0).all():
            return f" ({what})"
    return ""


def _lacks(ok: "pd.DataFrame", metric: str, by: str, policy: Any, keys: dict[str, list[Any]], divisor: bool) -> str:
    """Why the runs of ``policy`` that ``keys`` (column: values) select give no number to compare:
    no run, no value of ``metric``, or (a ``divisor``) 0; empty when they give one."""
    runs = ok[ok[by].astype(str) == str(policy)]
    for k, v in keys.items():
        runs = runs[runs[k].isin(v)]
    if not len(runs):
        return f"no run of {policy}"
    vals = runs[metric]
    if vals.isna().all():
        return f"{policy} has no {metric}{_cause(runs, metric)}"
    if divisor and (vals.fillna(0) == 0).all():
        return f"{metric} is 0 under {policy}{_cause(runs, metric)}"
    return ""


def _note(values: "pd.Series", why: str = "") -> str:
    """Why a row has no value (no seed gave one: ``why``), or stands on fewer seeds than ran; empty
    when every seed gave a value."""
    total, n = len(values), int(values.notna().sum())
    if n == total and total:
        return ""
    why = why or "not measured"
    return f"no value: {why}" if n == 0 else f"{total - n} of {total} seeds without a value: {why}"


def _pair_why(ok: "pd.DataFrame", metric: str, by: str, target: Any, other: Any, pct: "pd.DataFrame",
              keys: dict[str, list[Any]]) -> str:
    """Why the per-seed percentages ``pct`` (columns seed, pct) of ``target`` over ``other`` on the
    runs ``keys`` selects lack a value in some seed; empty when none does."""
    if pct["pct"].notna().all() and len(pct):
        return ""
    missing = {**keys, "seed": list(pct.loc[pct["pct"].isna(), "seed"])}
    t, o = _lacks(ok, metric, by, target, missing, False), _lacks(ok, metric, by, other, missing, True)
    if t and o and t.replace(str(target), str(other), 1) == o:  # the same for both: said once
        return o.replace(f"{other} has no", f"neither {target} nor {other} has", 1)
    return "; ".join(dict.fromkeys(r for r in (t, o) if r)) or "not measured"


def _plain_note(runs: "pd.DataFrame", metric: str, col: str, key: Any) -> str:
    """Why a plain comparison's value is missing, or stands on fewer runs than ran."""
    if not len(runs):
        return f"no value: no run with {col} = {key}"
    n = int(runs[metric].notna().sum())
    if n == len(runs):
        return ""
    why = f"{metric} not measured{_cause(runs[runs[metric].isna()], metric)}"
    return f"no value: {why}" if n == 0 else f"{len(runs) - n} of {len(runs)} runs without a value: {why}"


def _row(cmp: dict[str, Any], kinds: dict[str, str], wl: str, metric: str, paper: Any, values: "pd.Series",
         note: str | None = None, **extra: Any) -> dict[str, Any]:
    mean, ci, n = mean_ci(values)
    return {"workload": wl, "workload_kind": kinds.get(wl, "?"), "metric": metric, **extra, "paper": paper,
            "flashsched": round(mean, 1), "ci95": None if ci != ci else round(ci, 1), "seeds": n,
            "difference_pct": None if paper is None else round(mean - paper, 1),
            "note": _note(values) if note is None else note, "paper_source": cmp.get("paper_source", "")}


def _gain_over_best(cmp: dict[str, Any], ok: "pd.DataFrame", kinds: dict[str, str]) -> "pd.DataFrame":
    """Per workload: the target policy's metric over the best other policy's (best by the mean over
    seeds), in percent; mean and 95% interval of the per-seed gains (paired by seed). ``where``
    filters the runs first, and the rows carry it."""
    import pandas as pd

    for k, v in cmp.get("where", {}).items():
        ok = ok[ok[k] == v]
    extra = {"where": _where_text(cmp)} if cmp.get("where") else {}
    target = cmp["target"]
    rows = []
    for wl, t in _by_seed(cmp, ok):
        means = t.drop(columns=target).mean()
        if means.notna().any():
            best = means.idxmax()
            gains = 100 * (t[target] / t[best].where(t[best] != 0) - 1)
            note = _note(gains, _pair_why(ok, cmp["metric"], cmp["by"], target, best, gains.rename("pct").reset_index(),
                                          {"workload": [wl]}))
        else:  # no other policy measured the metric: there is no best
            best, gains = None, t[target] * float("nan")
            note = f"no value: no policy but {target} has {cmp['metric']}"
        rows.append(_row(cmp, kinds, wl, f"{cmp['metric']}: {target} vs best other (%)", cmp.get("paper", {}).get(wl),
                         gains, note, best_other=best, **extra))
    return pd.DataFrame(rows)


def _target_over_each(cmp: dict[str, Any], ok: "pd.DataFrame", kinds: dict[str, str]) -> "pd.DataFrame":
    """Per workload and per other policy: the target policy's metric as a percentage of it; mean
    and 95% interval of the per-seed ratios (paired by seed)."""
    import pandas as pd

    target = cmp["target"]
    rows = []
    for wl, t in _by_seed(cmp, ok):
        for other in t.columns.drop(target):
            pct = _pct(t[target], t[other])
            note = _note(pct, _pair_why(ok, cmp["metric"], cmp["by"], target, other, pct.rename("pct").reset_index(),
                                        {"workload": [wl]}))
            rows.append(_row(cmp, kinds, wl, f"{cmp['metric']}: {target} as % of {other}",
                             cmp.get("paper", {}).get(str(other)), pct, note))
    return pd.DataFrame(rows)


def _knee(cmp: dict[str, Any], ok: "pd.DataFrame", kinds: dict[str, str]) -> "pd.DataFrame":
    """PASS's parameter rules on the runs (`calibrate.knee_rows`), as comparison rows."""
    return calibrate.knee_rows(cmp, ok, kinds, _row)


def _ratio(cmp: dict[str, Any], ok: "pd.DataFrame", kinds: dict[str, str]) -> "pd.DataFrame":
    """Each of ``targets`` as a percentage of each of ``against`` (values of column ``by``), per
    workload and, with ``across``, per value of that column too; the ratio is taken per seed
    (paired) and given as the mean and 95% interval over seeds (over windows of a trace with
    ``replicates = "windows"``, :func:`windows_as_seeds`). A ``mean`` row per (target,
    against, across) averages the per-workload ratios within each seed first, then over seeds: the
    papers' "on average". ``where`` filters the runs; ``paper_values`` entries (``value`` plus any of
    ``target``, ``against``, ``across``, ``workload``, default ``mean``) are matched to rows.
    ``workloads`` keeps only the runs of those workloads (a group of a part's traces), and
    ``mean_name`` names the mean row (default ``mean``), so that one part can average several
    groups apart."""
    import pandas as pd

    for k, v in cmp.get("where", {}).items():
        ok = ok[ok[k] == v]
    if cmp.get("workloads"):
        ok = ok[ok["workload"].astype(str).isin([str(w) for w in cmp["workloads"]])]
    if cmp.get("replicates") == "windows":
        ok, kinds = windows_as_seeds(ok, kinds)
    by, metric, across = cmp["by"], cmp["metric"], cmp.get("across")
    mean_name = cmp.get("mean_name", "mean")
    index = ["seed", "workload"] + ([across] if across else [])
    t = _per_seed(ok, index, by, metric)
    rows = []
    for target in cmp["targets"]:
        for other in cmp["against"]:
            if target == other or target not in t.columns or other not in t.columns:
                continue
            pct = _pct(t[target], t[other]).rename("pct").reset_index()
            lacking: dict[Any, dict[str, str]] = {}  # across value: workload: why it has no value
            for key, g in pct.groupby(([across] if across else []) + ["workload"], sort=False):
                a, wl = key if across else (None, key[0] if isinstance(key, tuple) else key)
                why = _pair_why(ok, metric, by, target, other, g, {"workload": [wl], **({across: [a]} if across else {})})
                if why:
                    lacking.setdefault(a, {})[str(wl)] = why
                rows.append(_ratio_row(cmp, kinds.get(str(wl), "?"), str(wl), target, other, a, g["pct"], _note(g["pct"], why)))
            # Mean over workloads within each seed, then over seeds: over the workloads with a
            # value, and the row says which have none and why.
            means = pct.groupby(([across] if across else []) + ["seed"], sort=False)["pct"].mean().reset_index()
            for a, g in means.groupby(across, sort=False) if across else [(None, means)]:
                gone = lacking.get(a, {})
                why = "; ".join(dict.fromkeys(gone.values()))
                if g["pct"].isna().all():
                    note = f"no value in any workload: {why or 'not measured'}"
                elif gone:
                    note = f"mean of the workloads with a value; none for {', '.join(gone)}: {why}"
                else:
                    note = ""
                rows.append(_ratio_row(cmp, "listed workloads" if cmp.get("workloads") else "all workloads", mean_name,
                                       target, other, a, g["pct"], note))
    return pd.DataFrame(rows)


def _paired(cmp: dict[str, Any], ok: "pd.DataFrame", kinds: dict[str, str], results: Path) -> "pd.DataFrame":
    """Request by request (Slacker Figs. 8-10 (c), :mod:`flashsched.paired`): per workload, target
    policy and tolerance (``tolerances``, default exact), the shares of requests it made faster,
    left unchanged and made slower than the ``baseline`` policy (values of column ``by``) on the
    same workload and seed; mean and 95% interval over seeds, and a ``mean`` row over workloads.
    ``paper_values`` entries (``value``, ``share``, and optionally ``target``, ``workload``,
    default ``mean``, and ``tolerance``, default every one) are matched to rows."""
    import pandas as pd

    swept = [c for c in report.swept(ok) if c not in ("seed", "workload", cmp["by"])]
    from .sweeps import latency_dir, paired_cache

    per = paired.collect(cmp, ok, latency_dir(results), paired_cache(results), swept)
    if len(per) and cmp.get("replicates") == "windows":
        per, kinds = windows_as_seeds(per, kinds)
    rows = []
    # One set of rows per grid point: shares of different grid points are never averaged.
    for key, g in per.groupby(["target", "tolerance", "share", *swept], sort=False, dropna=False) if len(per) else []:
        (t, tol, s), grid = key[:3], dict(zip(swept, key[3:]))
        for wl, w in g.groupby("workload", sort=False):
            rows.append(_paired_row(cmp, kinds.get(str(wl), "?"), str(wl), t, s, tol, w["pct"], grid))
        rows.append(_paired_row(cmp, "all workloads", "mean", t, s, tol, g.groupby("seed")["pct"].mean(), grid))
    return pd.DataFrame(rows)


def _paired_row(cmp: dict[str, Any], kind: str, wl: str, target: Any, share: str, tol: float,
                values: "pd.Series", grid: dict[str, Any]) -> dict[str, Any]:
    paper = None
    for p in cmp.get("paper_values", []):
        if (p.get("workload", "mean") == wl and p.get("share") == share
                and str(p.get("target", target)) == str(target) and float(p.get("tolerance", tol)) == tol):
            paper = p["value"]
    within = f", unchanged within {tol:.0%}" if tol else ""
    return _row(cmp, {wl: kind}, wl, f"requests {share} by {target} vs {cmp['baseline']} (%){within}", paper, values,
                target=target, share=share, tolerance=tol, **grid)


def _ratio_row(cmp: dict[str, Any], kind: str, wl: str, target: Any, other: Any, across_value: Any,
               values: "pd.Series", note: str) -> dict[str, Any]:
    paper = None
    for p in cmp.get("paper_values", []):
        if (p.get("workload", cmp.get("mean_name", "mean")) == wl and str(p.get("target", target)) == str(target)
                and str(p.get("against", other)) == str(other)
                and (across_value is None or str(p.get("across", across_value)) == str(across_value))):
            paper = p["value"]
    across = {cmp["across"]: across_value} if cmp.get("across") else {}
    # The comparison's filter goes into its rows: two comparisons of one metric under different
    # `where` (say two idle thresholds) stay apart in comparison.csv and in ratio_lines figures.
    return _row(cmp, {wl: kind}, wl, f"{cmp['metric']}: {target} as % of {other}", paper, values, note, **across,
                **cmp.get("where", {}), where=_where_text(cmp))


def policy_stats(exp: dict[str, Any], table: "pd.DataFrame") -> "pd.DataFrame":
    """Per workload, policy and metric (the compared one and ``report_metrics``): mean and 95%
    interval over the seeds."""
    import pandas as pd

    cmps = _as_list(exp.get("compare"))
    by = next((c["by"] for c in cmps if c.get("by")), None) or next(
        (f["by"] for f in _as_list(exp.get("figure")) if f.get("by")), None)
    if not by:
        return pd.DataFrame()
    wanted = [m for c in cmps for m in [c.get("metric"), *c.get("report_metrics", [])]]
    metrics = [m for m in dict.fromkeys(wanted) if m and m in table.columns]
    # A metric the runs' table has no column for is said, not dropped (a typo, or a field of the
    # output that is not a summary column).
    unknown = [{"metric": m, "seeds": 0, "note": "not a column of the results table (results.parquet)"}
               for m in dict.fromkeys(wanted) if m and m not in table.columns]
    table = _numeric(table, metrics)
    ok = table[table["status"] == "ok"]
    rows = []
    # Every swept parameter (a variant, a grid key), so that runs of different policies are never
    # averaged together.
    swept = [c for c in report.swept(table) if c not in ("seed", "workload")]
    keys = list(dict.fromkeys(["workload", by, *swept]))
    for values, group in ok.groupby(keys, sort=False, dropna=False):
        for m in metrics:
            mean, ci, n = mean_ci(group[m])
            rows.append({**dict(zip(keys, values)), "metric": m, "mean": mean, "ci95": ci, "seeds": n})
    return pd.DataFrame(rows + unknown)


def reproduce(name: str, output: str | Path | None = None, *, requests: int | None = None,
              workers: int | None = None, cluster: str | None = None, progress: bool = True,
              seeds: list[int] | None = None, grid: dict[str, list[Any]] | None = None,
              workloads: list[str] | None = None) -> Path:
    """Run experiment ``name``; returns the output folder (default ``reproduce-NAME``). ``seeds``
    replaces the experiment's seeds, ``grid`` entries replace (or add) grid keys and ``workloads``
    keeps only the named workloads: for quick looks and tests. An experiment with ``parts`` (a list
    of other experiments' names) runs each into a sub-folder of the same name and gathers their
    comparisons into one table and report; with ``workloads``, parts that have none of them are
    left out."""
    _check_requests(requests)
    exp = load(name)
    out = Path(output or f"reproduce-{name}")
    if "parts" in exp:
        return _reproduce_parts(name, exp, out, requests=requests, workers=workers, cluster=cluster,
                                progress=progress, seeds=seeds, grid=grid, workloads=workloads)
    spec = _prepare(name, exp, requests=requests, seeds=seeds, grid=grid, workloads=workloads)
    return _run(name, exp, spec, out, workers=workers, cluster=cluster, progress=progress)


def _check_requests(requests: Any) -> None:
    """``requests`` is left out (None: the experiment's own sizes) or a positive whole number; 0
    is no "default" but an empty run, refused before anything runs."""
    import numbers

    if requests is None:
        return
    if isinstance(requests, bool) or not isinstance(requests, numbers.Integral) or requests < 1:
        raise ValueError(f"--requests must be at least 1 (got {requests!r}): it is the requests per workload (per job "
                         "for closed-loop jobs); leave it out to run the experiment's own")


def _prepare(name: str, exp: dict[str, Any], *, requests: int | None, seeds: list[int] | None,
             grid: dict[str, list[Any]] | None, workloads: list[str] | None) -> dict[str, Any]:
    """The sweep ``reproduce`` runs for experiment ``name`` with the user's changes applied, checked
    (keys, workloads, what the comparisons and figures select) before anything runs."""
    spec = copy.deepcopy(exp["sweep"])
    spec["name"] = name
    if workloads:
        known = [w.get("name", "workload") for w in spec.get("workloads", [])]
        unknown = sorted(set(workloads) - set(known))
        if unknown:
            raise KeyError(f"{name}: no workload named {', '.join(unknown)}; known: {', '.join(known)}")
        spec["workloads"] = [w for w in spec["workloads"] if w.get("name", "workload") in workloads]
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
    for w in spec.get("workloads", []):
        # Experiments name shared traces as ../shared/... from the repository root, wherever the
        # user runs the command from.
        if "trace" in w and not Path(w["trace"]).is_absolute() and (ROOT / w["trace"]).exists():
            w["trace"] = str((ROOT / w["trace"]).resolve())
    if requests is not None:
        _check_requests(requests)
        for w in spec.get("workloads", []):
            if "profile" in w:
                w["requests"] = requests
            elif "trace" in w:
                w.setdefault("set", {})["max_requests"] = requests  # the trace's first N
            elif w.get("set", {}).get("kind") == "jobs":
                w["set"]["jobs.number_ios"] = requests  # per job
            elif w.get("set", {}).get("kind") == "sysbench":
                w["set"]["sysbench.max_requests"] = requests  # over all threads, as sysbench counts
            else:
                w.setdefault("set", {})["synthetic.requests"] = requests
    _check_outputs(name, exp, spec)
    Spec.load(spec).expand()  # two runs that would be one simulation, before anything runs
    return spec


def _run(name: str, exp: dict[str, Any], spec: dict[str, Any], out: Path, *, workers: int | None,
         cluster: str | None, progress: Any) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    table = sweep(spec, out / "results.parquet", workers=workers, cluster=cluster, progress=progress)
    failed = table[table["status"] != "ok"]
    if len(failed) == len(table):
        first = failed.iloc[0]
        from .sweeps import failures_are_bad_input

        error = _core.ConfigError if failures_are_bad_input(table) else _core.SimulationError
        raise error(f"{name}: all {len(table)} runs failed (table in {out / 'results.parquet'}); "
                                    f"the first, workload {first['workload']}: {first['error']}")
    ok = table[table["status"] == "ok"]
    from .output import atomic_write_text
    from .sweeps import failed_runs, latency_dir

    lat = latency_dir(out / "results.parquet")
    cmp = comparison(exp, table, out / "results.parquet")
    failed = failed_runs(table)
    if len(failed):
        # Said where the numbers are read: the means, intervals and figures are over the runs that
        # succeeded, and failed_runs.csv (and the report) list the others with their errors.
        params = [c for c in table.columns[1: list(table.columns).index("status")]]
        atomic_write_text(out / "failed_runs.csv", failed[["run_id", *params, "error"]].to_csv(index=False, lineterminator="\n"))
        hit = set(failed["workload"]) if "workload" in failed.columns else set()
        said = f"{len(failed)} of {len(table)} runs failed (failed_runs.csv): means over the runs that succeeded"
        if len(cmp) and "workload" in cmp.columns:
            rows = (cmp["workload"].isin(hit | {"mean"}) | is_mean(cmp)) if hit else cmp["workload"].notna()
            old = cmp["note"].fillna("") if "note" in cmp.columns else ""
            cmp["note"] = old
            cmp.loc[rows, "note"] = [f"{n}; {said}" if n else said for n in cmp.loc[rows, "note"]]
    else:
        (out / "failed_runs.csv").unlink(missing_ok=True)
    figures = _as_list(exp.get("figure"))
    for i, fig_spec in enumerate(figures):
        stem = "figure" if i == 0 else f"figure{i + 1}"
        _figure(fig_spec, ok, cmp, out / stem, exp.get("title"))
    atomic_write_text(out / "comparison.csv", cmp.to_csv(index=False, lineterminator="\n"))
    stats = policy_stats(exp, table)
    if len(stats):
        atomic_write_text(out / "policy_stats.csv", stats.to_csv(index=False, lineterminator="\n"))
    if lat.exists():
        # Per-request latencies (8 bytes a request a run) are kept only until the paired
        # comparisons are computed; results.paired.csv keeps those, so a rerun need not redo them.
        import shutil

        shutil.rmtree(lat)
    first = next((f for f in figures if f.get("kind") == "normalized_bars"), figures[0] if figures else {})
    plots_where = {**first.get("where", {}), **({first["by"]: list(first["values"])} if first.get("values") else {})}
    report.write(table, out / "report.html", title=exp.get("title", name), by=first.get("by"),
                 group=first.get("group"), baseline=first.get("baseline"), plots_where=plots_where or None,
                 paper=_shown(cmp).to_dict("records") if len(cmp) else None, notes=exp.get("notes", ""))
    return out


def is_mean(cmp: "pd.DataFrame") -> "pd.Series":
    """The comparison rows that average workloads: ``mean``, or a group's ``mean_name``."""
    kinds = cmp["workload_kind"].isin(plot.MEAN_KINDS) if "workload_kind" in cmp.columns else False
    return (cmp["workload"] == "mean") | kinds


def _shown(cmp: "pd.DataFrame") -> "pd.DataFrame":
    """The comparison as the report shows it: ``n/a`` where we have no value (its ``note`` says
    why), other empty cells (no paper number, no interval) empty."""
    shown = cmp.astype(object).where(cmp.notna(), "")
    if "flashsched" in shown.columns:
        shown.loc[cmp["flashsched"].isna(), "flashsched"] = "n/a"
    return shown


def _check_outputs(name: str, exp: dict[str, Any], spec: dict[str, Any]) -> None:
    """Before anything runs: every policy a ``ratio`` comparison names is a variant or a grid
    value of its ``by`` column, and every ``ratio_lines`` figure draws a row some comparison
    makes under the same ``where`` (a typo would otherwise give an empty table or figure after an
    hour of runs)."""
    labels = set()
    for cmp in _as_list(exp.get("compare")):
        if ("workloads" in cmp or "mean_name" in cmp) and cmp.get("kind") != "ratio":
            raise ValueError(f"experiment {name}: only a ratio comparison takes workloads and mean_name "
                             f"(compare {cmp.get('metric', cmp.get('kind'))})")
        if cmp.get("kind") == "paired":
            by = cmp["by"]
            known = ([v["name"] for v in spec.get("variants", [])] if by == "variant" else list(spec.get("grid", {}).get(by, [])))
            missing = [v for v in [cmp["baseline"], *cmp["targets"]] if v not in known]
            if missing:
                raise ValueError(f"experiment {name}: paired comparison names {missing}, not values of {by!r} (known: {known})")
            if not spec.get("keep_latencies"):
                raise ValueError(f"experiment {name}: a paired comparison needs keep_latencies = true in [sweep]")
            continue
        if cmp.get("kind") == "knee":
            _check_swept(name, "knee comparison", [cmp["x"], cmp["group"]], spec)
            _check_single(name, "knee comparison", cmp, spec)
        if cmp.get("kind") == "gain_over_best" and cmp.get("where"):
            _check_where(name, f"compare {cmp['metric']}", cmp, spec)
        if cmp.get("kind") != "ratio":
            continue
        by = cmp["by"]
        known = ([v["name"] for v in spec.get("variants", [])] if by == "variant" else list(spec.get("grid", {}).get(by, [])))
        for k in ("targets", "against"):
            missing = [v for v in cmp[k] if v not in known]
            if missing:
                raise ValueError(f"experiment {name}: compare {k} {missing} are not values of {by!r} (known: {known})")
        _check_where(name, f"compare {cmp['metric']}", cmp, spec)
        # Against the experiment's workloads: --workloads may run fewer (the rows of the others are
        # then simply absent).
        names = [str(w.get("name", "workload")) for w in exp["sweep"].get("workloads", [])] or ["config"]
        if "workloads" in cmp:
            unknown = [w for w in cmp["workloads"] if str(w) not in names]
            if unknown or not cmp["workloads"]:
                raise ValueError(f"experiment {name}: compare {cmp['metric']} workloads {unknown or '[]'}: "
                                 f"name workloads of the sweep (known: {names})")
        if str(cmp.get("mean_name", "mean")) in names:
            raise ValueError(f"experiment {name}: compare {cmp['metric']} mean_name {cmp.get('mean_name', 'mean')!r} is a workload's name")
        where = _where_key(cmp)
        labels |= {(f"{cmp['metric']}: {t} as % of {a}", where, cmp.get("across")) for t in cmp["targets"] for a in cmp["against"] if t != a}
    for fig in _as_list(exp.get("figure")):
        need = FIGURE_KEYS.get(fig.get("kind"))
        if need is None:
            raise ValueError(f"experiment {name}: figure kind {fig.get('kind')!r}: expected {', '.join(FIGURE_KEYS)}")
        missing = [k for k in need if k not in fig]
        if missing:
            raise ValueError(f"experiment {name}: a {fig['kind']} figure needs {', '.join(missing)}")
        _check_where(name, f"{fig['kind']} figure", fig, spec)
        if fig.get("values") is not None:
            by = fig.get("by")
            known = [v["name"] for v in spec.get("variants", [])] if by == "variant" else list(spec.get("grid", {}).get(by, []))
            bad = [v for v in fig["values"] if v not in known] if fig["kind"] == "normalized_bars" else fig["values"]
            if bad or not fig["values"] or fig.get("baseline") not in fig["values"]:
                raise ValueError(f"experiment {name}: a normalized_bars figure's values {fig['values']} must be values of "
                                 f"{by!r} (known: {known}) including its baseline; no other figure takes values")
        if "labels" in fig and len(fig["labels"]) != len(fig.get("parts", [])):
            raise ValueError(f"experiment {name}: a split_bars figure's labels {fig['labels']} do not name its "
                             f"parts {fig.get('parts')} one for one")
        if fig.get("kind") == "curves":
            _check_swept(name, "curves figure", [fig["x"], fig["line"]], spec)
            _check_single(name, "curves figure", fig, spec)
        if fig.get("kind") == "ratio_lines" and (fig["label"], _where_key(fig), fig["across"]) not in labels:
            made = sorted(f"{lab}" + (f" where {dict(w)}" if w else "") + f" across {a}" for lab, w, a in labels)
            raise ValueError(f"experiment {name}: figure label {fig['label']!r}"
                             + (f" where {fig['where']}" if fig.get("where") else "")
                             + f" across {fig['across']} is made by no ratio comparison (made: {made})")


def _check_single(name: str, what: str, item: dict[str, Any], spec: dict[str, Any]) -> None:
    """A curve is one workload's runs by its two columns: no other swept column may vary (its
    runs would be averaged into one curve), and there is no ``where`` to pick among them."""
    if "where" in item:
        raise ValueError(f"experiment {name}: a {what} takes no where (sweep only its two columns)")
    own = {item["x"], item.get("group", item.get("line"))}
    varied = [k for k, v in spec.get("grid", {}).items() if k not in own and len(v) > 1] + (["variant"] if spec.get("variants") else [])
    if varied:
        raise ValueError(f"experiment {name}: a {what} draws one curve per workload and {item.get('group', item.get('line'))}; "
                         f"{', '.join(varied)} also vary and would be averaged into it")


def _check_swept(name: str, what: str, keys: list[str], spec: dict[str, Any]) -> None:
    missing = [k for k in keys if k not in spec.get("grid", {})]
    if missing:
        raise ValueError(f"experiment {name}: the {what} needs {', '.join(missing)} swept in [sweep.grid]")


def _where_key(spec: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, str(v)) for k, v in spec.get("where", {}).items()))


def _where_text(spec: dict[str, Any]) -> str:
    """A comparison's or figure's ``where`` as one string (``key=value; ...``, empty without):
    the ``where`` column of ``ratio`` rows, which a ``ratio_lines`` figure matches exactly."""
    return "; ".join(f"{k}={v}" for k, v in _where_key(spec))


def _check_where(name: str, what: str, item: dict[str, Any], spec: dict[str, Any]) -> None:
    """A ``where`` may only select grid values the sweep runs (after ``--set``): anything else
    would leave an empty comparison or figure, found out after the runs."""
    grid = dict(spec.get("grid", {}))
    if spec.get("variants"):
        grid["variant"] = [v["name"] for v in spec["variants"]]
    for k, v in item.get("where", {}).items():
        if k in ("workload", item.get("across")):
            raise ValueError(f"experiment {name}: {what} where {k!r}: filter on a grid key, not on the {k} column")
        if k not in grid:
            raise ValueError(f"experiment {name}: {what} where {k!r} is neither a grid key nor variant (grid: {sorted(grid)})")
        if v not in list(grid[k]):
            raise ValueError(f"experiment {name}: {what} where {k} = {v!r} selects no run: the sweep runs "
                             f"{k} = {list(grid[k])} (a --set fixing {k} leaves this {what} nothing)")


def _figure(spec: dict[str, Any], ok: "pd.DataFrame", cmp: "pd.DataFrame", stem: Path, title: str | None) -> None:
    """Draw one ``[[figure]]``: ``normalized_bars`` (a metric per workload and policy over a
    baseline policy; ``where`` filters the runs), ``split_bars`` (metrics that add up to a total,
    stacked, over the baseline policy's total) or ``ratio_lines`` (the comparison rows whose
    metric label is ``label``, against the ``across`` column, one line per workload)."""
    kind = spec.get("kind")
    title = spec.get("title", title)
    ok = _numeric(ok, [spec.get("metric"), *spec.get("parts", [])])
    if kind == "normalized_bars":
        for k, v in spec.get("where", {}).items():
            ok = ok[ok[k] == v]
        if spec.get("values"):
            ok = ok[ok[spec["by"]].astype(str).isin([str(v) for v in spec["values"]])]
        for suffix in ("png", "pdf"):
            fig = plot.normalized_bars(ok, spec["metric"], spec["group"], spec["by"], spec["baseline"], title=title)
            plot.save(fig, stem.with_suffix(f".{suffix}"))
        plot.normalized(ok, spec["metric"], spec["group"], spec["by"], spec["baseline"]).to_csv(stem.with_suffix(".csv"))
    elif kind == "ratio_lines":
        rows = cmp[cmp["metric"] == spec["label"]] if len(cmp) else cmp
        # The rows of the comparison with this figure's own `where`, no more and no fewer filters.
        if len(rows):
            rows = rows[rows["where"].fillna("") == _where_text(spec)] if "where" in rows else rows
        if not len(rows):
            return
        for suffix in ("png", "pdf"):
            fig = plot.ratio_lines(rows, spec["across"], ylabel=spec["label"], title=title)
            plot.save(fig, stem.with_suffix(f".{suffix}"))
        rows.to_csv(stem.with_suffix(".csv"), index=False)
    elif kind == "share_bars":
        rows = cmp[cmp["share"].notna()] if len(cmp) and "share" in cmp else cmp
        if len(rows) and "tolerance" in rows:
            rows = rows[rows["tolerance"] == float(spec.get("tolerance", 0.0))]
        if not len(rows):
            return
        rows = rows[rows["workload"] != "mean"]
        for suffix in ("png", "pdf"):
            plot.save(plot.share_bars(rows, spec["target"], title=title), stem.with_suffix(f".{suffix}"))
        rows.to_csv(stem.with_suffix(".csv"), index=False)
    elif kind == "curves":
        for suffix in ("png", "pdf"):
            fig = plot.curves(ok, spec["x"], spec["metric"], spec["line"], spec.get("unit", 1), title=title)
            plot.save(fig, stem.with_suffix(f".{suffix}"))
        cols = ["workload", spec["line"], spec["x"], "seed", spec["metric"]]
        ok[cols].sort_values(cols[:4]).to_csv(stem.with_suffix(".csv"), index=False)
    elif kind == "split_bars":
        for k, v in spec.get("where", {}).items():
            ok = ok[ok[k] == v]
        args = (ok, spec["parts"], spec["group"], spec["by"], spec["baseline"])
        for suffix in ("png", "pdf"):
            plot.save(plot.split_bars(*args, labels=spec.get("labels"), title=title), stem.with_suffix(f".{suffix}"))
        plot.split(*args).to_csv(stem.with_suffix(".csv"))
    else:
        raise ValueError(f"figure kind {kind!r}: expected {', '.join(FIGURE_KEYS)}")


# Each figure kind's required keys (checked before anything runs).
FIGURE_KEYS = {
    "normalized_bars": ("metric", "group", "by", "baseline"),
    "ratio_lines": ("label", "across"),
    "split_bars": ("parts", "group", "by", "baseline"),
    "share_bars": ("target",),
    "curves": ("metric", "x", "line"),
}


def _reproduce_parts(name: str, exp: dict[str, Any], out: Path, **kwargs: Any) -> Path:
    import pandas as pd

    from .output import atomic_write_text

    frames, links = [], []
    parts = list(exp["parts"])
    wanted = kwargs.pop("workloads", None)
    if wanted:
        has = {p: {w.get("name", "workload") for w in load(p)["sweep"].get("workloads", [])} for p in parts}
        unknown = sorted(set(wanted) - set().union(*has.values()))
        if unknown:
            raise KeyError(f"{name}: no part has a workload named {', '.join(unknown)}")
    run_kw = {k: kwargs.pop(k) for k in ("workers", "cluster", "progress")}
    # Every part is prepared and checked before the first runs: a mistake in the last part would
    # otherwise surface after the others' hours of runs.
    prepared = []
    for part in parts:
        mine = [w for w in wanted if w in has[part]] if wanted else None
        if wanted and not mine:
            continue
        part_exp = load(part)
        if "parts" in part_exp:
            raise ValueError(f"{name}: part {part} has parts of its own")
        prepared.append((part, part_exp, _prepare(part, part_exp, workloads=mine, **kwargs)))
    for part, part_exp, spec in prepared:
        sub = _run(part, part_exp, spec, out / part, **run_kw)
        links.append((part, part_exp.get("title", part)))
        cmp = pd.read_csv(sub / "comparison.csv") if (sub / "comparison.csv").stat().st_size > 1 else pd.DataFrame()
        if len(cmp):
            cmp.insert(0, "part", part)
            frames.append(cmp)
    cmp = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    atomic_write_text(out / "comparison.csv", cmp.to_csv(index=False, lineterminator="\n"))
    atomic_write_text(out / "report.html", report.index(exp.get("title", name), links, _shown(cmp), exp.get("notes", "")))
    return out
