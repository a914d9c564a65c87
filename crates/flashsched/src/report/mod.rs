//! Results in fio's JSON layout (`jobs[0].read.clat_ns.percentile["99.000000"]`) plus an `ssd`
//! block of device internals, a flat one-row summary for tables and sweeps, and the per-request log
//! ([`request_log`]: CSV and fio latency logs, streamed while the run goes). Every field is
//! documented in docs/reference/output.md.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::config::Settings;
use crate::sim::RunOutcome;
use crate::stats::{round3, DirStats, Dist, STAGES};

pub mod request_log;
pub use request_log::{lat_log_paths, write_lat_logs, OutputError, RequestSink, LAT_LOG_KINDS, REQUEST_LOG_COLUMNS};

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

/// A latency object, with fio's json+ `bins` when asked for and there are samples (fio leaves them
/// out of an empty direction, and fio_jsonplus_clat2csv cannot read empty bins).
fn lat_json(d: &Dist, json_plus: bool) -> Value {
    let mut v = d.to_fio_json();
    if json_plus && d.n > 0 {
        v.as_object_mut().expect("a latency object").insert("bins".into(), d.fio_bins_json());
    }
    v
}

fn dir_json(d: &DirStats, window_ns: u64, json_plus: bool) -> Value {
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
        "slat_ns": lat_json(&d.slat, json_plus),
        "clat_ns": lat_json(&d.clat, json_plus),
        "lat_ns": lat_json(&d.lat, json_plus),
        "stages_ns": Value::Object(stages),
        "split_mean_ns": split_json(d),
    })
}

/// RR/WR's split of the mean latency (paper 002 Fig. 3): conflict (CL: every wait, host queue to
/// channel), array (SL for reads, PL for writes), transfer (TL) and decoding. Stage times add up
/// to each request's latency, so these means add up to the mean latency.
fn split_json(d: &DirStats) -> Value {
    let m = |i: usize| d.stages[i].mean();
    let r = |x: f64| (x * 1000.0).round() / 1000.0;
    json!({
        "conflict_ns": r(m(0) + m(1) + m(2) + m(3)),
        "array_ns": r(m(5)),
        "transfer_ns": r(m(4)),
        "ecc_ns": r(m(6)),
        "cache_ns": r(m(7)),
        "mapping_ns": r(m(8)),
    })
}

/// Min, mean, max and population standard deviation of the blocks' erase counts. (A drive has a
/// million blocks: the minimum, maximum and sum are taken in one pass; the report's end-of-run
/// passes over the counts were 2% of bench8x8's instructions.)
fn summary_of(values: &[u32]) -> (u64, f64, u64, f64) {
    if values.is_empty() {
        return (0, 0.0, 0, 0.0);
    }
    let n = values.len() as f64;
    let (min, max, sum) = values.iter().fold((u32::MAX, 0u32, 0u128), |(lo, hi, sum), &v| (lo.min(v), hi.max(v), sum + v as u128));
    let mean = sum as f64 / n;
    let var = values.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / n;
    (min as u64, mean, max as u64, var.sqrt())
}

/// `ssd.variation`: the detected program speeds and what detection did (whole run, warm-up included).
fn variation_json(v: &crate::nand::reliable::VariationReport) -> Value {
    let steps: Vec<Value> = v
        .detected_steps
        .iter()
        .map(|&(mv, blocks)| json!({"step_v": mv as f64 / 1000.0, "blocks": blocks}))
        .collect();
    json!({
        "detected_steps": steps,
        "detections": v.detections,
        "steps_lowered": v.steps_lowered,
        "blocks_beyond_ecc": v.blocks_beyond_ecc,
        "programs": v.programs,
        "program_time_mean_ns": if v.programs > 0 { round3(v.program_ns_total as f64 / v.programs as f64) } else { 0.0 },
    })
}

/// The blocks' erase counts, whose smallest and largest are `lo` and `hi`: exact (count, blocks)
/// pairs when there are at most 64 distinct counts, else 51 bins of equal width from the smallest.
fn erase_histogram(counts: &[u32], lo: u32, hi: u32) -> Value {
    if counts.is_empty() {
        return json!({"kind": "exact", "bins": []});
    }
    // A drive has a million blocks and their counts lie close together: tallied in an array
    // over the range when it is short, a tree only when it is not.
    if hi - lo < TALLY_RANGE {
        let mut tally = vec![0u64; (hi - lo + 1) as usize];
        for &c in counts {
            tally[(c - lo) as usize] += 1;
        }
        if tally.iter().filter(|&&n| n > 0).count() <= EXACT_COUNTS {
            return exact_erase_histogram(tally.iter().enumerate().filter(|(_, &n)| n > 0).map(|(i, &n)| (lo + i as u32, n)));
        }
        return binned_erase_histogram(counts, lo, hi);
    }
    let mut exact: BTreeMap<u32, u64> = BTreeMap::new();
    for &c in counts {
        *exact.entry(c).or_default() += 1;
        if exact.len() > EXACT_COUNTS {
            break;
        }
    }
    if exact.len() <= EXACT_COUNTS {
        return exact_erase_histogram(exact.into_iter());
    }
    binned_erase_histogram(counts, lo, hi)
}

/// At most this many distinct erase counts are listed exactly; more are binned.
const EXACT_COUNTS: usize = 64;
/// Erase counts spanning fewer values than this are tallied in an array.
const TALLY_RANGE: u32 = 4096;

/// (erase count, blocks) pairs, ascending.
fn exact_erase_histogram(bins: impl Iterator<Item = (u32, u64)>) -> Value {
    json!({"kind": "exact", "bins": bins.map(|(k, v)| json!([k, v])).collect::<Vec<_>>()})
}

fn binned_erase_histogram(counts: &[u32], lo: u32, hi: u32) -> Value {
    let width = ((hi - lo) / 50 + 1) as u64;
    let mut bins = vec![0u64; 51];
    for &c in counts {
        bins[((c - lo) as u64 / width) as usize] += 1;
    }
    json!({"kind": "binned", "first": lo, "width": width, "counts": bins})
}

/// The full JSON document of a run; `json_plus` adds fio's `bins` to every latency object of
/// every direction that has requests (fio's `--output-format=json+`).
pub fn to_json(s: &Settings, o: &RunOutcome, info: &RunInfo, json_plus: bool) -> Value {
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
        "read": dir_json(&o.read, window, json_plus),
        "write": dir_json(&o.write, window, json_plus),
        "trim": dir_json(&o.trim, window, json_plus),
    });
    let c = &o.counters;
    let (emin, emean, emax, esd) = summary_of(&o.erase_counts);
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
        "read_queue_hits": c.read_queue_hits,
        "rmw_reads": c.rmw_reads,
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
        "commands": commands_json(c),
        "writes_placed_elsewhere": c.writes_placed_elsewhere,
        "writes_at_fill_limit": c.writes_at_fill_limit,
        "placed_programs": placed_programs_json(c),
        "writes_relocated": c.writes_relocated,
        "read_conflicts": c.read_conflicts,
        "write_conflicts": c.write_conflicts,
        "conflict_ratio": conflict_ratio,
        "conflict_definition": "chip busy when a page transaction of the request reached its chip's queue (VIOS §3.3)",
        "erase_count": {"min": emin, "mean": round3(emean), "max": emax, "stddev": round3(esd), "histogram": erase_histogram(&o.erase_counts, emin as u32, emax as u32)},
        "channel_utilization": {"mean": mean(&chan), "per_channel": chan, "busy_ns_total": o.channel_busy_ns.iter().sum::<u64>()},
        "die_utilization": {"mean": mean(&dies), "busy_ns_total": o.die_busy_ns.iter().sum::<u64>(), "min": dies.iter().cloned().fold(f64::INFINITY, f64::min).min(1.0), "max": dies.iter().cloned().fold(0.0, f64::max), "per_die": dies},
        "free_blocks_min_plane": o.free_blocks_min,
        "free_blocks_end": o.free_blocks_end,
        "valid_pages_plane_end": {"min": o.plane_valid_end.0, "max": o.plane_valid_end.1},
        "mapped_pages_end": o.mapped_pages,
        "logical_pages": o.logical_pages,
        "simulated_time_ns": o.sim_end_ns,
        "measured_time_ns": window,
        "ftl_metadata_bytes": o.ftl_memory_bytes,
        "invariants": match &o.invariants_ok { Ok(()) => "ok".to_string(), Err(e) => e.clone() },
    });
    let mut ssd = ssd;
    // Intra-request slack of the measured requests' sub-requests (Slacker §3.1, Table 2).
    let slack = |d: &crate::stats::DirStats| json!({"sub_requests": d.slack.sub_requests, "mean_ns": round3(d.slack.mean_ns()), "sd_ns": round3(d.slack.sd_ns())});
    ssd["slack"] = json!({"read": slack(&o.read), "write": slack(&o.write)});
    if let Some(t) = &o.tsu {
        ssd["tsu"] = t.clone();
    }
    if let Some(a) = &o.admission {
        ssd["admission"] = a.clone();
    }
    if let Some(w) = &o.wear {
        let mut v = json!({"collections": c.wl_collections, "pages_moved": c.wl_pages, "split_collections": c.wl_split_collections, "pages_split": c.wl_pages_split,
                           "pages_to_worn_blocks": c.wl_pages_worn, "pages_to_gc_stream": c.wl_pages_gc_stream});
        if let (Some(m), Value::Object(extra)) = (v.as_object_mut(), w.clone()) {
            m.extend(extra);
        }
        ssd["wear_leveling"] = v;
    }
    if let Some(c) = &o.cache {
        ssd["cache"] = c.clone();
    }
    if let Some(m) = &o.mapping {
        // Write amplification without the translation pages' programs.
        let translation = m["translation_programs"].as_u64().unwrap_or(0);
        let data = if c.host_pages_written > 0 { (c.nand_pages_written - translation) as f64 / c.host_pages_written as f64 } else { 0.0 };
        ssd["write_amplification_data"] = ((data * 1e6).round() / 1e6).into();
        ssd["mapping_cache"] = m.clone();
    }
    if let Some(g) = &o.grouping {
        ssd["write_grouping"] = g.clone();
    }
    // Flash time of GC by cause (Pattern paper Fig. 5): routine GC and wear leveling.
    ssd["gc_time"] = json!({"routine_ns": c.gc_flash_ns, "wear_leveling_ns": c.wl_flash_ns, "total_ns": c.gc_flash_ns + c.wl_flash_ns});
    if o.erase_limit > 0 {
        ssd["endurance"] = json!({
            "erase_limit": o.erase_limit,
            "blocks_at_limit": o.erase_counts.iter().filter(|&&e| e >= o.erase_limit).count(),
            "first_failure_ns": o.first_failure_ns,
            "first_failure_projected_ns": projected_first_failure(o),
            "run_erases": run_erases_json(o),
        });
    }
    if let Some((task, rep)) = &o.idle {
        // RR/WR Fig. 4: re-programs as a share of the requests, both over the measured window,
        // counted as pages and as requests.
        let share = c.reprograms as f64 / measured_ios.max(1) as f64;
        let req_share = c.reprogrammed_requests as f64 / measured_ios.max(1) as f64;
        let mean_wait = c.reprogram_host_wait_ns as f64 / c.reprogram_host_waits.max(1) as f64;
        ssd["idle"] = json!({
            "task": task,
            "recorded": rep.recorded,
            "record_overflows": rep.record_overflows,
            "reprograms": c.reprograms,
            "reprograms_dropped": c.reprograms_dropped,
            "reprograms_preempted": c.reprograms_preempted,
            "reprogram_share": (share * 1e6).round() / 1e6,
            "reprogrammed_requests": c.reprogrammed_requests,
            "reprogrammed_request_share": (req_share * 1e6).round() / 1e6,
            "host_waits": c.reprogram_host_waits,
            "host_wait_mean_ns": mean_wait.round() as u64,
        });
    }
    if let Some(r) = &o.reliability {
        if let Some(v) = &r.variation {
            ssd["variation"] = variation_json(v);
        }
        if let Some(l) = &r.ldpc {
            ssd["ldpc"] = json!({"reads_per_level": l.reads_per_level, "uncorrectable_reads": l.uncorrectable});
        }
        // Only when some page was programmed in an explicit mode (device.program_mode or a
        // program-speed policy): a run at native speed reads as before.
        let [native, slow, normal, fast] = r.programs_per_mode;
        if slow + normal + fast > 0 {
            ssd["programs_per_mode"] = json!({"native": native, "slow": slow, "normal": normal, "fast": fast});
        }
    }
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
            "all_lat_ns": all_lat_json(&o.read.lat.combined(&o.write.lat)),
        },
        "run_info": run_info_json(o, info),
    })
}

/// `run_info`: the run's wall-clock facts.
fn run_info_json(o: &RunOutcome, info: &RunInfo) -> Value {
    let mut v = json!({
        "setup_s": round6(info.setup_s),
        "simulate_s": round6(info.simulate_s),
        "requests_per_s": if info.simulate_s > 0.0 { (o.submitted as f64 / info.simulate_s).round() } else { 0.0 },
    });
    if let Some((ns, windows)) = o.grouping_wall_ns {
        // The pattern scheduler's mining (Pattern Fig. 8's mapping overhead, as this machine runs it).
        v["pattern_mining_s"] = json!(round6(ns as f64 / 1e9));
        v["pattern_mining_us_per_window"] = json!(if windows > 0 { round3(ns as f64 / 1e3 / windows as f64) } else { 0.0 });
    }
    v
}

/// Total latency of reads and writes together: mean and the percentiles the papers quote.
fn all_lat_json(d: &crate::stats::Dist) -> Value {
    json!({
        "mean": round3(d.mean()),
        "percentile": {"50.000000": d.percentile(50.0), "95.000000": d.percentile(95.0), "99.000000": d.percentile(99.0)},
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
    // What closed-loop jobs completed per second: with buffered writes, reads plus write() calls
    // (the device's write-back requests are in `write_iops`); otherwise the device's IOPS.
    let job_iops = doc["workload"].get("job_iops").cloned().unwrap_or_else(|| json!(round3(f(&r["iops"]) + f(&w["iops"]))));
    row.push(("job_iops".into(), job_iops));
    row.push(("bw_bytes".into(), json!(f(&r["bw_bytes"]) + f(&w["bw_bytes"]))));
    let mean = if n > 0.0 { (f(&r["lat_ns"]["mean"]) * f(&r["total_ios"]) + f(&w["lat_ns"]["mean"]) * f(&w["total_ios"])) / n } else { 0.0 };
    row.push(("lat_mean_ns".into(), json!(round3(mean))));
    for (label, key) in [("p50", "50.000000"), ("p95", "95.000000"), ("p99", "99.000000")] {
        row.push((format!("lat_{label}_ns"), doc["flashsched"]["all_lat_ns"]["percentile"][key].clone()));
    }
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
        row.push((format!("{dir}_host_queue_mean_ns"), d["stages_ns"]["host_queue_ns"]["mean"].clone()));
        row.push((format!("{dir}_device_queue_mean_ns"), d["stages_ns"]["device_queue_ns"]["mean"].clone()));
        row.push((format!("{dir}_die_wait_mean_ns"), d["stages_ns"]["die_wait_ns"]["mean"].clone()));
        for part in ["conflict", "array", "transfer", "ecc"] {
            row.push((format!("{dir}_{part}_mean_ns"), d["split_mean_ns"][format!("{part}_ns")].clone()));
        }
    }
    let ssd = &doc["ssd"];
    for k in ["conflict_ratio", "read_conflicts", "write_conflicts", "writes_placed_elsewhere", "writes_at_fill_limit", "write_amplification", "gc_invocations", "gc_pages_moved", "erases", "nand_pages_read", "nand_pages_written", "host_reads_unmapped", "free_blocks_min_plane", "simulated_time_ns", "measured_time_ns"] {
        row.push((k.into(), ssd[k].clone()));
    }
    // Speed-aware placement (null without it): host programs by the block asked for.
    for kind in ["ordinary", "fastest", "slowest"] {
        row.push((format!("programs_{kind}"), ssd["placed_programs"][kind]["pages"].clone()));
        row.push((format!("program_mean_ns_{kind}"), ssd["placed_programs"][kind]["program_mean_ns"].clone()));
    }
    // null without an idle-time task.
    for k in ["reprogram_share", "reprogrammed_request_share", "reprograms_preempted", "host_waits", "host_wait_mean_ns"] {
        let name = if k.starts_with("host_") { format!("reprogram_{k}") } else { k.to_string() };
        row.push((name, ssd["idle"][k].clone()));
    }
    // Slacker: the measured slack; the estimator's error and the requests each mechanism served
    // (null unless a slack-aware transaction scheduler ran).
    for dir in ["read", "write"] {
        row.push((format!("{dir}_slack_mean_ns"), ssd["slack"][dir]["mean_ns"].clone()));
        row.push((format!("{dir}_slack_sd_ns"), ssd["slack"][dir]["sd_ns"].clone()));
    }
    row.push(("estimate_relative_abs_error".into(), ssd["tsu"]["estimate"]["all"]["relative_abs_error"].clone()));
    row.push(("estimate_relative_mean_error".into(), ssd["tsu"]["estimate"]["all"]["relative_mean_error"].clone()));
    for m in ["rbyp", "wbyp", "wp"] {
        row.push((format!("requests_{m}_share"), ssd["tsu"][format!("requests_{m}_share")].clone()));
    }
    // FR-FCFS (and the slack-aware schedulers built on it): writes its drain put before a read.
    row.push(("write_drain_picks".into(), ssd["tsu"]["write_drain_picks"].clone()));
    // Programs per mode (null unless some page was programmed in an explicit mode) and page reads
    // per LDPC level (null without LDPC, or beyond the configured levels): whether WR and RR had
    // a choice, in the table.
    for mode in ["native", "slow", "normal", "fast"] {
        row.push((format!("programs_{mode}"), ssd["programs_per_mode"][mode].clone()));
    }
    for level in 0..4 {
        row.push((format!("reads_level_{level}"), ssd["ldpc"]["reads_per_level"][level].clone()));
    }
    // Wear (Pattern paper Figs. 5-6, Tables III-V): null where the feature is off.
    row.push(("gc_time_ns".into(), ssd["gc_time"]["total_ns"].clone()));
    row.push(("gc_time_routine_ns".into(), ssd["gc_time"]["routine_ns"].clone()));
    row.push(("gc_time_wl_ns".into(), ssd["gc_time"]["wear_leveling_ns"].clone()));
    row.push(("first_failure_ns".into(), ssd["endurance"]["first_failure_ns"].clone()));
    row.push(("first_failure_projected_ns".into(), ssd["endurance"]["first_failure_projected_ns"].clone()));
    row.push(("run_erases".into(), ssd["endurance"]["run_erases"]["total"].clone()));
    row.push(("run_erase_stddev".into(), ssd["endurance"]["run_erases"]["stddev"].clone()));
    row.push(("wl_collections".into(), ssd["wear_leveling"]["collections"].clone()));
    row.push(("wl_pages_to_worn_blocks".into(), ssd["wear_leveling"]["pages_to_worn_blocks"].clone()));
    row.push(("wl_pages_to_gc_stream".into(), ssd["wear_leveling"]["pages_to_gc_stream"].clone()));
    row.push(("wl_split_collections".into(), ssd["wear_leveling"]["split_collections"].clone()));
    row.push(("wl_no_room".into(), ssd["wear_leveling"]["no_room_for_a_block_set"].clone()));
    row.push(("wl_bet_bytes".into(), ssd["wear_leveling"]["bet_bytes"].clone()));
    row.push(("wl_prt_bytes".into(), ssd["wear_leveling"]["prt_bytes"].clone()));
    row.push(("patterns_per_window".into(), ssd["write_grouping"]["patterns_per_window"].clone()));
    row.push(("mean_pattern_size".into(), ssd["write_grouping"]["mean_pattern_size"].clone()));
    row.push(("pattern_hit_share".into(), ssd["write_grouping"]["hit_share"].clone()));
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

/// Erases each block took during the run (since preconditioning): total, and per block mean,
/// standard deviation and maximum (Pattern paper Table IV counts a fresh drive's erases).
fn run_erases_json(o: &RunOutcome) -> Value {
    // The differences as they are summed, not collected first (8 MB on a million blocks); the
    // same additions in the same order.
    let d = || o.erase_counts.iter().zip(&o.start_erase_counts).map(|(&e, &s)| (e - s) as f64);
    let n = o.erase_counts.len().min(o.start_erase_counts.len()).max(1) as f64;
    let total: f64 = d().sum();
    let mean = total / n;
    let var = d().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    let max = d().fold(0.0, f64::max);
    json!({"total": total as u64, "mean": round3(mean), "stddev": round3(var.sqrt()), "max": max as u64})
}

/// When the first block would reach the erase limit if the run's workload went on as it did:
/// for each block that was erased in the run, now + (limit - count) x run time / erases in the
/// run; the earliest of them (ns since the run started). The measured failure when one
/// happened; null when no block was erased.
fn projected_first_failure(o: &RunOutcome) -> Option<u64> {
    if let Some(t) = o.first_failure_ns {
        return Some(t);
    }
    let t = o.sim_end_ns as f64;
    o.erase_counts
        .iter()
        .zip(&o.start_erase_counts)
        .filter(|(&e, &s)| e > s)
        .map(|(&e, &s)| t + (o.erase_limit.saturating_sub(e)) as f64 * t / (e - s) as f64)
        .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.min(x))))
        .map(|x| x.round() as u64)
}

/// `ssd.placed_programs`: host page programs by the block speed-aware placement asked for, with
/// their mean array time (empty without it).
fn placed_programs_json(c: &crate::stats::DeviceCounters) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    for (i, name) in ["ordinary", "fastest", "slowest"].iter().enumerate() {
        let n = c.placed_programs[i];
        if n > 0 {
            m.insert(name.to_string(), json!({"pages": n, "program_mean_ns": round3(c.placed_program_ns[i] as f64 / n as f64)}));
        }
    }
    serde_json::Value::Object(m)
}

/// `ssd.commands`: flash commands by class, their multi-plane share, and copyback moves.
fn commands_json(c: &crate::stats::DeviceCounters) -> Value {
    let k = &c.commands;
    let class = |i: usize| {
        json!({
            "commands": k.commands[i],
            "multi_plane_commands": k.multi_plane[i],
            "ops": k.ops[i],
            "multi_plane_ops": k.multi_plane_ops[i],
            "multi_plane_share": if k.ops[i] > 0 { round6(k.multi_plane_ops[i] as f64 / k.ops[i] as f64) } else { 0.0 },
        })
    };
    json!({
        "read": class(0),
        "program": class(1),
        "erase": class(2),
        "copyback_moves": c.copyback_moves,
        "copyback_fallbacks": c.copyback_fallbacks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The histogram by a tree over every distinct count (what `erase_histogram` does the long
    /// way), to check the tally it uses for short ranges.
    fn histogram_by_tree(counts: &[u32]) -> Value {
        let exact: BTreeMap<u32, u64> = counts.iter().fold(BTreeMap::new(), |mut m, &c| {
            *m.entry(c).or_default() += 1;
            m
        });
        if exact.len() <= 64 {
            return json!({"kind": "exact", "bins": exact.iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>()});
        }
        let (lo, hi) = (*exact.keys().next().unwrap(), *exact.keys().last().unwrap());
        binned_erase_histogram(counts, lo, hi)
    }

    #[test]
    fn erase_histogram_is_the_same_by_tally_and_by_tree() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(9);
        let cases: Vec<Vec<u32>> = vec![
            vec![],
            vec![12_000; 1000],
            (0..64).collect(),
            (0..65).collect(),
            (0..5000).map(|i| 7 + i % 64).collect(),
            (0..5000).map(|i| 7 + i % 65).collect(),
            (0..5000).map(|_| rng.random_range(100..4195)).collect(),
            (0..5000).map(|_| rng.random_range(100..5000)).collect(),
            (0..200).map(|i| if i % 2 == 0 { 3 } else { 90_000 + i }).collect(),
            vec![5, 5, 4200, 4200],
        ];
        for c in cases {
            let (lo, hi) = (c.iter().copied().min().unwrap_or(0), c.iter().copied().max().unwrap_or(0));
            assert_eq!(erase_histogram(&c, lo, hi), histogram_by_tree(&c), "{} counts from {:?}", c.len(), c.iter().min());
        }
    }

    #[test]
    fn json_plus_bins_count_every_request() {
        use crate::stats::{fio_plat_idx, fio_plat_val};
        let s = crate::config::load(Some("tiny"), None, &["workload.kind=synthetic".into(), "workload.synthetic.requests=3000".into()]).unwrap();
        let plain = crate::run(&s, &crate::RunOptions::default(), &mut |_| true).unwrap().json;
        let opts = crate::RunOptions { json_plus: true, ..Default::default() };
        let mut plus = crate::run(&s, &opts, &mut |_| true).unwrap().json;
        for dir in ["read", "write", "trim"] {
            let d = &plus["jobs"][0][dir];
            let ios = d["total_ios"].as_u64().unwrap();
            assert_eq!(ios > 0, dir != "trim", "{dir}: the synthetic workload has reads and writes only");
            for lat in ["slat_ns", "clat_ns", "lat_ns"] {
                let m = &d[lat];
                assert!(plain["jobs"][0][dir][lat].get("bins").is_none(), "bins only with json+");
                if ios == 0 {
                    assert!(m.get("bins").is_none(), "{dir}.{lat}: no bins without requests (as fio)");
                    continue;
                }
                let bins: Vec<(u64, u64)> =
                    m["bins"].as_object().unwrap().iter().map(|(k, v)| (k.parse().unwrap(), v.as_u64().unwrap())).collect();
                assert_eq!(bins.iter().map(|b| b.1).sum::<u64>(), ios, "{dir}.{lat}");
                assert!(bins.windows(2).all(|w| w[0].0 < w[1].0), "ascending keys");
                assert!(bins.iter().all(|&(v, c)| c > 0 && fio_plat_val(fio_plat_idx(v)) == v), "keys are fio bin values");
                assert_eq!(fio_plat_idx(bins[0].0), fio_plat_idx(m["min"].as_u64().unwrap()), "{dir}.{lat}: min in the first bin");
                assert_eq!(fio_plat_idx(bins.last().unwrap().0), fio_plat_idx(m["max"].as_u64().unwrap()), "max in the last bin");
            }
            // lat = slat + clat for every request, so for the means too (up to rounding).
            let mean = |k: &str| d[k]["mean"].as_f64().unwrap();
            assert!((mean("lat_ns") - mean("slat_ns") - mean("clat_ns")).abs() <= 0.002, "{dir}");
        }
        // The bins are the only difference.
        for dir in ["read", "write", "trim"] {
            for lat in ["slat_ns", "clat_ns", "lat_ns"] {
                plus["jobs"][0][dir][lat].as_object_mut().unwrap().shift_remove("bins");
            }
        }
        assert_eq!(without_wall_clock(&plus), without_wall_clock(&plain));
    }
}

