//! Checks of the whole simulator that need its insides.

use super::*;
use crate::stats::Dist;

/// A run of the tiny drive with `sets`; with `queue_always` every transaction goes through its
/// scheduler's queue (`Simulator::take_at_once` never skips it).
fn run(sets: &[&str], queue_always: bool) -> RunOutcome {
    let s = config(sets).expect("config");
    let mut sim = Simulator::new(&s, crate::workload::build(&s).expect("workload")).expect("simulator");
    sim.queue_always = queue_always;
    sim.run(&mut |_| true).expect("run")
}

/// The tiny drive's settings with `sets`, running 4,000 synthetic requests.
fn config(sets: &[&str]) -> Result<crate::config::Settings, crate::config::ConfigErrors> {
    let mut all = vec!["workload.kind=synthetic".to_string(), "workload.synthetic.requests=4000".to_string()];
    all.extend(sets.iter().map(|s| s.to_string()));
    crate::config::load(Some("tiny"), None, &all)
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

/// Starting a transaction for an idle die at once (`TransactionScheduler::takes_at_once`) is
/// what the scheduler's queue would have done: the same results, distribution by distribution,
/// with the queue round trip and without it, under FCFS, O3, FR-FCFS and Slacker, on loads where
/// dies are found both idle and busy (the test asserts both happen), with GC, program and erase
/// suspension, idle-time re-programs, chips without interleaving (with and without chip-level
/// multi-die commands), and multi-plane packing.
#[test]
fn an_idle_die_skips_the_queue_with_the_same_results() {
    let cases: &[&[&str]] = &[
        &["workload.synthetic.interarrival=40us"],
        &["workload.synthetic.interarrival=15us", "ftl.precondition.fill=0.9", "ftl.precondition.order=random"],
        &["workload.synthetic.interarrival=60us", "workload.synthetic.read_ratio=0.6", "device.suspend.program=true", "device.suspend.erase=true", "ftl.precondition.fill=0.9"],
        &["workload.synthetic.interarrival=30us", "device.geometry.dies_per_chip=2", "device.advanced.interleave=false"],
        &["workload.synthetic.interarrival=30us", "device.geometry.dies_per_chip=2", "device.advanced.interleave=false", "device.advanced.multi_die=true"],
        &["workload.synthetic.interarrival=30us", "device.advanced.multi_plane=same_page"],
        &["workload.synthetic.arrival=onoff", "workload.synthetic.read_ratio=0.7", "device.ldpc.enabled=true", "ftl.idle_task=rr"],
    ];
    // Slacker pauses programs, which needs program suspension; chip-level multi-die commands
    // need a scheduler that can tell what a die runs next (FCFS, O3).
    let schedulers: &[&[&str]] = &[&["tsu.scheduler=fcfs"], &["tsu.scheduler=o3"], &["tsu.scheduler=frfcfs"], &["tsu.scheduler=slacker", "device.suspend.program=true"], &["tsu.scheduler=wbyp"]];
    let mut runs = 0;
    for sched in schedulers {
        for case in cases {
            let sets: Vec<&str> = case.iter().chain(sched.iter()).copied().collect();
            if let Err(e) = config(&sets) {
                let peek = e.to_string().contains("multi_die");
                assert!(peek && !matches!(sched[0], "tsu.scheduler=fcfs" | "tsu.scheduler=o3"), "{sets:?}: {e}");
                continue;
            }
            let (a, b) = (run(&sets, false), run(&sets, true));
            assert_same_run(&a, &b, &format!("{sets:?}"));
            // Both paths were taken: some requests' transactions waited for their die, some did not.
            let (r, w) = (&a.read.stages[2], &a.write.stages[2]);
            assert!(r.min.min(w.min) == 0 && r.max.max(w.max) > 0, "{sets:?}: die waits {}..{} (reads), {}..{} (writes)", r.min, r.max, w.min, w.max);
            runs += 1;
        }
    }
    assert!(runs >= 30, "{runs} combinations ran");
}

/// One run of an overloaded full `tiny` drive with `extra`, with the lazy re-queue (`stall`) or
/// without it (every stalled write re-queued at each erase): the outcome, and the writes kept
/// aside and put back to the queue after all.
fn overloaded_run(extra: &[&str], lazy: bool) -> (RunOutcome, u64, u64) {
    overloaded_run_with(extra, lazy, |_| {})
}

/// `overloaded_run`, with `adjust` applied to the simulator before it runs.
fn overloaded_run_with(extra: &[&str], lazy: bool, adjust: impl FnOnce(&mut Simulator)) -> (RunOutcome, u64, u64) {
    let base = [
        "ftl.precondition.fill=1.0",
        "ftl.precondition.overwrites=0.5",
        "ftl.gc.threshold=0.02",
        "host.queue_depth=100000",
        "workload.synthetic.requests=6000",
        "workload.synthetic.interarrival=20us",
    ];
    let sets: Vec<String> = base.iter().chain(extra.iter()).map(|s| s.to_string()).chain(["workload.kind=synthetic".to_string()]).collect();
    let s = crate::config::load(Some("tiny"), None, &sets).expect("config");
    let mut sim = Simulator::new(&s, crate::workload::build(&s).expect("workload")).expect("simulator");
    assert!(sim.requeue.on, "{extra:?}: the lazy re-queue applies here");
    if !lazy {
        sim.requeue = stall::LazyRequeue::default();
    }
    adjust(&mut sim);
    let o = sim.run(&mut |_| true).expect("run");
    let (kept, back) = (o.stalled_writes_kept_aside, o.stalled_writes_put_back);
    (o, kept, back)
}

/// Under FCFS with write grouping and multi-plane commands, a program's scan of its die's queue
/// can reach kept-aside writes from behind their plane's last re-queued write, and that write
/// can join a command from the middle of the queue (`LazyRequeue::join_aside`, `reinsert`): the
/// same run as with every stalled write re-queued, and both happen here.
#[test]
fn kept_aside_writes_join_multi_plane_commands_as_queued_ones_would() {
    let (mut joined, mut reinserted) = (0, 0);
    for extra in [
        &["seed=7007", "device.geometry.planes_per_die=4", "device.advanced.multi_plane=\"same_page\"", "ftl.write_grouping=\"pgis\"", "ftl.pgis.decay_writes=1774", "ftl.pgis.threshold=2", "device.variation.enabled=true", "hil.scheduler=\"vios\"", "workload.synthetic.requests=3000"][..],
        &["seed=7025", "device.advanced.multi_plane=\"same_page\"", "workload.synthetic.read_ratio=0.0", "ftl.write_grouping=\"pgis\"", "ftl.pgis.decay_writes=1394", "ftl.pgis.threshold=3", "workload.synthetic.address=\"zipf\"", "workload.synthetic.requests=3000"],
        // Two planes' last re-queued writes join one command.
        &["seed=8037", "device.geometry.dies_per_chip=4", "device.geometry.planes_per_die=4", "workload.synthetic.read_ratio=0.0", "device.advanced.multi_plane=\"same_page\"", "ftl.write_grouping=\"pgis\"", "ftl.pgis.decay_writes=2549", "ftl.pgis.threshold=2", "workload.synthetic.address=\"zipf\"", "workload.synthetic.arrival=\"onoff\""],
    ] {
        let (a, kept, _) = overloaded_run(extra, true);
        (joined, reinserted) = (joined + a.stalled_writes_joined.0, reinserted + a.stalled_writes_joined.1);
        let (b, _, _) = overloaded_run(extra, false);
        assert!(kept > 1000, "{extra:?}: {kept} writes kept aside");
        assert_same_run(&a, &b, &format!("{extra:?}"));
    }
    assert!(joined > 100 && reinserted > 0, "{joined} kept-aside writes joined commands, {reinserted} re-queued behind a write that joined one");
}

/// With multi-die commands, kept-aside writes picked by a chip's leader selection that cannot
/// all be shown to stall go back to the queue for real (`Simulator::stall_aside_leads`); doing
/// that every time is the same run too.
#[test]
fn multi_die_kept_aside_writes_put_back_give_the_same_run() {
    for extra in [
        &["compat=\"mqsim\"", "device.geometry.dies_per_chip=2", "device.geometry.planes_per_die=2", "workload.synthetic.read_ratio=0.3"][..],
        &["seed=4", "tsu.scheduler=\"o3\"", "device.advanced.interleave=false", "device.advanced.multi_die=true", "device.geometry.dies_per_chip=4", "workload.synthetic.read_ratio=0.6"],
        &["seed=5", "device.advanced.interleave=false", "device.advanced.multi_die=true", "device.geometry.dies_per_chip=4", "workload.synthetic.read_ratio=0.3"],
    ] {
        let (a, _, back) = overloaded_run_with(extra, true, |s| s.requeue.md_put_back = true);
        let (b, _, _) = overloaded_run(extra, false);
        assert!(back > 1000, "{extra:?}: {back} writes put back");
        assert_same_run(&a, &b, &format!("{extra:?}"));
    }
}

/// Re-queueing at an erase only the stalled writes that can take a page (plus one) is what
/// re-queueing all of them did (`stall`): the same run, distribution by distribution, on
/// overloaded full drives where thousands of writes wait for GC (the test asserts that writes were
/// kept aside), under FIFO and VIOS at the device queue, and with two dies a chip.
#[test]
fn stalled_writes_kept_aside_give_the_same_run() {
    let cases: &[&[&str]] = &[
        &[],
        &["device.geometry.dies_per_chip=2", "workload.synthetic.read_ratio=0.5"],
        &["device.variation.enabled=true", "hil.scheduler=\"vios\"", "ftl.precondition.pe_cycles=12000", "device.geometry.dies_per_chip=4"],
        // Multi-plane commands: a re-queued write may join another write's command.
        &["device.advanced.multi_plane=\"same_page\"", "workload.synthetic.read_ratio=0.4"],
        &["device.advanced.multi_plane=\"same_block_page\"", "device.geometry.planes_per_die=4", "device.geometry.dies_per_chip=2"],
        // Static wear leveling and the idle-time task (re-programs) with writes kept aside.
        &["seed=225", "device.geometry.planes_per_die=2", "workload.synthetic.requests=3000", "ftl.wear_leveling=\"swl\"", "ftl.swl.threshold=1", "ftl.swl.set_bits=1", "ftl.precondition.pe_cycles=100", "ftl.idle_task=\"rr\"", "device.ldpc.enabled=true", "device.idle.threshold=\"27us\"", "workload.synthetic.arrival=\"onoff\""],
        // Stalled writes that move to other planes (dynamic allocation, read balance-oriented
        // wear leveling), with multi-plane commands and with VIOS's placement.
        &["seed=2013", "device.geometry.dies_per_chip=2", "device.geometry.planes_per_die=2", "workload.synthetic.requests=3000", "ftl.wear_leveling=\"swl\"", "ftl.swl.threshold=3", "ftl.idle_task=\"rr\"", "device.ldpc.enabled=true", "device.idle.threshold=\"386us\"", "ftl.allocation.scheme=\"dynamic\""],
        &["seed=2096", "device.geometry.dies_per_chip=4", "device.geometry.planes_per_die=2", "workload.synthetic.read_ratio=0.6", "device.advanced.multi_plane=\"same_block_page\"", "ftl.allocation.scheme=\"dynamic\"", "ftl.wear_leveling=\"rbwl\"", "ftl.rbwl.threshold=1", "ftl.precondition.pe_cycles=100"],
        &["seed=2010", "device.geometry.dies_per_chip=4", "device.geometry.planes_per_die=4", "ftl.allocation.scheme=\"channel-static\"", "device.variation.enabled=true", "hil.scheduler=\"vios\""],
        // Write grouping: a kept-aside write of the other stream may find a page.
        &["seed=5066", "device.geometry.dies_per_chip=4", "device.geometry.planes_per_die=2", "workload.synthetic.read_ratio=0.6", "ftl.idle_task=\"rr\"", "device.ldpc.enabled=true", "device.idle.threshold=\"16us\"", "ftl.write_grouping=\"pgis\"", "ftl.pgis.decay_writes=4816", "ftl.pgis.threshold=2", "workload.synthetic.address=\"hotcold\""],
        &["seed=5016", "device.geometry.planes_per_die=2", "workload.synthetic.read_ratio=0.0", "workload.synthetic.requests=3000", "ftl.wear_leveling=\"swl\"", "ftl.swl.threshold=3", "ftl.swl.set_bits=1", "ftl.idle_task=\"rr\"", "device.ldpc.enabled=true", "device.idle.threshold=\"351us\"", "workload.synthetic.arrival=\"onoff\"", "ftl.write_grouping=\"pattern\"", "ftl.pattern.mined_requests=250"],
        // Chip-level multi-die commands (MQSim's TSU: O3, multi-plane packing): the kept-aside
        // writes at a die's head are tried when the chip's leader selection picks them.
        &["compat=\"mqsim\"", "device.geometry.dies_per_chip=2", "device.geometry.planes_per_die=2", "workload.synthetic.read_ratio=0.3"],
        &["seed=17", "tsu.scheduler=\"o3\"", "device.advanced.interleave=false", "device.advanced.multi_die=true", "device.geometry.dies_per_chip=4", "workload.synthetic.read_ratio=0.7"],
        &["seed=23", "device.advanced.interleave=false", "device.advanced.multi_die=true", "device.geometry.dies_per_chip=2", "device.geometry.planes_per_die=4", "device.advanced.multi_plane=\"same_block_page\"", "workload.synthetic.read_ratio=0.5"],
        // The dynamic allocator weighs dies by their queues, kept-aside writes included.
        &["seed=4011", "device.geometry.dies_per_chip=4", "device.geometry.planes_per_die=4", "workload.synthetic.read_ratio=0.0", "ftl.allocation.scheme=\"dynamic\"", "ftl.allocation.plane=\"round_robin\""],
    ];
    let (mut wl, mut rr, mut moved) = (0, 0, 0);
    for extra in cases {
        let ((a, kept, _), (b, none, _)) = (overloaded_run(extra, true), overloaded_run(extra, false));
        assert!(kept > 1000 && none == 0, "{extra:?}: {kept} writes kept aside");
        assert!(a.counters.write_stalls > 10_000, "{extra:?}: {} stalls", a.counters.write_stalls);
        assert_same_run(&a, &b, &format!("{extra:?}"));
        (wl, rr, moved) = (wl + a.counters.wl_collections, rr + a.counters.reprograms, moved + a.counters.writes_relocated);
    }
    assert!(wl > 0 && rr > 0, "wear leveling ({wl} collections) and the idle task ({rr} re-programs) ran");
    assert!(moved > 0, "stalled writes moved to other planes");
}

/// The same under schedulers that reorder and count the kept-aside writes without holding them
/// (`TransactionScheduler::holds_aside`): FR-FCFS (whose write queue's length decides when a chip
/// drains its writes), O3 (host reads first) and Slacker's mechanisms on FR-FCFS (whose
/// estimates count the host writes ahead), with program and erase suspension and write pausing,
/// several dies a chip, chips without interleaving, a small write queue, and VIOS at the device
/// queue. Across the cases,
/// kept-aside writes both stall again at the die's next choice and go back to the queue (a read
/// was waiting and the write queue no longer drained).
#[test]
fn stalled_writes_kept_aside_by_reordering_schedulers_give_the_same_run() {
    let cases: &[&[&str]] = &[
        &["tsu.scheduler=\"frfcfs\""],
        &["tsu.scheduler=\"o3\"", "workload.synthetic.read_ratio=0.5", "device.geometry.dies_per_chip=2"],
        &["tsu.scheduler=\"o3\"", "workload.synthetic.read_ratio=0.3", "device.suspend.program=true", "device.suspend.erase=true"],
        &["tsu.scheduler=\"o3\"", "workload.synthetic.read_ratio=0.5", "device.variation.enabled=true", "hil.scheduler=\"vios\"", "device.geometry.dies_per_chip=2"],
        &["tsu.scheduler=\"frfcfs\"", "device.geometry.dies_per_chip=2", "workload.synthetic.read_ratio=0.5"],
        // Write grouping under Slacker: its host-write counts and slack follow the resolution.
        &["seed=13028", "tsu.scheduler=\"slacker\"", "device.geometry.dies_per_chip=4", "device.geometry.planes_per_die=1", "device.suspend.program=true", "ftl.write_grouping=\"pgis\"", "ftl.pgis.decay_writes=1955", "ftl.pgis.threshold=2", "workload.synthetic.address=\"hotcold\"", "device.variation.enabled=true", "hil.scheduler=\"vios\""],
        &["seed=13003", "tsu.scheduler=\"slacker\"", "device.geometry.planes_per_die=4", "device.suspend.program=true", "ftl.write_grouping=\"pattern\"", "ftl.pattern.mined_requests=129"],
        &["tsu.scheduler=\"frfcfs\"", "device.geometry.dies_per_chip=2", "device.advanced.interleave=false", "workload.synthetic.read_ratio=0.4"],
        &["tsu.scheduler=\"frfcfs\"", "tsu.frfcfs.write_queue=8", "workload.synthetic.read_ratio=0.6", "device.suspend.program=true", "device.suspend.erase=true", "tsu.suspend_for_reads=true"],
        &["tsu.scheduler=\"slacker\"", "device.suspend.program=true"],
        // Multi-plane commands, as on Slacker's drive (`slacker2017`).
        &["tsu.scheduler=\"slacker\"", "device.suspend.program=true", "device.advanced.multi_plane=\"same_block_page\"", "device.geometry.dies_per_chip=4", "device.geometry.planes_per_die=2", "workload.synthetic.read_ratio=0.4"],
        &["tsu.scheduler=\"frfcfs\"", "device.advanced.multi_plane=\"same_page\"", "device.geometry.planes_per_die=4"],
        &["tsu.scheduler=\"o3\"", "device.advanced.multi_plane=\"same_page\"", "workload.synthetic.read_ratio=0.5"],
        // Read-modify-write: a request's last write is queued once its read is done, long after
        // its other writes may have stalled and been kept aside; they get their slack then.
        &["tsu.scheduler=\"wbyp\"", "ftl.partial_writes=\"read_modify_write\"", "workload.synthetic.align=\"512B\"", "device.geometry.pages_per_block=64", "device.geometry.dies_per_chip=2", "device.geometry.planes_per_die=4"],
        &["tsu.scheduler=\"slacker\"", "device.suspend.program=true", "ftl.partial_writes=\"read_modify_write\"", "workload.synthetic.align=\"512B\"", "device.geometry.pages_per_block=64", "device.geometry.dies_per_chip=2", "device.geometry.planes_per_die=4", "seed=3"],
        // Static wear leveling and the idle-time task (re-programs).
        &["seed=216", "tsu.scheduler=\"frfcfs\"", "device.geometry.dies_per_chip=2", "device.suspend.erase=true", "ftl.wear_leveling=\"swl\"", "ftl.swl.threshold=1", "ftl.swl.set_bits=2", "ftl.precondition.pe_cycles=100", "ftl.idle_task=\"rr\"", "device.ldpc.enabled=true", "device.idle.threshold=\"493us\""],
        // Write grouping: a kept-aside write of the other stream may find a page.
        &["seed=9002", "tsu.scheduler=\"frfcfs\"", "device.geometry.dies_per_chip=4", "device.geometry.planes_per_die=4", "workload.synthetic.read_ratio=0.6", "device.suspend.program=true", "ftl.idle_task=\"rr\"", "device.ldpc.enabled=true", "device.idle.threshold=\"20us\"", "ftl.write_grouping=\"pattern\"", "ftl.pattern.mined_requests=51"],
        &["seed=9020", "tsu.scheduler=\"o3\"", "device.geometry.dies_per_chip=4", "device.geometry.planes_per_die=2", "workload.synthetic.requests=3000", "device.suspend.program=true", "ftl.wear_leveling=\"swl\"", "ftl.swl.threshold=2", "ftl.precondition.pe_cycles=100", "ftl.write_grouping=\"pattern\"", "ftl.pattern.mined_requests=178", "workload.synthetic.address=\"zipf\"", "device.variation.enabled=true", "hil.scheduler=\"vios\""],
        // Stalled writes that move to other planes (dynamic allocation, read balance-oriented
        // wear leveling).
        &["seed=7014", "tsu.scheduler=\"frfcfs\"", "device.geometry.dies_per_chip=4", "device.geometry.planes_per_die=4", "workload.synthetic.read_ratio=0.6", "workload.synthetic.requests=3000", "device.advanced.multi_plane=\"same_page\"", "ftl.idle_task=\"rr\"", "device.ldpc.enabled=true", "device.idle.threshold=\"110us\"", "ftl.allocation.scheme=\"channel-static\"", "ftl.allocation.plane=\"round_robin\""],
        &["seed=7026", "tsu.scheduler=\"wbyp\"", "device.geometry.dies_per_chip=4", "device.geometry.planes_per_die=4", "workload.synthetic.requests=3000", "device.advanced.multi_plane=\"same_page\"", "device.suspend.program=true", "ftl.allocation.scheme=\"dynamic\""],
        &["seed=1003", "tsu.scheduler=\"wbyp\"", "device.geometry.dies_per_chip=2", "device.geometry.planes_per_die=4", "workload.synthetic.requests=3000", "device.advanced.multi_plane=\"same_page\"", "ftl.allocation.scheme=\"channel-static\"", "ftl.allocation.plane=\"round_robin\"", "device.variation.enabled=true", "hil.scheduler=\"vios\""],
        &["seed=227", "tsu.scheduler=\"wbyp\"", "device.geometry.planes_per_die=2", "workload.synthetic.read_ratio=0.6", "workload.synthetic.requests=3000", "ftl.wear_leveling=\"swl\"", "ftl.swl.threshold=2", "ftl.precondition.pe_cycles=100", "ftl.idle_task=\"rr\"", "device.ldpc.enabled=true", "device.idle.threshold=\"415us\""],
    ];
    let (mut put_back, mut moved) = (0, 0);
    for extra in cases {
        let ((a, kept, back), (b, none, _)) = (overloaded_run(extra, true), overloaded_run(extra, false));
        assert!(kept > 1000 && none == 0, "{extra:?}: {kept} writes kept aside");
        assert!(a.counters.write_stalls > 10_000, "{extra:?}: {} stalls", a.counters.write_stalls);
        assert_same_run(&a, &b, &format!("{extra:?}"));
        put_back += back;
        moved += a.counters.writes_relocated;
    }
    assert!(put_back > 0, "no kept-aside write went back to the queue in any case");
    assert!(moved > 0, "stalled writes moved to other planes");
}

/// Slacker's write bypassing with the chip (of two dies) as its unit cannot count writes it does not hold
/// (`Slacker::holds_aside`): every stalled write is re-queued there, as before; with the die as
/// its unit, or without write bypassing, the kept-aside writes are counted.
#[test]
fn write_bypassing_over_a_chip_re_queues_every_stalled_write() {
    let lazy = |sets: &[&str]| {
        let suspend = if sets.iter().any(|s| s.starts_with("device.suspend.program")) { None } else { Some("device.suspend.program=true".to_string()) };
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).chain(suspend).chain(["workload.kind=synthetic".to_string()]).collect();
        let s = crate::config::load(Some("tiny"), None, &sets).expect("config");
        Simulator::new(&s, crate::workload::build(&s).expect("workload")).expect("simulator").requeue.on
    };
    assert!(!lazy(&["tsu.scheduler=\"slacker\"", "device.advanced.interleave=false", "device.geometry.dies_per_chip=2"]));
    assert!(!lazy(&["tsu.scheduler=\"wbyp\"", "device.advanced.interleave=false", "device.geometry.dies_per_chip=2"]));
    assert!(lazy(&["tsu.scheduler=\"rbyp+wp\"", "device.advanced.interleave=false", "device.geometry.dies_per_chip=2"]));
    assert!(lazy(&["tsu.scheduler=\"slacker\""]));
    assert!(lazy(&["tsu.scheduler=\"frfcfs\"", "device.advanced.interleave=false", "device.geometry.dies_per_chip=2"]));
    assert!(lazy(&["tsu.scheduler=\"o3\""]));
    // Write grouping: under FCFS and the schedulers that hold kept-aside writes (FR-FCFS, O3,
    // Slacker), without relocation, and with multi-plane commands under FCFS only.
    assert!(lazy(&["ftl.write_grouping=\"pattern\"", "device.suspend.program=false"]));
    assert!(lazy(&["ftl.write_grouping=\"pattern\"", "tsu.scheduler=\"frfcfs\""]));
    assert!(lazy(&["ftl.write_grouping=\"pattern\"", "tsu.scheduler=\"slacker\""]));
    assert!(!lazy(&["ftl.write_grouping=\"pgis\"", "device.suspend.program=false", "ftl.allocation.scheme=\"dynamic\""]));
    assert!(lazy(&["ftl.write_grouping=\"pgis\"", "device.suspend.program=false", "device.advanced.multi_plane=\"same_page\""]));
    assert!(!lazy(&["ftl.write_grouping=\"pgis\"", "tsu.scheduler=\"frfcfs\"", "device.advanced.multi_plane=\"same_page\""]));
    // Multi-die commands (as under `compat = "mqsim"`): under FCFS and O3, but not with
    // relocation or write grouping.
    let md = ["device.advanced.multi_die=true", "device.advanced.interleave=false", "device.suspend.program=false"];
    assert!(lazy(&[&md[..], &["tsu.scheduler=\"o3\""]].concat()));
    assert!(lazy(&[&md[..], &["tsu.scheduler=\"fcfs\"", "device.advanced.multi_plane=\"same_page\""]].concat()));
    assert!(!lazy(&[&md[..], &["ftl.allocation.scheme=\"dynamic\""]].concat()));
    assert!(!lazy(&[&md[..], &["ftl.write_grouping=\"pgis\""]].concat()));
}

/// A read-modify-write's write is queued in the device queue once its read is done, when its
/// request is already in flight: PIQ and VIOS, which admit requests up to a queue depth, let it
/// join its request (`DeviceQueue::push_continuation`). Queued as a new request it waited behind
/// requests that could not complete without it, and the run stopped with nearly every request
/// unfinished ("no event left to run"), under every dispatch rule but VIOS's `idle_requests`.
#[test]
fn read_modify_write_completes_under_the_request_admitting_device_queues() {
    let cases: &[&[&str]] = &[
        &["hil.scheduler=\"piq\""],
        &["hil.scheduler=\"piq\"", "hil.piq.dispatch=\"sub_requests\""],
        &["hil.scheduler=\"vios\""],
        &["hil.scheduler=\"vios\"", "hil.vios.dispatch=\"idle_units\""],
        &["hil.scheduler=\"vios\"", "hil.vios.dispatch=\"idle_requests\""],
        &["hil.scheduler=\"vios\"", "hil.vios.dispatch=\"sub_requests\""],
    ];
    for extra in cases {
        let mut sets = vec!["ftl.precondition.fill=0.8", "ftl.partial_writes=\"read_modify_write\"", "workload.synthetic.align=\"512B\"", "workload.synthetic.interarrival=50us", "host.queue_depth=256"];
        sets.extend_from_slice(extra);
        let o = run(&sets, false);
        assert_eq!(o.completed, 4000, "{extra:?}");
        assert!(o.counters.rmw_reads > 1000, "{extra:?}: {} read-modify-write reads", o.counters.rmw_reads);
    }
}

/// Not a test but a tool, run by hand when the lazy re-queue is extended to more features: random
/// overloaded configurations (seeds CAMPAIGN_START.., CAMPAIGN_N of them; CAMPAIGN_FEATS, comma
/// separated, adds features: `wl` static wear leveling, `idle` RR re-programs, `md` multi-die
/// commands, `xp` relocating allocation and RBWL, `grp` write grouping, `wr` WR program speeds;
/// CAMPAIGN_SCHED fixes the transaction scheduler; CAMPAIGN_SETS replaces the configuration),
/// each run lazy and eager, compared as the tests above compare them. `cargo test -p flashsched
/// --lib lazy_campaign -- --ignored --nocapture` (without `--release`, to keep the debug
/// assertions).
#[test]
#[ignore]
fn lazy_campaign() {
    use rand::{Rng as _, SeedableRng as _};
    let n: u64 = std::env::var("CAMPAIGN_N").ok().and_then(|v| v.parse().ok()).unwrap_or(20);
    let start: u64 = std::env::var("CAMPAIGN_START").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    let feats: Vec<String> = std::env::var("CAMPAIGN_FEATS").unwrap_or_default().split(',').map(|s| s.to_string()).collect();
    let mut bad = 0;
    for i in start..start + n {
        let mut r = rand_pcg::Pcg64Mcg::seed_from_u64(i);
        let mut sets: Vec<String> = vec![format!("seed={i}")];
        let pick = |r: &mut rand_pcg::Pcg64Mcg, xs: &[&str]| xs[r.random_range(0..xs.len())].to_string();
        let sched = pick(&mut r, &["fcfs", "fcfs", "frfcfs", "o3", "slacker", "wbyp", "rbyp+wp"]);
        sets.push(format!("tsu.scheduler=\"{}\"", std::env::var("CAMPAIGN_SCHED").unwrap_or(sched)));
        sets.push(format!("device.geometry.dies_per_chip={}", pick(&mut r, &["1", "2", "4"])));
        sets.push(format!("device.geometry.planes_per_die={}", pick(&mut r, &["1", "2", "4"])));
        sets.push(format!("workload.synthetic.read_ratio={}", pick(&mut r, &["0.0", "0.3", "0.6"])));
        sets.push(format!("workload.synthetic.requests={}", pick(&mut r, &["3000", "6000"])));
        if r.random_bool(0.4) { sets.push(format!("device.advanced.multi_plane=\"{}\"", pick(&mut r, &["same_page", "same_block_page"]))); }
        if sets[1].contains("slacker") || sets[1].contains("wp") || r.random_bool(0.3) { sets.push("device.suspend.program=true".into()); }
        if r.random_bool(0.3) { sets.push("device.suspend.erase=true".into()); }
        let md = feats.iter().any(|f| f == "md") && r.random_bool(0.6);
        if md || r.random_bool(0.2) { sets.push("device.advanced.interleave=false".into()); }
        if md { sets.push("device.advanced.multi_die=true".into()); }
        if feats.iter().any(|f| f == "wl") && r.random_bool(0.7) {
            sets.push("ftl.wear_leveling=\"swl\"".into());
            sets.push(format!("ftl.swl.threshold={}", r.random_range(1..6)));
            sets.push(format!("ftl.swl.set_bits={}", r.random_range(0..4)));
            if r.random_bool(0.5) { sets.push("ftl.precondition.pe_cycles=100".into()); }
        }
        if feats.iter().any(|f| f == "idle") && r.random_bool(0.7) {
            sets.push("ftl.idle_task=\"rr\"".into());
            sets.push("device.ldpc.enabled=true".into());
            sets.push(format!("device.idle.threshold=\"{}us\"", r.random_range(1..500)));
            sets.push(format!("workload.synthetic.arrival=\"{}\"", pick(&mut r, &["poisson", "onoff"])));
        }
        if feats.iter().any(|f| f == "xp") {
            if r.random_bool(0.7) {
                sets.push(format!("ftl.allocation.scheme=\"{}\"", pick(&mut r, &["dynamic", "channel-static"])));
                if r.random_bool(0.3) { sets.push("ftl.allocation.plane=\"round_robin\"".into()); }
            }
            if r.random_bool(0.4) {
                sets.push("ftl.wear_leveling=\"rbwl\"".into());
                sets.push(format!("ftl.rbwl.threshold={}", r.random_range(1..4)));
                sets.push("ftl.precondition.pe_cycles=100".into());
            }
        }
        if feats.iter().any(|f| f == "grp") && r.random_bool(0.8) {
            sets.push(format!("ftl.write_grouping=\"{}\"", pick(&mut r, &["pgis", "pattern"])));
            sets.push(format!("ftl.pgis.decay_writes={}", r.random_range(50..5000)));
            sets.push(format!("ftl.pgis.threshold={}", r.random_range(1..4)));
            sets.push(format!("ftl.pattern.mined_requests={}", r.random_range(8..256)));
            sets.push(format!("workload.synthetic.address=\"{}\"", pick(&mut r, &["uniform", "zipf", "hotcold"])));
        }
        if feats.iter().any(|f| f == "wr") && r.random_bool(0.7) {
            sets.push("ftl.program_speed=\"wr\"".into());
            sets.push(format!("workload.synthetic.arrival=\"{}\"", pick(&mut r, &["poisson", "onoff"])));
        }
        if r.random_bool(0.2) { sets.push("device.variation.enabled=true".into()); sets.push("hil.scheduler=\"vios\"".into()); }
        if let Ok(v) = std::env::var("CAMPAIGN_SETS") {
            sets = v.split(' ').map(|s| s.to_string()).collect();
        }
        let extra: Vec<&str> = sets.iter().map(|s| s.as_str()).collect();
        let s = crate::config::load(Some("tiny"), None, &extra.iter().map(|s| s.to_string()).chain(["workload.kind=synthetic".to_string()]).collect::<Vec<_>>());
        let Ok(s) = s else { eprintln!("{i}: config error {:?}", s.err()); continue };
        let sim = Simulator::new(&s, crate::workload::build(&s).expect("workload")).expect("simulator");
        if !sim.requeue.on { eprintln!("{i}: not lazy"); continue; }
        drop(sim);
        if std::env::var_os("CAMPAIGN_PRINT").is_some() {
            eprintln!("{i}: running {extra:?}");
        }
        let ((a, kept, back), (b, _, _)) = (overloaded_run(&extra, true), overloaded_run(&extra, false));
        let same = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| assert_same_run(&a, &b, "x"))).is_ok();
        eprintln!("{i}: {} kept {kept} back {back} stalls {} wl {} rr {} reloc {} {:?}", if same { "same" } else { "DIFF" }, a.counters.write_stalls, a.counters.wl_collections, a.counters.reprograms, a.counters.writes_relocated, extra);
        if !same { bad += 1; }
    }
    assert_eq!(bad, 0);
}

/// Under `sub_requests` dispatch PIQ and VIOS ask the device only about the units the simulator
/// reported as possibly idle (`hil::idle_watch`): debug builds (the tests') check at every round
/// that no wanted unit is idle without having been reported. Runs under heavy GC, with single,
/// multi-plane and multi-die commands. (Writes that find no page and suspensions do not come up:
/// a unit gets host work only once it is idle, GC's work done.)
#[test]
fn sub_request_dispatch_hears_of_every_die_that_becomes_idle() {
    // Faster than GC on a full drive (as `overloaded_run`).
    let gc = ["ftl.precondition.fill=1.0", "ftl.precondition.overwrites=0.5", "ftl.gc.threshold=0.02", "workload.synthetic.read_ratio=0.3", "workload.synthetic.interarrival=10us", "host.queue_depth=100000"];
    let cases: &[&[&str]] = &[
        &[],
        &["device.advanced.multi_plane=\"same_page\""],
        &["device.advanced.multi_die=true", "device.advanced.interleave=false", "device.suspend.program=false"],
        // Idle-time re-programs (RR), thousands dropped for want of a page; under SSDSim's model
        // a die's start waits for its channel's turn, after the device queue has looked. (No
        // run here drops one after a round saw its die busy with it queued, so that report is
        // checked by reading `start_txn`, not by this test.)
        &["ftl.idle_task=\"rr\"", "device.ldpc.enabled=true", "device.idle.threshold=\"20us\""],
        &["compat=\"ssdsim\"", "ftl.idle_task=\"rr\"", "device.ldpc.enabled=true", "device.idle.threshold=\"20us\""],
        &["device.advanced.interleave=false", "ftl.idle_task=\"rr\"", "device.ldpc.enabled=true", "device.idle.threshold=\"20us\""],
    ];
    for q in [["hil.scheduler=\"piq\"", "hil.piq.dispatch=\"sub_requests\""], ["hil.scheduler=\"vios\"", "hil.vios.dispatch=\"sub_requests\""], ["hil.scheduler=\"piq\"", "hil.piq.granularity=\"die\""]] {
        for extra in cases {
            let mut sets: Vec<&str> = gc.to_vec();
            sets.extend_from_slice(&q);
            sets.extend_from_slice(extra);
            if q[1].contains("granularity") {
                sets.push("hil.piq.dispatch=\"sub_requests\"");
            }
            let o = run(&sets, false);
            assert_eq!(o.completed, 4000, "{sets:?}");
            assert!(o.counters.erases > 1000 && o.counters.gc_pages_moved > 0, "{sets:?}: {} erases", o.counters.erases);
        }
    }
}
