//! sysbench's fileio test as a workload (`workload.kind = "sysbench"`): every request the
//! generator hands out is made once, buffered writes reach the device once as write-back, and the
//! set-up the PASS paper ran (threads sharing files, fsync series) holds requests in the host queue.

use flashsched::report::without_wall_clock;
use flashsched::{config, run, RunOptions, RunResult};

/// Eight threads over 8 files of 2 MiB on `tiny` (28 MiB logical), 16 KiB blocks, 600 requests,
/// fsync series every 50, a device queue of 4.
fn sysbench(sets: &[&str]) -> RunResult {
    let mut all: Vec<String> = [
        "workload.kind=sysbench",
        "workload.sysbench.threads=8",
        "workload.sysbench.file_num=8",
        "workload.sysbench.file_total_size=16MiB",
        "workload.sysbench.max_requests=600",
        "workload.sysbench.file_fsync_freq=50",
        "host.queue_depth=4",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    all.extend(sets.iter().map(|s| s.to_string()));
    let s = config::load(Some("tiny"), None, &all).unwrap_or_else(|e| panic!("{e}"));
    run(
        &s,
        &RunOptions {
            request_log: false,
            full_invariant_check: true,
            json_plus: false,
        },
        &mut |_| true,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn u(v: &serde_json::Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

#[test]
fn buffered_rndrw_makes_every_call_once_and_writes_every_dirty_page_back() {
    let r = sysbench(&[]);
    let w = &r.json["workload"];
    assert_eq!(
        (w["kind"].as_str(), u(&w["unfinished_threads"])),
        (Some("sysbench"), 0)
    );
    let (reads, writes) = (u(&w["job_reads"]), u(&w["job_writes"]));
    assert_eq!(reads + writes, 600);
    // rw ratio 1.5 by calls returned: with reads still in flight when other threads ask, a few
    // more than 60% are reads, as in sysbench; one thread makes 360 and 240 exactly.
    assert!((360..=375).contains(&reads), "{reads} reads");
    let one = sysbench(&["workload.sysbench.threads=1"]);
    assert_eq!(
        (
            u(&one.json["workload"]["job_reads"]),
            u(&one.json["workload"]["job_writes"])
        ),
        (360, 240)
    );
    // Every 50 requests handed out after a write, a series of 8 fsyncs (11 series: after 50, 100,
    // ..., 550), then the final 8.
    assert_eq!(u(&w["fsyncs"]), 11 * 8 + 8);
    // Reads missing the cache go to the device as whole 16 KiB blocks.
    let r0 = &r.json["jobs"][0];
    assert_eq!(u(&r0["read"]["total_ios"]), reads - u(&w["read_hits"]));
    // Writes reach the device only as fsync or flusher write-back, each dirty page once.
    assert_eq!(
        u(&r0["write"]["total_ios"]),
        u(&w["fsync_requests"]) + u(&w["writeback_requests"])
    );
    assert!(u(&w["fsync_requests"]) > 0);
    let pages_written = u(&r.json["ssd"]["host_pages_written"]);
    assert!(
        pages_written <= writes * 4 && pages_written > 0,
        "{pages_written}"
    );
    assert!(w["fsync_lat_mean_ns"].as_f64().unwrap() > 0.0);
    assert!(w["job_iops"].as_f64().unwrap() > 0.0);
}

#[test]
fn direct_io_sends_every_call_to_the_device() {
    let r = sysbench(&["workload.sysbench.io=direct"]);
    let w = &r.json["workload"];
    let r0 = &r.json["jobs"][0];
    assert_eq!(u(&r0["read"]["total_ios"]), u(&w["job_reads"]));
    assert_eq!(u(&r0["write"]["total_ios"]), u(&w["job_writes"]));
    assert_eq!(
        u(&r.json["ssd"]["host_pages_written"]),
        4 * u(&w["job_writes"])
    );
    assert_eq!((u(&w["read_hits"]), u(&w["fsync_requests"])), (0, 0));
}

#[test]
fn the_threads_keep_the_host_queue_busy_and_schedulers_differ() {
    let runs: Vec<_> = ["noop", "deadline", "pass"]
        .iter()
        .map(|h| sysbench(&[&format!("host.scheduler={h}"), "host.pass.region_size=4MiB"]))
        .collect();
    let wait = |r: &RunResult| {
        r.json["jobs"][0]["write"]["stages_ns"]["host_queue_ns"]["mean"]
            .as_f64()
            .unwrap_or(0.0)
    };
    assert!(
        runs.iter().all(|r| wait(r) > 0.0),
        "fsync bursts wait in the host queue"
    );
    let iops: Vec<f64> = runs
        .iter()
        .map(|r| r.json["workload"]["job_iops"].as_f64().unwrap())
        .collect();
    assert!(iops[0] != iops[1] || iops[0] != iops[2], "{iops:?}");
}

#[test]
fn runs_are_deterministic_and_seeds_differ() {
    let a = without_wall_clock(&sysbench(&[]).json);
    assert_eq!(a, without_wall_clock(&sysbench(&[]).json));
    assert_ne!(a, without_wall_clock(&sysbench(&["seed=2"]).json));
}

#[test]
fn direct_io_takes_sector_sized_blocks_and_a_small_drive_never_outgrows_the_cache() {
    let r = sysbench(&["workload.sysbench.io=direct", "workload.sysbench.file_block_size=2KiB"]);
    assert_eq!(u(&r.json["workload"]["unfinished_threads"]), 0);
    // 20,000 calls of 16 KiB would be 320 MiB, more than the 64 MiB cache, but the 16 MiB of
    // files is all a run can cache.
    let r = sysbench(&["workload.sysbench.max_requests=20000", "workload.page_cache.size=64MiB"]);
    assert_eq!(u(&r.json["workload"]["job_ops"]), 20000);
}

#[test]
fn bad_configurations_name_their_keys() {
    for (set, key) in [
        ("workload.sysbench.file_block_size=6KiB", "workload.sysbench.file_block_size"),
        ("workload.sysbench.file_total_size=1GiB", "workload.sysbench.file_total_size"),
        ("workload.skip=5", "workload.skip"),
        // The generic limit would drop requests the threads wait for.
        ("workload.max_requests=100", "workload.max_requests"),
        // 600 calls of 16 KiB may touch 9.4 MiB of the files: more than a 4 MiB cache.
        ("workload.page_cache.size=4MiB", "workload.sysbench.max_requests"),
        ("workload.page_cache.max_request=1KiB", "workload.page_cache.max_request"),
    ] {
        let all: Vec<String> = ["workload.kind=sysbench", "workload.sysbench.file_total_size=16MiB", "workload.sysbench.max_requests=600", set]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let e = config::load(Some("tiny"), None, &all).err().unwrap_or_else(|| panic!("{set} accepted")).to_string();
        assert!(e.contains(key), "{set}: {e}");
    }
}
