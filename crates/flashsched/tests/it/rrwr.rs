//! RR/WR (paper 002): the program-speed policies in whole runs, with latencies computed by hand on
//! the `tiny` preset cut to one chip (one die, two planes; command 1 us, a 4 KiB page crosses the
//! channel in 40.96 us, tPROG 500 us at the reference step 0.30 V) with LDPC levels that follow the
//! program mode (device.ldpc defaults, RR/WR Table I: a normal-programmed page senses in 90 us,
//! sends 200% of a page and decodes in 8 us).

use super::tiny::{CMD, ONE_DIE, PAGE, T_PROG, XFER};
use super::{latencies, req, run_lines};
use flashsched::RunResult;

/// tPROG at the normal (0.30 V), fast (0.40 V) and slow (0.225 V) steps: 500 us x 0.30 / step.
const PROG_NORMAL: u64 = T_PROG;
const PROG_FAST: u64 = 375_000;
const PROG_SLOW: u64 = 666_667;
/// A normal-programmed page: level 1 sensing, data-out of two pages' worth, decoding.
const SENSE_1: u64 = 90_000;
const DECODE: u64 = 8_000;

fn run(name: &str, policy: &str, lines: &[String]) -> RunResult {
    let sets = [ONE_DIE[0], ONE_DIE[1], "device.ldpc.enabled=true", "device.program_mode=\"normal\"", policy];
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

#[test]
fn rr_reprograms_a_conflicting_reads_page_slowly_in_idle_time() {
    // Write A (page 0) and B (page 2), with a read R of page 0 between them, all at once: R waits
    // behind A (a conflicting read, sensed at level 1: recorded). After B the chip is idle; 1 ms
    // later RR re-programs page 0 slowly: a read of it (level 1), then a program at the slow step.
    // Read R3 of page 2 arrives during that program and waits for it (conflicting, level 1: page 2
    // is re-programmed in the next idle time). Read R2 of page 0 at 10 ms senses at level 0.
    let lines = [
        req(0, 0, PAGE, false),
        req(0, 0, PAGE, true),
        req(0, 2 * PAGE, PAGE, false),
        req(2_500_000, 2 * PAGE, PAGE, true),
        req(10_000_000, 0, PAGE, true),
    ];
    // Recorded by the `waited` rule (R3 waited for the re-program; under the default, `induced`,
    // nothing waits behind R3 and it is not recorded: `figure_1_...` below).
    let sets = [ONE_DIE[0], ONE_DIE[1], "device.ldpc.enabled=true", "device.program_mode=\"normal\"", "ftl.read_conflict=\"waited\"", "ftl.idle_task=\"rr\""];
    let r = run_lines("tiny", "rr", &lines, &sets);
    let a = CMD + XFER + PROG_NORMAL; // 541.96 us
    let read_1 = CMD + SENSE_1 + 2 * XFER; // 172.92 us on the die
    let r_out = a + read_1;
    let b_done = r_out + CMD + XFER + PROG_NORMAL;
    let idle = b_done + 1_000_000;
    let reprogram = read_1 + CMD + XFER + PROG_SLOW;
    let r3_start = idle + reprogram;
    // Idle turns with nothing to do leave no trace: the run ends with its last request.
    assert_eq!(r.json["ssd"]["simulated_time_ns"], 10_000_000 + CMD + 30_000 + XFER + DECODE);
    let idle_json = &r.json["ssd"]["idle"];
    assert_eq!(
        latencies(&r),
        vec![a, r_out + DECODE, b_done, r3_start + read_1 + DECODE - 2_500_000, CMD + 30_000 + XFER + DECODE]
    ); // 541.96, 722.88, 1256.84, 819.307, 79.96 us
    assert_eq!((idle_json["task"].as_str(), idle_json["recorded"].as_u64(), idle_json["reprograms"].as_u64()), (Some("rr"), Some(2), Some(2)));
    assert_eq!(idle_json["reprogram_share"], 0.4);
    // Pages of two requests (R and R3) were re-programmed; R3 met the running re-program and
    // waited for it (the device does not suspend programs).
    assert_eq!(idle_json["reprogrammed_request_share"], 0.4);
    assert_eq!((idle_json["host_waits"].as_u64(), idle_json["host_wait_mean_ns"].as_u64()), (Some(1), Some(r3_start - 2_500_000)));
    assert_eq!(idle_json["reprograms_preempted"], 0);
    assert_eq!(modes(&r), [0, 2, 2, 0]);
    // Host reads R, R3 at level 1, R2 at level 0; the two re-programs' reads at level 1.
    assert_eq!(r.json["ssd"]["ldpc"]["reads_per_level"], serde_json::json!([1, 4, 0]));
    assert_eq!(r.json["ssd"]["invariants"], "ok");
    // RR/WR's split of the read latency: conflict + sensing + transfer + decoding = the mean.
    let read = &r.json["jobs"][0]["read"];
    let split = &read["split_mean_ns"];
    let parts: f64 = ["conflict_ns", "array_ns", "transfer_ns", "ecc_ns"].iter().map(|k| split[k].as_f64().unwrap()).sum();
    assert!((parts - read["lat_ns"]["mean"].as_f64().unwrap()).abs() < 0.01, "{split} vs {}", read["lat_ns"]["mean"]);
    // Three reads: R waited 541.96 us, R3 waited for the re-program; each decoded in 8 us.
    assert_eq!(split["ecc_ns"], 8000.0);
    // Without the task nothing is re-programmed and R2 senses at level 1.
    let plain = run_lines("tiny", "no-rr", &lines, &sets[..4]);
    assert_eq!(*latencies(&plain).last().unwrap(), read_1 + DECODE);
    assert!(plain.json["ssd"].get("idle").is_none());
}

#[test]
fn rr_and_wr_under_gc_keep_every_mapping() {
    // The whole tiny drive, small and busy enough for GC, with bursts and pauses so that chips go
    // idle often (a 100 us threshold): re-programs interleave with host writes, GC moves and
    // erases. The FTL's invariants are checked in full after the run; every request completes.
    let workload = [
        "workload.kind=\"synthetic\"", "workload.synthetic.requests=4000", "workload.synthetic.read_ratio=0.5",
        "workload.synthetic.arrival=\"onoff\"", "workload.synthetic.interarrival=\"100us\"",
        "workload.synthetic.on_time=\"2ms\"", "workload.synthetic.off_time=\"8ms\"", "workload.synthetic.size_max=\"8KiB\"",
        "ftl.precondition.fill=0.9", "seed=5",
    ];
    let policy = ["device.ldpc.enabled=true", "ftl.program_speed=\"wr\"", "ftl.idle_task=\"rr\"", "device.idle.threshold=\"100us\""];
    let sets: Vec<String> = workload.iter().chain(&policy).map(|s| s.to_string()).collect();
    let s = flashsched::config::load(Some("tiny"), None, &sets).unwrap();
    let opts = flashsched::RunOptions { request_log: false, full_invariant_check: true, json_plus: false };
    let r = flashsched::run(&s, &opts, &mut |_| true).unwrap();
    let j = &r.json;
    assert_eq!(j["flashsched"]["requests_completed"], 4000);
    assert_eq!(j["ssd"]["invariants"], "ok");
    assert!(j["ssd"]["gc_invocations"].as_u64().unwrap() > 0, "GC must run in this test");
    let reprograms = j["ssd"]["idle"]["reprograms"].as_u64().unwrap();
    assert!(reprograms > 50, "RR must re-program here: {reprograms}");
    assert!(j["ssd"]["programs_per_mode"]["fast"].as_u64().unwrap() > 0);
    assert!(j["ssd"]["idle"]["reprograms_preempted"].as_u64().unwrap() > 0, "host I/O must pre-empt re-programs here");
    // Deterministic.
    let again = flashsched::run(&s, &opts, &mut |_| true).unwrap();
    assert_eq!(flashsched::report::without_wall_clock(&r.json), flashsched::report::without_wall_clock(&again.json));
    // Re-programs suspended for host reads, amid GC: every mapping kept.
    let suspend = ["device.suspend.program=true", "device.suspend.safe_point=\"ispp\""];
    let sets: Vec<String> = sets.iter().cloned().chain(suspend.iter().map(|s| s.to_string())).collect();
    let s = flashsched::config::load(Some("tiny"), None, &sets).unwrap();
    let r = flashsched::run(&s, &opts, &mut |_| true).unwrap();
    assert_eq!((r.json["flashsched"]["requests_completed"].as_u64(), r.json["ssd"]["invariants"].as_str()), (Some(4000), Some("ok")));
    assert!(r.json["ssd"]["program_suspensions"].as_u64().unwrap() > 0, "re-programs must be suspended here");
}

/// Fig. 1 in a whole run: four normal-programmed pages are written, then, at 50 ms, a write W
/// occupies the chip and reads R1-R4 of the four pages queue behind it. Each read starts with the
/// later ones still queued (R1-R3 induce conflicts) except R4, the last. At 100 ms and 110 ms
/// R1's and R4's pages are read again: a page RR re-programmed slowly in the idle time between
/// senses at level 0, one it did not at level 1.
fn figure_1(rule: &str) -> (RunResult, u64, u64) {
    let mut lines: Vec<String> = (0..4).map(|i| req(0, i * PAGE, PAGE, false)).collect();
    lines.push(req(50_000_000, 10 * PAGE, PAGE, false));
    lines.extend((0..4).map(|i| req(50_000_000, i * PAGE, PAGE, true)));
    lines.push(req(100_000_000, 0, PAGE, true));
    lines.push(req(110_000_000, 3 * PAGE, PAGE, true));
    let rule = format!("ftl.read_conflict=\"{rule}\"");
    let sets = [ONE_DIE[0], ONE_DIE[1], "device.ldpc.enabled=true", "device.program_mode=\"normal\"", "ftl.idle_task=\"rr\"", &rule];
    let r = run_lines("tiny", "rr-fig1", &lines, &sets);
    let l = latencies(&r);
    (r, l[9], l[10])
}

#[test]
fn figure_1_rr_records_the_reads_others_wait_behind_not_the_last() {
    let level_0 = CMD + 30_000 + XFER + DECODE;
    let level_1 = CMD + SENSE_1 + 2 * XFER + DECODE;
    // `induced` (Fig. 1): R1-R3 recorded and re-programmed, R4 not.
    let (r, r1_again, r4_again) = figure_1("induced");
    assert_eq!(r.json["ssd"]["idle"]["recorded"].as_u64(), Some(3));
    assert_eq!((r1_again, r4_again), (level_0, level_1));
    assert_eq!(r.json["ssd"]["invariants"], "ok");
    // `waited`: every read that waited is recorded, R4 included.
    let (w, r1_again, r4_again) = figure_1("waited");
    assert_eq!(w.json["ssd"]["idle"]["recorded"].as_u64(), Some(4));
    assert_eq!((r1_again, r4_again), (level_0, level_0));
}

#[test]
fn figure_2_wr_tags_a_read_that_others_waited_behind() {
    // Write A, a read R of its page behind it, and write B arriving while R runs: R waited (for
    // A), but nothing waited behind R when it started. B then starts alone, after R: slow if R
    // counts as conflicting (`waited`), normal if only a read that others queued behind does
    // (`induced`).
    let lines = [req(0, 0, PAGE, false), req(0, 0, PAGE, true), req(600_000, 2 * PAGE, PAGE, false)];
    let mode = |rule: &str| {
        let rule = format!("ftl.read_conflict=\"{rule}\"");
        let sets = [ONE_DIE[0], ONE_DIE[1], "device.ldpc.enabled=true", "device.program_mode=\"normal\"", "ftl.program_speed=\"wr\"", &rule];
        modes(&run_lines("tiny", "wr-fig2", &lines, &sets))
    };
    assert_eq!(mode("waited"), [0, 1, 1, 0]);
    assert_eq!(mode("induced"), [0, 0, 2, 0]);
}

/// The scenario of `rr_reprograms_a_conflicting_reads_page_slowly_in_idle_time` with R3 (a read of
/// page 2) arriving at `r3_at` during the re-program of page 0, under `extra` settings. Returns
/// the run, R3's latency and when the re-program's read and program start.
fn reprogram_met_by_a_read(name: &str, r3_at: u64, extra: &[&str]) -> (RunResult, u64, u64) {
    let lines = [
        req(0, 0, PAGE, false),
        req(0, 0, PAGE, true),
        req(0, 2 * PAGE, PAGE, false),
        req(r3_at, 2 * PAGE, PAGE, true),
        req(10_000_000, 0, PAGE, true),
    ];
    let mut sets = vec![ONE_DIE[0], ONE_DIE[1], "device.ldpc.enabled=true", "device.program_mode=\"normal\"", "ftl.read_conflict=\"waited\"", "ftl.idle_task=\"rr\""];
    sets.extend_from_slice(extra);
    let r = run_lines("tiny", name, &lines, &sets);
    assert_eq!(r.json["ssd"]["invariants"], "ok");
    let a = CMD + XFER + PROG_NORMAL;
    let b_done = a + READ_1 + CMD + XFER + PROG_NORMAL;
    let reprogram_read = b_done + 1_000_000;
    let l = latencies(&r);
    // R2 reads page 0 at level 0 in every case: its re-program happened, at once or later.
    assert_eq!(l[4], CMD + 30_000 + XFER + DECODE);
    (r, l[3], reprogram_read)
}

const READ_1: u64 = CMD + SENSE_1 + 2 * XFER;

#[test]
fn host_io_preempts_a_reprogram_whose_program_has_not_started() {
    // R3 arrives during the re-program's read: the read ends, R3 runs, and page 0's program is put
    // back for the chip's next idle turn (after R3: page 0, then page 2, which R3 recorded).
    let at = 2_300_000;
    let (r, r3, read_start) = reprogram_met_by_a_read("rr-preempt", at, &[]);
    let read_end = read_start + READ_1;
    assert_eq!(r3, read_end - at + READ_1 + DECODE);
    let idle = &r.json["ssd"]["idle"];
    assert_eq!((idle["reprograms_preempted"].as_u64(), idle["reprograms"].as_u64()), (Some(1), Some(2)));
    assert_eq!((idle["host_waits"].as_u64(), idle["host_wait_mean_ns"].as_u64()), (Some(1), Some(read_end - at)));
    // Pre-emption off: the program is queued when the read ends, behind R3 (FIFO), and runs after
    // it instead of going back to the record queue.
    let (r, r3_kept, _) = reprogram_met_by_a_read("rr-no-preempt", at, &["ftl.rr.preempt=false"]);
    assert_eq!(r3_kept, r3);
    let idle = &r.json["ssd"]["idle"];
    assert_eq!((idle["reprograms_preempted"].as_u64(), idle["reprograms"].as_u64()), (Some(0), Some(2)));
}

#[test]
fn a_running_reprogram_is_suspended_for_a_host_read_at_an_ispp_boundary() {
    // The device suspends programs (at ISPP iteration ends); host programs are not suspended for
    // reads (tsu.suspend_for_reads stays off), re-programs are. The slow program runs
    // ceil(10 x 0.30 / 0.225) = 14 iterations of 666.667 / 14 us; R3 arrives 28.28 us into the
    // first, so the die is free for it at the end of that iteration.
    let at = 2_500_000;
    let ispp = ["device.suspend.program=true", "device.suspend.safe_point=\"ispp\""];
    let (r, r3, read_start) = reprogram_met_by_a_read("rr-suspend", at, &ispp);
    let program_start = read_start + READ_1 + CMD + XFER;
    let safe_point = program_start + PROG_SLOW / 14;
    assert_eq!(r3, safe_point - at + READ_1 + DECODE);
    let j = &r.json["ssd"];
    assert_eq!((j["program_suspensions"].as_u64(), j["idle"]["reprograms"].as_u64()), (Some(1), Some(2)));
    assert_eq!(j["idle"]["host_wait_mean_ns"].as_u64(), Some(safe_point - at));
    // Without pre-emption the same device lets R3 wait for the whole program.
    let (_, r3, _) = reprogram_met_by_a_read("rr-suspend-off", at, &[ispp[0], ispp[1], "ftl.rr.preempt=false"]);
    let whole = program_start + PROG_SLOW - at + READ_1 + DECODE;
    assert_eq!(r3, whole);
    // Slacker pauses programs by its own rule and serves only its own pauses' reads: re-programs
    // are not suspended for others' (a suspension would serve nothing).
    let slacker = [ispp[0], ispp[1], "tsu.scheduler=\"slacker\""];
    let (r, r3, _) = reprogram_met_by_a_read("rr-slacker", at, &slacker);
    assert_eq!((r3, r.json["ssd"]["program_suspensions"].as_u64()), (whole, Some(0)));
    assert_eq!(r.json["ssd"]["idle"]["host_wait_mean_ns"].as_u64(), Some(program_start + PROG_SLOW - at));
}

#[test]
fn a_write_that_meets_a_suspended_reprogram_waits_until_it_ends() {
    // As above, plus a write W (page 6) arriving at 2.510 ms, before the safe point: the suspended
    // die serves R3, then resumes the program (10 us resume overhead); W waits for its end.
    let lines = [
        req(0, 0, PAGE, false),
        req(0, 0, PAGE, true),
        req(0, 2 * PAGE, PAGE, false),
        req(2_500_000, 2 * PAGE, PAGE, true),
        req(2_510_000, 6 * PAGE, PAGE, false),
    ];
    let sets = [ONE_DIE[0], ONE_DIE[1], "device.ldpc.enabled=true", "device.program_mode=\"normal\"", "ftl.read_conflict=\"waited\"", "ftl.idle_task=\"rr\"", "device.suspend.program=true", "device.suspend.safe_point=\"ispp\""];
    let r = run_lines("tiny", "rr-suspend-write", &lines, &sets);
    let b_done = CMD + XFER + PROG_NORMAL + READ_1 + CMD + XFER + PROG_NORMAL;
    let program_start = b_done + 1_000_000 + READ_1 + CMD + XFER;
    let safe_point = program_start + PROG_SLOW / 14;
    let end = safe_point + READ_1 + (program_start + PROG_SLOW - safe_point) + 10_000;
    assert_eq!(latencies(&r)[4], end - 2_510_000 + CMD + XFER + PROG_NORMAL);
    let idle = &r.json["ssd"]["idle"];
    assert_eq!(idle["host_waits"].as_u64(), Some(2));
    assert_eq!(idle["host_wait_mean_ns"].as_u64(), Some(((safe_point - 2_500_000) + (end - 2_510_000)) / 2));
}
