//! SSDSim's rules (`compat = "ssdsim"`), each on a scenario whose latencies are computed by hand,
//! with the rule on and off. The bench8x8 drive under the profile: command 7 x 3 ns = 21 ns,
//! tR 50 us, tPROG 600 us, 3 ns a byte on the bus (a 4 KiB data-out 12,288 ns, a 4 KiB data-in
//! with its command 12,309 ns), writes acknowledged when their data-in ends. Static placement:
//! channel lpn % 8, chip lpn / 8 % 8, die lpn / 64 % 2, plane lpn / 128 % 4, so lpn 8k is chip k
//! of channel 0 (die 0), lpn 64 its chip 0 die 1, lpn 128 chip 0 die 0 again (plane 1).
//! (tests/it/fidelity.rs checks the whole profile against SSDSim's own answers.)

use super::{latencies, req, run_lines};

const CMD: u64 = 21;
const T_R: u64 = 50_000;
const T_PROG: u64 = 600_000;
const OUT: u64 = 12_288;
const WRITE_IN: u64 = CMD + OUT;
const PAGE: u64 = 4096;

/// First-come bus service (the default arbitration) under the rest of the profile; the 1 us
/// read-queue hits need SSDSim's arbitration, which keeps the channel's read queue.
const FIFO: [&str; 2] = ["device.channel.arbitration=\"fifo\"", "device.read_queue_hits=false"];

/// Byte offset of logical page `lpn`.
fn lpn(n: u64) -> u64 {
    n * PAGE
}

fn run(name: &str, lines: &[String], sets: &[&str]) -> Vec<u64> {
    let mut all = vec!["compat=\"ssdsim\""];
    all.extend_from_slice(sets);
    latencies(&run_lines("bench8x8", name, lines, &all))
}

#[test]
fn the_free_channel_starts_a_read_before_a_write_of_another_chip() {
    // A write to chip 0 and a read to chip 1, arriving together, the write first.
    let lines = [req(0, lpn(0), PAGE, false), req(0, lpn(8), PAGE, true)];
    // SSDSim: the read's command goes first; the write's data-in follows it; the read's data
    // goes out once tR has passed.
    assert_eq!(run("arb-rw", &lines, &[]), vec![CMD + WRITE_IN, CMD + T_R + OUT]);
    // First come, first served: the write takes the bus, the read's command waits for it.
    assert_eq!(run("arb-rw-fifo", &lines, &FIFO), vec![WRITE_IN, WRITE_IN + CMD + T_R + OUT]);
}

#[test]
fn a_read_command_goes_before_a_data_out_that_was_ready_earlier() {
    // Reads to chips 0 and 1 at 0; a read to chip 2 arrives at 50,050 ns, after chip 1's data
    // is ready (50,042) and while chip 0's goes out (50,021 to 62,309).
    let lines = [req(0, lpn(0), PAGE, true), req(0, lpn(8), PAGE, true), req(50_050, lpn(16), PAGE, true)];
    let first = CMD + T_R + OUT; // 62,309
    // SSDSim: at 62,309 chip 2's command (to 62,330), then chip 1's data-out (to 74,618); chip
    // 2's data is ready at 112,330 and out at 124,618.
    assert_eq!(run("arb-cmd", &lines, &[]), vec![first, first + CMD + OUT, first + CMD + T_R + OUT - 50_050]);
    // First come, first served: chip 1's data-out asked first (to 74,597), then chip 2's command.
    let out1 = first + OUT;
    assert_eq!(run("arb-cmd-fifo", &lines, &FIFO), vec![first, out1, out1 + CMD + T_R + OUT - 50_050]);
}

#[test]
fn writes_start_by_chip_number_or_in_turn() {
    // A write to chip 2 at 0 holds the bus to 12,309; writes to chip 3 (at 100) and chip 1 (at
    // 200) wait for it.
    let lines = [req(0, lpn(16), PAGE, false), req(100, lpn(24), PAGE, false), req(200, lpn(8), PAGE, false)];
    // By number: chip 1 first, then chip 3.
    assert_eq!(run("worder-num", &lines, &[]), vec![WRITE_IN, 3 * WRITE_IN - 100, 2 * WRITE_IN - 200]);
    // In turn after the die that last started a write (chip 2 die 0): chip 3 first.
    assert_eq!(run("worder-turns", &lines, &["tsu.write_order=\"turns\""]), vec![WRITE_IN, 2 * WRITE_IN - 100, 3 * WRITE_IN - 200]);
}

#[test]
fn a_freed_chip_serves_a_read_on_any_die_before_a_write() {
    // With first-come bus service (rule 1 alone): chip 0 programs a write on die 0 (to
    // 612,309); a write for die 1 (at 100) and a read for die 0 (at 200) wait for the chip.
    let lines = [req(0, lpn(0), PAGE, false), req(100, lpn(64), PAGE, false), req(200, lpn(128), PAGE, true)];
    let free = WRITE_IN + T_PROG;
    // Reads first across the chip: the read, then the write.
    let read_end = free + CMD + T_R + OUT;
    assert_eq!(run("chip-reads", &lines, &FIFO), vec![WRITE_IN, read_end + WRITE_IN - 100, read_end - 200]);
    // Die by die, in turn: the chip goes to its other die (the write) first, the read after its
    // program. (By die number, die 0 and its read would go first anyway.)
    let write_end = free + WRITE_IN;
    assert_eq!(run("die-reads", &lines, &[FIFO[0], FIFO[1], "tsu.read_priority=\"die\"", "tsu.write_order=\"turns\""]), vec![WRITE_IN, write_end - 100, write_end + T_PROG + CMD + T_R + OUT - 200]);
}

#[test]
fn a_partial_overwrite_reads_the_other_sectors_first_and_writes_the_whole_page() {
    // A page written at 0, then 512 bytes of it overwritten at 1 ms (the program is long over).
    let lines = [req(0, 0, PAGE, false), req(1_000_000, 0, 512, false)];
    // The update read moves the 7 other sectors (10,752 ns), then the write moves 8.
    assert_eq!(run("update-read", &lines, &[]), vec![WRITE_IN, CMD + T_R + 7 * 512 * 3 + WRITE_IN]);
    // Written as asked: one sector in, no read.
    assert_eq!(run("write-sectors", &lines, &["ftl.partial_writes=\"write_sectors\""]), vec![WRITE_IN, CMD + 512 * 3]);
}

#[test]
fn a_read_of_a_page_queued_on_its_channel_is_served_in_a_microsecond() {
    let lines = [req(0, 0, PAGE, true), req(100, 0, PAGE, true)];
    let one = CMD + T_R + OUT;
    let r = run_lines("bench8x8", "queue-hit", &lines, &["compat=\"ssdsim\""]);
    assert_eq!(latencies(&r), vec![one, 1_000]);
    assert_eq!(r.json["ssd"]["read_queue_hits"], 1);
    // Without: the second read waits for the chip and reads the page again.
    assert_eq!(run("queue-no-hit", &lines, &["device.read_queue_hits=false"]), vec![one, 2 * one - 100]);
}

#[test]
fn the_admission_cap_holds_requests_and_sets_the_clock_back_to_their_arrival() {
    // Eight reads at 0, one to each chip of channel 0, at most 5 admitted at once. The first
    // five go as without a cap (commands 21 ns apart, data-outs one after the other). Each of
    // the last three is admitted when one of the first completes, with SSDSim's clock set back
    // to its arrival: its command takes the bus as soon as it is free, before the next
    // data-out, and its latency counts from its arrival (SSDSim's own answers, from
    // ../shared/anchors/ssdsim/g_8reads_one_channel.q5.req.csv).
    let lines: Vec<String> = (0..8).map(|k| req(0, lpn(8 * k), PAGE, true)).collect();
    let r = run_lines("bench8x8", "cap5", &lines, &["compat=\"ssdsim\"", "host.queue_length=5"]);
    let mut got = latencies(&r);
    got.sort_unstable();
    assert_eq!(got, vec![62_309, 74_597, 86_927, 99_215, 111_524, 136_906, 149_194, 161_524]);
    // Held from their arrival to the completions that let them in (62,309, 74,597, 86,927).
    let a = &r.json["ssd"]["admission"];
    assert_eq!((a["queue_length"].as_u64(), a["held_requests"].as_u64(), a["held_max_ns"].as_u64()), (Some(5), Some(3), Some(86_927)));
    assert_eq!(a["held_mean_ns"].as_f64(), Some((62_309.0 + 74_597.0 + 86_927.0) / 3.0));
    // Open (no cap): every command at once, 21 ns apart, data-outs back to back.
    let open = latencies(&run_lines("bench8x8", "cap-open", &lines, &["compat=\"ssdsim\""]));
    let want: Vec<u64> = (0..8).map(|k| CMD + T_R + OUT * (k + 1)).collect();
    assert_eq!(open, want);
}

#[test]
fn the_cap_works_without_the_rest_of_the_profile() {
    // Any preset: tiny, FIFO, first-come bus. Twelve reads of one die at 0, a cap of 2: every
    // request completes, the cap held ten, and the run is deterministic.
    let lines: Vec<String> = (0..12).map(|k| req(0, 4 * PAGE * k, PAGE, true)).collect();
    let a = run_lines("tiny", "cap-tiny", &lines, &["host.queue_length=2"]);
    let b = run_lines("tiny", "cap-tiny", &lines, &["host.queue_length=2"]);
    assert_eq!(a.request_log.len(), 12);
    assert_eq!(a.json["ssd"]["admission"]["held_requests"], 10);
    assert_eq!(latencies(&a), latencies(&b));
    // Reads of one die serialise whether held or not: the last ends after twelve reads.
    assert_eq!(*latencies(&a).iter().max().unwrap(), 12 * (1_000 + 50_000 + 40_960));
}

#[test]
fn ssdsim_arbitration_says_what_it_needs() {
    for (set, key) in [
        ("tsu.scheduler=\"fcfs\"", "tsu.scheduler"),
        ("device.advanced.interleave=true", "device.advanced.interleave"),
        ("device.advanced.multi_plane=\"same_page\"", "device.advanced.multi_plane"),
        ("device.suspend.program=true", "device.suspend.program"),
    ] {
        let all = ["device.channel.arbitration=\"ssdsim\"".to_string(), "tsu.scheduler=\"o3\"".into(), set.to_string()];
        let e = flashsched::config::load(Some("bench8x8"), None, &all).unwrap_err().to_string();
        assert!(e.contains(key) && e.contains("device.channel.arbitration"), "{set}: {e}");
    }
    let e = flashsched::config::load(Some("bench8x8"), None, &["device.read_queue_hits=true".into()]).unwrap_err().to_string();
    assert!(e.contains("device.read_queue_hits") && e.contains("arbitration"), "{e}");
    let e = flashsched::config::load(Some("bench8x8"), None, &["tsu.read_priority=\"chip\"".into(), "tsu.scheduler=\"frfcfs\"".into()]).unwrap_err().to_string();
    assert!(e.contains("tsu.read_priority"), "{e}");
}

#[test]
fn the_cap_and_the_arbitration_survive_heavy_gc_under_every_scheduler() {
    // A full drive overwritten at random: GC runs throughout, its reads, writes and erases queued
    // with host work; the cap sets the clock back over them. Every request completes and the
    // FTL's invariants hold (run_sets checks them all), with and without SSDSim's arbitration.
    let base = [
        "workload.kind=synthetic",
        "workload.synthetic.requests=4000",
        "workload.synthetic.read_ratio=0.3",
        "workload.synthetic.interarrival=20us",
        "ftl.precondition.fill=1.0",
        "ftl.precondition.order=\"random\"",
        "host.queue_length=3",
    ];
    for extra in [&["compat=\"ssdsim\""][..], &["tsu.scheduler=\"fcfs\""], &["tsu.scheduler=\"o3\""], &["tsu.scheduler=\"frfcfs\""], &["tsu.scheduler=\"slacker\"", "device.suspend.program=true"]] {
        let sets: Vec<String> = base.iter().chain(extra).map(|s| s.to_string()).collect();
        let r = super::run_sets("tiny", &sets);
        let j = &r.json;
        let done = j["jobs"][0]["read"]["total_ios"].as_u64().unwrap() + j["jobs"][0]["write"]["total_ios"].as_u64().unwrap();
        assert_eq!(done, 4000, "{extra:?}");
        assert!(j["ssd"]["erases"].as_u64().unwrap() > 0, "{extra:?}: no GC");
        assert!(j["ssd"]["admission"]["held_requests"].as_u64().unwrap() > 0, "{extra:?}: the cap never held");
    }
}

#[test]
fn a_held_request_waits_for_a_chip_busy_through_the_time_walked_again() {
    // MQSim's model (the chip takes multi-die commands), a cap of 1: a write to chip 0 at 0 and a
    // read of the same chip at 1 us. The read is held until the write completes (its program's
    // end), then admitted with the clock set back to 1 us; the chip was busy programming then,
    // so the read starts when the program ended, as it would have without the cap.
    let lines = [req(0, lpn(0), PAGE, false), req(1_000, lpn(128), PAGE, true)];
    let sets = ["compat=\"mqsim\"", "host.link=\"none\""];
    let open = latencies(&run_lines("bench8x8", "held-busy-open", &lines, &sets));
    let capped = latencies(&run_lines("bench8x8", "held-busy-cap", &lines, &[sets[0], sets[1], "host.queue_length=1"]));
    assert_eq!(capped, open);
    assert!(open[1] > 600_000, "the read waited for the program: {open:?}");
}

#[test]
fn the_measured_window_ends_at_the_latest_completion_under_the_cap() {
    // tiny, a cap of 1: a write on channel 0 at 0 (541,960 ns), a read on channel 1 at 1 us,
    // held until the write completes, then run from its arrival on its idle channel (it ends at
    // 92,960 ns, before the write it waited for).
    let lines = [req(0, 0, PAGE, false), req(1_000, PAGE, PAGE, true)];
    let r = run_lines("tiny", "cap-window", &lines, &["host.queue_length=1"]);
    assert_eq!(latencies(&r), vec![541_960, 91_960]);
    assert_eq!(r.json["ssd"]["measured_time_ns"], 541_960);
    assert_eq!(r.json["ssd"]["admission"]["held_max_ns"], 540_960);
}

#[test]
fn an_update_read_is_a_step_of_its_write_not_a_sub_request() {
    // A page written, then half of it overwritten: the update read adds no slack of its own and
    // is not counted as one of the request's sub-requests.
    let lines = [req(0, 0, PAGE, false), req(1_000_000, 0, 2048, false)];
    let r = run_lines("bench8x8", "update-slack", &lines, &["compat=\"ssdsim\""]);
    let slack = &r.json["ssd"]["slack"]["write"];
    assert_eq!((slack["sub_requests"].as_u64(), slack["mean_ns"].as_f64()), (Some(2), Some(0.0)), "{slack}");
    assert_eq!(r.json["ssd"]["rmw_reads"], 1);
}

#[test]
fn the_chip_orders_need_a_chip_that_takes_one_command_at_a_time() {
    for (set, other) in [("tsu.read_priority=\"chip\"", "device.advanced.interleave=true"), ("tsu.write_order=\"die_number\"", "device.advanced.multi_die=true")] {
        let all = ["tsu.scheduler=\"o3\"".to_string(), set.to_string(), other.to_string()];
        let e = flashsched::config::load(Some("bench8x8"), None, &all).unwrap_err().to_string();
        assert!(e.contains(set.split('=').next().unwrap()) && e.contains("one command at a time"), "{set}: {e}");
    }
}
