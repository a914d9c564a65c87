//! The same config, seed and trace give byte-identical results once wall-clock fields are removed.

use flashsched::report::without_wall_clock;
use flashsched::{config, run, RunOptions};

fn once(seed: u64) -> String {
    let s = config::load(
        Some("tiny"),
        None,
        &[
            "workload.kind=synthetic".into(),
            "workload.synthetic.requests=5000".into(),
            "workload.synthetic.address=zipf".into(),
            "workload.synthetic.interarrival=30us".into(),
            "ftl.precondition.fill=0.9".into(),
            "ftl.precondition.order=random".into(),
            "stats.interval=5ms".into(),
            format!("seed={seed}"),
        ],
    )
    .unwrap();
    let r = run(&s, &RunOptions::default(), &mut |_| true).unwrap();
    format!("{}\n{}", serde_json::to_string_pretty(&without_wall_clock(&r.json)).unwrap(), r.intervals.join("\n"))
}

#[test]
fn same_seed_same_bytes() {
    let a = once(7);
    assert_eq!(a, once(7));
    assert_ne!(a, once(8), "the seed must matter");
    assert!(a.contains("\"gc_invocations\""));
}
