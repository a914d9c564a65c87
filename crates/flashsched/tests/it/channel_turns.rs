//! MQSim's channel arbitration (`device.channel.arbitration = "mqsim"`, `sim::turns`) against
//! first come, first served, latencies by hand on `tiny` cut to one channel of three one-die chips
//! (command 1 us, tR 50 us, tPROG 500 us, 40.96 us a 4 KiB page on the channel; CWDP puts lpn 0,
//! 1 and 2 on chips 0, 1 and 2).

use super::tiny::{CMD, PAGE, T_R, XFER};
use super::{latencies, req, run_lines};

fn sets(arbitration: &'static str) -> Vec<&'static str> {
    vec![
        "device.geometry.channels=1",
        "device.geometry.chips_per_channel=3",
        "device.advanced.interleave=false",
        "device.advanced.multi_die=true",
        "tsu.scheduler=\"o3\"",
        arbitration,
    ]
}

/// A read on chip 2 at 0; a write on chip 0 at 10 us, whose command and data hold the channel
/// until 51.96 us; a read on chip 1 at 20 us. Chip 2's data is ready at 51 us, while the channel
/// is busy.
fn run(arbitration: &'static str) -> Vec<u64> {
    let lines = [req(0, 2 * PAGE, PAGE, true), req(10_000, 0, PAGE, false), req(20_000, PAGE, PAGE, true)];
    latencies(&run_lines("tiny", "turns", &lines, &sets(arbitration)))
}

#[test]
fn waiting_read_data_goes_out_before_a_new_command() {
    let bus_free = 10_000 + CMD + XFER;
    // MQSim: the waiting data-out first; then the channel's turn gives chip 1 its read command.
    let turns = run("device.channel.arbitration=\"mqsim\"");
    let out_end = bus_free + XFER;
    assert_eq!(turns[0], out_end, "chip 2's read");
    assert_eq!(turns[2], out_end + CMD + T_R + XFER - 20_000, "chip 1's read, commanded after the data-out");
    // First come, first served: chip 1 asked for the bus at 20 us, before chip 2's data was ready.
    let fifo = run("device.channel.arbitration=\"fifo\"");
    assert_eq!(fifo[0], bus_free + CMD + XFER, "chip 2's data-out waits behind chip 1's command");
    assert_eq!(fifo[2], bus_free + CMD + T_R + XFER - 20_000);
    assert_eq!(turns[1], fifo[1], "the write is the same");
}

#[test]
fn a_free_channel_goes_to_its_chips_in_turn() {
    // A write on chip 0 at 0 takes the channel until 41.96 us (its turn leaves the pointer at chip
    // 1). Reads for chip 2 at 5 us and chip 1 at 6 us wait for the bus.
    let lines = [req(0, 0, PAGE, false), req(5_000, 2 * PAGE, PAGE, true), req(6_000, PAGE, PAGE, true)];
    let bus_free = CMD + XFER;
    // MQSim: the turn goes to chip 1, then chip 2; chip 2's data then waits for chip 1's.
    let turns = latencies(&run_lines("tiny", "turns-order", &lines, &sets("device.channel.arbitration=\"mqsim\"")));
    let first_out = bus_free + CMD + T_R + XFER;
    assert_eq!(turns[2], first_out - 6_000, "chip 1's read");
    assert_eq!(turns[1], first_out + XFER - 5_000, "chip 2's read");
    // First come, first served: chip 2 asked first.
    let fifo = latencies(&run_lines("tiny", "fifo-order", &lines, &sets("device.channel.arbitration=\"fifo\"")));
    assert_eq!((fifo[1], fifo[2]), (first_out - 5_000, first_out + XFER - 6_000));
}

#[test]
fn each_page_of_a_multi_plane_read_is_done_when_it_is_out() {
    // One die of two planes: lpn 0 and 1 written together (page 0 of each plane), lpn 2 after
    // (plane 0). At 10 ms a read of lpn 2 takes the die; 1 us later one-page reads of lpn 0 and
    // lpn 1 arrive, wait, and go as one two-plane read when the die is free.
    let lines = [req(0, 0, 3 * PAGE, false), req(10_000_000, 2 * PAGE, PAGE, true), req(10_001_000, 0, PAGE, true), req(10_001_000, PAGE, PAGE, true)];
    let run = |arbitration: &'static str| {
        let sets = ["device.geometry.channels=1", "device.geometry.chips_per_channel=1", "device.advanced.interleave=false", "device.advanced.multi_die=true", "device.advanced.multi_plane=\"same_page\"", "tsu.scheduler=\"o3\"", arbitration];
        let r = run_lines("tiny", "mp-pages", &lines, &sets);
        assert_eq!(r.json["ssd"]["commands"]["read"]["multi_plane_commands"], 1);
        for x in &r.request_log {
            // Every request's stages still add up to its latency.
            let b = x.stages;
            assert_eq!(b.host_queue + b.device_queue + b.die_wait + b.channel_wait + b.bus + b.array + b.ecc + b.cache + b.mapping, x.complete_ns - x.arrival_ns, "{arbitration}");
        }
        latencies(&r)
    };
    let die_free = CMD + T_R + XFER - 1_000;
    let first_out = die_free + 2 * CMD + T_R + XFER;
    // MQSim: each read is serviced when its own page is out.
    assert_eq!(run("device.channel.arbitration=\"mqsim\"")[2..], [first_out, first_out + XFER]);
    // First come, first served: the command's pages go out back to back and finish together.
    assert_eq!(run("device.channel.arbitration=\"fifo\"")[2..], [first_out + XFER, first_out + XFER]);
}
