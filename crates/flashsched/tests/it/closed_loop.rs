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

/// Requests of the log by job area (`area` bytes each), each area's offsets in arrival order.
fn offsets_by_area(r: &RunResult, area: u64, jobs: u64) -> Vec<Vec<u64>> {
    let mut rows = r.request_log.clone();
    rows.sort_by_key(|x| (x.arrival_ns, x.offset));
    (0..jobs).map(|j| rows.iter().filter(|x| x.offset / area == j).map(|x| x.offset - j * area).collect()).collect()
}

#[test]
fn skip_discards_the_first_requests_round_robin_and_every_job_starts() {
    // 4 sequential writers of 10 requests, 2 in flight each; skip 8 = the first 2 of every job.
    let r = jobs(&[
        "workload.jobs.numjobs=4",
        "workload.jobs.iodepth=2",
        "workload.jobs.rw=write",
        "workload.jobs.number_ios=10",
        "workload.jobs.size=64KiB",
        "workload.jobs.offset_increment=64KiB",
        "workload.skip=8",
    ]);
    assert_eq!(r.json["flashsched"]["requests_completed"], 32);
    assert_eq!(r.json["workload"]["skipped"], 8);
    assert_eq!(r.json["workload"]["emitted"], 32);
    for (j, offsets) in offsets_by_area(&r, 64 << 10, 4).iter().enumerate() {
        let want: Vec<u64> = (2..10).map(|i| i * 4096).collect();
        assert_eq!(offsets, &want, "job {j} starts after its 2 skipped requests and issues the rest");
    }
}

#[test]
fn max_requests_caps_the_requests_issued_on_completions() {
    let r = jobs(&["workload.jobs.numjobs=2", "workload.jobs.iodepth=2", "workload.jobs.number_ios=100", "workload.max_requests=10"]);
    assert_eq!(r.json["flashsched"]["requests_submitted"], 10);
    assert_eq!(r.json["flashsched"]["requests_completed"], 10);
    assert_eq!(r.json["workload"]["emitted"], 10);
}

#[test]
fn skip_then_max_requests_on_one_sequential_job() {
    let r = jobs(&["workload.jobs.rw=read", "workload.jobs.number_ios=100", "workload.skip=3", "workload.max_requests=5"]);
    let offsets = &offsets_by_area(&r, u64::MAX, 1)[0];
    assert_eq!(offsets, &[3 * 4096, 4 * 4096, 5 * 4096, 6 * 4096, 7 * 4096]);
}

#[test]
fn a_job_area_past_the_logical_space_is_a_config_error() {
    // tiny: 28 MiB logical. The last of 4 jobs of 8 MiB, 8 MiB apart, would end at 32 MiB.
    let load = |sets: &[&str]| {
        let mut all: Vec<String> = vec!["workload.kind=jobs".into()];
        all.extend(sets.iter().map(|s| s.to_string()));
        config::load(Some("tiny"), None, &all).map(|_| ()).map_err(|e| e.to_string())
    };
    let e = load(&["workload.jobs.numjobs=4", "workload.jobs.size=8MiB", "workload.jobs.offset_increment=8MiB"]).unwrap_err();
    assert!(e.contains("--set: workload.jobs.offset_increment: job 3's area ends at byte 33554432"), "{e}");
    assert!(e.contains("workload.jobs.numjobs") && e.contains("workload.jobs.size") && e.contains("29360128"), "{e}");
    // size 0 is the whole logical space: any offset for a second job is past the end.
    let e = load(&["workload.jobs.numjobs=2", "workload.jobs.offset_increment=4KiB"]).unwrap_err();
    assert!(e.contains("workload.jobs.offset_increment: job 1's area ends at byte 29364224"), "{e}");
    let e = load(&["workload.jobs.size=64MiB"]).unwrap_err();
    assert!(e.contains("--set: workload.jobs.size: 67108864 bytes exceed the drive's logical capacity of 29360128 bytes"), "{e}");
    let e = load(&["workload.jobs.size=2KiB", "workload.jobs.bs=4KiB"]).unwrap_err();
    assert!(e.contains("workload.jobs.size: must be 0 (the whole drive) or at least workload.jobs.bs"), "{e}");
    // The last area ends exactly at the end: fine. Other workload kinds ignore the jobs keys.
    load(&["workload.jobs.numjobs=4", "workload.jobs.size=7MiB", "workload.jobs.offset_increment=7MiB"]).unwrap();
    config::load(Some("tiny"), None, &["workload.kind=synthetic".into(), "workload.jobs.size=64MiB".into()]).unwrap();
}
