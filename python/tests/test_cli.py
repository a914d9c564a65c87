"""The CLI as a user meets it: outputs, exit codes, error messages, nothing half-written."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import SYNTH, cli, write_trace


def test_run_writes_fio_json_to_stdout() -> None:
    p = cli("run", "--preset", "tiny", "-q", *SYNTH)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["jobs"][0]["write"]["clat_ns"]["percentile"]["99.000000"] > 0
    assert doc["flashsched"]["requests_completed"] == 2000
    assert doc["ssd"]["invariants"] == "ok"


def test_run_outputs_to_files(tmp_path: Path) -> None:
    out, csv, log, series = tmp_path / "r.json", tmp_path / "s.csv", tmp_path / "req.parquet", tmp_path / "i.jsonl"
    p = cli("run", "--preset", "tiny", *SYNTH, "-o", str(out), "--csv", str(csv), "--request-log", str(log),
            "--set", "stats.interval=5ms", "--intervals", str(series))
    assert p.returncode == 0, p.stderr
    assert json.loads(out.read_text())["jobs"][0]["jobname"] == "tiny"
    header, row = csv.read_text().splitlines()
    assert "write_amplification" in header.split(",") and len(row.split(",")) == len(header.split(","))
    import pandas as pd

    frame = pd.read_parquet(log)
    assert len(frame) == 2000 and {"lat_ns", "die_wait_ns", "array_ns"} <= set(frame.columns)
    lines = series.read_text().splitlines()
    assert len(lines) > 3 and json.loads(lines[0])["type"] == "interval"
    assert "latency (us)" in p.stdout  # the summary table goes to stdout when results go to -o


def test_request_log_streamed_is_what_the_in_memory_log_gave(tmp_path: Path) -> None:
    """--request-log streams the log to disk during the run; the file is what writing the log kept
    in memory with pandas gives (and gave before it was streamed): CSV byte for byte, Parquet the
    same frame."""
    import pandas as pd

    import flashsched

    sets = [SYNTH[1], SYNTH[3], "workload.warmup=100"]
    csv, parquet = tmp_path / "sub" / "req.csv", tmp_path / "req.parquet"
    for log in (csv, parquet):
        p = cli("run", "--preset", "tiny", "-q", "--set", sets[0], "--set", sets[1], "--set", sets[2],
                "--request-log", str(log), "-o", str(tmp_path / "r.json"))
        assert p.returncode == 0, p.stderr
    frame = flashsched.simulate("tiny", sets=sets, request_log=True).requests
    assert frame is not None and len(frame) == 1900
    assert csv.read_text() == frame.to_csv(index=False, lineterminator="\n")
    pd.testing.assert_frame_equal(pd.read_parquet(parquet), frame)
    assert sorted(x.name for x in tmp_path.iterdir()) == ["r.json", "req.parquet", "sub"], "no staging file left"
    assert [x.name for x in (tmp_path / "sub").iterdir()] == ["req.csv"]


def test_failed_run_leaves_no_request_log(tmp_path: Path) -> None:
    # The trace turns out malformed after 3000 requests have been simulated and logged.
    lines = [f"{i * 20000} 0 {(i % 512) * 8} 8 {i % 2}" for i in range(3000)] + ["x 0 8 8 1"]
    trace = write_trace(tmp_path / "bad.trace", lines)
    old = tmp_path / "old.csv"
    old.write_text("an earlier log\n")
    for log in (tmp_path / "logs" / "req.csv", tmp_path / "req.parquet", old):
        p = cli("run", "--preset", "tiny", "-q", "--trace", str(trace), "--format", "mqsim", "--request-log", str(log),
                "--write-lat-log", str(tmp_path / "lat"), "-o", str(tmp_path / "r.json"))
        assert p.returncode == 2 and f"{trace}:3001:" in p.stderr, p.stderr
    assert old.read_text() == "an earlier log\n"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["bad.trace", "logs", "old.csv"]
    assert not list((tmp_path / "logs").iterdir()), "the directory is created, nothing is left in it"
    # A directory in the way: an error before the run.
    p = cli("run", "--preset", "tiny", "-q", *SYNTH, "--request-log", str(tmp_path / "logs"))
    assert p.returncode == 2 and f"cannot write {tmp_path / 'logs'}: it is a directory" in p.stderr, p.stderr
    # A file of interval statistics without stats.interval: an error before the run, and the log
    # is not put in place either.
    p = cli("run", "--preset", "tiny", "-q", *SYNTH, "--request-log", str(old), "--intervals", str(tmp_path / "i.jsonl"))
    assert p.returncode == 2 and "stats.interval: must be positive to write interval statistics" in p.stderr, p.stderr
    assert old.read_text() == "an earlier log\n"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["bad.trace", "logs", "old.csv"]


def test_intervals_stream_to_their_file_and_are_capped(tmp_path: Path) -> None:
    """The interval windows go to their file as they close (the run's memory does not hold them),
    and an interval far shorter than the run is refused when it passes stats.max_intervals,
    leaving no file behind; a 1 ns interval on 2,000 requests used to reach 5.4 GB."""
    series = tmp_path / "s.jsonl"
    p = cli("run", "--preset", "tiny", "-q", *SYNTH, "--set", "stats.interval=1ms", "--intervals", str(series),
            "-o", str(tmp_path / "r.json"))
    assert p.returncode == 0, p.stderr
    lines = series.read_text().splitlines()
    sim_ns = json.loads((tmp_path / "r.json").read_text())["ssd"]["simulated_time_ns"]
    assert len(lines) == -(-sim_ns // 1_000_000), (len(lines), sim_ns)
    assert [json.loads(x)["start_ns"] for x in lines[:3]] == [0, 1_000_000, 2_000_000]
    for extra in ([], ["--intervals", str(tmp_path / "t.jsonl")]):
        p = cli("run", "--preset", "tiny", "-q", *SYNTH, "--set", "stats.interval=1ns", "-o", str(tmp_path / "x.json"),
                *extra, timeout=60)
        assert p.returncode == 2, p.stderr
        assert "stats.interval: 1 ns makes more than stats.max_intervals = 100000 windows" in p.stderr, p.stderr
    assert sorted(x.name for x in tmp_path.iterdir()) == ["r.json", "s.jsonl"]


def test_unknown_key_exit_2_with_suggestion(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    p = cli("run", "--preset", "tiny", *SYNTH, "--set", "device.geometry.chanels=4", "-o", str(out))
    assert p.returncode == 2
    assert "device.geometry.chanels: unknown key (did you mean device.geometry.channels?)" in p.stderr
    assert not out.exists()


def test_every_config_problem_at_once(tmp_path: Path) -> None:
    cfg = tmp_path / "bad.toml"
    cfg.write_text('preset = "tiny"\n[device.geometry]\nchannels = 0\npage_size = "3000B"\n[ftl]\nbogus = 1\n')
    p = cli("run", "--config", str(cfg), *SYNTH)
    assert p.returncode == 2
    err = p.stderr
    assert "device.geometry.channels: must be at least 1 (got 0)" in err
    assert "ftl.bogus: unknown key" in err
    assert str(cfg) in err


def test_impossible_geometry(tmp_path: Path) -> None:
    p = cli("run", "--preset", "tiny", *SYNTH, "--set", "ftl.overprovisioning=0.01")
    assert p.returncode == 2
    assert "ftl.overprovisioning" in p.stderr and "spare blocks" in p.stderr
    p = cli("run", "--preset", "tiny", *SYNTH, "--set", "device.geometry.blocks_per_plane=16777216",
            "--set", "device.geometry.pages_per_block=65535")
    assert p.returncode == 2 and "pages; at most" in p.stderr
    # No logical page left (it used to panic on a division by zero): a config error with its key.
    p = cli("run", "--preset", "tiny", *SYNTH, "--set", "device.geometry.blocks_per_plane=4",
            "--set", "device.geometry.pages_per_block=1", "--set", "ftl.overprovisioning=0.9")
    assert p.returncode == 2, p.stderr
    assert "ftl.overprovisioning: leaves no logical page" in p.stderr and "Traceback" not in p.stderr


def test_bad_trace_lines_name_file_and_line(tmp_path: Path) -> None:
    cases = {
        "negative.trace": (["0 0 8 8 1", "10 0 8 -8 1"], ":2: size \"-8\" is not a positive integer"),
        "zero.trace": (["0 0 8 8 1", "10 0 8 0 0"], ":2: size \"0\" is not a positive integer"),
        "truncated.trace": (["0 0 8 8 1", "5 0 8 8 1", "10 0 8"], ":3: expected 5 fields"),
        "malformed.trace": (["0 0 8 8 1", "x 0 8 8 1"], ":2: time \"x\""),
        # 2^55 - 1 sectors: the extent ends past 2^64 bytes (it used to wrap and "complete").
        "wrapping.trace": (["0 0 8 8 1", "10 0 36028797018963967 16 1"],
                           ":2: offset 18446744073709551104 + length 8192 bytes runs past the largest byte address"),
    }
    for name, (lines, message) in cases.items():
        trace = write_trace(tmp_path / name, lines)
        out = tmp_path / f"{name}.json"
        p = cli("run", "--preset", "tiny", "--trace", str(trace), "--format", "mqsim", "-o", str(out))
        assert p.returncode == 2, (name, p.stderr)
        assert f"{trace}{message}" in p.stderr, (name, p.stderr)
        assert not out.exists(), name


def test_empty_trace(tmp_path: Path) -> None:
    trace = write_trace(tmp_path / "empty.trace", [])
    p = cli("run", "--preset", "tiny", "--trace", str(trace), "--format", "mqsim")
    assert p.returncode == 2 and "holds no requests" in p.stderr
    p = cli("run", "--preset", "tiny", "--trace", str(trace))
    assert p.returncode == 2 and "cannot tell the trace format" in p.stderr


def test_missing_files_and_bad_usage(tmp_path: Path) -> None:
    assert cli("run", "--preset", "tiny", "--trace", str(tmp_path / "nope.csv")).returncode == 2
    assert cli("run", "--config", str(tmp_path / "nope.toml")).returncode == 2
    assert cli("run").returncode == 2
    assert cli("frobnicate").returncode == 2
    p = cli("run", "--preset", "vios2017", *SYNTH)
    assert p.returncode == 2 and "did you mean vios2016" in p.stderr


def test_fold_error_reports_the_line(tmp_path: Path) -> None:
    trace = write_trace(tmp_path / "far.trace", ["0 0 8 8 1", "10 0 999999999999 8 1"])
    p = cli("run", "--preset", "tiny", "--trace", str(trace), "--set", "workload.fold=error")
    assert p.returncode == 2 and f"{trace}:2: bytes" in p.stderr
    assert cli("run", "--preset", "tiny", "-q", "--trace", str(trace)).returncode == 0


def test_config_show_and_schema() -> None:
    p = cli("config", "show", "vios2016", "--set", "device.geometry.channels=4")
    assert p.returncode == 0
    assert 'page_size = "2KiB"  # from preset vios2016' in p.stdout
    assert "channels = 4  # from --set" in p.stdout
    schema = json.loads(cli("config", "schema").stdout)
    assert schema["properties"]["device"]["properties"]["geometry"]["additionalProperties"] is False
    assert "bench8x8" in cli("config", "presets").stdout


def test_trace_stats_on_generated_trace(tmp_path: Path) -> None:
    trace = write_trace(tmp_path / "t.trace", ["0 0 0 8 1", "1000 0 8 16 0", "3000 0 64 8 0"])
    p = cli("trace", "stats", str(trace), "--json")
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    assert (s["requests"], s["reads"], s["writes"], s["format"]) == (3, 1, 2, "mqsim")
    assert s["interarrival_ns"]["mean"] == 1500
    assert "requests" in cli("trace", "stats", str(trace)).stdout


def test_trace_stats_counts_page_rereads_until_a_rewrite(tmp_path: Path) -> None:
    # Pages 0 and 1 (8 sectors each): read 0; read 0-1 (0 again: a re-read); write 0; read 0-1
    # (1 is a re-read, 0 was rewritten since); read 1 (a re-read). 6 page reads, 3 re-reads.
    lines = ["0 0 0 8 1", "10 0 0 16 1", "20 0 0 8 0", "30 0 0 16 1", "40 0 8 8 1"]
    s = json.loads(cli("trace", "stats", str(write_trace(tmp_path / "t.trace", lines)), "--json").stdout)
    assert (s["page_reads"], s["page_rereads"], s["reread_fraction"]) == (6, 3, 0.5)
    assert (s["footprint_bytes"], s["written_footprint_bytes"]) == (8192, 4096)
    assert "page re-reads" in cli("trace", "stats", str(tmp_path / "t.trace")).stdout


def test_trace_synth_errors_are_one_line_exit_2_and_write_nothing(tmp_path: Path) -> None:
    out = tmp_path / "t.trace"
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    under_a_file = not_a_dir / "t.trace"
    cases = [
        (["nope/x", "-o", str(out)], "unknown trace profile 'nope/x'"),
        (["vios2016/src", "-o", str(out), "--requests", "0"], "--requests must be at least 1 (got 0)"),
        (["vios2016/src", "-o", str(out), "--requests", "-3"], "--requests must be at least 1 (got -3)"),
        (["vios2016/src", "-o", str(out), "--requests", "5", "--seed", "-1"], "--seed must be"),
        (["vios2016/src", "-o", str(out), "--requests", str(2**70)], "--requests must be at most"),
        (["vios2016/src", "-o", str(under_a_file), "--requests", "5"], f"cannot write {under_a_file}: "),
        (["vios2016/src", "-o", str(tmp_path), "--requests", "5"], f"cannot write {tmp_path}: it is a directory"),
    ]
    for args, message in cases:
        p = cli("trace", "synth", *args)
        assert p.returncode == 2, (args, p.stderr)
        assert message in p.stderr, (args, p.stderr)
        assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1, (args, p.stderr)
    assert list(tmp_path.iterdir()) == [not_a_dir], "no output or temporary file is left behind"
    assert not list(tmp_path.parent.glob(f".{tmp_path.name}.tmp*")), "no temporary file beside the directory"
    out = tmp_path / "new" / "t.trace"  # parent directories are created, as for every output
    p = cli("trace", "synth", "vios2016/src", "-o", str(out), "--requests", "7", "--seed", "0")
    assert p.returncode == 0, p.stderr
    assert len([l for l in out.read_text().splitlines() if not l.startswith("#")]) == 7


def test_demo(tmp_path: Path) -> None:
    p = cli("demo", "-q", "-o", str(tmp_path / "out"), timeout=300)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "out" / "result.json").exists() and (tmp_path / "out" / "summary.csv").exists()
    assert "write amplification" in p.stdout


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_ctrl_c_and_sigterm_stop_cleanly(tmp_path: Path, sig: int) -> None:
    """Ctrl-C and SIGTERM (what `kill` and job schedulers send) both stop a run and leave no output
    and no temporary file of the streamed request log, latency logs or intervals behind."""
    out = tmp_path / "r.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "flashsched", "run", "--preset", "bench8x8", "-q", "-o", str(out),
         "--set", "workload.kind=synthetic", "--set", "workload.synthetic.requests=100000000",
         "--request-log", str(tmp_path / "req.csv"), "--write-lat-log", str(tmp_path / "lat"),
         "--set", "stats.interval=100ms", "--intervals", str(tmp_path / "i.jsonl")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "NO_COLOR": "1"},
        # A test run in the background (nohup, `make test &`) inherits an ignored SIGINT, and Python
        # keeps it ignored: give the child the default disposition, as a terminal would.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(2.0)
    proc.send_signal(sig)
    try:
        # Generous: on a loaded 2-core machine the child may get little CPU.
        _, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    assert proc.returncode == (130 if sig == signal.SIGINT else 143), err
    assert ("interrupted" if sig == signal.SIGINT else "terminated") in err
    assert not list(tmp_path.iterdir()), "no output, no log streamed so far, no temporary file"


def test_policies_lists_every_layer() -> None:
    p = cli("policies")
    assert p.returncode == 0
    for text in ("host (host.scheduler", "pass ", "mq-deadline", "transaction (tsu.scheduler", "host.pass.batch_threshold (16)"):
        assert text in p.stdout
