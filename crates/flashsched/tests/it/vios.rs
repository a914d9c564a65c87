//! VIOS (hil.scheduler = "vios") in whole runs: its speed-aware placement has a choice only when
//! blocks differ (process variation) and a chip has several planes.

use super::{req, run_lines};
use flashsched::trace::Op;
use flashsched::RunResult;

const PAGE: u64 = 4096;

/// Bursts of 8 one-page writes to scattered pages every 2 ms, with a read of a written page
/// between bursts: chips see several requests at once.
fn bursts() -> Vec<String> {
    bursts_of(8)
}

/// `bursts` with `n` writes a burst.
fn bursts_of(n: u64) -> Vec<String> {
    let mut lines = Vec::new();
    for burst in 0..200u64 {
        let t = burst * 2_000_000 * n / 8;
        for i in 0..n {
            let lpn = (burst * n + i) * 2654435761 % 6000;
            lines.push(req(t + i * 1000, lpn * PAGE, PAGE, false));
        }
        lines.push(req(t + 1_000_000, ((burst * n) * 2654435761 % 6000) * PAGE, PAGE, true));
    }
    lines
}

fn run(name: &str, sets: &[&str]) -> RunResult {
    let base = ["device.geometry.dies_per_chip=2", "ftl.precondition.pe_cycles=12000"];
    let all: Vec<&str> = base.iter().copied().chain(sets.iter().copied()).collect();
    run_lines("tiny", name, &bursts(), &all)
}

fn placed(r: &RunResult) -> u64 {
    r.json["ssd"]["writes_placed_elsewhere"].as_u64().unwrap()
}

/// Pages and mean program time (us) of the host programs placement asked `kind` blocks for.
fn programs(r: &RunResult, kind: &str) -> (u64, f64) {
    let p = &r.json["ssd"]["placed_programs"][kind];
    (p["pages"].as_u64().unwrap_or(0), p["program_mean_ns"].as_f64().unwrap_or(f64::NAN) / 1000.0)
}

#[test]
fn vios_moves_writes_between_the_planes_of_a_chip_only_when_blocks_differ() {
    // The literal rules (a shared open block, unconflicted writes to the slowest block) move
    // writes the most.
    let v = run("vios-var", &["hil.scheduler=\"vios\"", "device.variation.enabled=true", "hil.vios.blocks=\"shared\"", "hil.vios.unconflicted=\"slowest\""]);
    assert_eq!(v.json["flashsched"]["requests_completed"], 1800);
    assert_eq!(v.json["ssd"]["invariants"], "ok");
    let moved = placed(&v);
    assert!(moved > 100, "VIOS must get a choice here: {moved} writes moved");
    // The same drive without variation: every block programs alike, nothing moves.
    assert_eq!(placed(&run("vios-fixed", &["hil.scheduler=\"vios\"", "hil.vios.blocks=\"shared\"", "hil.vios.unconflicted=\"slowest\""])), 0);
    assert_eq!(placed(&run("vios-fixed-default", &["hil.scheduler=\"vios\""])), 0);
    // Other device queues never move writes.
    assert_eq!(placed(&run("piq-var", &["hil.scheduler=\"piq\"", "device.variation.enabled=true"])), 0);
}

#[test]
fn fast_writes_get_the_fastest_blocks_of_their_chip_apart_from_ordinary_ones() {
    // §3.1: a conflicted write gets the fastest block with free pages of its chip. With blocks
    // of their own (`separate`, the default), opened fastest-first among all free blocks, fast
    // writes program well faster than ordinary ones; sharing one open block per plane
    // (`shared`) leaves them little faster, and ordinary writes are left on ordinary blocks
    // either way (`unconflicted = "static"`).
    // Bursts of 32 writes on 4 chips, waiting in VIOS's queues (sub-request dispatch): the
    // writes of a chip find others waiting, but the last of each burst.
    let vios = ["device.geometry.dies_per_chip=2", "ftl.precondition.pe_cycles=12000", "hil.scheduler=\"vios\"", "device.variation.enabled=true", "hil.vios.dispatch=\"sub_requests\""];
    let lines = bursts_of(32);
    let sep = run_lines("tiny", "vios-sep", &lines, &vios);
    let shared = run_lines("tiny", "vios-shared", &lines, &[&vios[..], &["hil.vios.blocks=\"shared\""]].concat());
    for r in [&sep, &shared] {
        assert_eq!(r.json["flashsched"]["requests_completed"], 6600);
        assert_eq!(r.json["ssd"]["invariants"], "ok");
        assert_eq!(programs(r, "slowest").0, 0);
    }
    let (fast, fast_us) = programs(&sep, "fastest");
    let (ordinary, ordinary_us) = programs(&sep, "ordinary");
    assert!(fast > 100 && ordinary > 100, "both kinds of write must occur: {fast} fast, {ordinary} ordinary");
    assert!(fast_us < 0.93 * ordinary_us, "separate: fast {fast_us:.0} us against ordinary {ordinary_us:.0} us");
    let (_, shared_fast_us) = programs(&shared, "fastest");
    assert!(fast_us < shared_fast_us, "separate fast blocks {fast_us:.0} us, shared {shared_fast_us:.0} us");
    // Every host page is counted once.
    let all = fast + ordinary;
    assert_eq!(all, sep.json["ssd"]["host_pages_written"].as_u64().unwrap());
}

#[test]
fn read_modify_write_reads_stay_with_their_page_under_vios() {
    // Writes of a page and a half over written pages, in bursts: the half page needs the rest
    // of its old page read first, a read that belongs to a write request (its first transaction
    // is the whole page's write) whose transactions VIOS places. It must be read where the page
    // is (a debug assertion in the simulator checks every read's plane); only the writes move.
    // The set-up gives VIOS a choice (writes moved: the drive is full, so the fill limit must
    // leave room past the planes' shares) and reads to make (RMW reads).
    let mut lines = bursts();
    for burst in 0..100u64 {
        let t = 400_000_000 + burst * 2_000_000;
        for i in 0..8u64 {
            let lpn = (burst * 8 + i) * 2654435761 % 6000;
            lines.push(req(t + i * 1000, lpn * PAGE, PAGE * 3 / 2, false));
        }
    }
    let r = run_lines("tiny", "vios-rmw", &lines, &["device.geometry.dies_per_chip=2", "ftl.precondition.pe_cycles=12000", "hil.scheduler=\"vios\"", "device.variation.enabled=true", "ftl.partial_writes=\"read_modify_write\"", "ftl.precondition.fill=1.0", "hil.vios.overfill=0.5"]);
    assert_eq!(r.json["flashsched"]["requests_completed"], 2600);
    assert_eq!(r.json["ssd"]["invariants"], "ok");
    assert!(placed(&r) > 100, "{} writes moved", placed(&r));
    assert!(r.json["ssd"]["rmw_reads"].as_u64().unwrap() > 100, "{}", r.json["ssd"]["rmw_reads"]);
}

#[test]
fn vios_runs_are_deterministic() {
    let a = run("vios-det", &["hil.scheduler=\"vios\"", "device.variation.enabled=true"]);
    let b = run("vios-det", &["hil.scheduler=\"vios\"", "device.variation.enabled=true"]);
    let strip = |r: &RunResult| flashsched::report::without_wall_clock(&r.json);
    assert_eq!(strip(&a), strip(&b));
}

#[test]
fn sub_request_dispatch_runs_every_request_under_vios_and_piq() {
    for (name, sets) in [
        ("vios-sub", &["hil.scheduler=\"vios\"", "hil.vios.dispatch=\"sub_requests\"", "device.variation.enabled=true", "device.advanced.interleave=false"][..]),
        ("vios-sub-static", &["hil.scheduler=\"vios\"", "hil.vios.dispatch=\"sub_requests\"", "hil.vios.unconflicted=\"static\"", "device.variation.enabled=true"][..]),
        ("piq-sub", &["hil.scheduler=\"piq\"", "hil.piq.dispatch=\"sub_requests\"", "device.variation.enabled=true", "device.advanced.interleave=false"][..]),
    ] {
        let r = run(name, sets);
        assert_eq!(r.json["flashsched"]["requests_completed"], 1800, "{name}");
        assert_eq!(r.json["ssd"]["invariants"], "ok", "{name}");
    }
}

#[test]
fn sub_request_dispatch_on_the_vios_drive_completes_every_request() {
    // The vios2016 drive under a src-like burst of multi-chip requests (sizes down to 512 bytes,
    // so requests often have several transactions on a chip): transaction ids are reused while
    // requests still wait, which a stale id in a waiting request's list would turn into a
    // transaction issued twice (found by this test).
    let workload = [
        "workload.kind=\"synthetic\"", "workload.synthetic.requests=2000", "workload.synthetic.read_ratio=0.16",
        "workload.synthetic.arrival=\"onoff\"", "workload.synthetic.interarrival=\"155675ns\"",
        "workload.synthetic.range=17179869184", "workload.synthetic.align=512", "workload.synthetic.size_dist=\"lognormal\"",
        "workload.synthetic.size_min=512", "workload.synthetic.size_max=\"1MiB\"", "workload.synthetic.write_size_mean=23040",
        "workload.synthetic.write_size_sd=20992", "seed=1",
    ];
    for policy in [
        &["hil.scheduler=\"vios\"", "hil.vios.dispatch=\"sub_requests\""][..],
        &["hil.scheduler=\"vios\"", "hil.vios.dispatch=\"sub_requests\"", "hil.vios.unconflicted=\"static\""][..],
        &["hil.scheduler=\"piq\"", "hil.piq.dispatch=\"sub_requests\""][..],
    ] {
        let sets: Vec<&str> = workload.iter().chain(policy).copied().collect();
        let s = flashsched::config::load(Some("vios2016"), None, &sets.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap();
        let opts = flashsched::RunOptions { request_log: false, full_invariant_check: true, json_plus: false };
        let r = flashsched::run(&s, &opts, &mut |_| true).unwrap_or_else(|e| panic!("{policy:?}: {e}"));
        assert_eq!(r.json["flashsched"]["requests_completed"], 2000, "{policy:?}");
        assert_eq!(r.json["ssd"]["invariants"], "ok", "{policy:?}");
    }
}

/// `hil.vios.max_age` bounds a write's wait behind a steady stream of reads under the dispatch
/// rules that issue whole chip batches: a write arriving among reads that keep the read queue
/// busy for 60 ms is issued about `max_age` after it arrived, not when the reads stop.
#[test]
fn max_age_bounds_a_writes_wait_behind_a_steady_read_stream() {
    let mut lines = Vec::new();
    // Reads of written pages every 10 us for 60 ms (faster than the tiny drive serves them),
    // with one write 1 ms in.
    for i in 0..6000u64 {
        lines.push(req(i * 10_000, (i * 2654435761 % 4000) * PAGE, PAGE, true));
    }
    lines.push(req(1_000_000, 5000 * PAGE, PAGE, false));
    lines.sort_by_key(|l| l.split(' ').next().unwrap().parse::<u64>().unwrap());
    for dispatch in ["queue_depth", "idle_units"] {
        let d = format!("hil.vios.dispatch=\"{dispatch}\"");
        let sets = ["hil.scheduler=\"vios\"", "hil.vios.max_age=\"1ms\"", d.as_str(), "ftl.precondition.fill=0.9"];
        let r = run_lines("tiny", &format!("maxage-{dispatch}"), &lines, &sets);
        let write = r.request_log.iter().find(|x| x.op == Op::Write).expect("the write completed");
        let latency = write.complete_ns - write.arrival_ns;
        // Reads keep coming: without the guard the write waits for the whole stream (~60 ms).
        let last_read = r.request_log.iter().filter(|x| x.op == Op::Read).map(|x| x.complete_ns).max().unwrap();
        assert!(last_read > 20_000_000, "{dispatch}: the reads must outlast the write's wait ({last_read} ns)");
        assert!(latency < 5_000_000, "{dispatch}: the write waited {latency} ns with max_age = 1 ms");
    }
}
