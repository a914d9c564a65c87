//! GC-heavy benchmark: `cargo bench -p flashsched --bench gc_heavy` (config in gc_heavy.toml).
//! Checks every FTL invariant at the end and prints time, memory and the GC counters.

use std::time::Instant;

fn main() {
    let cfg = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/gc_heavy.toml");
    let sets: Vec<String> = std::env::args().skip(1).filter(|a| a.contains('=')).collect();
    let s = flashsched::config::load(None, Some(&cfg), &sets).expect("config");
    let t = Instant::now();
    let r = flashsched::run(&s, &flashsched::RunOptions { request_log: false, full_invariant_check: true, json_plus: false }, &mut |_| true)
        .expect("run");
    let wall = t.elapsed().as_secs_f64();
    let ssd = &r.json["ssd"];
    let rss = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok()))
        .unwrap_or(0.0)
        / 1024.0;
    println!("requests            {}", r.json["flashsched"]["requests_completed"]);
    println!("wall_s              {wall:.2}");
    println!("setup_s             {}", r.json["run_info"]["setup_s"]);
    println!("peak_rss_mb         {rss:.1}");
    println!("events              {}", r.json["flashsched"]["events"]);
    println!("write_amplification {}", ssd["write_amplification"]);
    println!("gc_invocations      {}", ssd["gc_invocations"]);
    println!("gc_pages_moved      {}", ssd["gc_pages_moved"]);
    println!("erases              {}", ssd["erases"]);
    println!("write_stalls        {}", ssd["write_stalls"]);
    println!("erase_count         {}", ssd["erase_count"]["max"]);
    println!("write_lat_p99_us    {:.1}", r.json["jobs"][0]["write"]["lat_ns"]["percentile"]["99.000000"].as_f64().unwrap() / 1000.0);
    println!("invariants          {}", ssd["invariants"]);
    assert_eq!(ssd["invariants"], "ok");
}
