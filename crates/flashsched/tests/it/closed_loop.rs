//! Closed-loop jobs: each job keeps `iodepth` requests in flight and issues the next on completion.

use flashsched::{config, run, RunOptions, RunResult};

fn jobs(sets: &[&str]) -> RunResult {
    let mut all: Vec<String> = vec!["workload.kind=jobs".into()];
    all.extend(sets.iter().map(|s| s.to_string()));
    let s = config::load(Some("tiny"), None, &all).unwrap();
    run(&s, &RunOptions { request_log: true, full_invariant_check: true, json_plus: false }, &mut |_| true).unwrap()
}

const READ_4K: u64 = 1_000 + 50_000 + 40_960; // command + tR + data out on `tiny`

#[test]
fn one_job_depth_one_is_a_chain_of_idle_reads() {
    let r = jobs(&["workload.jobs.rw=randread", "workload.jobs.number_ios=50"]);
    assert_eq!(r.json["flashsched"]["requests_completed"], 50);
    let mut rows = r.request_log.clone();
    rows.sort_by_key(|x| x.arrival_ns);
    for (i, x) in rows.iter().enumerate() {
        assert_eq!(x.arrival_ns, i as u64 * READ_4K, "request {i} arrives when the previous completes");
        assert_eq!(x.complete_ns - x.arrival_ns, READ_4K);
    }
    let iops = r.json["jobs"][0]["read"]["iops"].as_f64().unwrap();
    assert!((iops - 1e9 / READ_4K as f64).abs() < 1.0, "{iops}");
}

#[test]
fn thinktime_spaces_requests() {
    let r = jobs(&["workload.jobs.rw=randread", "workload.jobs.number_ios=10", "workload.jobs.thinktime=100us"]);
    let mut a: Vec<u64> = r.request_log.iter().map(|x| x.arrival_ns).collect();
    a.sort();
    assert!(a.windows(2).all(|w| w[1] - w[0] == READ_4K + 100_000));
}

#[test]
fn jobs_times_depth_requests_in_flight() {
    let r = jobs(&["workload.jobs.numjobs=4", "workload.jobs.iodepth=2", "workload.jobs.number_ios=200", "workload.jobs.rw=randrw", "host.queue_depth=64"]);
    assert_eq!(r.json["flashsched"]["requests_completed"], 800);
    // At any arrival, at most 8 requests are inside the device.
    let rows = &r.request_log;
    let mut events: Vec<(u64, i32)> = rows.iter().flat_map(|x| [(x.arrival_ns, 1), (x.complete_ns, -1)]).collect();
    events.sort_by_key(|&(t, d)| (t, d)); // completions before arrivals at the same instant
    let mut inflight = 0;
    let mut peak = 0;
    for (_, d) in events {
        inflight += d;
        peak = peak.max(inflight);
    }
    assert_eq!(peak, 8);
    let reads = r.json["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
    assert!((300..=500).contains(&reads), "rwmixread=50: {reads} reads of 800");
}

#[test]
fn sequential_jobs_walk_their_region() {
    let r = jobs(&["workload.jobs.rw=write", "workload.jobs.number_ios=20", "workload.jobs.bs=8KiB", "workload.jobs.size=64KiB"]);
    let mut rows = r.request_log.clone();
    rows.sort_by_key(|x| x.arrival_ns);
    let offsets: Vec<u64> = rows.iter().map(|x| x.offset).collect();
    assert_eq!(&offsets[..9], &[0, 8192, 16384, 24576, 32768, 40960, 49152, 57344, 0]);
}
