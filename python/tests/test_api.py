"""The Python API: configs as dicts, overrides, DataFrames, errors, determinism."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import flashsched
from flashsched import ConfigError, TraceError

SYNTH = {"kind": "synthetic", "synthetic": {"requests": 3000, "interarrival": "40us"}}


def test_simulate_with_dict_and_overrides() -> None:
    r = flashsched.simulate("tiny", SYNTH, device__geometry__channels=1, seed=3)
    assert r.json["global options"]["device.geometry.channels"] == "1"
    assert r.json["flashsched"]["seed"] == 3
    assert r.summary["requests"] == 3000
    assert set(r.latency["direction"]) == {"read", "write"}
    assert {"die_wait", "array", "bus"} <= set(r.stages["stage"])


def test_config_as_nested_and_flat_dicts() -> None:
    nested = flashsched.simulate([{"preset": "tiny"}, {"device": {"timing": {"read": "70us"}}}], SYNTH)
    flat = flashsched.simulate({"preset": "tiny", "device.timing.read": "70us"}, SYNTH)
    assert nested.json["global options"]["device.timing.read"] == "70us"
    assert nested.summary == flat.summary


def test_request_log_and_intervals() -> None:
    r = flashsched.simulate("tiny", SYNTH, request_log=True, stats__interval="5ms")
    req = r.requests
    assert req is not None and len(req) == 3000
    stages = ["host_queue_ns", "device_queue_ns", "die_wait_ns", "channel_wait_ns", "bus_ns", "array_ns", "ecc_ns", "cache_ns", "mapping_ns"]
    assert (req[stages].sum(axis=1) == req["lat_ns"]).all()
    assert len(r.intervals) > 3 and "free_blocks" in r.intervals.columns


def test_request_log_file_streams_to_disk(tmp_path: Path) -> None:
    import pandas as pd

    r = flashsched.simulate("tiny", SYNTH, request_log_file=tmp_path / "req.parquet")
    assert r.requests is None and r.request_log_file == tmp_path / "req.parquet"
    frame = pd.read_parquet(r.request_log_file)
    assert len(frame) == 3000 and list(frame.columns)[:4] == ["arrival_ns", "dispatch_ns", "complete_ns", "op"]
    assert [x.name for x in tmp_path.iterdir()] == ["req.parquet"]


def test_same_seed_same_result_without_wall_clock() -> None:
    keys = flashsched._core.wall_clock_keys()

    def strip(d: dict) -> str:
        return json.dumps({k: v for k, v in d.items() if k not in keys}, sort_keys=False)

    a = flashsched.simulate("tiny", SYNTH, seed=11)
    b = flashsched.simulate("tiny", SYNTH, seed=11)
    c = flashsched.simulate("tiny", SYNTH, seed=12)
    assert strip(a.json) == strip(b.json)
    assert strip(a.json) != strip(c.json)


def test_config_error_lists_every_problem() -> None:
    with pytest.raises(ConfigError) as e:
        flashsched.simulate("tiny", SYNTH, device__geometry__channels=0, ftl__gc__policy="greedyy")
    paths = [p for p, _, _ in e.value.errors]
    assert "device.geometry.channels" in paths and "ftl.gc.policy" in paths
    assert "did you mean greedy" in str(e.value)


def test_trace_error_has_file_and_line(tmp_path: Path) -> None:
    t = tmp_path / "t.csv"
    t.write_text("128166385295514663,hm,0,Write,9056014336,2048,2833\n128166385295514878,hm,0,Erase,1,512,1\n")
    with pytest.raises(TraceError) as e:
        flashsched.simulate("tiny", t)
    assert e.value.line == 2 and e.value.file == str(t)


def test_progress_callback_and_resolve() -> None:
    calls: list[float] = []
    flashsched.simulate("tiny", SYNTH, progress=lambda f, *_: calls.append(f))
    assert calls and calls[-1] == 1.0
    text = flashsched.resolve("bench8x8")
    assert 'rate = "333MT/s"' in text


def test_every_preset_resolves() -> None:
    for name in flashsched.presets():
        assert "[device.geometry]" in flashsched.resolve(name)


def test_trace_stats_of_shared_traces(shared: Path) -> None:
    s = flashsched.trace_stats(shared / "traces/umass/financial.head949.spc")
    assert s["requests"] == 949 and s["devices"][:2] == [0, 1]
    s = flashsched.trace_stats(shared / "traces/msr/web_0.head1000.relsec.csv")
    assert s["requests"] == 1000 and s["format"] == "msr"
    only_asu0 = flashsched.trace_stats(shared / "traces/umass/financial.head949.spc", device=0)
    assert 0 < only_asu0["requests"] < 949


def test_every_preset_runs_a_shared_trace(shared: Path) -> None:
    for name in flashsched.presets():
        r = flashsched.simulate(name, shared / "traces/msr/hm_0.window1000.csv")
        assert r.json["flashsched"]["requests_completed"] == 1000, name


def test_a_key_given_twice_in_one_dict_is_refused() -> None:
    """A dotted key and a nested table for the same key in one dict: neither wins silently."""
    with pytest.raises(flashsched.ConfigError, match="device.geometry.channels: given twice"):
        flashsched.simulate({"preset": "tiny", "device.geometry.channels": 2, "device": {"geometry": {"channels": 4}}}, SYNTH)
