"""Paper-style figures from sweep tables and results (matplotlib).

- :func:`latency_cdf`: latency CDF per policy (log x), or the tail CCDF (log-log) with ``tail=True``;
- :func:`normalized_bars`: per-trace bars normalised to a baseline policy, with a geometric-mean
  group at the end (the figure style of all five papers);
- :func:`split_bars`: a latency split into its parts (stacked), per trace and policy, normalised
  to a baseline policy's total (RR/WR Fig. 3);
- :func:`ratio_lines`: a policy's metric as a percentage of another's against a swept parameter
  (wear stage, chips, program latency), one line per trace, the mean bold, the paper's points beside;
- :func:`curves`: a metric against a swept parameter, one line per value of another, a panel per
  workload (PASS Fig. 2: throughput against queue depth per working-set size);
- :func:`share_bars`: the shares of requests a policy made faster, left unchanged and made slower
  than a baseline, request by request, per trace (Slacker Figs. 8-10 (c));
- :func:`erase_distribution`: per-block erase-count distribution per policy;
- :func:`time_series`: throughput, latency or free blocks over simulated time.

Colours are the Okabe-Ito colour-blind-safe palette; :func:`save` writes PNG or vector PDF with
TrueType fonts embedded (``pdf.fonttype = 42``, as ACM and USENIX require).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
HATCHES = ["", "//", "..", "xx", "\\\\", "++", "oo", "--"]

plt.rcParams.update({
    "pdf.fonttype": 42,
    "ps.fonttype": 42,
    "axes.prop_cycle": matplotlib.cycler(color=OKABE_ITO),
    "axes.grid": True,
    "grid.alpha": 0.3,
    "figure.dpi": 110,
    "savefig.bbox": "tight",
})


# The workload_kind of comparison rows that average workloads (reproduce's ratio and paired kinds):
# every workload of a part, or a named group of them.
MEAN_KINDS = ("all workloads", "listed workloads")

def _axes(ax: "Axes | None", size: tuple[float, float] = (5.0, 3.2)) -> "tuple[Figure, Axes]":
    if ax is not None:
        return ax.figure, ax  # type: ignore[return-value]
    fig, ax = plt.subplots(figsize=size)
    return fig, ax


def _ok(table: "pd.DataFrame") -> "pd.DataFrame":
    return table[table["status"] == "ok"] if "status" in table.columns else table


def latency_cdf(table: "pd.DataFrame", by: str, direction: str = "read", tail: bool = False,
                ax: "Axes | None" = None, title: str | None = None) -> "Figure":
    """CDF of total latency per value of column ``by``, from the percentile points each run
    recorded (fio's list, 1% to 99.99%). With ``tail=True``: 1 - CDF on log-log axes."""
    fig, ax = _axes(ax)
    for i, (label, group) in enumerate(_ok(table).groupby(by, sort=False)):
        pts: dict[float, list[float]] = {}
        for raw in group["lat_percentiles"]:
            for p, v in json.loads(raw)[direction].items():
                pts.setdefault(float(p), []).append(float(v))
        if not pts:
            continue
        ps = sorted(pts)
        xs = [sum(pts[p]) / len(pts[p]) / 1000.0 for p in ps]  # mean over seeds, in us
        ys = [1 - p / 100 for p in ps] if tail else [p / 100 for p in ps]
        ax.plot(xs, ys, marker=".", color=OKABE_ITO[i % 8], label=str(label))
    ax.set_xscale("log")
    if tail:
        ax.set_yscale("log")
        ax.set_ylabel("1 - CDF")
    else:
        ax.set_ylabel("CDF")
    ax.set_xlabel(f"{direction} latency (us)")
    ax.legend(title=by, fontsize="small")
    ax.set_title(title or f"{direction} latency {'tail' if tail else 'CDF'}")
    return fig


def _gmean(values: Sequence[float]) -> float:
    vals = [v for v in values if v > 0 and not math.isnan(v)]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else float("nan")


def normalized(table: "pd.DataFrame", metric: str, group: str, by: str, baseline: Any) -> "pd.DataFrame":
    """``metric`` averaged over seeds, per (group, by), divided by the baseline's value in the same
    group; a final ``gmean`` row holds each policy's geometric mean across groups."""
    t = _ok(table).groupby([group, by], sort=False)[metric].mean().unstack(by)
    if baseline not in t.columns:
        raise ValueError(f"baseline {baseline!r} is not a value of {by!r} (have {list(t.columns)})")
    norm = t.div(t[baseline], axis=0)
    norm.loc["gmean"] = [_gmean(list(norm[c])) for c in norm.columns]
    return norm


def normalized_bars(table: "pd.DataFrame", metric: str, group: str, by: str, baseline: Any,
                    ax: "Axes | None" = None, title: str | None = None) -> "Figure":
    """Grouped bars of ``metric`` normalised to ``baseline`` (= 1.0), one group per value of
    ``group`` (a trace), one bar per value of ``by`` (a policy), plus the geometric mean."""
    norm = normalized(table, metric, group, by, baseline)
    n_groups, n_bars = norm.shape
    fig, ax = _axes(ax, (max(5.0, 0.6 * n_groups * max(1, n_bars) / 2 + 2), 3.2))
    width = 0.8 / n_bars
    for j, col in enumerate(norm.columns):
        xs = [i + (j - (n_bars - 1) / 2) * width for i in range(n_groups)]
        ax.bar(xs, norm[col], width, label=str(col), color=OKABE_ITO[j % 8], hatch=HATCHES[j % 8],
               edgecolor="black", linewidth=0.4)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(n_groups))
    ax.set_xticklabels([str(g) for g in norm.index], rotation=30, ha="right")
    ax.set_ylabel(f"{metric} (normalised to {baseline})")
    ax.legend(title=by, fontsize="small", ncols=min(4, n_bars))
    ax.set_title(title or f"{metric} normalised to {baseline}")
    return fig


def split(table: "pd.DataFrame", parts: Sequence[str], group: str, by: str, baseline: Any) -> "pd.DataFrame":
    """Each of ``parts`` (metrics that add up to a total, such as a latency's conflict, array,
    transfer and ECC means) averaged over seeds per (group, by), divided by the baseline's total
    (the sum of its parts) in the same group; a final ``mean`` group averages the groups. Rows are
    (group, by), columns the parts: a row's sum is the policy's total as a fraction of the
    baseline's."""
    import pandas as pd

    t = _ok(table).groupby([group, by], sort=False)[list(parts)].mean()
    # A group's bars together, groups and policies in the order they first appear.
    order = {g: i for i, g in enumerate(dict.fromkeys(t.index.get_level_values(0)))}
    t = t.iloc[sorted(range(len(t)), key=lambda i: order[t.index[i][0]])]
    if baseline not in t.index.get_level_values(by):
        raise ValueError(f"baseline {baseline!r} is not a value of {by!r}")
    base = t.xs(baseline, level=by).sum(axis=1)
    norm = t.div(base, axis=0, level=group)
    mean = norm.groupby(level=by, sort=False).mean()
    mean.index = pd.MultiIndex.from_arrays([["mean"] * len(mean), list(mean.index)], names=[group, by])
    return pd.concat([norm, mean])


def split_bars(table: "pd.DataFrame", parts: Sequence[str], group: str, by: str, baseline: Any,
               labels: Sequence[str] | None = None, ax: "Axes | None" = None, title: str | None = None) -> "Figure":
    """Stacked bars (RR/WR Fig. 3): per group (a trace) one bar per policy, split into ``parts``
    and normalised to the baseline policy's total (= 1.0), plus the mean over groups. Parts are
    told apart by hatching, policies by colour."""
    norm = split(table, parts, group, by, baseline)
    groups = list(dict.fromkeys(norm.index.get_level_values(0)))
    bars = list(dict.fromkeys(norm.index.get_level_values(1)))
    labels = list(labels or parts)
    fig, ax = _axes(ax, (max(6.0, 0.35 * len(groups) * len(bars) + 2), 3.6))
    width = 0.8 / len(bars)
    for j, b in enumerate(bars):
        xs = [i + (j - (len(bars) - 1) / 2) * width for i in range(len(groups))]
        bottom = [0.0] * len(groups)
        for k, part in enumerate(parts):
            ys = [float(norm.loc[(g, b), part]) if (g, b) in norm.index else 0.0 for g in groups]
            ax.bar(xs, ys, width, bottom=bottom, color=OKABE_ITO[j % 8], hatch=HATCHES[k % 8], edgecolor="black",
                   linewidth=0.4, label=str(b) if k == 0 else None)
            bottom = [u + v for u, v in zip(bottom, ys)]
    # A legend of the parts' hatches, in white, beside the policies' colours.
    for k, lab in enumerate(labels):
        ax.bar([0], [0], color="white", hatch=HATCHES[k % 8], edgecolor="black", linewidth=0.4, label=lab)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([str(g) for g in groups], rotation=30, ha="right")
    ax.set_ylabel(f"normalised to {baseline}")
    # Beside the axes: inside, the legend would hide the bars it explains.
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.set_title(title or f"split normalised to {baseline}")
    return fig

_UNITS = {"ns": 1, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}


def _magnitude(v: Any) -> Any:
    """Sort key of a swept value: a duration string (``"20us"``) by its length in ns, so that
    ``"160us"`` comes after ``"20us"``; anything else as it is."""
    import re

    m = re.fullmatch(r"\s*([0-9.]+)\s*(ns|us|µs|ms|s)\s*", v) if isinstance(v, str) else None
    return float(m.group(1)) * _UNITS[m.group(2)] if m else v


def ratio_lines(rows: "pd.DataFrame", across: str, ylabel: str = "% of baseline", ax: "Axes | None" = None,
                title: str | None = None) -> "Figure":
    """Comparison rows (``reproduce`` ``ratio`` kind: columns ``workload``, ``across``,
    ``flashsched``, ``ci95``, ``paper``) as lines against ``across``: one thin line per workload,
    each mean row (``mean``, or a group's named mean: ``workload_kind`` says so) bold with its 95%
    interval, and the paper's values as black diamonds."""
    fig, ax = _axes(ax, (6.0, 3.6))
    means = 0
    for i, (wl, g) in enumerate(rows.groupby("workload", sort=False)):
        g = g.sort_values(across, key=lambda s: s.map(_magnitude))
        if wl == "mean" or ("workload_kind" in g and g["workload_kind"].iloc[0] in MEAN_KINDS):
            style = ["-", "--", ":", "-."][means % 4]
            means += 1
            ax.errorbar(g[across], g["flashsched"], yerr=g["ci95"].fillna(0), color="black", linewidth=2.2,
                        linestyle=style, capsize=3, label=f"{wl} (95% CI)", zorder=3)
            paper = g.dropna(subset=["paper"])
            if len(paper):
                ax.plot(paper[across], paper["paper"], "D", color="black", markerfacecolor="white",
                        label=f"paper ({wl})", zorder=4)
        else:
            # Black is the mean's: the workloads cycle through the other seven colours.
            ax.plot(g[across], g["flashsched"], marker=".", linewidth=0.9, alpha=0.8, label=str(wl),
                    color=OKABE_ITO[i % 7], linestyle=["-", "--", ":", "-."][i // 7 % 4])
            paper = g.dropna(subset=["paper"])
            if len(paper):
                ax.plot(paper[across], paper["paper"], "D", color=OKABE_ITO[i % 7], markerfacecolor="white")
    ax.axhline(100.0, color="black", linewidth=0.6)
    ax.set_xlabel(across)
    ax.set_ylabel(ylabel if len(ylabel) < 40 else ylabel.split(": ", 1)[-1])
    ax.legend(fontsize="x-small", ncols=3)
    ax.set_title(title or ylabel)
    return fig


def curves(table: "pd.DataFrame", x: str, metric: str, line: str, unit: float = 1.0, title: str | None = None) -> "Figure":
    """``metric`` against ``x`` (log 2 axis), one line per value of ``line`` (shown divided by
    ``unit``), one panel per workload: the mean over seeds with its 95% interval (PASS Fig. 2)."""
    from .intervals import mean_ci

    ok = _ok(table)
    wls = list(dict.fromkeys(ok["workload"]))
    fig, axes = plt.subplots(1, len(wls), figsize=(4.2 * len(wls), 3.2), squeeze=False)
    for ax, wl in zip(axes[0], wls):
        runs = ok[ok["workload"] == wl]
        for i, (v, g) in enumerate(runs.groupby(line, sort=True)):
            stats = [(xv, *mean_ci(gg[metric])[:2]) for xv, gg in g.groupby(x, sort=True)]
            xs, ms, cis = zip(*stats)
            ax.errorbar(xs, ms, yerr=[0 if c != c else c for c in cis], marker=".", capsize=2, linewidth=1.1,
                        color=OKABE_ITO[i % 8], label=f"{v / unit:g}")
        ax.set_xscale("log", base=2)
        ax.set_xlabel(x)
        ax.set_ylabel(metric)
        ax.set_title(str(wl), fontsize="small")
        ax.legend(fontsize="x-small", title=line, title_fontsize="x-small")
    if title:
        fig.suptitle(title, fontsize="small")
    return fig


def share_bars(rows: "pd.DataFrame", target: Any, ax: "Axes | None" = None, title: str | None = None) -> "Figure":
    """Comparison rows of a ``paired`` comparison (columns ``workload``, ``target``, ``share``,
    ``flashsched``): for ``target``, one stacked bar per workload of the percentages of requests
    improved, unchanged and worse than the baseline."""
    rows = rows[rows["target"].astype(str) == str(target)]
    groups = list(dict.fromkeys(rows["workload"]))
    fig, ax = _axes(ax, (max(5.0, 0.45 * len(groups) + 2), 3.4))
    bottom = [0.0] * len(groups)
    for k, (share, colour) in enumerate([("improved", OKABE_ITO[2]), ("unchanged", "#BBBBBB"), ("worse", OKABE_ITO[3])]):
        sel = rows[rows["share"] == share].set_index("workload")["flashsched"]
        ys = [float(sel.get(g, 0.0)) for g in groups]
        ax.bar(range(len(groups)), ys, 0.7, bottom=bottom, color=colour, hatch=HATCHES[k], edgecolor="black",
               linewidth=0.4, label=share)
        bottom = [u + v for u, v in zip(bottom, ys)]
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([str(g) for g in groups], rotation=30, ha="right")
    ax.set_ylabel("% of requests")
    ax.set_ylim(0, 100)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.set_title(title or f"{target}: requests against the baseline")
    return fig


def erase_distribution(table: "pd.DataFrame", by: str, ax: "Axes | None" = None, title: str | None = None) -> "Figure":
    """CDF of per-block erase counts per value of ``by`` (first run of each)."""
    fig, ax = _axes(ax)
    for i, (label, group) in enumerate(_ok(table).groupby(by, sort=False)):
        h = json.loads(group["erase_count_histogram"].iloc[0])
        if h["kind"] == "exact":
            xs = [b[0] for b in h["bins"]]
            counts = [b[1] for b in h["bins"]]
        else:
            xs = [h["first"] + k * h["width"] for k in range(len(h["counts"]))]
            counts = h["counts"]
        total = sum(counts) or 1
        cum, ys = 0, []
        for c in counts:
            cum += c
            ys.append(cum / total)
        ax.step(xs, ys, where="post", color=OKABE_ITO[i % 8], label=str(label))
    ax.set_xlabel("erase count per block")
    ax.set_ylabel("fraction of blocks")
    ax.legend(title=by, fontsize="small")
    ax.set_title(title or "erase-count distribution")
    return fig


def time_series(series: "Sequence[tuple[str, pd.DataFrame]]", metric: str = "write_iops",
                ax: "Axes | None" = None, title: str | None = None) -> "Figure":
    """One line per (label, interval DataFrame) of ``Result.intervals``: ``metric`` over time."""
    fig, ax = _axes(ax, (6.0, 3.0))
    for i, (label, df) in enumerate(series):
        ax.plot(df["end_ns"] / 1e9, df[metric], color=OKABE_ITO[i % 8], label=str(label))
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel(metric)
    if len(series) > 1:
        ax.legend(fontsize="small")
    ax.set_title(title or metric)
    return fig


def save(fig: "Figure", path: str | Path) -> Path:
    """PNG or PDF by suffix (PDF embeds TrueType fonts); written atomically."""
    import io

    from .output import atomic_write_bytes

    path = Path(path)
    fmt = path.suffix.lstrip(".").lower() or "png"
    if fmt not in {"png", "pdf", "svg"}:
        raise ValueError(f"{path}: plots are written as .png, .pdf or .svg")
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt)
    plt.close(fig)
    atomic_write_bytes(path, buf.getvalue())
    return path
