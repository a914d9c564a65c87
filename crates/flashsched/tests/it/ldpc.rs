//! Program modes and LDPC read levels on the `tiny` preset (command 1 us, tPROG 500 us at 0.30 V,
//! a 4 KiB page crosses the channel in 40.96 us), with RR/WR Table I's levels: sensing 30/90/210 us,
//! data out 100/200/250% of the page, decode 8 us. Each case writes lpn 0 at t = 0 and reads it back
//! at t = 10 ms, when the drive is idle again.

use super::{latencies, req, run_lines};

const CMD: u64 = 1_000;
const XFER_4K: u64 = 40_960;
const PAGE: u64 = 4096;
const DECODE: u64 = 8_000;

fn write_then_read(name: &str, sets: &[&str]) -> Vec<u64> {
    let r = run_lines("tiny", name, &[req(0, 0, PAGE, false), req(10_000_000, 0, PAGE, true)], sets);
    latencies(&r)
}

#[test]
fn each_program_mode_programs_at_its_step_and_reads_at_its_level() {
    // slow: 0.225 V, 500 us x 300 / 225 = 666,666.7 -> 666,667 ns; read at level 0.
    // normal: 0.30 V, 500 us; level 1 (200% of the page: 81.92 us out).
    // fast: 0.40 V, 375 us; level 2 (250%: 102.4 us out).
    for (mode, prog, sense, out) in [("slow", 666_667, 30_000, XFER_4K), ("normal", 500_000, 90_000, 2 * XFER_4K), ("fast", 375_000, 210_000, 102_400)] {
        let m = format!("device.program_mode=\"{mode}\"");
        let got = write_then_read(mode, &["device.ldpc.enabled=true", &m]);
        assert_eq!(got, vec![CMD + XFER_4K + prog, CMD + sense + out + DECODE], "{mode}");
    }
    // native without variation: the reference step, and the `normal` level.
    assert_eq!(write_then_read("native", &["device.ldpc.enabled=true"]), vec![CMD + XFER_4K + 500_000, CMD + 90_000 + 2 * XFER_4K + DECODE]);
    // An explicit mode without LDPC changes only the program.
    assert_eq!(write_then_read("fast-only", &["device.program_mode=\"fast\""]), vec![CMD + XFER_4K + 375_000, CMD + 50_000 + XFER_4K]);
}

#[test]
fn rber_levels_follow_wear() {
    // No variation: r_b = 3.7e-4 for every block; at step 0.30 V the RBER is 3.7e-4 x ((N + 1500) /
    // 16500)^2: 3.06e-6 fresh (level 0, <= 7.508e-5), 1.50e-4 at 9K (level 1, <= 2.373e-4), 3.7e-4
    // at 15K (level 2, <= 7.5e-4).
    for (pe, sense, out) in [(0, 30_000, XFER_4K), (9_000, 90_000, 2 * XFER_4K), (15_000, 210_000, 102_400)] {
        let p = format!("ftl.precondition.pe_cycles={pe}");
        let got = write_then_read("rber", &["device.ldpc.enabled=true", "device.ldpc.level_from=\"rber\"", &p]);
        assert_eq!(got[1], CMD + sense + out + DECODE, "{pe} P/E");
    }
}

#[test]
fn levels_are_counted_and_lists_are_checked() {
    let r = run_lines("tiny", "count", &[req(0, 0, PAGE, false), req(10_000_000, 0, PAGE, true)], &["device.ldpc.enabled=true"]);
    assert_eq!(r.json["ssd"]["ldpc"], serde_json::json!({"reads_per_level": [0, 1, 0], "uncorrectable_reads": 0}));
    let bad = |sets: &[&str]| {
        let mut all = vec!["device.ldpc.enabled=true".to_string()];
        all.extend(sets.iter().map(|s| s.to_string()));
        flashsched::config::load(Some("tiny"), None, &all).unwrap_err().to_string()
    };
    let e = bad(&["device.ldpc.sense=\"30us, 90us\""]);
    assert!(e.contains("device.ldpc.sense") && e.contains("has 2 items"), "{e}");
    let e = bad(&["device.ldpc.thresholds=\"1e-4, 5e-5\""]);
    assert!(e.contains("must increase"), "{e}");
    let e = bad(&["device.ldpc.decode=\"8us, x, 8us\""]);
    assert!(e.contains("device.ldpc.decode") && e.contains("item 2"), "{e}");
}

#[test]
fn a_page_never_written_reads_at_the_level_of_its_worn_block() {
    // No write: the read of lpn 0 goes to the plane static allocation would use, at 15K P/E: level 2.
    let p15 = "ftl.precondition.pe_cycles=15000";
    let r = run_lines("tiny", "unmapped", &[req(0, 0, PAGE, true)], &["device.ldpc.enabled=true", "device.ldpc.level_from=\"rber\"", p15]);
    assert_eq!(latencies(&r), vec![CMD + 210_000 + 102_400 + DECODE]);
    assert_eq!(r.json["ssd"]["host_reads_unmapped"], 1);
}
