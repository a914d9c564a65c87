"""The benchmark scripts' own logic (benches/): what they run must be valid configuration, and
their statistics must say what docs/performance.md says they do."""

from __future__ import annotations

import importlib.util
import statistics
import sys

import pytest

import flashsched

from conftest import ROOT


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benches" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(ROOT / "benches"))
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(ROOT / "benches"))
    return mod


policy_cost = load("policy_cost")


@pytest.mark.parametrize("name", list(policy_cost.POLICIES))
def test_every_policy_is_a_valid_configuration_of_the_reference_drive(name):
    sets, base = policy_cost.POLICIES[name]
    flashsched.resolve("bench8x8", sets=sets)  # raises ConfigError on a misspelt key or value
    if base is not None:
        # A base is measured in the same rounds and is the policy without the policy: the
        # device feature the policy acts on, and nothing else.
        base_sets, base_base = policy_cost.POLICIES[base]
        assert base_base is None
        assert set(base_sets) < set(sets)


def test_the_interval_is_deterministic_and_brackets_the_median():
    xs = [0.31, 0.28, 0.35, 0.30, 0.29, 0.40, 0.33, 0.27]
    lo, hi = policy_cost.interval(xs)
    assert (lo, hi) == policy_cost.interval(xs)
    assert min(xs) <= lo <= statistics.median(xs) <= hi <= max(xs)
    assert lo < hi
    assert policy_cost.interval([0.25] * 5) == (0.25, 0.25)
    assert policy_cost.interval([0.5]) == (0.5, 0.5)


def test_unknown_policies_and_missing_binaries_are_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["policy_cost.py", str(tmp_path / "nope")])
    with pytest.raises(SystemExit, match="not an executable"):
        policy_cost.main()
    fake = tmp_path / "bench"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sys, "argv", ["policy_cost.py", str(fake), "--only", "viso"])
    with pytest.raises(SystemExit, match="unknown policy viso"):
        policy_cost.main()
    # A binary that prints no timing (say, the benchmark without its trace) is an error, not a 0.
    monkeypatch.setattr(sys, "argv", ["policy_cost.py", str(fake), "--only", "paq", "--rounds", "1"])
    with pytest.raises(SystemExit, match="printed no wall_s_median"):
        policy_cost.main()
