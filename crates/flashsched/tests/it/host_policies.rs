//! Host schedulers in the simulator: merged requests complete with the request carrying them.

use super::{req, run_lines};

#[test]
fn noop_merges_queued_contiguous_writes() {
    // Queue depth 1: the first write goes at once; the next two wait in the host, contiguous,
    // and leave as one 8 KiB request.
    let lines = vec![req(0, 0, 4096, false), req(1, 40960, 4096, false), req(2, 45056, 4096, false)];
    let r = run_lines("tiny", "merge.trace", &lines, &["host.scheduler=noop", "host.queue_depth=1"]);
    let mut rows = r.request_log.clone();
    rows.sort_by_key(|x| x.arrival_ns);
    assert_eq!(rows[1].complete_ns, rows[2].complete_ns, "merged requests complete together");
    assert_eq!(rows[1].dispatch_ns, rows[2].dispatch_ns);
    for x in &rows {
        let b = x.stages;
        assert_eq!(b.host_queue + b.device_queue + b.die_wait + b.channel_wait + b.bus + b.array + b.ecc, x.complete_ns - x.arrival_ns);
    }
    assert_eq!(r.json["ssd"]["host_pages_written"], 3);
    // without merging each waits for the previous one
    let f = run_lines("tiny", "nomerge.trace", &lines, &["host.scheduler=noop", "host.queue_depth=1", "host.max_merge=0"]);
    let mut rows = f.request_log.clone();
    rows.sort_by_key(|x| x.arrival_ns);
    assert!(rows[2].complete_ns > rows[1].complete_ns);
}

#[test]
fn deadline_policies_reorder_by_address() {
    // Queue depth 1 and four reads queued behind the first: deadline serves them in address order.
    let lines = vec![
        req(0, 0, 4096, true),
        req(1, 12 * 4096, 4096, true),
        req(2, 4 * 4096, 4096, true),
        req(3, 8 * 4096, 4096, true),
    ];
    for policy in ["deadline", "mq-deadline"] {
        let r = run_lines("tiny", "sort.trace", &lines, &[&format!("host.scheduler={policy}"), "host.queue_depth=1"]);
        let mut rows = r.request_log.clone();
        rows.sort_by_key(|x| x.dispatch_ns);
        let order: Vec<u64> = rows.iter().map(|x| x.offset / 4096).collect();
        assert_eq!(order, vec![0, 4, 8, 12], "{policy}");
    }
    let r = run_lines("tiny", "fifo.trace", &lines, &["host.queue_depth=1"]);
    let mut rows = r.request_log.clone();
    rows.sort_by_key(|x| x.dispatch_ns);
    assert_eq!(rows.iter().map(|x| x.offset / 4096).collect::<Vec<_>>(), vec![0, 12, 4, 8]);
}

#[test]
fn every_host_policy_completes_many_closed_loop_streams() {
    // Many streams, ids reused constantly, queue depth below the number of jobs: the schedulers'
    // per-stream and per-direction bookkeeping must stay consistent.
    for policy in ["fifo", "noop", "deadline", "mq-deadline", "cfq", "as", "kyber", "irbw-fifo", "irbw-fifo-rp", "pass"] {
        let s = flashsched::config::load(
            Some("tiny"),
            None,
            &[
                "workload.kind=jobs".into(),
                "workload.jobs.numjobs=24".into(),
                "workload.jobs.iodepth=2".into(),
                "workload.jobs.number_ios=300".into(),
                "workload.jobs.size=1MiB".into(),
                "workload.jobs.offset_increment=1MiB".into(),
                "host.queue_depth=8".into(),
                "host.pass.region_size=2MiB".into(),
                "host.deadline.read_expire=1ms".into(),
                "host.cfq.fifo_expire=1ms".into(),
                format!("host.scheduler={policy}"),
            ],
        )
        .unwrap();
        let r = flashsched::run(&s, &flashsched::RunOptions { request_log: false, full_invariant_check: true, json_plus: false }, &mut |_| true)
            .unwrap_or_else(|e| panic!("{policy}: {e}"));
        assert_eq!(r.json["flashsched"]["requests_completed"], 24 * 300, "{policy}");
    }
}

#[test]
fn dynamic_allocation_under_heavy_gc_keeps_the_ftl_consistent() {
    for scheme in ["dynamic", "channel-static"] {
        let s = flashsched::config::load(
            Some("tiny"),
            None,
            &[
                "workload.kind=synthetic".into(),
                "workload.synthetic.requests=20000".into(),
                "workload.synthetic.read_ratio=0.3".into(),
                "workload.synthetic.interarrival=50us".into(),
                "workload.synthetic.size_max=16KiB".into(),
                "ftl.precondition.fill=1.0".into(),
                format!("ftl.allocation.scheme={scheme}"),
            ],
        )
        .unwrap();
        let r = flashsched::run(&s, &flashsched::RunOptions { request_log: false, full_invariant_check: true, json_plus: false }, &mut |_| true)
            .unwrap_or_else(|e| panic!("{scheme}: {e}"));
        assert_eq!(r.json["ssd"]["invariants"], "ok", "{scheme}");
        assert_eq!(r.json["flashsched"]["requests_completed"], 20000, "{scheme}");
        assert!(r.json["ssd"]["gc_invocations"].as_u64().unwrap() > 100, "{scheme}: GC ran");
    }
}

/// Requests of different operations never merge: a write contiguous with a queued trim is written,
/// a trim contiguous with a queued write is trimmed, and a write at a flush's offset is written
/// (Linux's `blk_rq_merge_ok` requires the same op; flushes never merge).
#[test]
fn merging_schedulers_never_merge_across_operations() {
    // fio iolog v3 (timestamps in us). Pages 0-5 are written first; after a 1 s gap a 64 KiB write
    // occupies the queue (depth 1) while the mixed requests queue up behind it in the host.
    let lines: Vec<String> = [
        "fio version 3 iolog",
        "0 d add",
        "0 d open",
        "0 d write 0 24576",
        "1000000 d write 1048576 65536",
        "1000001 d trim 0 8192",     // pages 0-1
        "1000002 d write 8192 4096", // page 2, contiguous with the trim's end
        "1000003 d write 16384 4096", // page 4
        "1000004 d trim 20480 8192", // pages 5-6, contiguous with the write's end
        "1000005 d sync",            // a flush: offset 0, length 0
        "1000006 d write 65536 4096", // page 16
        "1000007 d sync",
        "1000008 d write 0 4096",    // page 0 again, at the flush's offset (after the trim above)
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for policy in ["noop", "deadline", "mq-deadline", "pass", "cfq", "as"] {
        let r = run_lines("tiny", "ops.iolog", &lines, &[&format!("host.scheduler={policy}"), "host.queue_depth=1"]);
        let ssd = &r.json["ssd"];
        // 6 + 16 + 1 (page 2) + 1 (page 4) + 1 (page 16) + 1 (page 0)
        assert_eq!(ssd["host_pages_written"], 26, "{policy}: {ssd}");
        // pages 0-1 and 5 are trimmed (page 6 was never written)
        assert_eq!(ssd["trimmed_pages"], 3, "{policy}: {ssd}");
        assert_eq!(r.json["flashsched"]["requests_completed"], 10, "{policy}");
    }
}
