//! Buffered closed-loop jobs: writes go through the page cache and reach the block layer as
//! write-back requests, so the host queue holds work and host schedulers have a choice.

use flashsched::report::without_wall_clock;
use flashsched::{config, run, RunOptions, RunResult};

/// Four buffered jobs on `tiny` (28 MiB logical), each in its own 7 MiB file, with a 2 MiB page
/// cache (background 51 pages, limit 102) and a device queue of 4.
fn buffered(sets: &[&str]) -> RunResult {
    let mut all: Vec<String> = [
        "workload.kind=jobs",
        "workload.jobs.buffered=true",
        "workload.jobs.numjobs=4",
        "workload.jobs.rw=randrw",
        "workload.jobs.size=7MiB",
        "workload.jobs.offset_increment=7MiB",
        "workload.jobs.number_ios=300",
        "workload.page_cache.size=2MiB",
        "host.queue_depth=4",
        "host.pass.region_size=7MiB",
        "ftl.allocation.scheme=region",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    all.extend(sets.iter().map(|s| s.to_string()));
    let s = config::load(Some("tiny"), None, &all).unwrap_or_else(|e| panic!("{e}"));
    run(&s, &RunOptions { request_log: true, full_invariant_check: true, json_plus: false }, &mut |_| true).unwrap_or_else(|e| panic!("{e}"))
}

fn u(v: &serde_json::Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

#[test]
fn every_buffered_write_reaches_the_device_once_as_write_back() {
    let r = buffered(&[]);
    let w = &r.json["workload"];
    assert_eq!(w["buffered"], true);
    assert_eq!(u(&w["unfinished_jobs"]), 0);
    assert_eq!(u(&w["dirty_pages_end"]), 0);
    assert_eq!(u(&w["job_ops"]), 1200);
    let (reads, writes) = (u(&w["job_reads"]), u(&w["job_writes"]));
    assert_eq!(reads + writes, 1200);
    // Reads are direct: one device read per job read.
    assert_eq!(u(&r.json["jobs"][0]["read"]["total_ios"]), reads);
    // Each write dirtied one page unless it was dirty already; each dirtied page was written back
    // exactly once (no fsync here: by the flusher only).
    let pages = writes - u(&w["writes_absorbed_pages"]);
    assert_eq!(u(&w["writeback_pages"]), pages);
    assert_eq!(u(&r.json["ssd"]["host_pages_written"]), pages);
    assert_eq!(u(&r.json["jobs"][0]["write"]["total_ios"]), u(&w["writeback_requests"]));
    assert_eq!(u(&w["fsyncs"]), 0);
}

#[test]
fn writers_faster_than_write_back_are_throttled_at_the_dirty_limit() {
    let r = buffered(&["workload.jobs.rw=randwrite"]);
    let w = &r.json["workload"];
    // 1200 writes dirty up to 1200 pages, far past the 102-page limit of a 2 MiB cache: a write
    // that passes it blocks until write-back brings dirty + under-write-back pages back to 102,
    // and the time it blocked is the job's write() latency.
    assert!(u(&w["throttled_writes"]) > 100, "{w}");
    assert!(w["write_call_lat_mean_ns"].as_f64().unwrap() > 0.0);
    assert_eq!(u(&w["unfinished_jobs"]), 0);
    assert_eq!(u(&r.json["ssd"]["host_pages_written"]), 1200 - u(&w["writes_absorbed_pages"]));
}

#[test]
fn fsync_every_n_writes_waits_for_the_jobs_pages() {
    let r = buffered(&["workload.jobs.rw=randwrite", "workload.jobs.fsync=10", "workload.jobs.number_ios=100", "workload.page_cache.size=64MiB"]);
    let w = &r.json["workload"];
    // 100 writes per job, an fsync after every 10th: 10 per job.
    assert_eq!(u(&w["fsyncs"]), 40);
    assert!(w["fsync_lat_mean_ns"].as_f64().unwrap() > 0.0);
    // The cache is large (6.5 MiB background threshold): only fsync wrote anything back.
    assert_eq!(u(&w["writeback_requests"]), 0);
    assert_eq!(u(&w["fsync_pages"]), 400 - u(&w["writes_absorbed_pages"]));
    // A job waits for its fsync, so at most one job's 10 pages per job are in flight: never more
    // than 4 x 10 write requests at once.
    let mut ev: Vec<(u64, i32)> = r.request_log.iter().flat_map(|x| [(x.arrival_ns, 1), (x.complete_ns, -1)]).collect();
    ev.sort();
    let (mut n, mut peak) = (0, 0);
    for (_, d) in ev {
        n += d;
        peak = peak.max(n);
    }
    assert!(peak <= 40 && peak > 4, "peak {peak}");
}

/// Requests in the order they were sent to the device.
fn dispatch_order(r: &RunResult) -> Vec<(u64, u64)> {
    let mut rows = r.request_log.clone();
    rows.sort_by_key(|x| (x.dispatch_ns, x.arrival_ns, x.offset));
    rows.iter().map(|x| (x.offset, x.len)).collect()
}

#[test]
fn the_host_queue_holds_work_and_schedulers_choose_differently() {
    let runs: Vec<(&str, RunResult)> =
        ["noop", "deadline", "pass"].iter().map(|s| (*s, buffered(&[&format!("host.scheduler={s}"), "host.max_merge=0"]))).collect();
    for (name, r) in &runs {
        let queued = r.request_log.iter().filter(|x| x.stages.host_queue > 0).count();
        assert!(queued * 2 > r.request_log.len(), "{name}: only {queued} of {} requests waited in the host queue", r.request_log.len());
        assert_eq!(u(&r.json["workload"]["unfinished_jobs"]), 0, "{name}");
    }
    let orders: Vec<Vec<(u64, u64)>> = runs.iter().map(|(_, r)| dispatch_order(r)).collect();
    assert_ne!(orders[0], orders[1], "noop and deadline dispatched alike");
    assert_ne!(orders[1], orders[2], "deadline and pass dispatched alike");
    let lat: Vec<f64> = runs.iter().map(|(_, r)| r.json["jobs"][0]["read"]["lat_ns"]["mean"].as_f64().unwrap()).collect();
    assert!(lat[0] != lat[1] && lat[1] != lat[2], "read latencies {lat:?}");
}

#[test]
fn direct_jobs_deeper_than_the_device_queue_fill_the_host_queue() {
    let s = config::load(
        Some("tiny"),
        None,
        &["workload.kind=jobs", "workload.jobs.numjobs=2", "workload.jobs.iodepth=8", "workload.jobs.number_ios=100", "host.queue_depth=4", "host.scheduler=deadline"]
            .map(String::from),
    )
    .unwrap();
    let r = run(&s, &RunOptions { request_log: true, full_invariant_check: false, json_plus: false }, &mut |_| true).unwrap();
    let queued = r.request_log.iter().filter(|x| x.stages.host_queue > 0).count();
    assert!(queued * 2 > r.request_log.len(), "16 requests in flight, 4 device slots: {queued} waited");
}

#[test]
fn same_config_same_bytes() {
    let a = buffered(&["host.scheduler=pass", "workload.jobs.fsync=7", "seed=3"]);
    let b = buffered(&["host.scheduler=pass", "workload.jobs.fsync=7", "seed=3"]);
    let c = buffered(&["host.scheduler=pass", "workload.jobs.fsync=7", "seed=4"]);
    let j = |r: &RunResult| serde_json::to_string(&without_wall_clock(&r.json)).unwrap();
    assert_eq!(j(&a), j(&b));
    assert_ne!(j(&a), j(&c));
}

#[test]
fn bad_buffered_configs_name_their_key() {
    let err = |sets: &[&str]| {
        let mut all: Vec<String> = vec!["workload.kind=jobs".into(), "workload.jobs.buffered=true".into()];
        all.extend(sets.iter().map(|s| s.to_string()));
        config::load(Some("tiny"), None, &all).unwrap_err().to_string()
    };
    assert!(err(&["workload.jobs.iodepth=2"]).contains("workload.jobs.iodepth"));
    assert!(err(&["workload.jobs.bs=2KiB"]).contains("workload.jobs.bs"));
    assert!(err(&["workload.jobs.numjobs=2", "workload.jobs.size=8MiB", "workload.jobs.offset_increment=4MiB"]).contains("workload.jobs.offset_increment"));
    assert!(err(&["workload.jobs.numjobs=4", "workload.jobs.size=8MiB", "workload.jobs.offset_increment=8MiB"]).contains("beyond the drive"));
    let direct = config::load(Some("tiny"), None, &["workload.kind=jobs".into(), "workload.jobs.fsync=4".into()]).unwrap_err().to_string();
    assert!(direct.contains("workload.jobs.fsync"), "{direct}");
}

/// `workload.skip` with buffered jobs: the jobs' first requests are dropped before any starts,
/// as for unbuffered jobs, and the rest run. (It used to start the jobs to drop their first
/// requests, which then never completed: "the workload holds no requests".)
#[test]
fn skip_drops_the_buffered_jobs_first_requests_and_the_rest_run() {
    let r = buffered(&["workload.skip=8"]);
    let w = &r.json["workload"];
    assert_eq!(u(&w["skipped"]), 8, "{w}");
    assert_eq!(u(&w["unfinished_jobs"]), 0);
    assert_eq!(u(&w["job_ops"]), 1200 - 8);
    let one = buffered(&["workload.skip=1", "workload.jobs.numjobs=1", "workload.jobs.iodepth=1"]);
    assert_eq!(u(&one.json["workload"]["job_ops"]), 299);
}
