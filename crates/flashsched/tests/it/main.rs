//! The integration tests, one binary (faster to build and link than one per file).

mod advanced;
mod rrwr;
mod slacker;
mod ssdsim;
mod closed_loop;
mod compat;
mod data_cache;
mod determinism;
mod fidelity;
mod endurance;
mod pattern;
mod ftl_props;
mod gc_wa;
mod synthetic;
mod sysbench;
mod golden;
mod host_policies;
mod page_cache;
mod request_log;
mod ldpc;
mod timing;
mod traces;
mod variation;
mod vios;
mod write_cache;
mod mapping_cache;
mod channel_turns;
mod ssdsim_buffer;

use std::io::Write;

use flashsched::{config, run, RunOptions, RunResult};

/// A trace written to a temporary file (MQSim ASCII: `time_ns device lsa sectors type`).
pub struct TempTrace {
    pub path: std::path::PathBuf,
}

impl TempTrace {
    pub fn new(name: &str, lines: &[String]) -> Self {
        let dir = std::env::temp_dir().join(format!("flashsched-it-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        let mut f = std::fs::File::create(&path).unwrap();
        for l in lines {
            writeln!(f, "{l}").unwrap();
        }
        TempTrace { path }
    }
}

impl Drop for TempTrace {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The `tiny` preset's timing, for latencies computed by hand (ns): command and address cycles,
/// tR, tPROG at the reference step, a 4 KiB page over the 8-bit 100 MT/s channel; and its page.
pub mod tiny {
    pub const CMD: u64 = 1_000;
    pub const T_R: u64 = 50_000;
    pub const T_PROG: u64 = 500_000;
    pub const XFER: u64 = 40_960;
    pub const PAGE: u64 = 4096;
    /// `tiny` cut to one channel and one chip (one die of two planes).
    pub const ONE_DIE: [&str; 2] = ["device.geometry.channels=1", "device.geometry.chips_per_channel=1"];
}

/// One request in MQSim ASCII: time (ns), byte offset, bytes, read?
pub fn req(t_ns: u64, offset: u64, bytes: u64, read: bool) -> String {
    format!("{t_ns} 0 {} {} {}", offset / 512, bytes / 512, if read { 1 } else { 0 })
}

/// Run `lines` on a preset with overrides; returns the result with the request log.
pub fn run_lines(preset: &str, name: &str, lines: &[String], sets: &[&str]) -> RunResult {
    let t = TempTrace::new(name, lines);
    let mut all = vec!["workload.kind=trace".to_string(), format!("workload.trace.path={}", t.path.display())];
    all.extend(sets.iter().map(|s| s.to_string()));
    let s = config::load(Some(preset), None, &all).unwrap_or_else(|e| panic!("{e}"));
    run(&s, &RunOptions { request_log: true, full_invariant_check: true, json_plus: false }, &mut |_| true).unwrap_or_else(|e| panic!("{e}"))
}

/// Run a preset with overrides (a synthetic workload, say), checking every FTL invariant at the
/// end; panics on a config or simulation error.
pub fn run_sets(preset: &str, sets: &[String]) -> RunResult {
    let s = config::load(Some(preset), None, sets).unwrap_or_else(|e| panic!("{e}"));
    run(&s, &RunOptions { request_log: false, full_invariant_check: true, json_plus: false }, &mut |_| true).unwrap_or_else(|e| panic!("{e}"))
}

/// Total latency of each logged request, in arrival order.
pub fn latencies(r: &RunResult) -> Vec<u64> {
    let mut rows = r.request_log.clone();
    rows.sort_by_key(|x| (x.arrival_ns, x.offset));
    rows.iter().map(|x| x.complete_ns - x.arrival_ns).collect()
}

/// Path of the shared trace folder, if present. Under CI (the `CI` variable set) it must be there
/// (CI clones the repository beside it): a missing folder fails the test instead of letting it
/// pass without having run. Elsewhere the test is skipped with a message.
pub fn shared() -> Option<std::path::PathBuf> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    if p.join("traces").is_dir() {
        return Some(p);
    }
    if std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0") {
        panic!("../shared/traces not found beside the clone at {}: CI needs it", p.display());
    }
    eprintln!("skipped: ../shared/traces not found (set CI=true to make this an error)");
    None
}

/// Compare `got` with the golden file `tests/golden/NAME`; with `FLASHSCHED_BLESS` set, write it
/// first. The message says what to do when they differ.
pub fn check_golden(name: &str, got: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(name);
    if std::env::var_os("FLASHSCHED_BLESS").is_some() {
        std::fs::write(&path, got).unwrap();
    }
    let want = std::fs::read_to_string(&path).expect("golden file missing: run with FLASHSCHED_BLESS=1");
    assert!(got == want, "results differ from {}; diff them, and bless (FLASHSCHED_BLESS=1) if the change is intended", path.display());
}
