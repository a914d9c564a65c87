use super::*;
use crate::config::{Options, Settings};

fn ftl() -> Ftl {
    let s = Settings::from_options(&Options::from_preset("tiny").unwrap()).unwrap();
    let layout = Layout::new(&s.geometry);
    Ftl::new(layout, s.logical_pages(), s.gc_floor_blocks())
}

#[test]
fn overwrites_and_trims_keep_the_page_accounting() {
    let mut f = ftl();
    for lpn in [0, 1, 0, 2, 1] {
        let ppn = f.allocate(0, Writer::Host).unwrap();
        f.program(lpn, ppn);
    }
    f.trim(2);
    assert_eq!(f.check_invariants(), Ok(()));
    assert_eq!(f.quick_check(), Ok(()));
    // The end of a run's single pass: the same counts and the same verdict.
    f.blocks[3].erase_count = 5;
    assert_eq!(f.erase_counts_and_check(), (f.erase_counts(), Ok(()), f.plane_valid_range()));
}

#[test]
fn streams_keep_their_own_open_blocks_and_open_them_by_their_rule() {
    let mut f = ftl();
    let bpp = f.layout.blocks_per_plane;
    let ppb = f.layout.pages_per_block;
    // Wear the plane's first blocks unevenly, then free them: counts 3, 1, 2.
    for (b, n) in [(0u32, 3u32), (1, 1), (2, 2)] {
        f.blocks[b].erase_count = n;
    }
    for _ in 0..3 * ppb {
        let p = f.allocate(0, Writer::Host).unwrap();
        f.program(p % 1000, p);
    }
    for b in 0..3 {
        // Invalidate by trimming what they hold, then erase.
        for (_, lpn) in f.valid_pages(b) {
            f.trim(lpn);
        }
    }
    // Block 2 is still the default stream's open block (full, not yet closed): free 0 and 1.
    for b in 0..2 {
        f.blocks[b].state = BlockState::Full;
        f.erase(b);
        f.blocks[b].erase_count -= 1; // keep the counts above (erase added one)
    }
    f.open_rules = [OpenRule::MostWorn, OpenRule::LeastWorn, OpenRule::Oldest, OpenRule::MostWorn, OpenRule::Oldest];
    // The hot stream opens the least worn free block: a never-used one (count 0).
    let hot = f.allocate_in(0, Writer::Host, STREAM_HOT).unwrap();
    assert_eq!(f.layout.block_of(hot), 3, "the next fresh block");
    // The default stream's block is full: it opens the most worn free block, block 0 (3).
    let cold = f.allocate_in(0, Writer::Host, STREAM_DEFAULT).unwrap();
    assert_eq!(f.layout.block_of(cold), 0);
    assert_eq!(f.block_state(2), BlockState::Full, "the old frontier closed when its stream moved on");
    // Each stream keeps writing its own block.
    assert_eq!(f.allocate_in(0, Writer::Host, STREAM_HOT).unwrap(), hot + 1);
    assert_eq!(f.allocate_in(0, Writer::Host, STREAM_DEFAULT).unwrap(), cold + 1);
    // Migration blocks are pinned, never opened by allocation.
    assert_eq!(f.allocate_in(0, Writer::Gc, STREAM_MIGRATION), None);
    let m = f.pin_migration_block(0, OpenRule::MostWorn, 1).unwrap();
    assert_eq!(m, 1, "the most worn free block left");
    assert_eq!(f.pin_migration_block(0, OpenRule::MostWorn, 1), None, "one per plane");
    assert_eq!(f.allocate_in(0, Writer::Gc, STREAM_MIGRATION).unwrap(), m * ppb);
    f.close_migration_block(0);
    assert_eq!(f.block_state(m), BlockState::Full, "closed with free pages: a GC candidate");
    assert_eq!(f.migration_block(0), None);
    assert!(bpp > 4);
    // Pages reserved but not programmed: program them so the accounting holds.
    for p in [hot, hot + 1, cold, cold + 1, m * ppb] {
        f.program(500 + p % 100, p);
    }
    assert_eq!(f.check_invariants(), Ok(()));
}

#[test]
fn parked_migration_blocks_wait_outside_the_stream_and_come_back_where_they_were() {
    let mut f = ftl();
    let ppb = f.layout.pages_per_block;
    // A block set's first target writes two pages into a pinned block, which is then parked.
    let a = f.pin_migration_block(0, OpenRule::Oldest, 1).unwrap();
    for lpn in [700, 701] {
        let p = f.allocate_in(0, Writer::Gc, STREAM_MIGRATION).unwrap();
        f.program(lpn, p);
    }
    assert_eq!(f.park_migration_block(0), Some(a));
    assert_eq!((f.migration_block(0), f.parked_blocks(0)), (None, 1));
    assert_eq!(f.block_state(a), BlockState::Active, "parked: neither free nor a GC candidate");
    assert_eq!(f.park_migration_block(0), None, "nothing left to park");
    assert_eq!(f.check_invariants(), Ok(()));
    // Another set pins a second block of the same plane while the first waits.
    let b = f.pin_migration_block(0, OpenRule::Oldest, 1).unwrap();
    assert_ne!(a, b);
    let p = f.allocate_in(0, Writer::Gc, STREAM_MIGRATION).unwrap();
    f.program(702, p);
    assert!(!f.unpark_migration_block(0, a), "the stream holds the other set's block");
    assert_eq!(f.park_migration_block(0), Some(b));
    assert_eq!(f.parked_blocks(0), 2);
    assert_eq!(f.check_invariants(), Ok(()));
    // The first set's partner arrives: its block takes the rest of its pages after the first two.
    assert!(f.unpark_migration_block(0, a));
    assert!(f.unpark_migration_block(0, a), "already back");
    assert_eq!(f.parked_blocks(0), 1);
    assert_eq!(f.allocate_in(0, Writer::Gc, STREAM_MIGRATION).unwrap(), a * ppb + 2);
    f.program(703, a * ppb + 2);
    f.close_migration_block(0);
    assert_eq!(f.block_state(a), BlockState::Full);
    assert_eq!(f.check_invariants(), Ok(()));
    // A block counted as parked that is not breaks the invariant check.
    f.parked[0] += 1;
    assert!(f.check_invariants().unwrap_err().contains("parked"));
}

#[test]
fn a_second_stream_may_not_take_gc_s_last_block() {
    let mut f = ftl();
    let ppb = f.layout.pages_per_block;
    let bpp = f.layout.blocks_per_plane;
    // Fill the default stream until the host is refused: GC keeps a block's worth of pages.
    let mut lpn = 0;
    while let Some(p) = f.allocate(0, Writer::Host) {
        f.program(lpn, p);
        lpn += 1;
    }
    assert_eq!(f.free_blocks(0), 1);
    assert_eq!(lpn, (bpp - 1) * ppb);
    // The hot stream needs a block of its own: taking the last would leave GC nothing.
    assert_eq!(f.allocate_in(0, Writer::Host, STREAM_HOT), None);
    assert_eq!(f.peek_in(0, Writer::Host, STREAM_HOT), None);
}

#[test]
fn wear_leveling_moves_open_the_most_worn_block_and_leave_gc_its_block() {
    let mut f = ftl();
    let ppb = f.layout.pages_per_block;
    let bpp = f.layout.blocks_per_plane;
    // Blocks 0-2 written, emptied and erased with counts 3, 5, 1: wear leveling's stream opens
    // block 1, the most erased free block, whatever the default stream's rule (oldest).
    let mut lpn = 0;
    for _ in 0..3 * ppb {
        let p = f.allocate(0, Writer::Host).unwrap();
        f.program(lpn, p);
        lpn += 1;
    }
    for b in 0..3 {
        for (_, l) in f.valid_pages(b) {
            f.trim(l);
        }
    }
    let p = f.allocate(0, Writer::Host).unwrap(); // the default stream moves on to block 3
    f.program(lpn, p);
    lpn += 1;
    for (b, n) in [(0u32, 3u32), (1, 5), (2, 1)] {
        f.blocks[b].state = BlockState::Full;
        f.erase(b);
        f.blocks[b].erase_count = n;
    }
    assert_eq!(f.open_rules[STREAM_WEAR as usize], OpenRule::MostWorn, "always, whatever a grouping policy sets");
    let w = f.allocate_in(0, Writer::Gc, STREAM_WEAR).unwrap();
    assert_eq!(f.layout.block_of(w), 1);
    f.program(lpn, w);
    lpn += 1;
    assert_eq!(f.open_block(0, STREAM_WEAR), Some(1));
    // The default stream is untouched: still its own block.
    let d = f.allocate(0, Writer::Host).unwrap();
    assert_eq!(f.layout.block_of(d), 3);
    f.program(lpn, d);
    lpn += 1;
    // Fill the default stream until the host is refused (GC's block of free pages left), then
    // fill wear leveling's open block: it takes its own pages while they last...
    while let Some(p) = f.allocate(0, Writer::Host) {
        f.program(lpn, p);
        lpn += 1;
    }
    for _ in 1..ppb {
        let p = f.allocate_in(0, Writer::Gc, STREAM_WEAR).unwrap();
        assert_eq!(f.layout.block_of(p), 1);
        f.program(lpn, p);
        lpn += 1;
    }
    f.close_if_full(0, 1);
    assert_eq!((f.open_block(0, STREAM_WEAR), f.block_state(1)), (None, BlockState::Full), "closed once full");
    // ...but may not open another with GC's last block: the move goes to GC's stream, whose
    // reserve it may use, as any GC move's.
    assert!(f.free_blocks(0) <= 1 + u32::from(f.left_in(0, STREAM_DEFAULT) == 0), "{} free", f.free_blocks(0));
    assert_eq!(f.stream_for(0, STREAM_WEAR), STREAM_DEFAULT);
    let g = f.allocate_in(0, Writer::Gc, STREAM_WEAR).expect("GC's reserve");
    assert_eq!(f.peek_in(0, Writer::Gc, STREAM_DEFAULT).map(|p| p - 1), Some(g), "programmed by the default stream");
    assert_eq!(f.open_block(0, STREAM_WEAR), None);
    f.program(lpn, g);
    assert!(bpp > 4);
    assert_eq!(f.check_invariants(), Ok(()));
}

#[test]
fn a_page_allocated_but_never_programmed_breaks_the_accounting() {
    // The invariant check must be able to fail: a page below the write pointer that is
    // neither valid nor invalidated is lost.
    let mut f = ftl();
    let ppn = f.allocate(0, Writer::Host).unwrap();
    f.program(7, ppn);
    let _lost = f.allocate(0, Writer::Host).unwrap();
    assert!(f.check_invariants().unwrap_err().contains("1 valid + 0 invalid + "));
    assert!(f.quick_check().is_err());
    assert_eq!(f.erase_counts_and_check().1, f.quick_check());
}

#[test]
fn the_planes_copy_of_the_write_pointer_follows_the_block_and_is_checked() {
    let mut f = ftl();
    let ppb = f.layout.pages_per_block;
    // Fill one block and open the next: the copy starts again from 0 with the new block.
    for lpn in 0..ppb + 3 {
        let ppn = f.allocate(0, Writer::Host).unwrap();
        assert_eq!(ppn % ppb, lpn % ppb);
        f.program(lpn, ppn);
    }
    assert_eq!(f.planes[0].open_wp[STREAM_DEFAULT as usize], 3);
    assert_eq!(f.check_invariants(), Ok(()));
    // The hot stream's block, filled and closed once its last page is programmed.
    for lpn in 0..ppb {
        let ppn = f.allocate_in(0, Writer::Host, STREAM_HOT).unwrap();
        f.program(1000 + lpn, ppn);
    }
    assert_eq!(f.planes[0].open_wp[STREAM_HOT as usize], ppb as u16);
    let hot = f.planes[0].active[STREAM_HOT as usize];
    f.close_if_full(0, hot);
    assert_eq!((f.planes[0].active[STREAM_HOT as usize], f.planes[0].open_wp[STREAM_HOT as usize]), (NONE, 0));
    // A pinned migration block, written and closed.
    let m = f.pin_migration_block(0, OpenRule::Oldest, 0).unwrap();
    let ppn = f.allocate_in(0, Writer::Gc, STREAM_MIGRATION).unwrap();
    assert_eq!(ppn, m * ppb);
    f.program(2000, ppn);
    assert_eq!(f.planes[0].open_wp[STREAM_MIGRATION as usize], 1);
    assert_eq!(f.check_invariants(), Ok(()));
    f.close_migration_block(0);
    assert_eq!(f.planes[0].open_wp[STREAM_MIGRATION as usize], 0);
    assert_eq!(f.check_invariants(), Ok(()));
    f.planes[0].open_wp[STREAM_DEFAULT as usize] = 2;
    assert!(f.check_invariants().unwrap_err().contains("has write pointer 3 but the plane says 2"));
    f.planes[0].open_wp[STREAM_DEFAULT as usize] = 3;
    f.planes[0].open_wp[STREAM_HOT as usize] = 5;
    assert!(f.check_invariants().unwrap_err().contains("stream 1 has no open block but the plane keeps a write pointer of 5"));
}

#[test]
fn the_fastest_rule_opens_the_free_block_with_the_largest_key_and_follows_new_keys() {
    // VIOS's fast stream: every free block of the plane is a candidate (never-used ones too),
    // the largest key wins, ties go to the oldest, and a key changed after an erase counts.
    let mut f = ftl();
    let bpp = f.layout.blocks_per_plane;
    f.set_speed_keys(|b| if b == 5 || b == 7 { 400 } else { 300 + (b % 3) as u16 });
    f.open_rules[STREAM_HOT as usize] = OpenRule::Fastest;
    assert_eq!(f.fastest_free(0), Some((5, 400)), "the largest key, the first of equals");
    let p = f.allocate_in(0, Writer::Host, STREAM_HOT).unwrap();
    assert_eq!(f.layout.block_of(p), 5);
    // The ordinary stream keeps its order (oldest first): block 0.
    let q = f.allocate_in(0, Writer::Host, STREAM_DEFAULT).unwrap();
    assert_eq!(f.layout.block_of(q), 0);
    // Block 7 is next for the fast stream, unless a detection lowers it.
    assert_eq!(f.fastest_free(0), Some((7, 400)));
    f.speed_key_changed(7, 250);
    let (b, k) = f.fastest_free(0).unwrap();
    assert!(b != 7 && k == 302 && b < bpp, "block {b} key {k}");
}
