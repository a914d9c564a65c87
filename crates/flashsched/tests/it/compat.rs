//! The device capabilities behind the compatibility profiles (docs/fidelity.md), each checked
//! against latencies computed by hand on the `tiny` drive (timing.rs gives its numbers: command
//! 1 us, tR 50 us, tPROG 500 us, 8-bit channel at 100 MT/s; 2 channels x 2 chips x 1 die x 2
//! planes; lpn 0 is on channel 0 chip 0, lpn 4 on the same die's other plane). MQSim's own answers
//! are checked request by request in fidelity.rs.

use super::{latencies, req, run_lines};

const T_R: u64 = 50_000;
const T_PROG: u64 = 500_000;
const PAGE: u64 = 4096;

#[test]
fn per_operation_command_times_and_the_read_ready_delay() {
    let sets = ["device.timing.command_read=290ns", "device.timing.command_program=361ns", "device.timing.read_ready_delay=20ns"];
    let r = run_lines("tiny", "cmd-read", &[req(0, 0, PAGE, true)], &sets);
    assert_eq!(latencies(&r), vec![290 + T_R + 20 + 40_960]);
    let w = run_lines("tiny", "cmd-write", &[req(0, 0, PAGE, false)], &sets);
    assert_eq!(latencies(&w), vec![361 + 40_960 + T_PROG]);
    // Unset, a per-operation time falls back to device.timing.command.
    let e = run_lines("tiny", "cmd-erase-default", &[req(0, 0, PAGE, false)], &["device.timing.command_read=290ns"]);
    assert_eq!(latencies(&e), vec![1_000 + 40_960 + T_PROG]);
}

#[test]
fn whole_ns_cycles_truncate_the_bus_cycle() {
    // 100 MT/s: 10 ns a cycle either way; 333 MT/s: 3.003 ns exact, 3 ns whole.
    let r = run_lines("tiny", "cycle", &[req(0, 0, PAGE, true)], &["device.channel.rate=333MT/s", "device.channel.cycle=whole_ns"]);
    assert_eq!(latencies(&r), vec![1_000 + T_R + 4096 * 3]);
    let r = run_lines("tiny", "cycle-exact", &[req(0, 0, PAGE, true)], &["device.channel.rate=333MT/s"]);
    assert_eq!(latencies(&r), vec![1_000 + T_R + 12_301]); // ceil(4096 / 333e6 s)
}

#[test]
fn whole_page_data_out_moves_the_page_for_a_small_read() {
    let r = run_lines("tiny", "page-out", &[req(0, 0, 512, true)], &["device.channel.data_out=page"]);
    assert_eq!(latencies(&r), vec![1_000 + T_R + 40_960]);
    let r = run_lines("tiny", "sector-out", &[req(0, 0, 512, true)], &[]);
    assert_eq!(latencies(&r), vec![1_000 + T_R + 5_120]);
}

#[test]
fn data_in_acknowledgement_leaves_the_program_out_but_keeps_the_die_busy() {
    // A write, then a read of the same die's other plane 1 us later.
    let lines = [req(0, 0, PAGE, false), req(1_000, 4 * PAGE, PAGE, true)];
    let r = run_lines("tiny", "ack", &lines, &["device.write_ack=data_in"]);
    let write = 1_000 + 40_960;
    assert_eq!(latencies(&r), vec![write, write + T_PROG - 1_000 + 1_000 + T_R + 40_960]);
}

#[test]
fn read_modify_write_reads_the_rest_of_the_old_page_first() {
    let lines = [req(0, 0, PAGE, false), req(1_000_000, 0, 512, false)];
    let r = run_lines("tiny", "rmw", &lines, &["ftl.partial_writes=read_modify_write"]);
    // The read moves the 3.5 KiB the write does not cover, then the write its 512 bytes.
    assert_eq!(latencies(&r)[1], (1_000 + T_R + 35_840) + (1_000 + 5_120 + T_PROG));
    assert_eq!(r.json["ssd"]["rmw_reads"], 1);
    let plain = run_lines("tiny", "no-rmw", &lines, &[]);
    assert_eq!(latencies(&plain)[1], 1_000 + 5_120 + T_PROG);
    assert_eq!(plain.json["ssd"]["rmw_reads"], 0);
}

#[test]
fn without_interleaving_a_chip_runs_one_die_at_a_time_and_multi_die_commands_start_dies_together() {
    // Two dies per chip (CWDP over 2 channels x 2 chips x 2 dies x 2 planes): lpn 0 is on die 0,
    // lpn 4 on die 1, lpn 8 on die 0's other plane, all of chip 0. A write to lpn 0 runs while
    // writes to lpn 4 (die 1) and lpn 8 (die 0) queue 1 us later, in that order.
    let lines = [req(0, 0, PAGE, false), req(1_000, 4 * PAGE, PAGE, false), req(1_000, 8 * PAGE, PAGE, false)];
    let base = ["device.geometry.dies_per_chip=2", "tsu.scheduler=o3"];
    let one = 1_000 + 40_960 + T_PROG; // 541,960
    let free = run_lines("tiny", "dies-free", &lines, &base);
    // Interleaved: lpn 4 waits only for the bus (after lpn 0's data-in); lpn 8 for its die.
    assert_eq!(latencies(&free), vec![one, 41_960 + one - 1_000, 2 * one - 1_000]);
    let locked: Vec<&str> = base.iter().copied().chain(["device.advanced.interleave=false"]).collect();
    let r = run_lines("tiny", "dies-locked", &lines, &locked);
    assert_eq!(latencies(&r), vec![one, 2 * one - 1_000, 3 * one - 1_000], "chip lock: one die after the other");
    // Multi-die: when the chip frees, both queued writes (page 0 of fresh blocks: the same page
    // offset) start as one command, their transfers back to back.
    let multi: Vec<&str> = locked.iter().copied().chain(["device.advanced.multi_die=true"]).collect();
    let r = run_lines("tiny", "dies-multi", &lines, &multi);
    assert_eq!(latencies(&r), vec![one, 2 * one - 1_000, 2 * one + 41_960 - 1_000]);
}

#[test]
fn pcie_link_adds_mqsim_s_message_times() {
    // Read: doorbell 8 + fetch request 8 + command 25 before; data 1248 + completion 11 after.
    let r = run_lines("tiny", "pcie-read", &[req(0, 0, PAGE, true)], &["host.link=pcie"]);
    assert_eq!(latencies(&r), vec![41 + 1_000 + T_R + 40_960 + 1_259]);
    // Write: + data request 8 and the data 1248 before; completion 11 after.
    let w = run_lines("tiny", "pcie-write", &[req(0, 0, PAGE, false)], &["host.link=pcie"]);
    assert_eq!(latencies(&w), vec![41 + 8 + 1_248 + 1_000 + 40_960 + T_PROG + 11]);
    // The stages still add up to the latency: the link counts in device_queue.
    let s = w.request_log[0].stages;
    assert_eq!(s.values().iter().sum::<u64>(), latencies(&w)[0]);
}

#[test]
fn compat_profiles_name_every_choice_and_user_keys_win() {
    let r = run_lines("tiny", "compat-ssdsim", &[req(0, 0, PAGE, false)], &["compat=ssdsim", "device.timing.command_program=1us"]);
    // SSDSim: 3 ns a byte, acknowledged at the end of the data-in; the user's command time wins.
    assert_eq!(latencies(&r), vec![1_000 + 4096 * 10]);
    assert!(flashsched::config::load(Some("tiny"), None, &["compat=bogus".into()]).unwrap_err().to_string().contains("compat"));
}

#[test]
fn sata_link_adds_its_delay_and_the_data_at_its_rate() {
    let sets = ["host.link=sata", "host.sata.delay=400ns", "host.sata.rate=600MT/s"];
    let data = 6_827; // ceil(4096 B / 600e6 B/s)
    let r = run_lines("tiny", "sata-read", &[req(0, 0, PAGE, true)], &sets);
    assert_eq!(latencies(&r), vec![400 + 1_000 + T_R + 40_960 + data]);
    let w = run_lines("tiny", "sata-write", &[req(0, 0, PAGE, false)], &sets);
    assert_eq!(latencies(&w), vec![400 + data + 1_000 + 40_960 + T_PROG]);
}

#[test]
fn data_in_acknowledgement_survives_a_suspended_multi_plane_program() {
    // Review finding: a suspension decided during the data-in moved the command's other writes
    // aside, their acknowledgement was lost and the run stalled.
    let lines = [req(0, 0, PAGE, true), req(1_000, 0, PAGE, false), req(1_000, 4 * PAGE, PAGE, false), req(100_000, 12 * PAGE, PAGE, true)];
    let sets = ["device.write_ack=data_in", "device.advanced.multi_plane=same_page", "device.suspend.program=true", "tsu.suspend_for_reads=true"];
    let r = run_lines("tiny", "ack-suspend", &lines, &sets);
    assert_eq!(r.request_log.len(), 4);
    // Both writes of the two-plane program are acknowledged with the command's stages.
    for row in r.request_log.iter().filter(|x| x.op == flashsched::trace::Op::Write) {
        assert!(row.stages.bus > 0, "{row:?}");
        assert_eq!(row.stages.values().iter().sum::<u64>(), row.complete_ns - row.arrival_ns);
    }
}

#[test]
fn sata_processing_delay_does_not_hold_the_wire() {
    // Review finding: a read's data waited behind another request's processing delay.
    let sets = ["host.link=sata", "host.sata.delay=10us", "host.sata.rate=600MT/s"];
    let r = run_lines("tiny", "sata-delay", &[req(0, 0, PAGE, true), req(100_000, PAGE, PAGE, true)], &sets);
    assert_eq!(latencies(&r)[0], 10_000 + 1_000 + T_R + 40_960 + 6_827);
}

#[test]
fn a_read_modify_write_read_is_not_a_sub_request() {
    let lines = [req(0, 0, PAGE, false), req(1_000_000, 0, 512, false)];
    let r = run_lines("tiny", "rmw-slack", &lines, &["ftl.partial_writes=read_modify_write", "workload.warmup=1"]);
    // One page written: no intra-request slack at all.
    assert_eq!(r.json["ssd"]["slack"]["write"]["sub_requests"], 1, "{}", r.json["ssd"]["slack"]);
}
