//! The per-request log streamed to disk during the run: the same bytes as the log kept in memory
//! and written afterwards, and nothing left behind by a run that fails.

use std::path::{Path, PathBuf};

use flashsched::report::request_log::{combine, CsvSink, LatLogSink, REQUEST_LOG_COLUMNS};
use flashsched::report::{lat_log_paths, write_lat_logs};
use flashsched::{config, run_with_sink, Error, RequestLogRow, RequestSink, RunOptions, RunResult, SimError};

use super::TempTrace;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flashsched-it-reqlog-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// The log as the Python binding handed it to pandas and `DataFrame.to_csv(index=False)` wrote
/// it before the log was streamed: the header, then plain integers and the operation's name.
fn pandas_csv(rows: &[RequestLogRow]) -> String {
    let mut out = REQUEST_LOG_COLUMNS.join(",") + "\n";
    for r in rows {
        let s = &r.stages;
        out += &format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            r.arrival_ns, r.dispatch_ns, r.complete_ns, r.op.name(), r.offset, r.len, r.complete_ns - r.arrival_ns,
            s.host_queue, s.device_queue, s.die_wait, s.channel_wait, s.bus, s.array, s.ecc, s.cache, s.mapping
        );
    }
    out
}

fn streaming_sinks(dir: &Path) -> Option<Box<dyn RequestSink>> {
    combine(vec![
        Box::new(CsvSink::create(&dir.join("req.csv")).unwrap()),
        Box::new(LatLogSink::create(dir.join("run").to_str().unwrap()).unwrap()),
    ])
}

/// Merging host scheduler, few device slots and sequential requests: many requests share a
/// dispatch time and complete out of dispatch order, which the submission log must sort out.
fn busy_settings(extra: &[String]) -> config::Settings {
    let mut sets: Vec<String> = [
        "workload.kind=synthetic",
        "workload.synthetic.requests=4000",
        "workload.synthetic.address=\"sequential\"",
        "workload.synthetic.interarrival=\"5us\"",
        "workload.warmup=200",
        "host.scheduler=\"mq-deadline\"",
        "host.queue_depth=4",
    ]
    .map(String::from)
    .to_vec();
    sets.extend_from_slice(extra);
    config::load(Some("tiny"), None, &sets).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn streamed_logs_are_the_in_memory_log_written_afterwards() {
    let dir = scratch("same");
    let s = busy_settings(&[]);
    let opts = RunOptions { request_log: true, ..Default::default() };
    let r: RunResult = run_with_sink(&s, &opts, streaming_sinks(&dir), &mut |_| true).unwrap();
    let rows = &r.request_log;
    assert_eq!(rows.len(), 3800, "measured requests only");
    let merged_dispatches = rows.windows(2).filter(|w| w[0].dispatch_ns == w[1].dispatch_ns).count();
    let out_of_order = rows.windows(2).filter(|w| w[0].dispatch_ns > w[1].dispatch_ns).count();
    assert!(merged_dispatches > 100 && out_of_order > 10, "{merged_dispatches} shared dispatch times, {out_of_order} out of order");
    assert!(std::fs::read_to_string(dir.join("req.csv")).unwrap() == pandas_csv(rows), "CSV differs from the in-memory rows");
    // The latency logs as written from the rows kept in memory.
    let again = dir.join("again");
    let expected = write_lat_logs(again.to_str().unwrap(), rows).unwrap();
    for (streamed, kept) in lat_log_paths(dir.join("run").to_str().unwrap()).iter().zip(&expected) {
        assert!(std::fs::read(streamed).unwrap() == std::fs::read(kept).unwrap(), "{} differs", streamed.display());
    }
    assert_eq!(names(&dir), ["again_clat.1.log", "again_lat.1.log", "again_slat.1.log", "req.csv", "run_clat.1.log", "run_lat.1.log", "run_slat.1.log"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn streaming_alone_keeps_no_rows_and_changes_no_result() {
    let dir = scratch("alone");
    let s = busy_settings(&[]);
    let plain = run_with_sink(&s, &RunOptions::default(), None, &mut |_| true).unwrap();
    let streamed = run_with_sink(&s, &RunOptions::default(), streaming_sinks(&dir), &mut |_| true).unwrap();
    assert!(streamed.request_log.is_empty());
    let strip = |r: &RunResult| flashsched::report::without_wall_clock(&r.json);
    assert_eq!(strip(&streamed), strip(&plain));
    assert_eq!(std::fs::read_to_string(dir.join("req.csv")).unwrap().lines().count(), 3801);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_failing_run_leaves_no_file_behind() {
    let dir = scratch("fail");
    // Cancelled at the first progress report, with rows already streamed.
    let s = busy_settings(&[]);
    let e = run_with_sink(&s, &RunOptions::default(), streaming_sinks(&dir), &mut |_| false).unwrap_err();
    assert!(matches!(e, Error::Sim(SimError::Cancelled)), "{e}");
    assert!(names(&dir).is_empty(), "{:?}", names(&dir));
    // A trace that turns out malformed half-way through.
    let mut lines: Vec<String> = (0..3000).map(|i| super::req(i * 20_000, (i % 512) * 4096, 4096, i % 3 == 0)).collect();
    lines.push("not a request".into());
    let t = TempTrace::new("reqlog-bad.trace", &lines);
    let sets = ["workload.kind=trace".to_string(), format!("workload.trace.path={}", t.path.display())];
    let s = config::load(Some("tiny"), None, &sets).unwrap_or_else(|e| panic!("{e}"));
    let e = run_with_sink(&s, &RunOptions::default(), streaming_sinks(&dir), &mut |_| true).unwrap_err();
    assert!(matches!(e, Error::Trace(_)), "{e}");
    assert!(names(&dir).is_empty(), "{:?}", names(&dir));
    // An output in the way: the run does not start.
    std::fs::create_dir(dir.join("run_slat.1.log")).unwrap();
    let e = LatLogSink::create(dir.join("run").to_str().unwrap()).err().unwrap();
    assert!(e.to_string().contains("run_slat.1.log"), "{e}");
    assert_eq!(names(&dir), ["run_slat.1.log"]);
    std::fs::remove_dir_all(&dir).unwrap();
}
