//! Every trace in ../shared/traces parses with the request counts of its README, and replays
//! through the simulator without losing a request. Skipped (with a message) where ../shared is
//! absent; CI has it.

use flashsched::config::settings::TraceFormat;
use flashsched::trace::{stats::trace_stats, TraceReader};
use flashsched::{config, run, RunOptions};

const TRACES: &[(&str, u64)] = &[
    ("msr/hm_0.window1000.csv", 1000),
    ("msr/rsrch_0.head1000.csv", 1000),
    ("msr/web_0.head1000.relsec.csv", 1000),
    ("msr/web_1.head1000.relsec.csv", 1000),
    ("msr/web_2.head1000.relsec.csv", 1000),
    ("msr/web_3.head1000.relsec.csv", 1000),
    ("msnfs/msnfs.disksim.ascii", 149_999),
    ("umass/websearch.small.mqsim.trace", 24_783),
    ("umass/financial.head949.spc", 949),
    ("tpcc/tpcc.small.mqsim.trace", 6_999),
    ("blkparse/java-flush.blkparse.txt.gz", 15_524),
];

#[test]
fn shared_traces_parse_with_published_counts() {
    let Some(shared) = super::shared() else {
        eprintln!("skipped: ../shared/traces not found");
        return;
    };
    for (rel, want) in TRACES {
        let path = shared.join("traces").join(rel);
        let mut r = TraceReader::open(&path, TraceFormat::Auto, None, 'Q').unwrap_or_else(|e| panic!("{e}"));
        let st = trace_stats(&mut r).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(st["requests"].as_u64().unwrap(), *want, "{rel}");
    }
}

#[test]
fn shared_traces_replay_without_losing_requests() {
    let Some(shared) = super::shared() else {
        eprintln!("skipped: ../shared/traces not found");
        return;
    };
    for (rel, want) in TRACES {
        let path = shared.join("traces").join(rel);
        let s = config::load(
            Some("tiny"),
            None,
            &[
                "workload.kind=trace".into(),
                format!("workload.trace.path={}", path.display()),
                "workload.max_requests=20000".into(),
                "workload.time_scale=0.05".into(),
            ],
        )
        .unwrap();
        let r = run(&s, &RunOptions { request_log: false, full_invariant_check: true }, &mut |_| true)
            .unwrap_or_else(|e| panic!("{rel}: {e}"));
        let n = (*want).min(20_000);
        assert_eq!(r.json["flashsched"]["requests_submitted"].as_u64().unwrap(), n, "{rel}");
        assert_eq!(r.json["flashsched"]["requests_completed"].as_u64().unwrap(), n, "{rel}");
        assert_eq!(r.json["ssd"]["invariants"], "ok", "{rel}");
    }
}
