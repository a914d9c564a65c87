//! Slacker (paper 003): the examples of its Figures 2 and 6 as whole runs with completion times
//! computed by hand, and the property that with exact estimates no request finishes later than
//! estimated.
//!
//! The drive is `tiny` cut to one chip per channel (4 channels, 1 chip, 1 die of 2 planes), so
//! channels never delay one another and the estimator's equations are exact: a read holds its die
//! for R = command 1 us + tR 50 us + 4 KiB out in 40.96 us = 91.96 us, a write for W = 1 + 40.96
//! + 500 = 541.96 us, and ECC is instantaneous. Static CWDP allocation puts logical page p on chip
//! p mod 4; reads of never-written pages read their home page with full timing.

use super::tiny::{CMD, PAGE, T_PROG, T_R, XFER};
use super::{latencies, req, run_lines};
use flashsched::RunResult;
use proptest::prelude::*;

const R: u64 = CMD + T_R + XFER;
const W: u64 = CMD + XFER + T_PROG;
const FOUR_CHIPS: [&str; 2] = ["device.geometry.channels=4", "device.geometry.chips_per_channel=1"];

fn run(name: &str, tsu: &str, lines: &[String], extra: &[&str]) -> RunResult {
    let sched = format!("tsu.scheduler=\"{tsu}\"");
    let mut sets: Vec<&str> = FOUR_CHIPS.to_vec();
    sets.push(&sched);
    sets.extend_from_slice(extra);
    run_lines("tiny", name, lines, &sets)
}

fn tsu(r: &RunResult) -> &serde_json::Value {
    &r.json["ssd"]["tsu"]
}

/// A one-page read or write of logical page `lpn` at `t` ns.
fn page(t: u64, lpn: u64, read: bool) -> String {
    req(t, lpn * PAGE, PAGE, read)
}

/// Figure 2's chips at t = 0: chips 1, 2 and 3 get 7, 4 and 1 one-page reads; chip 0 none.
fn figure_2_queues() -> Vec<String> {
    let mut lines = Vec::new();
    for (chip, n) in [(1u64, 7u64), (2, 4), (3, 1)] {
        for k in 1..=n {
            lines.push(page(0, chip + 4 * k, true));
        }
    }
    lines
}

#[test]
fn figure_2_a_read_uses_the_slack_of_a_request_on_its_chip() {
    // Chips 1, 2, 3 hold 7, 4 and 1 one-page reads from t = 0 (chip 0 idle). Request A at 1 us
    // reads pages 0, 1, 2 (chips 0, 1, 2): A0 ends at R, A1 at 8R, A2 at 5R: slacks 7R - 1 us, 0,
    // 3R. Request B at 2 us reads one page on chip 2: under FR-FCFS it waits for A2 and ends at
    // 6R; with read bypassing it goes ahead of A2 (3R of slack >= R) and ends at 5R, while A2 ends
    // at 6R and A still at 8R.
    let mut lines = figure_2_queues();
    lines.push(req(1_000, 0, 3 * PAGE, true));
    lines.push(page(2_000, 2 + 4 * 10, true));
    let base = run("fig2-base", "frfcfs+est", &lines, &[]);
    let rbyp = run("fig2-rbyp", "rbyp", &lines, &[]);
    let (lb, lr) = (latencies(&base), latencies(&rbyp));
    let (a, b) = (lb.len() - 2, lb.len() - 1);
    assert_eq!((lb[a], lb[b]), (8 * R - 1_000, 6 * R - 2_000));
    assert_eq!((lr[a], lr[b]), (8 * R - 1_000, 5 * R - 2_000), "B gains one read; A is unchanged");
    assert_eq!(lb[..a], lr[..a], "the other requests are unchanged");
    // The estimates were exact: every sub-request ended when estimated under FR-FCFS.
    assert_eq!(tsu(&base)["estimate"]["all"]["mean_abs_error_ns"], 0.0);
    assert_eq!(tsu(&rbyp)["read_bypasses"], 1);
    assert_eq!(tsu(&rbyp)["requests_rbyp_share"].as_f64().unwrap(), 1.0 / 14.0);
    assert_eq!(tsu(&rbyp)["requests_late"], 0);
}

#[test]
fn figure_6a_read_bypassing() {
    // Chip 2 (X) reads page 14 from 0 (ends R); chip 3 (Y) reads 3 pages from 0 (end R, 2R, 3R);
    // chip 1 (Z) reads page 13 from 0 (ends R). RA at 1 us reads pages 2, 3: RA1 on X behind the
    // running read (ends 2R, slack 2R), RA2 on Y (ends 4R, slack 0). RB at 2 us reads pages 5, 6
    // (RB1 on Z, RB2 on X) and RC at 3 us pages 9, 10 (RC1 on Z, RC2 on X).
    // FR-FCFS: X serves RA1 (2R), RB2 (3R), RC2 (4R); Z serves RB1 (2R), RC1 (3R): RB ends at 3R
    // (RB1's slack R), RC at 4R (RC1's slack R). Rbyp: RB2 and RC2 each pass RA1 (2R of slack,
    // one read each): X serves RB2 (2R), RC2 (3R), RA1 (4R): RB and RC end one read earlier and RA
    // still at 4R, as in the paper ("RB and RC finished 1 cycle earlier without impacting RA").
    let lines = vec![
        page(0, 14, true),
        page(0, 7, true),
        page(0, 11, true),
        page(0, 15, true),
        page(0, 13, true),
        req(1_000, 2 * PAGE, 2 * PAGE, true),
        req(2_000, 5 * PAGE, 2 * PAGE, true),
        req(3_000, 9 * PAGE, 2 * PAGE, true),
    ];
    let base = run("fig6a-base", "frfcfs+est", &lines, &[]);
    let rbyp = run("fig6a-rbyp", "rbyp", &lines, &[]);
    let (lb, lr) = (latencies(&base), latencies(&rbyp));
    assert_eq!(lb[5..], [4 * R - 1_000, 3 * R - 2_000, 4 * R - 3_000]);
    assert_eq!(lr[5..], [4 * R - 1_000, 2 * R - 2_000, 3 * R - 3_000]);
    assert_eq!(lb[..5], lr[..5]);
    assert_eq!(tsu(&rbyp)["reads_passed"], 2);
    assert_eq!(tsu(&base)["estimate"]["all"]["mean_abs_error_ns"], 0.0);
}

#[test]
fn figure_6b_write_bypassing() {
    // WA writes page 1 (chip 1) from 0 (ends W); chip 0 writes pages 0 and 8 from 0 (end W, 2W).
    // WB at 3W/4 writes pages 4, 5, 6: WB1 on chip 0 (ends 3W: 9 quarter-W "cycles"), WB2 on chip
    // 1 behind WA (ends 2W: 5 cycles, slack W = 4 cycles), WB3 on idle chip 2 (W: 4 cycles, slack 5).
    // WC at W - 1 us writes page 9 (chip 1): FR-FCFS serves WB2 first, so WC ends at 3W (8
    // cycles); write bypassing puts WC ahead of WB2 (slack W >= W): WC ends at 2W (4 cycles
    // faster), WB2 at 3W, and WB still ends at 3W.
    let q = 3 * W / 4;
    let lines = vec![
        page(0, 1, false),
        page(0, 0, false),
        page(0, 8, false),
        req(q, 4 * PAGE, 3 * PAGE, false),
        page(W - 1_000, 9, false),
    ];
    let base = run("fig6b-base", "frfcfs+est", &lines, &[]);
    let wbyp = run("fig6b-wbyp", "wbyp", &lines, &[]);
    let (lb, lw) = (latencies(&base), latencies(&wbyp));
    // In arrival order: page 1, page 0, page 8 (all at 0, sorted by offset: 0, 1, 8), WB, WC.
    assert_eq!(lb, vec![W, W, 2 * W, 3 * W - q, 3 * W - (W - 1_000)]);
    assert_eq!(lw, vec![W, W, 2 * W, 3 * W - q, 2 * W - (W - 1_000)]);
    assert_eq!(tsu(&wbyp)["write_bypasses"], 1);
    assert_eq!(tsu(&base)["estimate"]["all"]["mean_abs_error_ns"], 0.0);
    assert_eq!(tsu(&wbyp)["requests_late"], 0);
}

#[test]
fn figure_6c_write_pausing() {
    // Programs run 10 ISPP iterations of 50 us after their 41.96 us command and data-in; a paused
    // program stops at the end of the iteration under way (resume overhead 0 here).
    // WA writes page 1 (chip 1) from 0 (ends W, no slack); page 7 (chip 3) is written from 0.
    // WB at R writes pages 2, 3: WB3 on idle chip 2 (ends R + W), WBx on chip 3 behind page 7
    // (ends 2W): WB3's slack is W - R.
    // RA at 200 us reads pages 5, 6: RA2 on chip 1 cannot pause WA (no slack) and ends at W + R;
    // RA1 on chip 2 pauses WB3 at the end of its iteration under way: the array started at
    // R + 41.96 = 133.92 us, so at 233.92 us. RB at 210 us reads page 10 (chip 2) and is served
    // in the same pause: RA1 ends at 233.92 + R, RB at 233.92 + 2R, and WB3 resumes with its 400
    // us left: it ends 2R later than without pausing, at R + W + 2R, before WBx: WB is unchanged.
    // Without pausing RA1 and RB wait for WB3: RA ends at R + W + R, RB at R + W + 2R.
    let lines = vec![
        page(0, 1, false),
        page(0, 7, false),
        req(R, 2 * PAGE, 2 * PAGE, false),
        req(200_000, 5 * PAGE, 2 * PAGE, true),
        page(210_000, 10, true),
    ];
    let wp_sets = ["device.suspend.program=true", "device.suspend.safe_point=\"ispp\"", "device.suspend.resume=0ns"];
    let base = run("fig6c-base", "frfcfs+est", &lines, &wp_sets);
    let wp = run("fig6c-wp", "wp", &lines, &wp_sets);
    let (lb, lw) = (latencies(&base), latencies(&wp));
    let pause = 133_920 + 2 * 50_000;
    assert_eq!(pause, 233_920);
    assert_eq!(lb, vec![W, W, 2 * W - R, 2 * R + W - 200_000, 3 * R + W - 210_000]);
    assert_eq!(lw, vec![W, W, 2 * W - R, W + R - 200_000, pause + 2 * R - 210_000]);
    // RA gains one read (its critical sub-request is now RA2), RB 400 us (8 ISPP iterations).
    assert_eq!(lb[3] - lw[3], R);
    assert_eq!(lb[4] - lw[4], 400_000);
    assert_eq!(tsu(&wp)["pauses"], 1);
    assert_eq!(tsu(&wp)["pause_reads"], 2);
    assert_eq!(wp.json["ssd"]["program_suspensions"], 1);
    assert_eq!(tsu(&wp)["requests_wp_share"].as_f64().unwrap(), 2.0 / 5.0);
}

#[test]
fn write_pausing_needs_the_nand_to_pause_programs() {
    let s = flashsched::config::load(Some("tiny"), None, &["tsu.scheduler=\"slacker\"".into()]);
    let e = s.err().expect("slacker without program suspension is rejected").to_string();
    assert!(e.contains("tsu.scheduler") && e.contains("device.suspend.program"), "{e}");
    let s = flashsched::config::load(
        Some("tiny"),
        None,
        &["tsu.scheduler=\"wp\"".into(), "device.suspend.program=true".into(), "tsu.suspend_for_reads=true".into()],
    );
    assert!(s.err().expect("both pausing rules").to_string().contains("tsu.suspend_for_reads"));
}

#[test]
fn measured_slack_by_hand() {
    // Figure 2's set-up under FR-FCFS: A's sub-requests end at R, 8R and 5R after their start,
    // so their slacks are 7R, 0 and 3R (request A) and 0 for the 12 one-page requests.
    let mut lines = figure_2_queues();
    lines.push(req(0, 0, 3 * PAGE, true));
    let r = run("slack-hand", "frfcfs", &lines, &[]);
    let s = &r.json["ssd"]["slack"]["read"];
    assert_eq!(s["sub_requests"], 15);
    let mean = 10.0 * R as f64 / 15.0;
    assert!((s["mean_ns"].as_f64().unwrap() - mean).abs() < 1e-3, "{s}");
    // FR-FCFS reports no estimator, only its write drain (which this read-only run never needs).
    assert_eq!(r.json["ssd"]["tsu"], serde_json::json!({"scheduler": "frfcfs", "write_drain_picks": 0}));
}

/// Random one-direction workloads on the exact-estimate drive: reads only or writes only, one or
/// a few pages each, bursty arrivals.
fn workload() -> impl Strategy<Value = (bool, Vec<(u64, u64, u64)>)> {
    (any::<bool>(), prop::collection::vec((0u64..400_000, 0u64..64, 1u64..=6), 1..60))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// With exact estimates (no channel sharing, no GC, no multi-plane commands, one direction so
    /// no later read overtakes a queued write), read and write bypassing never make a request
    /// finish later than its estimated completion, the estimates of the unreordered baseline are
    /// exact, and every request completes.
    #[test]
    fn no_request_finishes_later_than_estimated((read, reqs) in workload()) {
        let mut sorted = reqs.clone();
        sorted.sort();
        let lines: Vec<String> = sorted.iter().map(|&(t, lpn, n)| req(t, lpn * PAGE, n * PAGE, read)).collect();
        let base = run("prop-base", "frfcfs+est", &lines, &[]);
        prop_assert_eq!(tsu(&base)["estimate"]["all"]["mean_abs_error_ns"].as_f64().unwrap(), 0.0);
        prop_assert_eq!(tsu(&base)["requests_late"].as_u64().unwrap(), 0);
        let name = if read { "rbyp" } else { "wbyp" };
        let s = run("prop-slacker", name, &lines, &[]);
        prop_assert_eq!(tsu(&s)["requests_late"].as_u64().unwrap(), 0, "{}", tsu(&s));
        prop_assert_eq!(s.json["flashsched"]["requests_completed"].as_u64().unwrap(), lines.len() as u64);
        prop_assert_eq!(s.json["ssd"]["invariants"].as_str().unwrap(), "ok");
    }
}

/// A GC-heavy mixed workload on `tiny` with multi-plane commands and pausable programs.
fn stress(tsu: &str, seed: u64) -> RunResult {
    let sets: Vec<String> = vec![
        "workload.kind=\"synthetic\"".into(),
        "workload.synthetic.requests=6000".into(),
        "workload.synthetic.read_ratio=0.4".into(),
        "workload.synthetic.interarrival=\"60us\"".into(),
        "workload.synthetic.size_max=\"32KiB\"".into(),
        "device.advanced.multi_plane=\"same_page\"".into(),
        "device.suspend.program=true".into(),
        "device.suspend.safe_point=\"ispp\"".into(),
        "host.queue_depth=256".into(),
        format!("tsu.scheduler=\"{tsu}\""),
        format!("seed={seed}"),
    ];
    let s = flashsched::config::load(Some("tiny"), None, &sets).unwrap_or_else(|e| panic!("{e}"));
    flashsched::run(&s, &flashsched::RunOptions { request_log: false, full_invariant_check: true, json_plus: false }, &mut |_| true)
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_estimator_alone_changes_nothing_and_slacker_keeps_the_ftl_whole_under_gc() {
    let plain = stress("frfcfs", 3);
    let est = stress("frfcfs+est", 3);
    assert_eq!(plain.json["jobs"], est.json["jobs"], "observing the device must not change the schedule");
    assert!(plain.json["ssd"]["gc_invocations"].as_u64().unwrap() > 0, "the run must collect garbage");
    for tsu in ["slacker", "rbyp", "wbyp", "wp", "rbyp+wp"] {
        let a = stress(tsu, 3);
        assert_eq!(a.json["ssd"]["invariants"], "ok", "{tsu}");
        assert_eq!(a.json["flashsched"]["requests_completed"], 6000, "{tsu}");
        let b = stress(tsu, 3);
        assert_eq!(a.json["jobs"], b.json["jobs"], "{tsu} is deterministic");
        assert_eq!(a.json["ssd"]["tsu"], b.json["ssd"]["tsu"], "{tsu} is deterministic");
    }
    let s = stress("slacker", 3);
    let t = &s.json["ssd"]["tsu"];
    assert!(t["write_bypasses"].as_u64().unwrap() > 0 && t["read_bypasses"].as_u64().unwrap() > 0 && t["pause_reads"].as_u64().unwrap() > 0, "{t}");
}

#[test]
fn the_exact_estimate_property_is_tested_where_bypasses_happen() {
    // A dense instance of the property's workloads (bursts of multi-page requests on 4 chips):
    // requests do bypass, and still none finishes later than estimated.
    for read in [true, false] {
        let lines: Vec<String> = (0..80u64).map(|i| req((i * 7_919) % 300_000, (i * 37) % 64 * PAGE, (1 + i % 5) * PAGE, read)).collect();
        let mut sorted = lines.clone();
        sorted.sort_by_key(|l| l.split(' ').next().unwrap().parse::<u64>().unwrap());
        let s = run("dense", if read { "rbyp" } else { "wbyp" }, &sorted, &[]);
        let t = tsu(&s);
        let passes = if read { &t["reads_passed"] } else { &t["writes_passed"] };
        assert!(passes.as_u64().unwrap() > 0, "{t}");
        assert_eq!(t["requests_late"], 0, "{t}");
        assert_eq!(tsu(&run("dense-base", "frfcfs+est", &sorted, &[]))["estimate"]["all"]["mean_abs_error_ns"], 0.0);
    }
}
