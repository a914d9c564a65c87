//! The erase limit (`device.erase_limit`): when the first block reaches it, and how many do.

use flashsched::RunResult;

fn gc_heavy(sets: &[&str]) -> RunResult {
    let mut all: Vec<String> = vec![
        "workload.kind=\"synthetic\"".into(),
        "workload.synthetic.requests=20000".into(),
        "workload.synthetic.read_ratio=0".into(),
        "workload.synthetic.range=\"4MiB\"".into(),
        "workload.synthetic.size_max=\"4KiB\"".into(),
        "ftl.precondition.fill=0.85".into(),
    ];
    all.extend(sets.iter().map(|s| s.to_string()));
    crate::run_sets("tiny", &all)
}

#[test]
fn the_first_block_to_reach_the_limit_marks_the_first_failure() {
    // 20,000 one-page writes over 4 MiB of a 32 MiB drive 85% full: GC erases blocks again and again.
    let free = gc_heavy(&[]);
    assert!(free.json["ssd"].get("endurance").is_none(), "no limit, no report");
    let max = free.json["ssd"]["erase_count"]["max"].as_u64().unwrap();
    assert!(max >= 4, "the workload must wear some block (max {max})");
    // A limit the most worn block reaches: a failure inside the run, when an erase completed.
    let limit = max - 1;
    let r = gc_heavy(&[&format!("device.erase_limit={limit}")]);
    let e = &r.json["ssd"]["endurance"];
    let at = e["first_failure_ns"].as_u64().expect("a block reached the limit");
    assert!(at > 0 && at <= r.json["ssd"]["simulated_time_ns"].as_u64().unwrap(), "{e}");
    assert!(e["blocks_at_limit"].as_u64().unwrap() >= 1, "{e}");
    // A lower limit fails no later; one above every count never.
    let lower = gc_heavy(&[&format!("device.erase_limit={}", limit - 2)]);
    assert!(lower.json["ssd"]["endurance"]["first_failure_ns"].as_u64().unwrap() <= at);
    let never = gc_heavy(&[&format!("device.erase_limit={}", max + 1)]);
    assert!(never.json["ssd"]["endurance"]["first_failure_ns"].is_null());
    assert_eq!(never.json["ssd"]["endurance"]["blocks_at_limit"], 0);
    // Projected: the measured failure when there is one; otherwise after the run, and sooner for a
    // lower limit.
    assert_eq!(e["first_failure_projected_ns"], e["first_failure_ns"]);
    let end = never.json["ssd"]["simulated_time_ns"].as_u64().unwrap();
    let far = gc_heavy(&[&format!("device.erase_limit={}", 10 * max)]);
    let p1 = never.json["ssd"]["endurance"]["first_failure_projected_ns"].as_u64().unwrap();
    let p10 = far.json["ssd"]["endurance"]["first_failure_projected_ns"].as_u64().unwrap();
    assert!(end <= p1 && p1 < p10, "{end} {p1} {p10}");
    // The most worn block had `max` erases in the run (a fresh drive) and one more takes it to
    // max + 1: the projection is at most one more run's worth of its rate.
    assert!(p1 <= end + end / max + 1, "{p1} vs {end}");
    // Erases in the run, per block: they add up to the drive's erases (no warm-up here).
    let run = &never.json["ssd"]["endurance"]["run_erases"];
    assert_eq!(run["total"], never.json["ssd"]["erases"]);
    assert_eq!(run["max"].as_u64().unwrap(), max);
    // The limit changes nothing else: blocks stay in use past it.
    assert_eq!(free.json["jobs"], r.json["jobs"]);
    // Aged to the limit before the run: failed at time 0.
    let aged = gc_heavy(&["device.erase_limit=100", "ftl.precondition.pe_cycles=100"]);
    assert_eq!(aged.json["ssd"]["endurance"]["first_failure_ns"], 0);
}

#[test]
fn static_wear_leveling_moves_cold_data_and_evens_wear() {
    // Hot/cold writes: 90% of writes to 10% of a drive filled 85%: without wear leveling the cold
    // blocks are never erased; SWL recycles them, so erases spread (lower maximum and deviation)
    // at the price of extra moves.
    let skew = ["workload.synthetic.address=\"hotcold\"", "workload.synthetic.hot_fraction=0.1", "workload.synthetic.hot_traffic=0.9",
        "workload.synthetic.range=\"24MiB\"", "workload.synthetic.requests=40000"];
    let none = gc_heavy(&skew);
    let mut with: Vec<&str> = skew.to_vec();
    with.extend(["ftl.wear_leveling=\"swl\"", "ftl.swl.threshold=4"]);
    let swl = gc_heavy(&with);
    for r in [&none, &swl] {
        assert_eq!(r.json["ssd"]["invariants"], "ok");
        assert_eq!(r.json["flashsched"]["requests_completed"], 40000);
    }
    let w = &swl.json["ssd"]["wear_leveling"];
    assert!(w["collections"].as_u64().unwrap() > 0 && w["pages_moved"].as_u64().unwrap() > 0, "{w}");
    assert_eq!(w["table_bytes"], 512 / 64 * 8, "one bit per block of 512");
    assert!(none.json["ssd"].get("wear_leveling").is_none());
    let e = |r: &RunResult, k: &str| r.json["ssd"]["erase_count"][k].as_f64().unwrap();
    assert!(e(&swl, "stddev") < e(&none, "stddev"), "swl {} none {}", e(&swl, "stddev"), e(&none, "stddev"));
    assert!(e(&swl, "min") > e(&none, "min"), "cold blocks get erased");
    let again = gc_heavy(&with);
    assert_eq!(again.json["ssd"], swl.json["ssd"], "deterministic");
    // Its moves went to its own stream of most-erased blocks (ftl.wear_leveling_moves = "worn",
    // the default), all but those a plane short of free blocks sent to GC's; with "gc" none did.
    let n = |r: &RunResult, k: &str| r.json["ssd"]["wear_leveling"][k].as_u64().unwrap();
    assert!(n(&swl, "pages_to_worn_blocks") > 10 * n(&swl, "pages_to_gc_stream"), "{w}");
    assert!(n(&swl, "pages_to_worn_blocks") + n(&swl, "pages_to_gc_stream") <= n(&swl, "pages_moved"), "{w}");
    with.push("ftl.wear_leveling_moves=\"gc\"");
    let gc = gc_heavy(&with);
    assert_eq!(gc.json["ssd"]["invariants"], "ok");
    assert_eq!(n(&gc, "pages_to_worn_blocks"), 0);
    assert!(n(&gc, "pages_to_gc_stream") > 0);
}

#[test]
fn static_wear_leveling_stops_once_the_host_does() {
    // Two sets of 256 blocks (k = 8 on the tiny drive's 512) and T = 2: a recycling's erases
    // spanned the table's reset and started the next recycling, which did the same, forever: the
    // run never ended (found by a fuzz campaign). The simulated time is bounded instead of the
    // wall clock: the host's 1,400 requests arrive within 0.3 s, so a run still going
    // after a simulated hour is leveling on its own.
    let sets: Vec<String> = ["workload.kind=\"synthetic\"", "workload.synthetic.requests=1400", "ftl.wear_leveling=\"swl\"", "ftl.swl.set_bits=8", "ftl.swl.threshold=2"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let s = flashsched::config::load(Some("tiny"), None, &sets).unwrap();
    let opts = flashsched::RunOptions { request_log: false, full_invariant_check: true, json_plus: false };
    let r = flashsched::run(&s, &opts, &mut |p| p.sim_time_ns < 3_600_000_000_000).expect("the run ends");
    assert_eq!(r.json["ssd"]["invariants"], "ok");
    assert_eq!(r.json["flashsched"]["requests_completed"], 1400);
    let wl = r.json["ssd"]["wear_leveling"]["collections"].as_u64().unwrap();
    assert!(wl > 0, "the setting makes wear leveling run at all");
}
