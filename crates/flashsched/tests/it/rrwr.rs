//! RR/WR (paper 002): the program-speed policies in whole runs, with latencies computed by hand on
//! the `tiny` preset cut to one chip (one die, two planes; command 1 us, a 4 KiB page crosses the
//! channel in 40.96 us, tPROG 500 us at the reference step 0.30 V) with LDPC levels that follow the
//! program mode (device.ldpc defaults, RR/WR Table I: a normal-programmed page senses in 90 us,
//! sends 200% of a page and decodes in 8 us).

use super::{latencies, req, run_lines};
use flashsched::RunResult;

const CMD: u64 = 1_000;
const XFER: u64 = 40_960;
const PAGE: u64 = 4096;
/// tPROG at the normal (0.30 V), fast (0.40 V) and slow (0.225 V) steps: 500 us x 0.30 / step.
const PROG_NORMAL: u64 = 500_000;
const PROG_FAST: u64 = 375_000;
const PROG_SLOW: u64 = 666_667;
/// A normal-programmed page: level 1 sensing, data-out of two pages' worth, decoding.
const SENSE_1: u64 = 90_000;
const DECODE: u64 = 8_000;

fn run(name: &str, policy: &str, lines: &[String]) -> RunResult {
    let sets = [
        "device.geometry.channels=1",
        "device.geometry.chips_per_channel=1",
        "device.ldpc.enabled=true",
        "device.program_mode=\"normal\"",
        policy,
    ];
    run_lines("tiny", name, lines, &sets)
}

fn modes(r: &RunResult) -> [u64; 4] {
    ["native", "slow", "normal", "fast"].map(|m| r.json["ssd"]["programs_per_mode"][m].as_u64().unwrap_or(0))
}

#[test]
fn wr_programs_fast_while_others_wait_then_normal() {
    // Three one-page writes to the one chip at once. The first starts on an idle chip (normal);
    // the second starts with the third waiting (fast); the third alone (normal).
    let w: Vec<String> = (0..3).map(|i| req(0, i * PAGE, PAGE, false)).collect();
    let wr = run("wr-writes", "ftl.program_speed=\"wr\"", &w);
    let a = CMD + XFER + PROG_NORMAL;
    let b = a + CMD + XFER + PROG_FAST;
    assert_eq!(latencies(&wr), vec![a, b, b + CMD + XFER + PROG_NORMAL]); // 541.96, 958.92, 1500.88 us
    assert_eq!(modes(&wr), [0, 0, 2, 1]);
    // Traditional: all normal.
    let t = run("trad-writes", "ftl.program_speed=\"traditional\"", &w);
    assert_eq!(latencies(&t), vec![a, 2 * a, 3 * a]);
    assert_eq!(modes(&t), [0, 0, 3, 0]);
}

#[test]
fn wr_programs_slow_after_a_conflicting_read() {
    // A write, a read of the page it writes, and another write, all at once. The read waits for
    // the first write (a conflicting read); the last write then starts with nothing waiting, after
    // a conflicting read: slow. The read senses the normal-programmed page at level 1.
    let lines = [req(0, 0, PAGE, false), req(0, 0, PAGE, true), req(0, 2 * PAGE, PAGE, false)];
    let wr = run("wr-read", "ftl.program_speed=\"wr\"", &lines);
    let a = CMD + XFER + PROG_NORMAL;
    let read_out = a + CMD + SENSE_1 + 2 * XFER; // the die is free once the data is out
    assert_eq!(latencies(&wr), vec![a, read_out + DECODE, read_out + CMD + XFER + PROG_SLOW]);
    assert_eq!(modes(&wr), [0, 1, 1, 0]);
    assert_eq!(wr.json["ssd"]["ldpc"]["reads_per_level"], serde_json::json!([0, 1, 0]));
    let t = run("trad-read", "ftl.program_speed=\"traditional\"", &lines);
    assert_eq!(latencies(&t)[2], read_out + a);
}

#[test]
fn a_fast_programmed_page_reads_at_the_slow_level() {
    // WR programs the second of three writes fast; reading it back later (idle drive) senses it at
    // level 2: 210 us, 250% of a page out, 8 us decode.
    let mut lines: Vec<String> = (0..3).map(|i| req(0, i * PAGE, PAGE, false)).collect();
    lines.push(req(10_000_000, PAGE, PAGE, true));
    let wr = run("wr-readback", "ftl.program_speed=\"wr\"", &lines);
    assert_eq!(latencies(&wr)[3], CMD + 210_000 + 102_400 + DECODE);
    assert_eq!(wr.json["ssd"]["ldpc"]["reads_per_level"], serde_json::json!([0, 0, 1]));
}
