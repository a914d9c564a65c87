//! The synthetic generator produces what its parameters say.

use flashsched::config;
use flashsched::trace::Op;
use flashsched::workload::{self, HostRequest};

fn generate(sets: &[&str]) -> Vec<HostRequest> {
    let mut all: Vec<String> = vec!["workload.kind=synthetic".into(), "workload.synthetic.requests=20000".into()];
    all.extend(sets.iter().map(|s| s.to_string()));
    let s = config::load(Some("tiny"), None, &all).unwrap();
    let mut w = workload::build(&s).unwrap();
    let mut out = Vec::new();
    while let Some(r) = w.next_request().unwrap() {
        out.push(r);
    }
    out
}

#[test]
fn poisson_uniform_mix_and_sizes() {
    let reqs = generate(&["workload.synthetic.read_ratio=0.3", "workload.synthetic.interarrival=100us"]);
    assert_eq!(reqs.len(), 20000);
    let reads = reqs.iter().filter(|r| r.op == Op::Read).count() as f64 / 20000.0;
    assert!((reads - 0.3).abs() < 0.02, "read fraction {reads}");
    let mean_gap = reqs.last().unwrap().arrival as f64 / 19999.0;
    assert!((mean_gap - 100_000.0).abs() < 3_000.0, "mean gap {mean_gap}");
    assert!(reqs.windows(2).all(|w| w[0].arrival <= w[1].arrival));
    assert!(reqs.iter().all(|r| r.len % 4096 == 0 && (4096..=65536).contains(&r.len) && r.offset % 4096 == 0));
    let cap = 29_360_128; // tiny's logical capacity
    assert!(reqs.iter().all(|r| r.offset + r.len <= cap));
}

#[test]
fn fixed_arrivals_and_sizes() {
    let reqs = generate(&["workload.synthetic.arrival=fixed", "workload.synthetic.size_dist=fixed", "workload.synthetic.size_min=8KiB"]);
    assert!(reqs.iter().enumerate().all(|(i, r)| r.arrival == i as u64 * 200_000 && r.len == 8192));
}

#[test]
fn onoff_leaves_silences() {
    let reqs = generate(&["workload.synthetic.arrival=onoff", "workload.synthetic.interarrival=10us", "workload.synthetic.on_time=1ms", "workload.synthetic.off_time=4ms"]);
    // No arrival falls inside an off period: (t mod 5 ms) < 1 ms.
    assert!(reqs.iter().all(|r| r.arrival % 5_000_000 <= 1_000_000), "arrival in a silence");
}

#[test]
fn zipf_and_hotcold_are_skewed_and_sequential_runs_are_sequential() {
    let top_share = |reqs: &[HostRequest]| {
        let mut counts = std::collections::HashMap::new();
        for r in reqs {
            *counts.entry(r.offset).or_insert(0u32) += 1;
        }
        let mut v: Vec<u32> = counts.into_values().collect();
        v.sort_unstable_by(|a, b| b.cmp(a));
        v.iter().take(v.len() / 10 + 1).sum::<u32>() as f64 / reqs.len() as f64
    };
    let uniform = generate(&["workload.synthetic.size_dist=fixed"]);
    let zipf = generate(&["workload.synthetic.address=zipf", "workload.synthetic.size_dist=fixed"]);
    assert!(top_share(&zipf) > top_share(&uniform) + 0.2, "zipf not skewed");
    let hc = generate(&["workload.synthetic.address=hotcold", "workload.synthetic.size_dist=fixed", "workload.synthetic.hot_fraction=0.1", "workload.synthetic.hot_traffic=0.9"]);
    let hot_end = (29_360_128u64 / 4096) as f64 * 0.1 * 4096.0;
    let in_hot = hc.iter().filter(|r| (r.offset as f64) < hot_end).count() as f64 / hc.len() as f64;
    assert!((in_hot - 0.9).abs() < 0.02, "hot share {in_hot}");
    let seq = generate(&["workload.synthetic.address=sequential", "workload.synthetic.sequential_run=8"]);
    let follows = seq.windows(2).filter(|w| w[1].offset == w[0].offset + w[0].len).count() as f64 / seq.len() as f64;
    assert!(follows > 0.8, "sequential share {follows}");
}

#[test]
fn hotcold_with_separate_hot_parts_sends_writes_to_the_end_of_the_range() {
    let sets = ["workload.synthetic.address=hotcold", "workload.synthetic.size_dist=fixed", "workload.synthetic.hot_fraction=0.1",
        "workload.synthetic.hot_traffic=0.9", "workload.synthetic.read_ratio=0.5", "workload.synthetic.hot_split=separate"];
    let reqs = generate(&sets);
    let cap = 29_360_128f64;
    let share = |op: Op, lo: f64, hi: f64| {
        let of: Vec<_> = reqs.iter().filter(|r| r.op == op).collect();
        of.iter().filter(|r| (r.offset as f64) >= lo * cap && (r.offset as f64) < hi * cap).count() as f64 / of.len() as f64
    };
    assert!((share(Op::Read, 0.0, 0.1) - 0.9).abs() < 0.02, "reads' hot part is the start");
    assert!((share(Op::Write, 0.9, 1.0) - 0.9).abs() < 0.02, "writes' hot part is the end");
    assert!(share(Op::Write, 0.0, 0.1) < 0.02, "writes seldom touch the reads' hot part");
    // Shared (the default): both at the start.
    let shared = generate(&sets[..5]);
    let w_hot = shared.iter().filter(|r| r.op == Op::Write && (r.offset as f64) < 0.1 * cap).count() as f64
        / shared.iter().filter(|r| r.op == Op::Write).count() as f64;
    assert!((w_hot - 0.9).abs() < 0.02);
}

#[test]
fn reads_may_have_their_own_range() {
    let r = generate(&["workload.synthetic.requests=20000", "workload.synthetic.read_ratio=0.5", "workload.synthetic.address=\"zipf\"",
        "workload.synthetic.range=\"4MiB\"", "workload.synthetic.read_range=\"24MiB\"", "workload.synthetic.size_max=\"8KiB\""]);
    let (reads, writes): (Vec<&HostRequest>, Vec<&HostRequest>) = r.iter().partition(|q| q.op == Op::Read);
    assert!(writes.iter().all(|q| q.offset + q.len <= 4 << 20), "writes stay in range");
    assert!(reads.iter().all(|q| q.offset + q.len <= 24 << 20), "reads stay in read_range");
    let beyond = reads.iter().filter(|q| q.offset >= 4 << 20).count() as f64 / reads.len() as f64;
    assert!(beyond > 0.5, "most reads fall beyond the writes' range ({beyond})");
    // Not with the other address kinds: a clear error, not a silently ignored key.
    let e = flashsched::config::load(Some("tiny"), None, &["workload.kind=\"synthetic\"".into(), "workload.synthetic.address=\"hotcold\"".into(), "workload.synthetic.read_range=\"8MiB\"".into()]).unwrap_err().to_string();
    assert!(e.contains("workload.synthetic.read_range") && e.contains("hotcold"), "{e}");
}

#[test]
fn recurring_extents_are_rewritten_whole_and_replaced_over_time() {
    let r = generate(&["workload.synthetic.requests=8000", "workload.synthetic.read_ratio=0.2", "workload.synthetic.recurring.share=0.5",
        "workload.synthetic.recurring.sets=4", "workload.synthetic.recurring.size=\"12KiB\"", "workload.synthetic.recurring.lifetime=2000",
        "workload.synthetic.align=\"4KiB\""]);
    let mut counts = std::collections::HashMap::<(u64, u64), usize>::new();
    for q in r.iter().filter(|q| q.op == Op::Write) {
        *counts.entry((q.offset, q.len)).or_default() += 1;
    }
    let writes = r.iter().filter(|q| q.op == Op::Write).count();
    // Each extent lives 2000 requests (replaced one at a time every 500): about 4 + 8000 / 500 = 20
    // extents, written 12 KiB at a time, half the writes in all.
    let recurring: Vec<_> = counts.iter().filter(|(k, &n)| k.1 == 12 << 10 && n >= 20).collect();
    assert!((12..=22).contains(&recurring.len()), "{} extents rewritten often", recurring.len());
    let share = recurring.iter().map(|(_, &n)| n).sum::<usize>() as f64 / writes as f64;
    assert!((0.4..0.6).contains(&share), "{share}");
}

/// A gap far longer than the bursts crosses millions of them in one step: 1 ns on, 1 ns off and a
/// 10 s mean gap used to loop once a burst (about 10^9 times an arrival). The arrivals still fall
/// only in on periods, and their mean gap is the configured one plus the off time crossed.
#[test]
fn onoff_with_gaps_much_longer_than_bursts_is_quick_and_exact() {
    let reqs = generate(&[
        "workload.synthetic.requests=2000",
        "workload.synthetic.arrival=onoff",
        "workload.synthetic.interarrival=10s",
        "workload.synthetic.on_time=1ns",
        "workload.synthetic.off_time=1ns",
    ]);
    assert_eq!(reqs.len(), 2000);
    assert!(reqs.windows(2).all(|w| w[0].arrival <= w[1].arrival));
    // Half the time is off: a 10 s gap of on time spans about 20 s of simulated time.
    let mean_gap = reqs.last().unwrap().arrival as f64 / 1999.0;
    assert!((mean_gap - 20e9).abs() < 2e9, "mean gap {mean_gap}");
}

/// Settings under which no arrival can ever be made are refused before the run.
#[test]
fn zero_length_periods_that_could_never_end_are_refused() {
    for (sets, key) in [
        (vec!["workload.synthetic.arrival=onoff", "workload.synthetic.on_time=0ns", "workload.synthetic.off_time=0ns"], "workload.synthetic.on_time"),
        (vec!["workload.synthetic.arrival=onoff", "workload.synthetic.on_time=0ns", "workload.synthetic.off_time=1ms"], "workload.synthetic.on_time"),
        (vec!["host.scheduler=cfq", "host.cfq.slice=0ns"], "host.cfq.slice"),
    ] {
        let mut all: Vec<String> = vec!["workload.kind=synthetic".into()];
        all.extend(sets.iter().map(|s| s.to_string()));
        let e = config::load(Some("tiny"), None, &all).err().unwrap_or_else(|| panic!("{sets:?} accepted")).to_string();
        assert!(e.contains(&format!("{key}: must be positive")), "{sets:?}: {e}");
    }
}

/// An arrival time past what a run can represent is an error naming the key, not a wrapped clock.
#[test]
fn arrivals_past_the_latest_time_are_an_error() {
    let all: Vec<String> = ["workload.kind=synthetic", "workload.synthetic.requests=10", "workload.synthetic.arrival=fixed", "workload.synthetic.interarrival=1000000000s"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let s = config::load(Some("tiny"), None, &all).unwrap();
    let mut w = workload::build(&s).unwrap();
    let e = loop {
        match w.next_request() {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("every arrival accepted"),
            Err(e) => break e.to_string(),
        }
    };
    assert!(e.contains("workload.synthetic") && e.contains("past the latest time") && e.contains("interarrival"), "{e}");
}
