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
    let Some(shared) = super::shared() else { return };
    for (rel, want) in TRACES {
        let path = shared.join("traces").join(rel);
        let mut r = TraceReader::open(&path, TraceFormat::Auto, None, 'Q').unwrap_or_else(|e| panic!("{e}"));
        let st = trace_stats(&mut r).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(st["requests"].as_u64().unwrap(), *want, "{rel}");
    }
}

/// Replay the first `limit` requests of a shared trace on `tiny`, 20x faster, with `extra` overrides.
fn replay(path: &std::path::Path, limit: u64, extra: &[&str], opts: &RunOptions) -> Result<flashsched::RunResult, flashsched::Error> {
    let mut sets = vec![
        "workload.kind=trace".to_string(),
        format!("workload.trace.path={}", path.display()),
        format!("workload.max_requests={limit}"),
        "workload.time_scale=0.05".into(),
    ];
    sets.extend(extra.iter().map(|x| x.to_string()));
    run(&config::load(Some("tiny"), None, &sets)?, opts, &mut |_| true)
}

#[test]
fn shared_traces_replay_without_losing_requests() {
    let Some(shared) = super::shared() else { return };
    for (rel, want) in TRACES {
        let path = shared.join("traces").join(rel);
        let r = replay(&path, 20_000, &[], &RunOptions { request_log: false, full_invariant_check: true, json_plus: false })
            .unwrap_or_else(|e| panic!("{rel}: {e}"));
        let n = (*want).min(20_000);
        assert_eq!(r.json["flashsched"]["requests_submitted"].as_u64().unwrap(), n, "{rel}");
        assert_eq!(r.json["flashsched"]["requests_completed"].as_u64().unwrap(), n, "{rel}");
        assert_eq!(r.json["ssd"]["invariants"], "ok", "{rel}");
    }
}

#[test]
fn gzip_and_zstd_are_read_transparently() {
    use std::io::Write;
    let lines: String = (0..500).map(|i| format!("{} 0 {} 8 {}\n", i * 1000, i * 8, i % 2)).collect();
    let dir = std::env::temp_dir().join(format!("flashsched-compress-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let gz = dir.join("t.trace.gz");
    let mut e = flate2::write::GzEncoder::new(std::fs::File::create(&gz).unwrap(), flate2::Compression::default());
    e.write_all(lines.as_bytes()).unwrap();
    e.finish().unwrap();
    let zst = dir.join("t.trace.zst");
    std::fs::write(&zst, zstd::encode_all(lines.as_bytes(), 3).unwrap()).unwrap();
    let plain = dir.join("t.trace");
    std::fs::write(&plain, &lines).unwrap();
    let mut all = Vec::new();
    for p in [&plain, &gz, &zst] {
        let mut r = TraceReader::open(p, TraceFormat::Auto, None, 'Q').unwrap();
        assert_eq!(r.format, TraceFormat::Mqsim);
        let mut recs = Vec::new();
        while let Some(x) = r.next_record().unwrap() {
            recs.push(x);
        }
        assert_eq!(recs.len(), 500);
        all.push(recs);
    }
    assert_eq!(all[0], all[1]);
    assert_eq!(all[0], all[2]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn device_filter_skip_limit_and_time_scale() {
    let lines: Vec<String> = (0..100).map(|i| format!("{} {} {} 8 1", i * 1000, i % 2, i * 8)).collect();
    let t = super::TempTrace::new("shape.trace", &lines);
    let s = config::load(
        Some("tiny"),
        None,
        &[
            "workload.kind=trace".into(),
            format!("workload.trace.path={}", t.path.display()),
            "workload.trace.device=1".into(),
            "workload.skip=10".into(),
            "workload.max_requests=20".into(),
            "workload.time_scale=2.0".into(),
        ],
    )
    .unwrap();
    let r = run(&s, &RunOptions { request_log: true, full_invariant_check: false, json_plus: false }, &mut |_| true).unwrap();
    assert_eq!(r.json["flashsched"]["requests_submitted"], 20);
    let mut arrivals: Vec<u64> = r.request_log.iter().map(|x| x.arrival_ns).collect();
    arrivals.sort();
    // device 1 = odd lines, 2 us apart in the trace; scaled by 2: 4 us apart, starting at 0.
    assert_eq!(arrivals[..3], [0, 4000, 8000]);
    // the first kept request is line 22 (the 11th odd line): offset 21 * 8 sectors
    assert!(r.request_log.iter().any(|x| x.offset == 21 * 8 * 512));
}

/// A time scale that takes an arrival past the latest representable time is an error at the
/// trace line, not a clock that wraps (an hour-long trace at 10^9 used to end in microseconds).
#[test]
fn a_time_scale_past_the_latest_time_is_an_error_at_the_line() {
    let lines: Vec<String> = (0..4u64).map(|i| format!("{} 0 {} 8 1", i * 1_200_000_000_000, i * 8)).collect();
    let t = super::TempTrace::new("hour.trace", &lines);
    let s = config::load(
        Some("tiny"),
        None,
        &["workload.kind=trace".into(), format!("workload.trace.path={}", t.path.display()), "workload.time_scale=1e9".into()],
    )
    .unwrap();
    let e = match run(&s, &RunOptions::default(), &mut |_| true) {
        Ok(_) => panic!("a run past 2^62 ns completed"),
        Err(e) => e.to_string(),
    };
    assert!(e.contains(&format!("{}:2: ", t.path.display())) && e.contains("workload.time_scale") && e.contains("past the latest time"), "{e}");
}

/// Every host scheduler replays every shared trace without losing a request.
#[test]
fn every_host_policy_completes_every_shared_trace() {
    let Some(shared) = super::shared() else { return };
    let policies = [
        "host.scheduler=fifo",
        "host.scheduler=noop",
        "host.scheduler=deadline",
        "host.scheduler=mq-deadline",
        "host.scheduler=pass",
        "host.scheduler=cfq",
        "host.scheduler=as",
        "host.scheduler=kyber",
        "host.scheduler=irbw-fifo",
        "host.scheduler=irbw-fifo-rp",
        "tsu.scheduler=frfcfs",
        "tsu.scheduler=o3",
        "hil.scheduler=piq",
        "hil.scheduler=paq",
        "hil.scheduler=vios",
        "device.advanced.multi_plane=\"same_page\"",
        "device.advanced.interleave=false",
        "ftl.allocation.scheme=region",
        "ftl.allocation.scheme=dynamic",
        "ftl.allocation.scheme=channel-static",
    ];
    for policy in policies {
        for (rel, want) in TRACES {
            let path = shared.join("traces").join(rel);
            let r = replay(&path, 5000, &[policy, "host.queue_depth=8", "host.pass.region_size=4MiB"], &RunOptions::default())
                .unwrap_or_else(|e| panic!("{policy} {rel}: {e}"));
            let n = (*want).min(5000);
            assert_eq!(r.json["flashsched"]["requests_completed"].as_u64().unwrap(), n, "{policy} {rel}");
            assert_eq!(r.json["ssd"]["invariants"], "ok", "{policy} {rel}");
        }
    }
}

/// `workload.folded` counts the requests that reach past the logical capacity (whose pages the
/// simulator folds), `workload.skipped` those dropped by `workload.skip`; both in the output.
#[test]
fn folded_and_skipped_requests_are_counted() {
    let s = config::load(Some("tiny"), None, &[]).unwrap();
    let cap = s.logical_bytes(); // 7168 pages of 4 KiB
    assert_eq!(cap, 7168 * 4096);
    let w = |t: u64, offset: u64, bytes: u64| super::req(t, offset, bytes, false);
    let lines = vec![
        w(0, cap + 4096, 4096),       // skipped (past the end, but never simulated)
        w(1000, 0, 8192),             // inside
        w(2000, cap - 4096, 8192),    // straddles the end: folded (pages 7167 and 0)
        w(3000, cap, 4096),           // entirely past the end: folded (page 0)
        w(4000, cap - 8192, 8192),    // ends exactly at the end: inside (pages 7166, 7167)
        w(5000, 2 * cap + 4096, 4096), // folded twice over: page 1
        w(6000, 3 * cap, 4096),       // beyond max_requests: never read
    ];
    let r = super::run_lines("tiny", "fold.trace", &lines, &["workload.skip=1", "workload.max_requests=5"]);
    let wl = &r.json["workload"];
    assert_eq!((wl["skipped"].as_u64(), wl["emitted"].as_u64(), wl["folded"].as_u64()), (Some(1), Some(5), Some(3)), "{wl}");
    assert_eq!(r.json["flashsched"]["requests_completed"], 5);
    // The folded pages land where lpn mod 7168 puts them: pages 0, 1, 7166 and 7167 hold data.
    assert_eq!(r.json["ssd"]["mapped_pages_end"], 4);
    assert_eq!(r.json["ssd"]["host_pages_written"], 2 + 2 + 1 + 2 + 1);
    // Nothing folds when every request fits, and a generated workload stays inside the drive.
    let r = super::run_lines("tiny", "fits.trace", &lines[1..2], &[]);
    assert_eq!((r.json["workload"]["folded"].as_u64(), r.json["workload"]["skipped"].as_u64()), (Some(0), Some(0)));
    let s = config::load(Some("tiny"), None, &["workload.kind=synthetic".into(), "workload.synthetic.requests=500".into()]).unwrap();
    let r = run(&s, &RunOptions::default(), &mut |_| true).unwrap();
    assert_eq!(r.json["workload"]["folded"], 0);
}

#[test]
fn a_trace_decoded_on_its_own_thread_reads_exactly_as_one_decoded_inline() {
    use flashsched::workload::{Prefetched, Replay, Workload};
    // 3000 records (several batches), two of them out of order, and a bad line at the end.
    let mut lines = vec!["# a header comment".to_string()];
    for i in 0..3000u64 {
        let t = if i == 1200 || i == 2500 { i * 1000 - 5000 } else { i * 1000 };
        lines.push(format!("{t} 0 {} 8 {}", (i * 97) % 100_000, i % 2));
    }
    lines.push("3000000 0 zz 8 0".to_string());
    let trace = crate::TempTrace::new("prefetch.mqsim", &lines);
    let path = &trace.path;
    let sets = vec![format!("workload.trace.path=\"{}\"", path.display()), "workload.kind=\"trace\"".to_string()];
    let s = flashsched::config::load(Some("tiny"), None, &sets).unwrap();
    let mut inline = Replay::open(&s).unwrap();
    let mut ahead = Prefetched::new(Replay::open(&s).unwrap());
    // Part way: the counts are those of the records taken, not of those decoded ahead.
    for _ in 0..1500 {
        assert_eq!(inline.next_request().unwrap(), ahead.next_request().unwrap());
    }
    assert_eq!(inline.describe(), ahead.describe());
    assert_eq!(ahead.describe()["records_read"], 1500);
    loop {
        match (inline.next_request(), ahead.next_request()) {
            (Ok(Some(a)), Ok(Some(b))) => assert_eq!(a, b),
            (Err(a), Err(b)) => {
                assert_eq!(a, b, "the same error, at the same line");
                assert_eq!(a.line, 3002);
                break;
            }
            (a, b) => panic!("{a:?} against {b:?}"),
        }
    }
    assert_eq!(inline.describe(), ahead.describe());
    assert_eq!(ahead.describe()["out_of_order"], 2);
}

/// A request larger than `workload.max_request_size` is an error at its line before anything is
/// allocated for it (a 76 GiB DiskSim write used to run the process out of memory), in a run and
/// in `trace stats`; the cap can be raised.
#[test]
fn requests_larger_than_the_cap_are_an_error_at_their_line() {
    let lines = vec!["0.0 0 0 8 1".to_string(), format!("1.0 0 8 {} 0", 76u64 << 21), "2.0 0 16 8 1".to_string()];
    let t = super::TempTrace::new("huge.disksim", &lines);
    let sets = |extra: &[&str]| {
        let mut v = vec!["workload.kind=trace".to_string(), format!("workload.trace.path={}", t.path.display()), "workload.fold=modulo".into()];
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let s = config::load(Some("tiny"), None, &sets(&[])).unwrap();
    let e = run(&s, &RunOptions::default(), &mut |_| true).err().expect("a 76 GiB request ran").to_string();
    assert!(e.contains(&format!("{}:2: ", t.path.display())) && e.contains("workload.max_request_size"), "{e}");
    let mut reader = flashsched::trace::TraceReader::open(&t.path, flashsched::config::settings::TraceFormat::Disksim, None, 'Q').unwrap();
    let e = flashsched::trace::stats::trace_stats(&mut reader).err().expect("trace stats counted it").to_string();
    assert!(e.contains(":2: ") && e.contains("max_request_size"), "{e}");
    // Out of range caps are refused; a raised one lets a big request through.
    assert!(config::load(Some("tiny"), None, &sets(&["workload.max_request_size=0"])).is_err());
    assert!(config::load(Some("tiny"), None, &sets(&["workload.max_request_size=2TiB"])).is_err());
    let small = super::TempTrace::new("big.disksim", &["0.0 0 0 8 1".to_string(), "1.0 0 8 4096 0".to_string()]);
    let s = config::load(Some("tiny"), None, &[
        "workload.kind=trace".into(), format!("workload.trace.path={}", small.path.display()), "workload.max_request_size=1MiB".into(),
    ]).unwrap();
    assert!(run(&s, &RunOptions::default(), &mut |_| true).is_err(), "a 2 MiB request passes a 1 MiB cap");
}

/// A warm-up that leaves nothing to measure is refused (it reported a mean latency of 0).
#[test]
fn a_warmup_of_every_request_is_refused() {
    let e = config::load(Some("tiny"), None, &["workload.kind=synthetic".into(), "workload.synthetic.requests=100".into(), "workload.warmup=100".into()])
        .err()
        .expect("accepted")
        .to_string();
    assert!(e.contains("workload.warmup: leaves no request measured"), "{e}");
}

/// The same for a trace, whose length is known only at its end.
#[test]
fn a_warmup_longer_than_the_trace_is_an_error() {
    let lines: Vec<String> = (0..10u64).map(|i| format!("{} 0 {} 8 1", i * 1000, i * 8)).collect();
    let t = super::TempTrace::new("short.trace", &lines);
    let s = config::load(Some("tiny"), None, &["workload.kind=trace".into(), format!("workload.trace.path={}", t.path.display()), "workload.warmup=10".into()]).unwrap();
    let e = run(&s, &RunOptions::default(), &mut |_| true).err().expect("a run with nothing measured succeeded").to_string();
    assert!(e.contains("workload.warmup: leaves no request measured: the workload issued 10 requests"), "{e}");
}
