//! The reference benchmark (docs/performance.md): bench8x8 with ../shared/bench/synth200k.mqsim.trace.gz.
//! Run with `cargo bench -p flashsched --bench bench8x8`. Prints set-up time, simulation time,
//! simulated requests per second (best and median of FLASHSCHED_BENCH_REPEATS runs, default 5)
//! and peak memory (VmHWM). Extra arguments of the form key=value are `--set` overrides.
//! `FLASHSCHED_BENCH_JSON=PATH` writes the last run's result, without its wall-clock fields, to
//! PATH: for checking that an optimisation leaves results byte-identical.

use std::time::Instant;

fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).map(|l| l.split_whitespace().nth(1).unwrap_or("0").parse::<f64>().unwrap_or(0.0)))
        .unwrap_or(0.0)
        / 1024.0
}

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/bench/synth200k.mqsim.trace.gz");
    let trace = std::env::var("FLASHSCHED_BENCH_TRACE").unwrap_or_else(|_| root.display().to_string());
    if !std::path::Path::new(&trace).exists() {
        eprintln!("benchmark trace not found at {trace}; set FLASHSCHED_BENCH_TRACE");
        return;
    }
    let mut sets = vec!["workload.kind=trace".to_string(), format!("workload.trace.path={trace}")];
    sets.extend(std::env::args().skip(1).filter(|a| a.contains('=')));
    let s = flashsched::config::load(Some("bench8x8"), None, &sets).expect("config");
    let repeats: usize = std::env::var("FLASHSCHED_BENCH_REPEATS").ok().and_then(|v| v.parse().ok()).unwrap_or(5);
    // Several runs, reporting the fastest and the median: a shared 2-core machine is noisy.
    let mut walls = Vec::new();
    let mut r = None;
    for _ in 0..repeats.max(1) {
        let t = Instant::now();
        r = Some(flashsched::run(&s, &flashsched::RunOptions::default(), &mut |_| true).expect("run"));
        walls.push(t.elapsed().as_secs_f64());
    }
    let r = r.unwrap();
    println!("wall_s_each         {}", walls.iter().map(|w| format!("{w:.4}")).collect::<Vec<_>>().join(" "));
    walls.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let wall = walls[0];
    let median = walls[walls.len() / 2];
    let info = &r.json["run_info"];
    let n = r.json["flashsched"]["requests_completed"].as_u64().unwrap();
    println!("requests            {n}");
    println!("setup_s             {:.4}", info["setup_s"].as_f64().unwrap());
    println!("simulate_s          {:.4}", info["simulate_s"].as_f64().unwrap());
    println!("runs                {}", walls.len());
    println!("wall_s_min          {wall:.4}");
    println!("wall_s_median       {median:.4}");
    println!("requests_per_s_max  {:.0}", n as f64 / wall);
    println!("requests_per_s_med  {:.0}", n as f64 / median);
    println!("peak_rss_mb         {:.1}", peak_rss_mb());
    println!("read_lat_mean_us    {:.1}", r.json["jobs"][0]["read"]["lat_ns"]["mean"].as_f64().unwrap() / 1000.0);
    println!("write_lat_mean_us   {:.1}", r.json["jobs"][0]["write"]["lat_ns"]["mean"].as_f64().unwrap() / 1000.0);
    println!("write_amplification {}", r.json["ssd"]["write_amplification"]);
    println!("events              {}", r.json["flashsched"]["events"]);
    if let Ok(path) = std::env::var("FLASHSCHED_BENCH_JSON") {
        let doc = flashsched::report::without_wall_clock(&r.json);
        std::fs::write(&path, serde_json::to_string_pretty(&doc).expect("json")).expect("write FLASHSCHED_BENCH_JSON");
    }
}
