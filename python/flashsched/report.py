"""A self-contained HTML report of a sweep: run parameters, summary tables and plots, in one file
that needs no network to view (images are embedded as data URIs, styles are inline)."""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from . import plot

if TYPE_CHECKING:
    import pandas as pd

METRIC_COLUMNS = ["read_lat_mean_ns", "read_lat_p99_ns", "write_lat_mean_ns", "write_lat_p99_ns", "read_iops",
                  "write_iops", "write_amplification", "erases", "conflict_ratio"]
NOT_PARAMS = {"run_id", "status", "error", "wall_s", "lat_percentiles", "erase_count_histogram"}

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { border-bottom: 2px solid #0072B2; padding-bottom: .2em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 3px 7px; text-align: right; }
th { background: #f0f4f8; }
td:first-child, th:first-child { text-align: left; }
figure { display: inline-block; margin: 0.5em; }
img { max-width: 520px; }
.failed { color: #D55E00; }
.note { color: #555; font-size: 0.9em; }
"""

# Marks each image that decoded (naturalWidth > 0), so a headless browser can check the render.
CHECK_SCRIPT = """
window.addEventListener('load', function () {
  var imgs = document.querySelectorAll('img');
  var ok = 0;
  imgs.forEach(function (i) { if (i.complete && i.naturalWidth > 0) { ok++; i.setAttribute('data-rendered', 'yes'); } });
  var m = document.createElement('meta');
  m.id = 'render-check'; m.name = 'render-check'; m.content = ok + '/' + imgs.length;
  document.head.appendChild(m);
});
"""


def _img(fig: Any, alt: str) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plot.plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode()
    return f'<figure><img alt="{html.escape(alt)}" src="data:image/png;base64,{data}"><figcaption>{html.escape(alt)}</figcaption></figure>'


def swept(table: "pd.DataFrame") -> list[str]:
    """The run-parameter columns (between ``run_id`` and ``status``) that take more than one value."""
    return _params(table)


def _params(table: "pd.DataFrame") -> list[str]:
    metrics = {"name", "requests"} | set(METRIC_COLUMNS)
    cols = [c for c in table.columns if c not in NOT_PARAMS and c not in metrics]
    # Parameters come first in a sweep table (run_id, then the swept columns, then status).
    if "status" in table.columns:
        cols = list(table.columns[1: list(table.columns).index("status")])
    return [c for c in cols if table[c].nunique(dropna=False) > 1] or cols[:1]


def render(table: "pd.DataFrame", title: str = "flashsched report", by: str | None = None,
           group: str | None = None, baseline: Any = None, paper: Sequence[dict[str, Any]] | None = None,
           notes: str = "", plots_where: dict[str, Any] | None = None) -> str:
    """The report as HTML text. ``by`` is the column compared (a policy), ``group`` the column of
    the figure groups (a workload); both are guessed from the swept columns when omitted. The
    summary is per value of every swept column; ``plots_where`` (column: value, or a list of
    values) restricts the plots to those runs, and the plots section says so."""
    params = _params(table)
    ok = table[table["status"] == "ok"] if "status" in table.columns else table
    by = by or (params[0] if params else None)
    group = group or ("workload" if "workload" in table.columns and by != "workload" else None)
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
             f"<style>{STYLE}</style><script>{CHECK_SCRIPT}</script></head><body>",
             f"<h1>{html.escape(title)}</h1>"]
    if notes:
        parts.append(f"<p class='note'>{html.escape(notes)}</p>")
    n_failed = int((table["status"] != "ok").sum()) if "status" in table.columns else 0
    parts.append(f"<section id='parameters'><h2>Run parameters</h2><p>{len(table)} runs, {n_failed} failed. "
                 f"Swept: {', '.join(html.escape(p) for p in params) or 'nothing'}.</p>")
    parts.append(table[[c for c in ["run_id", *params, "status"] if c in table.columns]].to_html(index=False, border=0))
    parts.append("</section>")
    metrics = [c for c in METRIC_COLUMNS if c in ok.columns]
    parts.append("<section id='summary'><h2>Summary</h2>")
    if by and metrics:
        keys = list(dict.fromkeys([k for k in [group, by] if k] + [p for p in params if p != "seed"]))
        summary = ok.groupby(keys, sort=False, dropna=False)[metrics].mean().reset_index()
        parts.append(summary.to_html(index=False, border=0, float_format=lambda x: f"{x:,.3f}"))
    parts.append("</section>")
    if paper:
        import pandas as pd

        parts.append("<section id='paper'><h2>Paper vs. simulator</h2>")
        parts.append(pd.DataFrame(list(paper)).to_html(index=False, border=0))
        parts.append("</section>")
    parts.append("<section id='plots'><h2>Plots</h2>")
    if plots_where:
        for k, v in plots_where.items():
            ok = ok[ok[k].isin(v)] if isinstance(v, list) else ok[ok[k] == v]
        parts.append(f"<p class='note'>Runs with {html.escape(', '.join(f'{k} = {v}' for k, v in plots_where.items()))} only.</p>")
    if by and len(ok):
        for d in ("read", "write"):
            if f"{d}_ios" in ok.columns and ok[f"{d}_ios"].sum() > 0 and "lat_percentiles" in ok.columns:
                parts.append(_img(plot.latency_cdf(ok, by, d), f"{d} latency CDF by {by}"))
                parts.append(_img(plot.latency_cdf(ok, by, d, tail=True), f"{d} latency tail by {by}"))
        if group and baseline is not None:
            for m in ("read_lat_mean_ns", "write_lat_mean_ns"):
                if m in ok.columns and ok[m].notna().any() and (ok[m] > 0).any():
                    parts.append(_img(plot.normalized_bars(ok, m, group, by, baseline), f"{m} normalised to {baseline}"))
        if "erase_count_histogram" in ok.columns:
            parts.append(_img(plot.erase_distribution(ok, by), f"erase counts by {by}"))
    parts.append("</section>")
    if n_failed:
        parts.append("<section id='failures'><h2>Failed runs</h2>")
        parts.append(table[table["status"] != "ok"][["run_id", *params, "error"]].to_html(index=False, border=0, classes="failed"))
        parts.append("</section>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def index(title: str, parts: Sequence[tuple[str, str]], paper: "pd.DataFrame", notes: str = "") -> str:
    """The report of an experiment made of parts: a link to each part's own report, then every
    part's paper-vs-simulator rows in one table."""
    items = "".join(f"<li><a href='{html.escape(p)}/report.html'>{html.escape(p)}</a>: {html.escape(t)}</li>"
                    for p, t in parts)
    out = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
           f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>"]
    if notes:
        out.append(f"<p class='note'>{html.escape(notes)}</p>")
    out.append(f"<section id='parts'><h2>Parts</h2><ul>{items}</ul></section>")
    if len(paper):
        out.append("<section id='paper'><h2>Paper vs. simulator</h2>")
        out.append(paper.to_html(index=False, border=0, na_rep=""))
        out.append("</section>")
    out.append("</body></html>\n")
    return "\n".join(out)


def write(table: "pd.DataFrame", output: str | Path, **kwargs: Any) -> Path:
    from .output import atomic_write_text

    out = Path(output)
    atomic_write_text(out, render(table, **kwargs))
    return out


def load_table(path: str | Path) -> "pd.DataFrame":
    import pandas as pd

    p = Path(path)
    if p.suffix == ".parquet":
        return pd.read_parquet(p)
    if p.suffix == ".csv":
        return pd.read_csv(p)
    raise ValueError(f"{p}: expected a sweep table (.parquet or .csv)")
