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
    let s = flashsched::config::load(Some("tiny"), None, &all).unwrap_or_else(|e| panic!("{e}"));
    flashsched::run(&s, &flashsched::RunOptions { request_log: false, full_invariant_check: true, json_plus: false }, &mut |_| true)
        .unwrap_or_else(|e| panic!("{e}"))
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
    // The limit changes nothing else: blocks stay in use past it.
    assert_eq!(free.json["jobs"], r.json["jobs"]);
    // Aged to the limit before the run: failed at time 0.
    let aged = gc_heavy(&["device.erase_limit=100", "ftl.precondition.pe_cycles=100"]);
    assert_eq!(aged.json["ssd"]["endurance"]["first_failure_ns"], 0);
}
