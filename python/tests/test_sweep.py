"""Sweeps: expansion, ids, failures as rows, resume, retries after a crashed worker, Dask."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from flashsched import sweeps as sw

SYNTH = {"kind": "synthetic", "synthetic.requests": 400}


def spec(**extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": "t",
        "config": "tiny",
        "seeds": [1, 2],
        "grid": {"ftl.gc.threshold": [0.05, 0.1], "host.queue_depth": [4, 32]},
        "workloads": [{"name": "u", "set": SYNTH}],
    }
    base.update(extra)
    return base


def test_grid_expands_with_stable_ids() -> None:
    runs = sw.runs_of(spec())
    assert len(runs) == 8
    assert len({r.run_id for r in runs}) == 8
    assert [r.run_id for r in sw.runs_of(spec())] == [r.run_id for r in runs]
    assert runs[0].params == {"ftl.gc.threshold": 0.05, "host.queue_depth": 4, "workload": "u", "seed": 1}
    # the id follows the resolved config: the same run written differently has the same id
    same = sw.runs_of(spec(grid={"ftl.gc.threshold": [0.050], "host.queue_depth": [4]}, seeds=[1]))
    assert same[0].run_id == runs[0].run_id


def test_explicit_runs_and_preset_column() -> None:
    runs = sw.runs_of(spec(grid={}, runs=[{"host.queue_depth": 1}, {"host.queue_depth": 2}], config=["tiny", "bench8x8"], seeds=[1]))
    assert len(runs) == 4
    assert {r.params["config"] for r in runs} == {"tiny", "bench8x8"}


def test_variants_cross_the_grid() -> None:
    variants = [{"name": "fifo", "set": {"hil.scheduler": "fifo"}},
                {"name": "vios-static", "set": {"hil.scheduler": "vios", "hil.vios.unconflicted": "static"}}]
    runs = sw.runs_of(spec(variants=variants))
    assert len(runs) == 16 and len({r.run_id for r in runs}) == 16
    r = runs[-1]
    assert r.params == {"variant": "vios-static", "ftl.gc.threshold": 0.1, "host.queue_depth": 32, "workload": "u", "seed": 2}
    assert 'hil.scheduler="vios"' in r.sets and 'hil.vios.unconflicted="static"' in r.sets
    # A grid key the variant also sets wins (reproduce --set fixes a key for every run).
    fixed = sw.runs_of(spec(variants=variants, grid={"hil.scheduler": ["piq"]}, seeds=[1]))
    assert all('hil.scheduler="piq"' in r.sets and 'hil.scheduler="vios"' not in r.sets for r in fixed)
    assert [r.params["variant"] for r in fixed] == ["fifo", "vios-static"]
    # A fixed key that makes two variants one simulation is an error, not a lost row.
    with pytest.raises(sw.SweepError, match="are the same simulation"):
        sw.runs_of(spec(variants=[{"name": "a", "set": {"hil.scheduler": "fifo"}}, {"name": "b", "set": {"hil.scheduler": "piq"}}],
                        grid={"hil.scheduler": ["vios"]}))
    for bad, message in (([{"set": {}}], "non-empty name"), ([{"name": "a"}, {"name": "a"}], "'a' appears twice"),
                         ([{"name": "a", "sets": {}}], "unknown keys"), ({"name": "a"}, "array of tables")):
        with pytest.raises(sw.SweepError, match=message):
            sw.runs_of(spec(variants=bad))


def test_bad_spec_is_an_error() -> None:
    with pytest.raises(sw.SweepError, match="unknown sweep keys: bogus"):
        sw.runs_of(spec(bogus=1))
    with pytest.raises(sw.SweepError, match="grid.x: expected a non-empty list"):
        sw.runs_of(spec(grid={"x": 3}))


def test_sweep_table_failures_and_resume(tmp_path: Path) -> None:
    s = spec(runs=[{"device.geometry.channels": 0}])  # explicit runs replace the grid: 1 bad run x 2 seeds
    s["grid"] = {"host.queue_depth": [4, 8]}
    out = tmp_path / "r.parquet"
    table = sw.sweep(s, out, workers=2, progress=False)
    assert len(table) == 6  # 2 grid points + 1 explicit run, x 2 seeds
    failed = table[table["status"] == "failed"]
    assert len(failed) == 2 and failed["error"].str.contains("device.geometry.channels").all()
    ok = table[table["status"] == "ok"]
    assert (ok["requests"] == 400).all() and "write_amplification" in table.columns
    assert set(pd.read_parquet(out)["run_id"]) == set(table["run_id"])
    # resume: nothing is run again
    calls: list[int] = []
    again = sw.sweep(s, out, workers=2, progress=lambda d, t, f: calls.append(d))
    assert calls == [] and len(again) == 6
    # an interrupted sweep: only the checkpoint exists
    out.unlink()
    cp = out.with_name(out.name + ".partial.jsonl")
    cp.write_text("\n".join(json.dumps(r, default=str) for r in table.head(3).to_dict("records")) + "\n{\"run_id\": \"cut")
    resumed = sw.sweep(s, out, workers=2, progress=lambda d, t, f: calls.append(d))
    assert len(calls) == 3 and len(resumed) == 6 and not cp.exists()


def _crash_once(run: sw.Run) -> dict[str, Any]:
    marker = Path(os.environ["FLASHSCHED_TEST_MARKER"])
    if run.params["seed"] == 2 and not marker.exists():
        marker.write_text("crashed")
        os._exit(3)  # a worker dying, as a segfault would
    return sw.run_one(run)


class _CrashingExecutor(sw.LocalExecutor):
    def map_unordered(self, fn, items):  # type: ignore[override]
        return super().map_unordered(_crash_once, items)


def test_crashed_worker_runs_are_retried_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FLASHSCHED_TEST_MARKER", str(tmp_path / "marker"))
    table = sw.sweep(spec(grid={"host.queue_depth": [4]}), executor=_CrashingExecutor(workers=1), progress=False)
    assert (tmp_path / "marker").exists()
    assert len(table) == 2 and (table["status"] == "ok").all()


def test_dask_local_cluster() -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            table = sw.sweep(spec(), executor=sw.DaskExecutor(client=client), progress=False)
    assert len(table) == 8 and (table["status"] == "ok").all()
    local = sw.sweep(spec(), workers=2, progress=False)
    cols = ["run_id", "read_lat_mean_ns", "write_amplification"]
    assert table[cols].equals(local[cols]), "the executor must not change results"


def test_cli_sweep(tmp_path: Path) -> None:
    from conftest import cli

    p = tmp_path / "s.toml"
    p.write_text('config = "tiny"\nseeds = [1]\n[grid]\n"host.queue_depth" = [2, 8]\n'
                 '[[workloads]]\nname = "u"\nset = { kind = "synthetic", "synthetic.requests" = 300 }\n')
    r = cli("sweep", str(p), "--csv", str(tmp_path / "s.csv"), "-q")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "s.parquet").exists() and len(pd.read_csv(tmp_path / "s.csv")) == 2
    bad = tmp_path / "bad.toml"
    bad.write_text("config = 'tiny'\nwhat = 1\n")
    r = cli("sweep", str(bad))
    assert r.returncode == 2 and "unknown sweep keys" in r.stderr


def test_grid_keys_override_a_profiles_defaults_and_clash_with_a_workloads_set() -> None:
    # A profile sets uniform addresses; a grid over the address distribution must replace them
    # (it was silently overridden by the profile once).
    spec = {"config": "tiny", "seeds": [1], "grid": {"workload.synthetic.address": ["zipf"]},
            "workloads": [{"name": "src", "profile": "vios2016/src", "requests": 200}]}
    (run,) = sw.Spec.load(spec).expand()
    resolved, _ = sw._core.resolve_config(list(run.sources), list(run.sets))
    assert 'address = "zipf"' in resolved
    clash = {**spec, "workloads": [{"name": "u", "set": {"synthetic.address": "hotcold"}}]}
    with pytest.raises(sw.SweepError, match="workload.synthetic.address set both"):
        sw.Spec.load(clash).expand()


def test_cli_sweep_exit_status_says_whether_runs_failed(tmp_path: Path) -> None:
    """A sweep with failed runs does not exit 0: 2 when every failure is bad input (a trace line,
    a key), with each failed run named on stderr; the table still holds every run."""
    from conftest import cli

    trace = tmp_path / "bad.trace"
    trace.write_text("0 0 0 8 1\n1000 0 8 8 1\n2000 0 x 8 1\n")
    p = tmp_path / "s.toml"
    p.write_text('config = "tiny"\nseeds = [1]\n[grid]\n"host.queue_depth" = [2, 8]\n'
                 '[[workloads]]\nname = "u"\nset = { kind = "synthetic", "synthetic.requests" = 300 }\n'
                 f'[[workloads]]\nname = "bad"\ntrace = "{trace}"\n')
    r = cli("sweep", str(p), "--csv", str(tmp_path / "s.csv"), "-q")
    assert r.returncode == 2, r.stderr
    assert "4 runs, 2 failed" in r.stderr, r.stderr
    assert r.stderr.count("failed: run ") == 2 and f"{trace}:3:" in r.stderr, r.stderr
    table = pd.read_csv(tmp_path / "s.csv")
    assert len(table) == 4 and (table["status"] == "failed").sum() == 2
    # A failure of the simulation itself (not of its input) is exit 1.
    assert not sw.failures_are_bad_input(pd.DataFrame({"status": ["ok", "failed"], "error": ["", "worker crashed twice: x"]}))
    assert sw.failures_are_bad_input(pd.DataFrame({"status": ["failed"], "error": ["ConfigError: --set: x: bad"]}))


def test_a_broken_pipe_other_than_stdout_is_a_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a closed standard output is a quiet exit: a broken pipe to a helper process (the
    resource tracker of multiprocessing, a worker) is a failure, said and exit 1."""
    import subprocess
    import sys

    from flashsched import cli as cli_mod

    def broken(_args: Any) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setitem(cli_mod.__dict__, "_policies", broken)
    with open(tmp_path / "out.txt", "w") as f:
        monkeypatch.setattr(sys, "stdout", f)
        assert cli_mod.main(["policies"]) == 1
    # And a reader that goes away early (`flashsched policies | head -1`) is still a quiet exit 0.
    code = "import sys; from flashsched.cli import main; sys.exit(main(['policies']))"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    proc.stdout.readline()
    proc.stdout.close()
    assert proc.wait(timeout=60) == 0


def test_kill_9_of_a_sweep_leaves_no_worker_behind(tmp_path: Path) -> None:
    """`kill -9` gives the pool no chance to stop its workers: they must end with their parent."""
    import signal
    import subprocess
    import sys
    import time

    psutil = pytest.importorskip("psutil")
    p = tmp_path / "s.toml"
    p.write_text('config = "tiny"\nseeds = [1, 2, 3, 4]\n'
                 '[[workloads]]\nname = "u"\nset = { kind = "synthetic", "synthetic.requests" = 3000000 }\n')
    proc = subprocess.Popen([sys.executable, "-m", "flashsched", "sweep", str(p), "--workers", "2", "-q",
                             "-o", str(tmp_path / "s.parquet")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        parent = psutil.Process(proc.pid)
        deadline = time.monotonic() + 60
        workers: list[Any] = []
        while time.monotonic() < deadline:
            workers = [c for c in parent.children(recursive=True) if "spawn_main" in " ".join(c.cmdline())]
            if len(workers) >= 2:
                break
            time.sleep(0.2)
        assert len(workers) >= 2, "the sweep's workers did not start"
        everything = parent.children(recursive=True)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    gone, alive = psutil.wait_procs(everything, timeout=10)
    for q in alive:
        q.kill()
    assert not alive, f"left running after kill -9 of the sweep: {[q.cmdline() for q in alive]}"
