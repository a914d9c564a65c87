"""fio compatibility checked with fio's own tools (the `fio` Debian package): json+ latency bins read
by fio_jsonplus_clat2csv, and fio-style latency logs (--write-lat-log) read by fio2gnuplot."""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
from pathlib import Path

import pytest

import flashsched
from conftest import SYNTH, cli, write_trace

FIO_PYTHON = "/usr/bin/python3"  # fio's tools are scripts for the system Python (they need python3-six)
DDIRS = ("read", "write", "trim")
LATS = ("slat_ns", "clat_ns", "lat_ns")


def fio_tool(name: str) -> str:
    """The path of one of fio's scripts, or skip when fio is not installed."""
    path = shutil.which(name, path="/usr/bin:/usr/local/bin")
    if path is None:
        pytest.skip(f"{name} not found: fio is not installed (apt-get install fio python3-six; .ci/run does)")
    ok = Path(FIO_PYTHON).exists() and subprocess.run([FIO_PYTHON, "-c", "import six"], capture_output=True).returncode == 0
    if not ok:
        pytest.skip(f"{name} cannot run: fio's scripts need {FIO_PYTHON} with six (apt-get install python3-six)")
    return path


def run_fio_tool(tool: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    p = subprocess.run([FIO_PYTHON, tool, *args], capture_output=True, text=True, cwd=cwd, timeout=120)
    assert p.returncode == 0, f"{tool} failed:\n{p.stdout}\n{p.stderr}"
    return p


def fio_plat_idx(v: int) -> int:
    """fio's plat_val_to_idx (stat.c), written again here to check the simulator's bins independently."""
    msb = v.bit_length() - 1 if v > 0 else 0
    if msb <= 6:
        return v
    error_bits = msb - 6
    return min(((error_bits + 1) << 6) + ((v >> error_bits) & 63), 1855)


def fio_plat_val(idx: int) -> int:
    """fio's plat_idx_to_val: the middle of the bin."""
    if idx < 128:
        return idx
    error_bits = (idx >> 6) - 1
    return (1 << (error_bits + 6)) + int((idx % 64 + 0.5) * (1 << error_bits))


def mixed_iolog(path: Path) -> Path:
    """An fio iolog v3 with reads, writes, trims and syncs (the synthetic generator makes no trims)."""
    lines = ["fio version 3 iolog", "0 dev add", "0 dev open"]
    t = 0
    for i in range(1200):
        t += 37 + (i * 7919) % 150
        op = ("write", "read", "write", "trim", "read", "sync")[i % 6]
        offset = ((i * 2654435761) % 4096) * 4096
        size = 4096 * (1 + i % 4)
        lines.append(f"{t} dev sync" if op == "sync" else f"{t} dev {op} {offset} {size}")
    return write_trace(path, lines)


def check_csv_against_bins(csv_path: Path, job: dict) -> None:
    with csv_path.open() as f:
        rows = [[c.strip() for c in r] for r in csv.reader(f)]
    header, body = rows[0], rows[1:]
    col = {name: i for i, name in enumerate(header)}
    keys = set()
    for ddir in DDIRS:
        for lat in LATS:
            keys |= {int(k) for k in job[ddir][lat].get("bins", {})}
    assert len(body) == len(keys) and [int(r[0]) for r in body] == sorted(keys), "one row per distinct bin value"
    for ddir in DDIRS:
        total = job[ddir]["total_ios"]
        for lat in LATS:
            name = f"{ddir}_{lat}"
            bins = {int(k): v for k, v in job[ddir][lat].get("bins", {}).items()}
            assert (total > 0) == bool(bins), name
            seen = [(int(r[0]), int(r[col[f"{name}_count"]]), int(r[col[f"{name}_cumulative"]]),
                     float(r[col[f"{name}_percentile"]])) for r in body if r[col[f"{name}_count"]]]
            assert {v: c for v, c, _, _ in seen} == bins, name
            running = 0
            for _, count, cumulative, pct in seen:
                running += count
                assert cumulative == running and pct == pytest.approx(running / total), name
            if total:
                assert running == total == job[ddir][lat]["N"], name
                # Percentiles read off the CSV land in the fio bin of our HDR percentiles.
                for p in ("50.000000", "90.000000", "99.000000"):
                    from_csv = next(v for v, _, _, pct in seen if pct >= float(p) / 100 - 1e-12)
                    ours = job[ddir][lat]["percentile"][p]
                    assert from_csv == fio_plat_val(fio_plat_idx(ours)), (name, p, from_csv, ours)


def test_jsonplus_bins_read_by_fio_jsonplus_clat2csv(tmp_path: Path) -> None:
    tool = fio_tool("fio_jsonplus_clat2csv")
    out = tmp_path / "r.json"
    p = cli("run", "--preset", "tiny", "-q", *SYNTH, "--set", "workload.synthetic.read_ratio=0.5",
            "--set", "workload.synthetic.interarrival=20us", "--output-format", "json+", "-o", str(out))
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text())
    job = doc["jobs"][0]
    assert job["read"]["total_ios"] > 500 and job["write"]["total_ios"] > 500
    for ddir in ("read", "write"):
        for lat in LATS:
            bins = job[ddir][lat]["bins"]
            assert all(fio_plat_val(fio_plat_idx(int(k))) == int(k) for k in bins), "keys are fio bin values"
    # Queueing in the host makes slat and lat differ from clat: all three series are exercised.
    assert job["read"]["slat_ns"]["max"] > 0 and job["read"]["lat_ns"]["bins"] != job["read"]["clat_ns"]["bins"]
    run_fio_tool(tool, str(out), str(tmp_path / "lat.csv"), cwd=tmp_path)
    check_csv_against_bins(tmp_path / "lat_job0.csv", job)
    assert "lat_job0.csv validated" in run_fio_tool(tool, str(out), str(tmp_path / "lat.csv"), "--validate",
                                                    cwd=tmp_path).stdout


def test_jsonplus_with_trims_and_an_empty_direction(tmp_path: Path) -> None:
    tool = fio_tool("fio_jsonplus_clat2csv")
    trace = mixed_iolog(tmp_path / "mixed.iolog")
    out = tmp_path / "r.json"
    p = cli("run", "--preset", "tiny", "-q", "--trace", str(trace), "--output-format", "json+", "-o", str(out))
    assert p.returncode == 0, p.stderr
    job = json.loads(out.read_text())["jobs"][0]
    assert job["trim"]["total_ios"] == 200 and "bins" in job["trim"]["clat_ns"]
    run_fio_tool(tool, str(out), str(tmp_path / "lat.csv"), cwd=tmp_path)
    check_csv_against_bins(tmp_path / "lat_job0.csv", job)
    # Reads only: write and trim have no requests, hence no bins, and the tool still works.
    reads = write_trace(tmp_path / "reads.iolog", ["fio version 2 iolog", "dev add"]
                        + [f"dev read {i * 8192} 4096" for i in range(300)])
    p = cli("run", "--preset", "tiny", "-q", "--trace", str(reads), "--output-format", "json+", "-o", str(out))
    assert p.returncode == 0, p.stderr
    job = json.loads(out.read_text())["jobs"][0]
    assert "bins" not in job["write"]["clat_ns"] and "bins" not in job["trim"]["lat_ns"]
    run_fio_tool(tool, str(out), str(tmp_path / "reads.csv"), cwd=tmp_path)
    check_csv_against_bins(tmp_path / "reads_job0.csv", job)


def test_plain_json_has_no_bins_and_bad_format_is_usage_error(tmp_path: Path) -> None:
    p = cli("run", "--preset", "tiny", "-q", *SYNTH)
    assert p.returncode == 0, p.stderr
    assert "bins" not in json.loads(p.stdout)["jobs"][0]["write"]["clat_ns"]  # as fio without json+
    p = cli("run", "--preset", "tiny", "-q", *SYNTH, "--output-format", "xml")
    assert p.returncode == 2 and "invalid choice: 'xml'" in p.stderr


def read_log(path: Path) -> list[list[int]]:
    lines = path.read_text().splitlines()
    assert all(", " in line for line in lines)
    return [[int(c) for c in line.split(", ")] for line in lines]


def test_lat_logs_one_line_per_measured_request(tmp_path: Path) -> None:
    trace = mixed_iolog(tmp_path / "mixed.iolog")
    prefix = tmp_path / "logs" / "run"
    req = tmp_path / "req.csv"
    p = cli("run", "--preset", "tiny", "-q", "--trace", str(trace), "--set", "workload.warmup=100",
            "--write-lat-log", str(prefix), "--request-log", str(req), "-o", str(tmp_path / "r.json"))
    assert p.returncode == 0, p.stderr
    job = json.loads((tmp_path / "r.json").read_text())["jobs"][0]
    import pandas as pd

    frame = pd.read_csv(req)
    frame = frame[frame["op"] != "flush"]  # fio logs no latency for syncs
    measured = sum(job[d]["total_ios"] for d in DDIRS)
    assert len(frame) == measured == sum(1 for i in range(100, 1200) if i % 6 != 5)  # after warm-up, not syncs
    ddir = frame["op"].map({"read": 0, "write": 1, "trim": 2}).to_numpy()
    logs = {kind: read_log(tmp_path / "logs" / f"run_{kind}.1.log") for kind in ("lat", "clat", "slat")}
    assert sorted(p.name for p in (tmp_path / "logs").iterdir()) == ["run_clat.1.log", "run_lat.1.log",
                                                                     "run_slat.1.log"]
    for kind, start, time_col in (("lat", "arrival_ns", "complete_ns"), ("clat", "dispatch_ns", "complete_ns")):
        rows = logs[kind]
        assert len(rows) == measured and all(len(r) == 6 for r in rows), kind
        assert [r[0] for r in rows] == list(frame[time_col] // 1_000_000), f"{kind}: time is ms of completion"
        assert [r[1] for r in rows] == list(frame["complete_ns"] - frame[start]), kind
        assert [r[2] for r in rows] == list(ddir)
        assert [r[3] for r in rows] == list(frame["len"]) and [r[4] for r in rows] == list(frame["offset"])
        assert {r[5] for r in rows} == {0}
        for d, name in enumerate(DDIRS):
            values = sorted(r[1] for r in rows if r[2] == d)
            assert len(values) == job[name]["total_ios"]
            assert (values[0], values[-1]) == (job[name][f"{kind}_ns"]["min"], job[name][f"{kind}_ns"]["max"])
            assert sum(values) / len(values) == pytest.approx(job[name][f"{kind}_ns"]["mean"], abs=1e-3)
    slat = logs["slat"]
    by_dispatch = frame.sort_values("dispatch_ns", kind="stable")
    assert [r[0] for r in slat] == list(by_dispatch["dispatch_ns"] // 1_000_000), "slat: at dispatch, in order"
    assert [r[1] for r in slat] == list(by_dispatch["dispatch_ns"] - by_dispatch["arrival_ns"])
    # lat = slat + clat for every request: lat and clat lines are in the same (completion) order.
    assert [a[1] - b[1] for a, b in zip(logs["lat"], logs["clat"])] == list(frame["dispatch_ns"] - frame["arrival_ns"])
    assert sorted(a[1] - b[1] for a, b in zip(logs["lat"], logs["clat"])) == sorted(r[1] for r in slat)


def test_lat_log_read_by_fio2gnuplot(tmp_path: Path) -> None:
    tool = fio_tool("fio2gnuplot")
    prefix = tmp_path / "run"
    p = cli("run", "--preset", "tiny", "-q", *SYNTH, "--write-lat-log", str(prefix), "-o", str(tmp_path / "r.json"))
    assert p.returncode == 0, p.stderr
    rows = read_log(tmp_path / "run_clat.1.log")
    assert len(rows) == 2000
    run_fio_tool(tool, "-p", "*_clat.1.log", "-k", "-d", "gp", "-t", "clat", cwd=tmp_path)
    stats = dict(line.split("=") for line in (tmp_path / "gp" / "_clat.1.global").read_text().split())
    # fio2gnuplot keeps samples with time > 0 ms (its --min_time default).
    values = [r[1] for r in rows if r[0] > 0]
    assert int(stats["values_count"]) == len(values) > 1000
    assert float(stats["min"]) == min(values) and float(stats["max"]) == max(values)
    assert float(stats["avg"]) == pytest.approx(sum(values) / len(values), abs=0.01)


def test_lat_log_bad_prefix_exit_2_and_nothing_written(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    p = cli("run", "--preset", "tiny", "-q", *SYNTH, "--write-lat-log", "", "-o", str(out))
    assert p.returncode == 2 and "--write-lat-log: the prefix is empty" in p.stderr
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    p = cli("run", "--preset", "tiny", "-q", *SYNTH, "--write-lat-log", str(blocker / "run"), "-o", str(out))
    assert p.returncode == 2 and str(blocker) in p.stderr, p.stderr
    assert not out.exists()
    (tmp_path / "run_slat.1.log").mkdir()  # the last of the three cannot be written
    p = cli("run", "--preset", "tiny", "-q", *SYNTH, "--write-lat-log", str(tmp_path / "run"), "-o", str(out))
    assert p.returncode == 2 and "run_slat.1.log" in p.stderr, p.stderr
    assert sorted(x.name for x in tmp_path.iterdir()) == ["file", "run_slat.1.log"]


def test_python_api_json_plus_and_lat_logs(tmp_path: Path) -> None:
    r = flashsched.simulate("tiny", {"kind": "synthetic", "synthetic": {"requests": 500}}, json_plus=True,
                            write_lat_log=tmp_path / "api")
    write = r.json["jobs"][0]["write"]
    assert sum(write["lat_ns"]["bins"].values()) == write["total_ios"] > 0
    assert r.lat_logs == [tmp_path / f"api_{k}.1.log" for k in ("lat", "clat", "slat")]
    assert all(len(read_log(p)) == 500 for p in r.lat_logs)
    assert r.requests is None  # the rows stayed in the simulator
    with pytest.raises(ValueError, match="prefix is empty"):
        flashsched.simulate("tiny", {"kind": "synthetic", "synthetic": {"requests": 10}}, write_lat_log="")
