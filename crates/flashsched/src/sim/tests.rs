//! Checks of the whole simulator that need its insides.

use super::*;
use crate::stats::Dist;

/// A run of the tiny drive with `sets`, its transaction scheduler replaced by FCFS behind the
/// trait (`TsuSlot::Other`) when `boxed`: the simulator then never starts a transaction without
/// queueing it first (`Simulator::starts_at_once` applies to the slot's own FCFS only).
fn run(sets: &[&str], boxed: bool) -> RunOutcome {
    let mut all = vec!["workload.kind=synthetic".to_string(), "workload.synthetic.requests=4000".to_string()];
    all.extend(sets.iter().map(|s| s.to_string()));
    let s = crate::config::load(Some("tiny"), None, &all).expect("config");
    let mut sim = Simulator::new(&s, crate::workload::build(&s).expect("workload")).expect("simulator");
    if boxed {
        sim.tsu = tsu::TsuSlot::Other(Box::new(tsu::Fcfs::new(sim.layout)));
    }
    sim.run(&mut |_| true).expect("run")
}

fn dists(d: &DirStats) -> Vec<serde_json::Value> {
    [&d.slat, &d.clat, &d.lat].into_iter().chain(&d.stages).map(Dist::to_fio_json).collect()
}

/// Two runs are the same: events, counters, end, latency distributions and wear.
fn assert_same_run(a: &RunOutcome, b: &RunOutcome, what: &str) {
    assert_eq!(a.events, b.events, "{what}");
    assert_eq!(a.counters, b.counters, "{what}");
    assert_eq!((a.sim_end_ns, a.completed, a.free_blocks_min), (b.sim_end_ns, b.completed, b.free_blocks_min), "{what}");
    for (x, y) in [(&a.read, &b.read), (&a.write, &b.write)] {
        assert_eq!(dists(x), dists(y), "{what}");
    }
    assert_eq!(a.erase_counts, b.erase_counts, "{what}");
}

/// Starting a transaction for an idle die at once is what FCFS's queue would have done: the same
/// results, distribution by distribution, with the queue round trip and without it, on loads
/// where dies are found both idle and busy (the test asserts both happen), with GC, program and
/// erase suspension, idle-time re-programs, chips without interleaving (with and without chip-level
/// multi-die commands), and multi-plane packing.
#[test]
fn an_idle_die_skips_fcfs_queue_with_the_same_results() {
    let cases: &[&[&str]] = &[
        &["workload.synthetic.interarrival=40us"],
        &["workload.synthetic.interarrival=15us", "ftl.precondition.fill=0.9", "ftl.precondition.order=random"],
        &["workload.synthetic.interarrival=60us", "workload.synthetic.read_ratio=0.6", "device.suspend.program=true", "device.suspend.erase=true", "ftl.precondition.fill=0.9"],
        &["workload.synthetic.interarrival=30us", "device.geometry.dies_per_chip=2", "device.advanced.interleave=false"],
        &["workload.synthetic.interarrival=30us", "device.geometry.dies_per_chip=2", "device.advanced.interleave=false", "device.advanced.multi_die=true"],
        &["workload.synthetic.interarrival=30us", "device.advanced.multi_plane=same_page"],
        &["workload.synthetic.arrival=onoff", "workload.synthetic.read_ratio=0.7", "device.ldpc.enabled=true", "ftl.idle_task=rr"],
    ];
    for sets in cases {
        let (a, b) = (run(sets, false), run(sets, true));
        assert_same_run(&a, &b, &format!("{sets:?}"));
        // Both paths were taken: some requests' transactions waited for their die, some did not.
        let (r, w) = (&a.read.stages[2], &a.write.stages[2]);
        assert!(r.min.min(w.min) == 0 && r.max.max(w.max) > 0, "{sets:?}: die waits {}..{} (reads), {}..{} (writes)", r.min, r.max, w.min, w.max);
    }
}

/// Re-queueing at an erase only the stalled writes that can take a page (plus one) is what
/// re-queueing all of them did (`stall`): the same run, distribution by distribution, on
/// overloaded full drives where thousands of writes wait for GC (the test asserts that writes were
/// kept aside), under FIFO and VIOS at the device queue, and with two dies a chip.
#[test]
fn stalled_writes_kept_aside_give_the_same_run() {
    let base = [
        "ftl.precondition.fill=1.0",
        "ftl.precondition.overwrites=0.5",
        "ftl.gc.threshold=0.02",
        "host.queue_depth=100000",
        "workload.synthetic.requests=6000",
        "workload.synthetic.interarrival=20us",
    ];
    let cases: &[&[&str]] = &[
        &[],
        &["device.geometry.dies_per_chip=2", "workload.synthetic.read_ratio=0.5"],
        &["device.variation.enabled=true", "hil.scheduler=\"vios\"", "ftl.precondition.pe_cycles=12000", "device.geometry.dies_per_chip=4"],
    ];
    for extra in cases {
        let sets: Vec<String> = base.iter().chain(extra.iter()).map(|s| s.to_string()).chain(["workload.kind=synthetic".to_string()]).collect();
        let run = |lazy: bool| {
            let s = crate::config::load(Some("tiny"), None, &sets).expect("config");
            let mut sim = Simulator::new(&s, crate::workload::build(&s).expect("workload")).expect("simulator");
            assert!(sim.requeue.on, "{extra:?}: the lazy re-queue applies here");
            if !lazy {
                sim.requeue = stall::LazyRequeue::default();
            }
            let o = sim.run(&mut |_| true).expect("run");
            let kept = o.stalled_writes_kept_aside;
            (o, kept)
        };
        let ((a, kept), (b, none)) = (run(true), run(false));
        assert!(kept > 1000 && none == 0, "{extra:?}: {kept} writes kept aside");
        assert!(a.counters.write_stalls > 10_000, "{extra:?}: {} stalls", a.counters.write_stalls);
        assert_same_run(&a, &b, &format!("{extra:?}"));
    }
}
