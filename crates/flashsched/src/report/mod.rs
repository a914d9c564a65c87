//! Results in fio's JSON layout (`jobs[0].read.clat_ns.percentile["99.000000"]`) plus an `ssd`
//! block of device internals, a flat one-row summary for tables and sweeps, and the per-request log
//! as CSV. Every field is documented in docs/reference/output.md.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::config::Settings;
use crate::sim::RunOutcome;
use crate::stats::{round3, DirStats, STAGES};

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Keys of the JSON that depend on the wall clock or the machine; everything else is a pure
/// function of config, seed and trace.
pub const WALL_CLOCK_KEYS: [&str; 4] = ["timestamp", "timestamp_ms", "time", "run_info"];

/// Wall-clock facts about a run, kept apart so results stay byte-identical across runs.
#[derive(Debug, Clone, Default)]
pub struct RunInfo {
    pub unix_time_ms: u64,
    pub setup_s: f64,
    pub simulate_s: f64,
}

fn dir_json(d: &DirStats, window_ns: u64) -> Value {
    let secs = window_ns as f64 / 1e9;
    let rate = |x: u64| if secs > 0.0 { x as f64 / secs } else { 0.0 };
    let mut stages = Map::new();
    for (name, dist) in STAGES.iter().zip(&d.stages) {
        stages.insert(format!("{name}_ns"), dist.to_fio_json());
    }
    json!({
        "io_bytes": d.bytes,
        "io_kbytes": d.bytes / 1024,
        "bw_bytes": rate(d.bytes).round() as u64,
        "bw": (rate(d.bytes) / 1024.0).round() as u64,
        "iops": round3(rate(d.ios)),
        "runtime": window_ns / 1_000_000,
        "total_ios": d.ios,
        "short_ios": 0,
        "drop_ios": 0,
        "slat_ns": d.slat.to_fio_json(),
        "clat_ns": d.clat.to_fio_json(),
        "lat_ns": d.lat.to_fio_json(),
        "stages_ns": Value::Object(stages),
    })
}

fn summary_of(values: &[u64]) -> (u64, f64, u64, f64) {
    if values.is_empty() {
        return (0, 0.0, 0, 0.0);
    }
    let n = values.len() as f64;
    let sum: u128 = values.iter().map(|&v| v as u128).sum();
    let mean = sum as f64 / n;
    let var = values.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / n;
    (*values.iter().min().unwrap(), mean, *values.iter().max().unwrap(), var.sqrt())
}

fn erase_histogram(counts: &[u32]) -> Value {
    let mut exact: BTreeMap<u32, u64> = BTreeMap::new();
    for &c in counts {
        *exact.entry(c).or_default() += 1;
        if exact.len() > 64 {
            break;
        }
    }
    if exact.len() <= 64 {
        return json!({"kind": "exact", "bins": exact.iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>()});
    }
    let lo = *counts.iter().min().unwrap();
    let hi = *counts.iter().max().unwrap();
    let width = ((hi - lo) / 50 + 1) as u64;
    let mut bins = vec![0u64; 51];
    for &c in counts {
        bins[((c - lo) as u64 / width) as usize] += 1;
    }
    json!({"kind": "binned", "first": lo, "width": width, "counts": bins})
}

/// The full JSON document of a run.
pub fn to_json(s: &Settings, o: &RunOutcome, info: &RunInfo) -> Value {
    let window = o.measure_end_ns - o.measure_start_ns;
    let mut global = Map::new();
    for (k, (v, _)) in &s.resolved.values {
        global.insert(k.to_string(), Value::String(v.to_plain()));
    }
    let job = json!({
        "jobname": s.name,
        "groupid": 0,
        "error": 0,
        "elapsed": o.sim_end_ns / 1_000_000_000,
        "job_runtime": window / 1_000_000,
        "read": dir_json(&o.read, window),
        "write": dir_json(&o.write, window),
        "trim": dir_json(&o.trim, window),
    });
    let c = &o.counters;
    let ec: Vec<u64> = o.erase_counts.iter().map(|&e| e as u64).collect();
    let (emin, emean, emax, esd) = summary_of(&ec);
    let util = |busy: &[u64]| -> Vec<f64> {
        busy.iter().map(|&b| if window > 0 { round3(b as f64 / window as f64).min(1.0) } else { 0.0 }).collect()
    };
    let chan = util(&o.channel_busy_ns);
    let dies = util(&o.die_busy_ns);
    let mean = |v: &[f64]| if v.is_empty() { 0.0 } else { round3(v.iter().sum::<f64>() / v.len() as f64) };
    let waf = if c.host_pages_written > 0 { c.nand_pages_written as f64 / c.host_pages_written as f64 } else { 0.0 };
    let g = &s.geometry;
    let measured_ios = o.read.ios + o.write.ios;
    let conflict_ratio =
        if measured_ios > 0 { round6((c.read_conflicts + c.write_conflicts) as f64 / measured_ios as f64) } else { 0.0 };
    let ssd = json!({
        "physical_capacity_bytes": g.capacity_bytes(),
        "logical_capacity_bytes": s.logical_bytes(),
        "host_pages_read": c.host_pages_read,
        "host_pages_written": c.host_pages_written,
        "host_reads_unmapped": c.host_reads_unmapped,
        "nand_pages_read": c.nand_pages_read,
        "nand_pages_written": c.nand_pages_written,
        "write_amplification": (waf * 1e6).round() / 1e6,
        "gc_invocations": c.gc_invocations,
        "gc_pages_moved": c.gc_pages_moved,
        "gc_moves_dropped": c.gc_moves_dropped,
        "erases": c.erases,
        "trimmed_pages": c.trimmed_pages,
        "write_stalls": c.write_stalls,
        "suspensions": c.suspensions,
        "program_suspensions": c.program_suspensions,
        "erase_suspensions": c.erase_suspensions,
        "read_conflicts": c.read_conflicts,
        "write_conflicts": c.write_conflicts,
        "conflict_ratio": conflict_ratio,
        "conflict_definition": "chip busy when a page transaction of the request reached its chip's queue (VIOS §3.3)",
        "erase_count": {"min": emin, "mean": round3(emean), "max": emax, "stddev": round3(esd), "histogram": erase_histogram(&o.erase_counts)},
        "channel_utilization": {"mean": mean(&chan), "per_channel": chan},
        "die_utilization": {"mean": mean(&dies), "min": dies.iter().cloned().fold(f64::INFINITY, f64::min).min(1.0), "max": dies.iter().cloned().fold(0.0, f64::max), "per_die": dies},
        "free_blocks_min_plane": o.free_blocks_min,
        "free_blocks_end": o.free_blocks_end,
        "mapped_pages_end": o.mapped_pages,
        "logical_pages": o.logical_pages,
        "simulated_time_ns": o.sim_end_ns,
        "measured_time_ns": window,
        "ftl_metadata_bytes": o.ftl_memory_bytes,
        "invariants": match &o.invariants_ok { Ok(()) => "ok".to_string(), Err(e) => e.clone() },
    });
    let secs = info.unix_time_ms / 1000;
    json!({
        "fio version": format!("flashsched-{VERSION}"),
        "timestamp": secs,
        "timestamp_ms": info.unix_time_ms,
        "time": format!("unix {secs}"),
        "global options": Value::Object(global),
        "jobs": [job],
        "ssd": ssd,
        "workload": o.workload,
        "flashsched": {
            "version": VERSION,
            "seed": s.seed,
            "requests_submitted": o.submitted,
            "requests_completed": o.completed,
            "warmup_requests": o.warmup_requests,
            "events": o.events,
        },
        "run_info": {
            "setup_s": round6(info.setup_s),
            "simulate_s": round6(info.simulate_s),
            "requests_per_s": if info.simulate_s > 0.0 { (o.submitted as f64 / info.simulate_s).round() } else { 0.0 },
        },
    })
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// The one-row summary (CSV header order = insertion order).
pub fn summary_row(s: &Settings, doc: &Value) -> Vec<(String, Value)> {
    let mut row: Vec<(String, Value)> = vec![
        ("name".into(), json!(s.name)),
        ("seed".into(), json!(s.seed)),
        ("requests".into(), doc["flashsched"]["requests_completed"].clone()),
    ];
    // Both directions together: what a throughput benchmark reports.
    let (r, w) = (&doc["jobs"][0]["read"], &doc["jobs"][0]["write"]);
    let f = |v: &Value| v.as_f64().unwrap_or(0.0);
    let n = f(&r["total_ios"]) + f(&w["total_ios"]);
    row.push(("iops".into(), json!(round3(f(&r["iops"]) + f(&w["iops"])))));
    row.push(("bw_bytes".into(), json!(f(&r["bw_bytes"]) + f(&w["bw_bytes"]))));
    let mean = if n > 0.0 { (f(&r["lat_ns"]["mean"]) * f(&r["total_ios"]) + f(&w["lat_ns"]["mean"]) * f(&w["total_ios"])) / n } else { 0.0 };
    row.push(("lat_mean_ns".into(), json!(round3(mean))));
    for dir in ["read", "write"] {
        let d = &doc["jobs"][0][dir];
        row.push((format!("{dir}_ios"), d["total_ios"].clone()));
        row.push((format!("{dir}_iops"), d["iops"].clone()));
        row.push((format!("{dir}_bw_bytes"), d["bw_bytes"].clone()));
        row.push((format!("{dir}_lat_mean_ns"), d["lat_ns"]["mean"].clone()));
        for (label, key) in [("p50", "50.000000"), ("p90", "90.000000"), ("p99", "99.000000"), ("p99.9", "99.900000"), ("p99.99", "99.990000")] {
            row.push((format!("{dir}_lat_{label}_ns"), d["lat_ns"]["percentile"][key].clone()));
        }
        row.push((format!("{dir}_lat_max_ns"), d["lat_ns"]["max"].clone()));
    }
    let ssd = &doc["ssd"];
    for k in ["conflict_ratio", "write_amplification", "gc_invocations", "gc_pages_moved", "erases", "nand_pages_read", "nand_pages_written", "host_reads_unmapped", "free_blocks_min_plane", "simulated_time_ns", "measured_time_ns"] {
        row.push((k.into(), ssd[k].clone()));
    }
    row.push(("erase_count_max".into(), ssd["erase_count"]["max"].clone()));
    row.push(("erase_count_stddev".into(), ssd["erase_count"]["stddev"].clone()));
    row.push(("channel_utilization".into(), ssd["channel_utilization"]["mean"].clone()));
    row.push(("die_utilization".into(), ssd["die_utilization"]["mean"].clone()));
    row
}

/// CSV text of a summary row (header line + value line).
pub fn summary_csv(row: &[(String, Value)]) -> String {
    let cell = |v: &Value| match v {
        Value::String(s) if s.contains([',', '"', '\n']) => format!("\"{}\"", s.replace('"', "\"\"")),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let header: Vec<&str> = row.iter().map(|(k, _)| k.as_str()).collect();
    let values: Vec<String> = row.iter().map(|(_, v)| cell(v)).collect();
    format!("{}\n{}\n", header.join(","), values.join(","))
}

/// Column names of the per-request log, in order.
pub const REQUEST_LOG_COLUMNS: [&str; 14] = [
    "arrival_ns", "dispatch_ns", "complete_ns", "op", "offset", "len", "lat_ns",
    "host_queue_ns", "device_queue_ns", "die_wait_ns", "channel_wait_ns", "bus_ns", "array_ns", "ecc_ns",
];

/// The JSON document with the wall-clock keys removed (for determinism checks).
pub fn without_wall_clock(doc: &Value) -> Value {
    let mut d = doc.clone();
    if let Some(m) = d.as_object_mut() {
        for k in WALL_CLOCK_KEYS {
            m.shift_remove(k);
        }
    }
    d
}
