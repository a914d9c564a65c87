//! Exact latencies on an idle drive, computed by hand from the `tiny` preset:
//! command 1 us, tR 50 us, tPROG 500 us, tBERS 2 ms, 8-bit channel at 100 MT/s, so a 4 KiB page
//! crosses the channel in 4096 / 100e6 s = 40.96 us. Geometry 2 channels x 2 chips x 1 die x 2
//! planes; CWDP striping puts lpn 0 on channel 0 chip 0, lpn 1 on channel 1, lpn 2 on channel 0
//! chip 1, lpn 4 on channel 0 chip 0 plane 1 (the same die as lpn 0).

use super::{latencies, req, run_lines};

const CMD: u64 = 1_000;
const T_R: u64 = 50_000;
const T_PROG: u64 = 500_000;
const XFER_4K: u64 = 40_960;
const PAGE: u64 = 4096;

#[test]
fn single_read_is_command_array_transfer() {
    let r = run_lines("tiny", "read1", &[req(0, 0, PAGE, true)], &[]);
    assert_eq!(latencies(&r), vec![CMD + T_R + XFER_4K]); // 91,960 ns
    let s = r.request_log[0].stages;
    assert_eq!((s.bus, s.array, s.die_wait, s.channel_wait), (CMD + XFER_4K, T_R, 0, 0));
}

#[test]
fn ecc_adds_decode_time_after_the_transfer() {
    let r = run_lines("tiny", "read-ecc", &[req(0, 0, PAGE, true)], &["device.timing.ecc=8us"]);
    assert_eq!(latencies(&r), vec![CMD + T_R + XFER_4K + 8_000]);
}

#[test]
fn half_page_read_transfers_half_a_page() {
    let r = run_lines("tiny", "read-half", &[req(0, 0, 2048, true)], &[]);
    assert_eq!(latencies(&r), vec![CMD + T_R + XFER_4K / 2]);
}

#[test]
fn single_write_is_command_data_in_program() {
    let r = run_lines("tiny", "write1", &[req(0, 0, PAGE, false)], &[]);
    assert_eq!(latencies(&r), vec![CMD + XFER_4K + T_PROG]); // 541,960 ns
}

#[test]
fn two_page_write_on_two_channels_runs_in_parallel() {
    // lpn 0 and lpn 1 live on different channels: both pages finish together.
    let r = run_lines("tiny", "write2", &[req(0, 0, 2 * PAGE, false)], &[]);
    assert_eq!(latencies(&r), vec![CMD + XFER_4K + T_PROG]);
}

#[test]
fn two_reads_to_one_die_serialise() {
    // lpn 0 and lpn 4: same die (planes of one die take turns).
    let r = run_lines("tiny", "same-die", &[req(0, 0, PAGE, true), req(0, 4 * PAGE, PAGE, true)], &[]);
    let one = CMD + T_R + XFER_4K;
    assert_eq!(latencies(&r), vec![one, 2 * one]);
    let second = r.request_log.iter().find(|x| x.offset == 4 * PAGE).unwrap();
    assert_eq!(second.stages.die_wait, one);
}

#[test]
fn reads_on_different_channels_overlap() {
    let r = run_lines("tiny", "two-channels", &[req(0, 0, PAGE, true), req(0, PAGE, PAGE, true)], &[]);
    let one = CMD + T_R + XFER_4K;
    assert_eq!(latencies(&r), vec![one, one]);
}

#[test]
fn transfers_on_one_channel_serialise() {
    // lpn 0 (chip 0) and lpn 2 (chip 1) share channel 0. Commands: [0, 1us] and [1us, 2us];
    // arrays end at 51 us and 52 us; data out: [51, 91.96] us, then the second waits for the bus
    // until 91.96 us and finishes at 132.92 us.
    let r = run_lines("tiny", "one-channel", &[req(0, 0, PAGE, true), req(0, 2 * PAGE, PAGE, true)], &[]);
    let first = CMD + T_R + XFER_4K;
    let second = first + XFER_4K;
    assert_eq!(latencies(&r), vec![first, second]);
    let s = r.request_log.iter().find(|x| x.offset == 2 * PAGE).unwrap().stages;
    assert_eq!(s.channel_wait, CMD + (first - (2 * CMD + T_R)));
    // The stages of every request add up to its latency.
    for x in &r.request_log {
        let b = x.stages;
        let sum = b.host_queue + b.device_queue + b.die_wait + b.channel_wait + b.bus + b.array + b.ecc;
        assert_eq!(sum, x.complete_ns - x.arrival_ns);
    }
}

#[test]
fn decodes_wait_for_the_channels_ecc_decoders() {
    // As above (data out ends at 91.96 us and 132.92 us on channel 0), with a 100 us decode: one
    // decoder serves the first page until 191.96 us, so the second decodes from 191.96 to 291.96 us;
    // with two decoders it decodes at once, from 132.92 to 232.92 us.
    const ECC: u64 = 100_000;
    let reads = [req(0, 0, PAGE, true), req(0, 2 * PAGE, PAGE, true)];
    let first = CMD + T_R + XFER_4K + ECC;
    let one = run_lines("tiny", "ecc-one", &reads, &["device.timing.ecc=100us", "device.ecc.decoders=1"]);
    assert_eq!(latencies(&one), vec![first, first + ECC]);
    let two = run_lines("tiny", "ecc-two", &reads, &["device.timing.ecc=100us", "device.ecc.decoders=2"]);
    assert_eq!(latencies(&two), vec![first, first + XFER_4K]);
    assert_eq!(latencies(&run_lines("tiny", "ecc-inf", &reads, &["device.timing.ecc=100us", "device.ecc.decoders=0"])), latencies(&two));
    // The wait for a decoder is part of the ECC stage, and the stages still add up.
    let s = one.request_log.iter().find(|x| x.offset == 2 * PAGE).unwrap().stages;
    assert_eq!(s.ecc, 2 * ECC - XFER_4K);
    for x in &one.request_log {
        let b = x.stages;
        assert_eq!(b.host_queue + b.device_queue + b.die_wait + b.channel_wait + b.bus + b.array + b.ecc, x.complete_ns - x.arrival_ns);
    }
}

#[test]
fn queue_depth_holds_requests_in_the_host() {
    // Queue depth 1: the second read waits in the host until the first completes.
    let r = run_lines("tiny", "qd1", &[req(0, 0, PAGE, true), req(0, PAGE, PAGE, true)], &["host.queue_depth=1"]);
    let one = CMD + T_R + XFER_4K;
    assert_eq!(latencies(&r), vec![one, 2 * one]);
    let second = r.request_log.iter().find(|x| x.offset == PAGE).unwrap();
    assert_eq!(second.stages.host_queue, one);
}

#[test]
fn read_after_write_reads_where_the_write_went() {
    // Write lpn 0 at t=0, read it at t=1 ms (after the program): an idle single-page read.
    let r = run_lines("tiny", "raw", &[req(0, 0, PAGE, false), req(1_000_000, 0, PAGE, true)], &[]);
    assert_eq!(latencies(&r), vec![CMD + XFER_4K + T_PROG, CMD + T_R + XFER_4K]);
    assert_eq!(r.json["ssd"]["host_reads_unmapped"], 0);
}

#[test]
fn trim_invalidates_without_flash_work() {
    let lines: Vec<String> = ["fio version 2 iolog", "/dev/x add", "/dev/x write 0 4096", "/dev/x wait 2000", "/dev/x trim 0 4096"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let r = run_lines("tiny", "trim.iolog", &lines, &[]);
    assert_eq!(r.json["ssd"]["nand_pages_written"], 1);
    assert_eq!(r.json["ssd"]["trimmed_pages"], 1);
    assert_eq!(r.json["ssd"]["mapped_pages_end"], 0);
    assert_eq!(r.json["jobs"][0]["trim"]["total_ios"], 1);
}

#[test]
fn program_suspension_serves_a_read_and_resumes() {
    // Write lpn 0 at t=0: program runs 41.96 us .. 541.96 us on die 0. A read of lpn 4 (same die)
    // arrives at 100 us. With suspension (20 us to a safe point, 10 us to resume): the die is free
    // at 120 us, the read takes 91.96 us (done at 211.96 us: latency 111.96 us), and the program
    // resumes with 541.96 - 120 = 421.96 us left, plus 10 us: done at 643.92 us.
    let lines = vec![req(0, 0, PAGE, false), req(100_000, 4 * PAGE, PAGE, true)];
    let sets = [
        "device.suspend.program=true",
        "device.suspend.latency=20us",
        "device.suspend.resume=10us",
        "device.suspend.min_remaining=100us",
        "tsu.suspend_for_reads=true",
    ];
    let r = run_lines("tiny", "suspend.trace", &lines, &sets);
    let one_read = CMD + T_R + XFER_4K;
    assert_eq!(latencies(&r), vec![643_920, 20_000 + one_read]);
    assert_eq!(r.json["ssd"]["suspensions"], 1);
    for x in &r.request_log {
        let b = x.stages;
        assert_eq!(b.host_queue + b.device_queue + b.die_wait + b.channel_wait + b.bus + b.array + b.ecc, x.complete_ns - x.arrival_ns);
    }
    // Without suspension the read waits for the program.
    let plain = run_lines("tiny", "nosuspend.trace", &lines, &[]);
    assert_eq!(latencies(&plain), vec![CMD + XFER_4K + T_PROG, CMD + XFER_4K + T_PROG - 100_000 + one_read]);
    // Too little left: no suspension (the read arrives 20 us before the program would end).
    let late = vec![req(0, 0, PAGE, false), req(521_960, 4 * PAGE, PAGE, true)];
    let r = run_lines("tiny", "late.trace", &late, &sets);
    assert_eq!(r.json["ssd"]["suspensions"], 0);
}

#[test]
fn an_ispp_program_pauses_at_the_end_of_its_iteration() {
    // As above, but the program is 10 ISPP iterations of 50 us from 41.96 us: a read arriving at
    // 100 us finds the second iteration under way, so the die is free at its end, 141.96 us (the
    // fixed 20 us suspend latency does not apply). The read is done at 233.92 us (latency 133.92 us);
    // the program resumes its 8 remaining iterations (400 us) after the 10 us resume overhead:
    // done at 643.92 us.
    let lines = vec![req(0, 0, PAGE, false), req(100_000, 4 * PAGE, PAGE, true)];
    let sets = [
        "device.suspend.program=true",
        "device.suspend.latency=20us",
        "device.suspend.resume=10us",
        "device.suspend.safe_point=\"ispp\"",
        "tsu.suspend_for_reads=true",
    ];
    let one_read = CMD + T_R + XFER_4K;
    let r = run_lines("tiny", "ispp.trace", &lines, &sets);
    assert_eq!(latencies(&r), vec![643_920, 41_960 + one_read]);
    assert_eq!(r.json["ssd"]["program_suspensions"], 1);
    // A fast program (0.40 V: 375 us) has ceil(10 x 0.30 / 0.40) = 8 iterations of 46.875 us; at
    // 100 us the second one ends at 41.96 + 93.75 = 135.71 us.
    let mut fast = sets.to_vec();
    fast.push("device.program_mode=\"fast\"");
    let r = run_lines("tiny", "ispp-fast.trace", &lines, &fast);
    assert_eq!(latencies(&r)[1], 35_710 + one_read);
    // Finer iterations pause sooner: 20 of 25 us, the third ends at 116.96 us.
    let mut fine = sets.to_vec();
    fine.push("device.ispp.iterations=20");
    let r = run_lines("tiny", "ispp-fine.trace", &lines, &fine);
    assert_eq!(latencies(&r)[1], 16_960 + one_read);
    for x in &r.request_log {
        let b = x.stages;
        assert_eq!(b.host_queue + b.device_queue + b.die_wait + b.channel_wait + b.bus + b.array + b.ecc, x.complete_ns - x.arrival_ns);
    }
}

#[test]
fn a_read_during_the_programs_data_in_suspends_it_when_the_array_starts() {
    // Write lpn 0 at t=0: command + data-in on the channel 0 .. 41.96 us, program from 41.96 us.
    // A read of lpn 4 (same die) arrives at 10 us, during the data-in: the program is suspended at
    // its start (safe point 41.96 + 20 = 61.96 us), the read runs 61.96 .. 153.92 us (latency
    // 143.92 us), and the program resumes with 541.96 - 61.96 = 480 us left, plus 10 us: done at
    // 153.92 + 490 = 643.92 us.
    let lines = vec![req(0, 0, PAGE, false), req(10_000, 4 * PAGE, PAGE, true)];
    let r = run_lines("tiny", "datain.trace", &lines, &SUSPEND);
    let one_read = CMD + T_R + XFER_4K;
    assert_eq!(latencies(&r), vec![643_920, 61_960 - 10_000 + one_read]);
    assert_eq!(r.json["ssd"]["program_suspensions"], 1);
}

const SUSPEND: [&str; 5] = [
    "device.suspend.program=true",
    "device.suspend.latency=20us",
    "device.suspend.resume=10us",
    "device.suspend.min_remaining=100us",
    "tsu.suspend_for_reads=true",
];

#[test]
fn a_suspension_serves_a_bounded_number_of_reads_in_a_bounded_window() {
    // Program of lpn 0 from 41.96 us to 541.96 us on die 0; reads of lpns 4, 8, 12 (die 0) arrive
    // at 100, 105 and 110 us. The first suspends the program at 120 us. The suspension serves two
    // reads (120 .. 211.96 .. 303.92 us), then the program resumes with 421.96 us left + 10 us:
    // done at 735.88 us. The third read waits for it: 735.88 .. 827.84 us.
    let lines = vec![
        req(0, 0, PAGE, false),
        req(100_000, 4 * PAGE, PAGE, true),
        req(105_000, 8 * PAGE, PAGE, true),
        req(110_000, 12 * PAGE, PAGE, true),
    ];
    let one_read = CMD + T_R + XFER_4K;
    let want = vec![735_880, 120_000 - 100_000 + one_read, 120_000 - 105_000 + 2 * one_read, 735_880 - 110_000 + one_read];
    // bounded by the read budget
    let mut sets = SUSPEND.to_vec();
    sets.push("device.suspend.max_reads=2");
    let r = run_lines("tiny", "budget.trace", &lines, &sets);
    assert_eq!(latencies(&r), want, "max_reads = 2");
    // bounded by the window: the second read starts 91.96 us after the safe point (within 100 us),
    // the third would start 183.92 us after it
    let mut sets = SUSPEND.to_vec();
    sets.extend(["device.suspend.max_reads=16", "device.suspend.window=100us"]);
    let r = run_lines("tiny", "window.trace", &lines, &sets);
    assert_eq!(latencies(&r), want, "window = 100 us");
    assert_eq!(r.json["ssd"]["suspensions"], 1);
    // a generous budget and window serve all three in one suspension: done at 395.88 us, the
    // program resumes then with 421.96 + 10 us left
    let mut sets = SUSPEND.to_vec();
    sets.extend(["device.suspend.max_reads=16", "device.suspend.window=1ms"]);
    let r = run_lines("tiny", "all.trace", &lines, &sets);
    let end3 = 120_000 + 3 * one_read;
    assert_eq!(latencies(&r), vec![end3 + 431_960, 20_000 + one_read, 15_000 + 2 * one_read, end3 - 110_000]);
}

#[test]
fn erase_suspension_needs_its_own_switch() {
    // A GC-heavy run with reads: with only program suspension enabled no erase is suspended, and
    // with only erase suspension no program is.
    let lines: Vec<String> = (0..4000u64)
        .map(|i| req(i * 20_000, (i * 7919 % 6000) * PAGE, PAGE, i % 3 == 0))
        .collect();
    let base = ["ftl.precondition.fill=1.0", "tsu.suspend_for_reads=true"];
    let p = run_lines("tiny", "gcp.trace", &lines, &[base[0], base[1], "device.suspend.program=true"]);
    let e = run_lines("tiny", "gce.trace", &lines, &[base[0], base[1], "device.suspend.erase=true"]);
    let both = run_lines("tiny", "gcb.trace", &lines, &[base[0], base[1], "device.suspend.program=true", "device.suspend.erase=true"]);
    let n = |r: &flashsched::RunResult, k: &str| r.json["ssd"][k].as_u64().unwrap();
    assert!(n(&p, "program_suspensions") > 0 && n(&e, "erase_suspensions") > 0, "programs and erases are both suspended here");
    assert_eq!(n(&p, "erase_suspensions"), 0, "program suspension only: no erase suspended");
    assert_eq!(n(&e, "program_suspensions"), 0, "erase suspension only: no program suspended");
    assert!(n(&both, "program_suspensions") > 0 && n(&both, "erase_suspensions") > 0);
    for r in [&p, &e, &both] {
        assert_eq!(n(r, "suspensions"), n(r, "program_suspensions") + n(r, "erase_suspensions"));
        assert_eq!(r.json["ssd"]["invariants"], "ok");
        assert_eq!(r.json["flashsched"]["requests_completed"], 4000);
    }
}

#[test]
fn a_request_conflicts_when_its_chip_is_busy_not_only_its_die() {
    // Two dies per chip: lpn 0 is chip 0 die 0, lpn 4 chip 0 die 1, lpn 2 chip 1 (CWDP). The read of
    // lpn 4 finds its own die idle but its chip busy with lpn 0's read: a conflict in VIOS's
    // chip-level sense. The read of lpn 2 finds its chip idle.
    let lines = vec![req(0, 0, PAGE, true), req(1_000, 4 * PAGE, PAGE, true), req(2_000, 2 * PAGE, PAGE, true)];
    let r = run_lines("tiny", "chipconf.trace", &lines, &["device.geometry.dies_per_chip=2"]);
    assert_eq!(r.json["ssd"]["read_conflicts"], 1);
    assert!(r.request_log.iter().all(|x| x.stages.die_wait == 0), "no read waited for its die");
    // one read at a time: no conflicts
    let apart = vec![req(0, 0, PAGE, true), req(1_000_000, 4 * PAGE, PAGE, true)];
    let r = run_lines("tiny", "apart.trace", &apart, &["device.geometry.dies_per_chip=2"]);
    assert_eq!(r.json["ssd"]["read_conflicts"], 0);
}
