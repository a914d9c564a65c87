"""`flashsched reproduce` at small sizes (issue 39, defect 6): every experiment runs with a few
hundred requests, or refuses with one line; a number a short run did not measure (no garbage
collection, no erase, no write) is reported missing, with the reason, never a crash or a made-up
number; `--requests 0` is refused, not taken for "the experiment's own size"."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from flashsched import reproduce
from conftest import cli


@pytest.mark.parametrize("requests", ["0", "-5"])
def test_reproduce_refuses_requests_below_one(requests: str, tmp_path: Path) -> None:
    # pattern-memory's own size is a few seconds' work: before the fix, 0 ran it and exited 0.
    out = tmp_path / "out"
    r = cli("reproduce", "pattern-memory", "--requests", requests, "--seeds", "1", "-q", "-o", str(out), timeout=60)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"flashsched: error: --requests must be at least 1 (got {requests})"), r.stderr
    assert not out.exists(), "refused before anything runs"


def test_reproduce_api_refuses_requests_below_one(tmp_path: Path) -> None:
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="at least 1"):
            reproduce.reproduce("pattern-memory", tmp_path / "x", requests=bad, progress=False)
    assert not (tmp_path / "x").exists()


def test_reproduce_pattern_at_500_requests(tmp_path: Path) -> None:
    # Every part on one trace each (pattern-fill and pattern-load have only Random_server_1), one seed. At 500
    # requests nothing is erased and no GC runs: the GC, erase and first-failure comparisons have
    # no value, and say why.
    out = tmp_path / "pattern"
    r = cli("reproduce", "pattern", "--requests", "500", "--seeds", "1", "--workloads", "proj_0,Random_server_1", "--workers", "2",
            "-q", "-o", str(out), timeout=120)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    cmp = pd.read_csv(out / "comparison.csv")
    assert set(cmp["part"]) == {"pattern-main", "pattern-ssdsim", "pattern-fill", "pattern-load", "pattern-memory"}
    assert not cmp["flashsched"].isin([math.inf, -math.inf]).any(), "x / 0 is no percentage"
    # Every missing value says why; every value present has no such note.
    missing = cmp[cmp["flashsched"].isna()]
    assert missing["note"].fillna("").str.startswith("no value").all(), missing[["metric", "note"]]
    runs = pd.read_parquet(out / "pattern-main" / "results.parquet")
    assert (runs["status"] == "ok").all() and (runs["requests"] == 500).all()
    main = cmp[cmp["part"] == "pattern-main"]
    # The comparisons of a metric no run measured are there (a pivot table used to drop them).
    ff = main[main["metric"].str.startswith("first_failure_projected_ns:")]
    assert set(ff["metric"]) == {f"first_failure_projected_ns: {t} as % of baseline"
                                 for t in ("swl", "pgis+swl", "pattern", "pgis", "pattern-grouping", "rbwl", "swl-gc-stream", "pattern-gc-stream")}
    if (runs["run_erases"] == 0).all():
        assert ff["flashsched"].isna().all() and ff["note"].str.contains("no block erased").all(), ff["note"]
    if (runs["gc_invocations"] == 0).all():
        gc = main[main["metric"].str.startswith("gc_time_ns:")]
        assert gc["flashsched"].isna().all() and gc["note"].str.contains("no garbage collection").all()
    # Pattern memory (Table V) does not depend on the run's length.
    mem = cmp[cmp["part"] == "pattern-memory"]
    assert len(mem) == 24 and (mem["difference_pct"] == 0).all()
    stats = pd.read_csv(out / "pattern-main" / "policy_stats.csv")
    assert "first_failure_projected_ns" in set(stats["metric"])
    for report in (out / "report.html", out / "pattern-main" / "report.html"):
        paper = report.read_text().split("<section id='paper'>")[1].split("</section>")[0]
        assert ">NaN<" not in paper and ">None<" not in paper and ">inf<" not in paper
        if len(missing):
            assert "<td>n/a</td>" in paper and "no value: " in paper


def _runs(values: dict[tuple[str, str], object], counts: dict[tuple[str, str], int]) -> pd.DataFrame:
    rows = [{"workload": wl, "seed": 1, "p": p, "m": v, "write_ios": counts[(wl, p)], "status": "ok"}
            for (wl, p), v in values.items()]
    return pd.DataFrame(rows).astype({"m": object})


def test_ratio_of_unmeasured_or_zero_metric_is_missing_with_reason() -> None:
    # w1: b measured 0 (no writes): t / b is no number. w2: t did not measure it (None): no
    # value. w3: a real ratio. The mean is over w3 and names the others.
    values = {("w1", "b"): 0, ("w1", "t"): 5.0, ("w2", "b"): 4.0, ("w2", "t"): None,
              ("w3", "b"): 2.0, ("w3", "t"): 1.0}
    counts = {("w1", "b"): 0, ("w1", "t"): 3, ("w2", "b"): 3, ("w2", "t"): 3, ("w3", "b"): 3, ("w3", "t"): 3}
    exp = {"sweep": {}, "compare": {"kind": "ratio", "metric": "write_m", "by": "p", "targets": ["t"], "against": ["b"],
                                    "report_metrics": []}}
    table = _runs(values, counts).rename(columns={"m": "write_m"})
    cmp = reproduce.comparison(exp, table).set_index("workload")
    assert math.isnan(cmp.loc["w1", "flashsched"]) and cmp.loc["w1", "seeds"] == 0
    assert cmp.loc["w1", "note"] == "no value: write_m is 0 under b (no writes)"
    assert math.isnan(cmp.loc["w2", "flashsched"]) and cmp.loc["w2", "note"] == "no value: t has no write_m"
    assert cmp.loc["w3", "flashsched"] == 50.0 and cmp.loc["w3", "note"] == ""
    assert cmp.loc["mean", "flashsched"] == 50.0 and "none for w1, w2" in cmp.loc["mean", "note"]
    # No run measured it at all: rows with no value, not a crash and not left out.
    table["write_m"] = None
    cmp = reproduce.comparison(exp, table)
    assert len(cmp) == 4 and cmp["flashsched"].isna().all() and cmp["note"].str.startswith("no value").all()
    assert cmp.set_index("workload").loc["w3", "note"] == "no value: neither t nor b has write_m"
    stats = reproduce.policy_stats(exp, table)
    assert stats["mean"].isna().all() and (stats["seeds"] == 0).all()
    # A report metric the table has no column for is listed with a note, not dropped.
    exp["compare"] = {**_as_dict(exp["compare"]), "report_metrics": ["write_mm"]}
    stats = reproduce.policy_stats(exp, table)
    row = stats[stats["metric"] == "write_mm"].iloc[0]
    assert row["seeds"] == 0 and "not a column" in row["note"]


def test_gain_over_best_and_target_over_each_without_values() -> None:
    values = {("w", "a"): 0, ("w", "b"): None, ("w", "t"): 7.0}
    counts = {k: 1 for k in values}
    table = _runs(values, counts)
    exp = {"sweep": {}, "compare": {"kind": "gain_over_best", "metric": "m", "by": "p", "target": "t"}}
    row = reproduce.comparison(exp, table).iloc[0]
    assert row["best_other"] == "a" and math.isnan(row["flashsched"]) and row["note"] == "no value: m is 0 under a"
    exp["compare"]["kind"] = "target_over_each"
    each = reproduce.comparison(exp, table).set_index("metric")
    assert each["flashsched"].isna().all()
    assert each.loc["m: t as % of b", "note"] == "no value: b has no m"
    table["m"] = [None, None, 7.0]
    exp["compare"]["kind"] = "gain_over_best"
    row = reproduce.comparison(exp, table).iloc[0]
    assert math.isnan(row["flashsched"]) and "no policy but t has m" in row["note"]


def test_mean_ci_skips_values_not_measured() -> None:
    assert reproduce.mean_ci([None, float("nan")])[2] == 0
    mean, ci, n = reproduce.mean_ci([None, 2.0, 4.0])
    assert (mean, n) == (3.0, 2)


def test_reproduce_with_failed_runs_says_so_and_exits_non_zero(tmp_path: Path) -> None:
    """Runs that fail (here the Slacker variants, whose write pausing needs program suspension,
    turned off for every run) do not vanish: failed_runs.csv and the report list them, every
    comparison row they touch says its means are over the runs that succeeded, and the exit status
    is 2 (every failure is bad input), not 0. A --set no run can take is refused before any runs."""
    out = tmp_path / "sw"
    r = cli("reproduce", "slacker-write", "--requests", "500", "--seeds", "1", "-q", "-o", str(out),
            "--set", "device.suspend.program=false", timeout=300)
    assert r.returncode == 2, r.stderr
    assert "runs failed" in r.stderr and r.stderr.count("failed: run ") >= 1, r.stderr
    failed = pd.read_csv(out / "failed_runs.csv")
    assert len(failed) > 0 and failed["error"].str.contains("device.suspend.program").all()
    cmp = pd.read_csv(out / "comparison.csv")
    assert cmp["note"].fillna("").str.contains("runs failed (failed_runs.csv): means over the runs that succeeded", regex=False).all()
    assert "failed" in (out / "report.html").read_text()
    r = cli("reproduce", "slacker-write", "--requests", "500", "--seeds", "1", "-q", "-o", str(tmp_path / "all"),
            "--set", "device.geometry.channels=0", timeout=300)
    assert r.returncode == 2 and "device.geometry.channels" in r.stderr, r.stderr


def _as_dict(cmp):
    return cmp[0] if isinstance(cmp, list) else cmp
