"""Sweeps and reproductions on a real Dask cluster: a scheduler and worker processes started on
127.0.0.1, the workers in another working folder than the client (as on a cluster, where each
runs wherever its job starts). Bounded in time; every process is stopped by the test."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from conftest import ROOT, write_trace

distributed = pytest.importorskip("distributed")
DASK = Path(sys.executable).with_name("dask")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        if p.poll() is None:
            p.terminate()
    for p in procs:
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=10)


@pytest.fixture
def cluster(tmp_path: Path):  # type: ignore[no-untyped-def]
    if not DASK.exists():
        pytest.skip("the dask command is not installed")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    (tmp_path / "scheduler").mkdir()
    (tmp_path / "workers").mkdir()
    procs: list[subprocess.Popen[bytes]] = []
    log = open(tmp_path / "cluster.log", "wb")
    try:
        procs.append(subprocess.Popen([str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                                      cwd=tmp_path / "scheduler", stdout=log, stderr=log))
        procs.append(subprocess.Popen([str(DASK), "worker", address, "--nworkers", "2", "--nthreads", "1", "--no-dashboard"],
                                      cwd=tmp_path / "workers", stdout=log, stderr=log))
        deadline = time.monotonic() + 90
        while True:
            try:
                with distributed.Client(address, timeout=5) as c:
                    c.wait_for_workers(2, timeout=max(1.0, deadline - time.monotonic()))
                break
            except (OSError, TimeoutError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        yield address
    finally:
        _stop(procs)
        log.close()


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "flashsched", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300, env={**os.environ, "NO_COLOR": "1"})


def test_sweep_and_reproduce_on_external_workers_in_another_folder(cluster: str, tmp_path: Path) -> None:
    """The trace is given relative to the spec's folder, and the client runs from a folder the
    workers are not in: every path reaches them absolute, and every run succeeds."""
    client = tmp_path / "client"
    (client / "specs" / "traces").mkdir(parents=True)
    write_trace(client / "specs" / "traces" / "t.trace", [f"{i * 20000} 0 {i * 8 % 4000} 8 {i % 2}" for i in range(400)])
    (client / "specs" / "s.toml").write_text(
        'config = "tiny"\nseeds = [1, 2]\n[grid]\n"host.queue_depth" = [2, 8]\n'
        '[[workloads]]\nname = "t"\ntrace = "traces/t.trace"\nformat = "mqsim"\n'
        '[[workloads]]\nname = "u"\nset = { kind = "synthetic", "synthetic.requests" = 300 }\n')
    r = _cli("sweep", "specs/s.toml", "--cluster", cluster, "-o", "out.parquet", "-q", cwd=client)
    assert r.returncode == 0, r.stderr
    table = pd.read_parquet(client / "out.parquet")
    assert len(table) == 8 and (table["status"] == "ok").all(), table[["workload", "status", "error"]]
    r = _cli("reproduce", "slacker-write", "--requests", "300", "--seeds", "1", "--workloads", "fin1",
             "--cluster", cluster, "-q", "-o", "rep", cwd=client)
    assert r.returncode == 0, r.stderr
    assert (client / "rep" / "comparison.csv").exists()


def test_workers_that_cannot_see_a_file_are_named_before_anything_runs() -> None:
    from flashsched import sweeps as sw

    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as lc:
        with distributed.Client(lc) as client:
            ex = sw.DaskExecutor(client=client)
            with pytest.raises(sw.SweepError, match="(?s)cannot see files.*/no/such/trace"):
                ex.check_files(["/no/such/trace", str(ROOT / "README.md")])
            ex.check_files([str(ROOT / "README.md")])


def test_sweep_through_a_job_queue(tmp_path: Path) -> None:
    """`--jobqueue` with dask-jobqueue's local cluster: workers started as jobs (processes on this
    machine) through the same machinery as SLURM's or PBS's."""
    pytest.importorskip("dask_jobqueue")
    client = tmp_path / "client"
    (client / "specs").mkdir(parents=True)
    write_trace(client / "specs" / "t.trace", [f"{i * 20000} 0 {i * 8 % 4000} 8 {i % 2}" for i in range(300)])
    (client / "specs" / "s.toml").write_text('config = "tiny"\nseeds = [1, 2]\n'
                                             '[[workloads]]\nname = "t"\ntrace = "t.trace"\nformat = "mqsim"\n')
    (client / "jq.toml").write_text('kind = "local"\njobs = 1\n[cluster]\ncores = 2\nprocesses = 2\nmemory = "2GB"\n'
                                    'scheduler_options = { host = "127.0.0.1", dashboard_address = ":0" }\n')
    r = _cli("sweep", "specs/s.toml", "--jobqueue", "jq.toml", "-o", "out.parquet", "-q", cwd=client)
    assert r.returncode == 0, r.stderr
    table = pd.read_parquet(client / "out.parquet")
    assert len(table) == 2 and (table["status"] == "ok").all(), table[["workload", "status", "error"]]
