"""PASS's parameter rules (`flashsched.calibrate`) on hand-made curves, and the pass-calibrate
reproduction end to end on a few requests."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from flashsched import calibrate, reproduce

# Paper-like curves (§2.2 Fig. 2): 1 GB flat, 4 GB peaking at 8 then falling, 8 GB saturating.
FLAT = {1: 100.0, 2: 104.0, 4: 106.0, 8: 105.0, 16: 103.0}
PEAKED = {1: 100.0, 2: 150.0, 4: 190.0, 8: 210.0, 16: 180.0}
SATURATING = {1: 100.0, 2: 180.0, 4: 290.0, 8: 330.0, 16: 340.0}


def test_peak_and_knee_depths() -> None:
    assert calibrate.peak_depth(PEAKED) == 8
    assert calibrate.peak_depth(SATURATING) == 16  # the deepest: no peak to speak of
    # 90% of 340 = 306: depth 8 (330) is the first to reach it, depth 4 (290) is not.
    assert calibrate.knee_depth(SATURATING, 0.9) == 8
    assert calibrate.knee_depth(PEAKED, 0.9) == 4  # 190 >= 189
    assert calibrate.peak_depth({1: 5.0, 2: 7.0, 4: 7.0}) == 2  # equals: the shallowest


def test_rise_and_region_choice() -> None:
    assert calibrate.rise(FLAT) == 1.06 and calibrate.rise(SATURATING) == 3.4
    rises = {1: calibrate.rise(FLAT), 4: calibrate.rise(PEAKED), 8: calibrate.rise(SATURATING)}
    assert calibrate.region_size(rises, 1.5) == 4
    assert calibrate.region_size(rises, 2.5) == 8
    assert calibrate.region_size(rises, 5.0) is None


def test_pass_calibrate_depth_chooses_a_region_and_threshold(tmp_path: Path) -> None:
    grid = {"workload.jobs.size": [1073741824, 17179869184], "workload.jobs.iodepth": [1, 4, 16]}
    out = reproduce.reproduce("pass-calibrate-depth", tmp_path / "d", requests=400, workers=2, progress=False,
                              seeds=[1, 2], grid=grid)
    table = pd.read_parquet(out / "results.parquet")
    assert (table["status"] == "ok").all() and len(table) == 2 * 2 * 3 * 2
    cmp = pd.read_csv(out / "comparison.csv")
    chosen = cmp[cmp["metric"].str.startswith("region")].set_index("workload")["flashsched"]
    # One chip (1 GiB) saturates early; 16 GiB spans five chips and rises with the depth.
    assert chosen["randread"] == 16
    rise = cmp[cmp["metric"].str.startswith("rise")].set_index("workload")["flashsched"]
    assert rise["randread 16"] > 2 * rise["randread 1"]
    assert (cmp["workload_kind"] == "closed-loop jobs").all()
    assert (out / "figure.pdf").exists() and (out / "figure.csv").exists()


def test_curves_without_values_have_no_peak_and_points_without_one_are_left_out() -> None:
    nan = float("nan")
    assert calibrate.knee_depth({1: nan, 2: 100.0, 4: 95.0}, 0.9) == 2
    assert calibrate.peak_depth({1: nan, 2: 100.0, 4: 150.0}) == 4
    assert calibrate.rise({1: nan, 2: 100.0, 4: 150.0}) == 1.5  # from the shallowest measured
    assert all(x != x for x in (calibrate.peak_depth({1: nan}), calibrate.knee_depth({}, 0.9), calibrate.rise({1: nan})))


def _table(rises: dict[int, dict[int, float]]) -> pd.DataFrame:
    """Runs of one workload: per seed and working set, IOPS at depths 1 and 4 (rise given)."""
    rows = [{"workload": "w", "seed": seed, "size": size, "qd": qd, "iops": 100.0 * (r if qd == 4 else 1.0), "status": "ok"}
            for seed, by_size in rises.items() for size, r in by_size.items() for qd in (1, 4)]
    return pd.DataFrame(rows)


CMP = {"kind": "knee", "metric": "iops", "x": "qd", "group": "size", "fraction": 0.9, "flat": 1.5}


def test_the_chosen_region_is_a_choice_not_an_average() -> None:
    # Seeds agree: their choice, with no interval.
    agree = reproduce._knee(CMP, _table({1: {1: 1.1, 4: 2.0}, 2: {1: 1.2, 4: 2.5}}), {"w": "jobs"})
    region = agree[agree["metric"].str.startswith("region")].iloc[0]
    assert (region["flashsched"], region["ci95"], region["note"]) == (4, 0, "")
    # Seeds disagree (seed 3's 4 rises 1.4x): not the mean 5.3 of 4, 4 and 8, but the rule on the
    # seed-mean curves (the 4 rises (2 + 2 + 1.4) / 3 = 1.8x), and the note says so.
    split = reproduce._knee(CMP, _table({1: {4: 2.0, 8: 3.0}, 2: {4: 2.0, 8: 3.0}, 3: {4: 1.4, 8: 3.0}}), {"w": "jobs"})
    region = split[split["metric"].str.startswith("region")].iloc[0]
    assert region["flashsched"] == 4 and "seeds disagree (regions 4, 4, 8)" in region["note"]


def test_a_curve_or_knee_with_another_swept_column_is_refused_before_running() -> None:
    exp = reproduce.load("pass-calibrate-depth")
    spec = {**exp["sweep"], "grid": {**exp["sweep"]["grid"], "host.scheduler": ["noop", "pass"]}}
    with pytest.raises(ValueError, match="host.scheduler also vary"):
        reproduce._check_outputs("x", exp, spec)
    bad = {**exp, "figure": {**exp["figure"], "where": {"host.scheduler": "noop"}}}
    with pytest.raises(ValueError, match="takes no where"):
        reproduce._check_outputs("x", bad, exp["sweep"])
