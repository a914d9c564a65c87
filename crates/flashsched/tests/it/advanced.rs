//! Advanced commands (`device.advanced.*`, `ftl.gc.copyback`): exact latencies on an idle drive,
//! computed by hand from the `tiny` preset cut down to one channel and one chip (command 1 us,
//! tR 50 us, tPROG 500 us, a 4 KiB page crosses the channel in 40.96 us, tDBSY 50 ns). With one
//! die of two planes, CWDP striping puts even logical pages on plane 0 and odd ones on plane 1.

use super::tiny::{CMD, ONE_DIE, PAGE, T_PROG, T_R, XFER};
use super::{latencies, req, run_lines};
use flashsched::RunResult;

const DBSY: u64 = 50;

fn sets<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    ONE_DIE.iter().copied().chain(extra.iter().copied()).collect()
}

/// `ssd.commands.<class>.<field>` of the run's JSON.
fn cmd(r: &RunResult, class: &str, field: &str) -> u64 {
    r.json["ssd"]["commands"][class][field].as_u64().unwrap_or_else(|| panic!("ssd.commands.{class}.{field}"))
}

/// `ssd.<field>` of the run's JSON.
fn ssd(r: &RunResult, field: &str) -> u64 {
    r.json["ssd"][field].as_u64().unwrap_or_else(|| panic!("ssd.{field}"))
}

#[test]
fn a_two_plane_program_sends_both_pages_then_programs_once() {
    let w = [req(0, 0, 2 * PAGE, false)];
    let mp = run_lines("tiny", "mp-write", &w, &sets(&["device.advanced.multi_plane=\"same_page\""]));
    // Command + data in for plane 0, tDBSY, command + data in for plane 1, one tPROG.
    assert_eq!(latencies(&mp), vec![2 * CMD + 2 * XFER + DBSY + T_PROG]); // 583,020 ns
    let p = |r: &RunResult| ["commands", "multi_plane_commands", "ops", "multi_plane_ops"].map(|f| cmd(r, "program", f));
    assert_eq!(p(&mp), [1, 1, 2, 2]);
    assert_eq!(mp.json["ssd"]["commands"]["program"]["multi_plane_share"], 1.0);
    // Every request's stages still add up to its latency.
    for x in &mp.request_log {
        let b = x.stages;
        assert_eq!(b.host_queue + b.device_queue + b.die_wait + b.channel_wait + b.bus + b.array + b.ecc, x.complete_ns - x.arrival_ns);
    }
    // Without multi-plane commands the planes take turns.
    let off = run_lines("tiny", "sp-write", &w, &sets(&[]));
    assert_eq!(latencies(&off), vec![2 * (CMD + XFER + T_PROG)]);
    assert_eq!(p(&off), [2, 0, 2, 0]);
}

#[test]
fn a_two_plane_read_senses_once_and_sends_both_pages() {
    let lines = [req(0, 0, 2 * PAGE, false), req(10_000_000, 0, 2 * PAGE, true)];
    let mp = run_lines("tiny", "mp-read", &lines, &sets(&["device.advanced.multi_plane=\"same_block_page\""]));
    // Two commands, one tR, both pages out back to back.
    assert_eq!(latencies(&mp)[1], 2 * CMD + T_R + 2 * XFER); // 132,920 ns
    assert_eq!(cmd(&mp, "read", "multi_plane_commands"), 1);
    let off = run_lines("tiny", "sp-read", &lines, &sets(&[]));
    assert_eq!(latencies(&off)[1], 2 * (CMD + T_R + XFER));
}

#[test]
fn mapped_reads_of_never_written_pages_pair_into_one_command() {
    // lpn 0 and 1, never written, read together; then lpn 2 written (plane 0) and lpn 0 read again.
    let lines = [req(0, 0, 2 * PAGE, true), req(10_000_000, 2 * PAGE, PAGE, false), req(20_000_000, 0, PAGE, true)];
    let run = |how: &'static str| run_lines("tiny", &format!("unmapped-{how}"), &lines, &sets(&["device.advanced.multi_plane=\"same_page\"", how]));
    // `map`: each read takes page 0 of its plane's open block, so the two are one two-plane
    // read; lpn 0 is mapped from then on.
    let map = run("ftl.unmapped_reads=\"map\"");
    assert_eq!(latencies(&map), vec![2 * CMD + T_R + 2 * XFER, CMD + XFER + T_PROG, CMD + T_R + XFER]);
    assert_eq!(cmd(&map, "read", "multi_plane_commands"), 1);
    assert_eq!(ssd(&map, "host_reads_unmapped"), 2, "the second read of lpn 0 finds it mapped");
    assert_eq!(ssd(&map, "mapped_pages_end"), 3);
    assert_eq!((ssd(&map, "nand_pages_written"), ssd(&map, "host_pages_written")), (1, 1), "mapping on a read programs nothing");
    // `flash`: a page never written has no page offset to pair on; the planes take turns, and it
    // stays unmapped.
    let flash = run("ftl.unmapped_reads=\"flash\"");
    assert_eq!(latencies(&flash), vec![2 * (CMD + T_R + XFER), CMD + XFER + T_PROG, CMD + T_R + XFER]);
    assert_eq!((ssd(&flash, "host_reads_unmapped"), ssd(&flash, "mapped_pages_end")), (3, 1));
}

#[test]
fn the_ssdsim_rule_also_wants_the_same_block_index() {
    // 16 one-page writes of logical page 0 fill plane 0's first block, so the next write of
    // pages 0 and 1 lands on plane 0 block 1 page 0 and plane 1 block 0 page 0: the same page
    // offset (MQSim pairs them) in blocks of different index (SSDSim does not).
    let mut lines: Vec<String> = (0..16).map(|i| req(i * 1_000_000, 0, PAGE, false)).collect();
    lines.push(req(20_000_000, 0, 2 * PAGE, false));
    let last = |r: &RunResult| *latencies(r).last().unwrap();
    let mq = run_lines("tiny", "rule-mq", &lines, &sets(&["device.advanced.multi_plane=\"same_page\""]));
    assert_eq!(last(&mq), 2 * CMD + 2 * XFER + DBSY + T_PROG);
    let ss = run_lines("tiny", "rule-ss", &lines, &sets(&["device.advanced.multi_plane=\"same_block_page\""]));
    assert_eq!(last(&ss), 2 * (CMD + XFER + T_PROG));
    assert_eq!(cmd(&ss, "program", "multi_plane_commands"), 0);
}

#[test]
fn pages_at_different_offsets_do_not_pair() {
    // Plane 0 is one page ahead of plane 1: pages 0 and 1 land at offsets 1 and 0.
    let lines = [req(0, 0, PAGE, false), req(1_000_000, 0, 2 * PAGE, false)];
    let r = run_lines("tiny", "offsets", &lines, &sets(&["device.advanced.multi_plane=\"same_page\""]));
    assert_eq!(latencies(&r)[1], 2 * (CMD + XFER + T_PROG));
    assert_eq!(cmd(&r, "program", "multi_plane_commands"), 0);
    assert_eq!(cmd(&r, "program", "commands"), 3);
}

#[test]
fn without_interleaving_a_chip_runs_one_die_at_a_time() {
    // Two dies on one chip: pages 0 and 1 are on dies 0 and 1 (never written: read where static
    // allocation puts them).
    let two_dies = ["device.geometry.dies_per_chip=2"];
    let read = [req(0, 0, 2 * PAGE, true)];
    let on = run_lines("tiny", "il-on", &read, &sets(&two_dies));
    // Die 1's command follows die 0's on the bus; its data out waits for die 0's.
    assert_eq!(latencies(&on), vec![CMD + T_R + 2 * XFER]);
    let off = run_lines("tiny", "il-off", &read, &sets(&[two_dies[0], "device.advanced.interleave=false"]));
    assert_eq!(latencies(&off), vec![2 * (CMD + T_R + XFER)]);
}

#[test]
fn without_interleaving_a_freed_chip_goes_to_its_other_dies_first() {
    // Three reads queued for die 0 (pages 0, 2, 4) and, 1 us later, one for die 1 (page 1). When
    // die 0's first read ends, the chip goes to die 1 before die 0's other two reads.
    let one = CMD + T_R + XFER;
    let lines = [req(0, 0, PAGE, true), req(0, 2 * PAGE, PAGE, true), req(0, 4 * PAGE, PAGE, true), req(1_000, PAGE, PAGE, true)];
    let r = run_lines("tiny", "il-turns", &lines, &sets(&["device.geometry.dies_per_chip=2", "device.advanced.interleave=false"]));
    let die1 = r.request_log.iter().find(|x| x.offset == PAGE).unwrap();
    assert_eq!(die1.complete_ns - die1.arrival_ns, 2 * one - 1_000);
    assert_eq!(latencies(&r).iter().max(), Some(&(4 * one)));
}

/// A small one-die drive that garbage-collects: 16 blocks of 4 pages per plane, a quarter spare.
/// One-page writes 20 ms apart (every GC is over before the next write), to a scattered pattern
/// of logical pages so victims still hold valid pages.
fn gc_run(name: &str, extra: &[&str]) -> RunResult {
    let small = ["device.geometry.blocks_per_plane=16", "device.geometry.pages_per_block=4", "ftl.overprovisioning=0.25", "ftl.gc.threshold=0.1"];
    let logical = 2 * 16 * 4 * 3 / 4;
    let lines: Vec<String> = (0..400u64).map(|i| req(i * 20_000_000, ((i * 7 + i * i / 3) % logical) * PAGE, PAGE, false)).collect();
    let all: Vec<&str> = sets(&small).into_iter().chain(extra.iter().copied()).collect();
    run_lines("tiny", name, &lines, &all)
}

fn die_busy(r: &RunResult) -> u64 {
    r.json["ssd"]["die_utilization"]["busy_ns_total"].as_u64().unwrap()
}

fn chan_busy(r: &RunResult) -> u64 {
    r.json["ssd"]["channel_utilization"]["busy_ns_total"].as_u64().unwrap()
}

fn copybacks(r: &RunResult) -> (u64, u64) {
    let c = &r.json["ssd"]["commands"];
    (c["copyback_moves"].as_u64().unwrap(), c["copyback_fallbacks"].as_u64().unwrap())
}

#[test]
fn copyback_keeps_a_gc_move_inside_the_die() {
    // A GC move without copyback: read (command, tR, data out) then program (command, data in,
    // tPROG). With copyback the two transfers are gone: it saves exactly 2 x 40.96 us of die
    // time per page moved.
    let plain = gc_run("cb-off", &[]);
    let cb = gc_run("cb-on", &["ftl.gc.copyback=true", "device.advanced.copyback_parity=false"]);
    let moved = ssd(&plain, "gc_pages_moved");
    assert!(moved > 50, "the workload must make GC move pages ({moved})");
    assert_eq!(ssd(&cb, "gc_pages_moved"), moved, "the same GC work either way");
    assert_eq!(copybacks(&cb), (moved, 0));
    assert_eq!(die_busy(&plain) - die_busy(&cb), moved * 2 * XFER);
    // The channel carried none of the moved data.
    assert_eq!(chan_busy(&plain) - chan_busy(&cb), moved * 2 * XFER);
    // With SSDSim's parity rule, a move between pages of different parity goes out and back in
    // over the channel on its program: no saving for those.
    let parity = gc_run("cb-parity", &["ftl.gc.copyback=true"]);
    let (moves, fallbacks) = copybacks(&parity);
    assert!(fallbacks > 0 && moves > 0, "{moves} moves, {fallbacks} fallbacks");
    assert_eq!(moves + fallbacks, ssd(&parity, "gc_pages_moved"));
    assert_eq!(die_busy(&plain) - die_busy(&parity), moves * 2 * XFER);
}

#[test]
fn everything_at_once_keeps_the_books_straight() {
    // Multi-plane packing with GC, copyback, suspension, variation and LDPC levels under each
    // transaction scheduler, on several geometries: every request completes, the FTL invariants
    // hold, stages add up, and some commands really are multi-plane.
    for tsu in ["fcfs", "o3", "frfcfs"] {
        for rule in ["same_page", "same_block_page"] {
            let tsu_set = format!("tsu.scheduler=\"{tsu}\"");
            let rule_set = format!("device.advanced.multi_plane=\"{rule}\"");
            let lines: Vec<String> = (0..1500u64)
                .map(|i| {
                    let off = ((i * 2654435761) % 1000) * PAGE;
                    req(i * 50_000, off, PAGE * (1 + i % 4), i % 3 == 0)
                })
                .collect();
            let r = run_lines(
                "tiny",
                "all-adv",
                &lines,
                &[
                    &tsu_set,
                    &rule_set,
                    "device.advanced.interleave=false",
                    "device.geometry.dies_per_chip=2",
                    "device.geometry.blocks_per_plane=8",
                    "ftl.overprovisioning=0.4",
                    "ftl.gc.copyback=true",
                    "device.suspend.program=true",
                    "device.suspend.erase=true",
                    "tsu.suspend_for_reads=true",
                    "device.variation.enabled=true",
                    "device.ldpc.enabled=true",
                ],
            );
            assert_eq!(r.request_log.len(), 1500, "{tsu} {rule}");
            assert_eq!(r.json["ssd"]["invariants"], "ok", "{tsu} {rule}");
            assert!(ssd(&r, "gc_pages_moved") > 0, "{tsu} {rule}: GC must run");
            assert!(ssd(&r, "suspensions") > 0, "{tsu} {rule}: programs or erases must be suspended");
            assert!(cmd(&r, "read", "multi_plane_commands") > 0 && cmd(&r, "program", "multi_plane_commands") > 0, "{tsu} {rule}: {}", r.json["ssd"]["commands"]);
            assert_eq!(cmd(&r, "read", "ops"), ssd(&r, "nand_pages_read"), "{tsu} {rule}");
            assert_eq!(cmd(&r, "program", "ops"), ssd(&r, "nand_pages_written"), "{tsu} {rule}");
            assert_eq!(cmd(&r, "erase", "ops"), ssd(&r, "erases"), "{tsu} {rule}");
            for x in &r.request_log {
                let b = x.stages;
                assert_eq!(b.host_queue + b.device_queue + b.die_wait + b.channel_wait + b.bus + b.array + b.ecc, x.complete_ns - x.arrival_ns, "{tsu} {rule}");
            }
        }
    }
}
