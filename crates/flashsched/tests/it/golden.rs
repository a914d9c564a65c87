//! Whole-run statistics on a tiny workload, compared with a golden file. A change in the model
//! that moves any number shows up here; if it is intended, regenerate with
//! `FLASHSCHED_BLESS=1 cargo test -p flashsched --test it golden` and review the diff.

use flashsched::report::without_wall_clock;
use flashsched::{config, run, RunOptions};

#[test]
fn tiny_synthetic_matches_golden() {
    let s = config::load(
        Some("tiny"),
        None,
        &[
            "workload.kind=synthetic".into(),
            "workload.synthetic.requests=3000".into(),
            "workload.synthetic.read_ratio=0.4".into(),
            "workload.synthetic.interarrival=50us".into(),
            "workload.synthetic.size_max=32KiB".into(),
            "ftl.precondition.fill=0.8".into(),
            "ftl.precondition.overwrites=1.0".into(),
        ],
    )
    .unwrap();
    let r = run(&s, &RunOptions::default(), &mut |_| true).unwrap();
    let mut doc = without_wall_clock(&r.json);
    // Per-die lists are long and add nothing the means do not; keep the file reviewable.
    doc["ssd"]["die_utilization"]["per_die"] = serde_json::Value::Null;
    doc["global options"] = serde_json::Value::Null;
    let got = serde_json::to_string_pretty(&doc).unwrap() + "\n";
    super::check_golden("tiny_synthetic.json", &got);
}
