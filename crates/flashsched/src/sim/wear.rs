//! Wear leveling and write grouping as flash work: the policies (`ftl::wear`, `ftl::grouping`)
//! decide; this module runs their decisions through the simulator.
//!
//! - Write grouping: each request entering the device is shown to the policy, and a host write
//!   programs into the open block of the stream the policy chose for its page.
//! - Wear leveling: after every erase the policy may name blocks to collect. A plain collection
//!   is GC's (`Simulator::collect`). A split (read balance-oriented WL) moves the victim's valid
//!   pages to migration blocks the policy pinned on other chips: each move is a GC read on the
//!   victim's die and a GC program on the destination's (`Placement::Pinned`), over the channel.
//!   The destination of each page is fixed when the collection starts; a destination block is
//!   closed once the moves of the collection that completes its pair are done.
//! - GC time is split by cause (the paper's Figure 5): the flash time (bus and array) of every GC
//!   read, program and erase goes to wear leveling when its collection was wear leveling's, to
//!   routine GC otherwise (`ssd.gc_time`); a multi-plane command's time is split evenly over its
//!   operations, so it is counted once.

use rustc_hash::FxHashMap;

use super::txn::{Placement, Txn, TxnKind};
use super::Simulator;
use crate::ftl::grouping::WriteGrouping;
use crate::ftl::wear::{WearLeveler, WlAction};
use crate::ftl::{Stream, STREAM_DEFAULT, STREAM_HOT, STREAM_MAPPING, STREAM_MIGRATION, STREAM_WEAR};
use crate::nand::{Lpn, Ppn, NONE};

/// Per destination plane of migrations: the plane its pending moves come from, how many are
/// pending, and whether its block closes when they are done.
#[derive(Debug, Clone, Copy, Default)]
struct Dest {
    src: u32,
    pending: u32,
    close: bool,
}

#[derive(Default)]
pub(super) struct Wear {
    pub leveler: Option<Box<dyn WearLeveler>>,
    pub grouping: Option<Box<dyn WriteGrouping>>,
    /// The leveler tracks host reads.
    reads: bool,
    /// Per plane: its collection under way is wear leveling's.
    wl_collecting: Vec<bool>,
    /// Source page of a planned migration -> its destination plane.
    migrations: FxHashMap<Ppn, u32>,
    dest: Vec<Dest>,
    lpns: Vec<Lpn>,
    /// Operations of the command being finished (a multi-plane command's members carry its
    /// whole time; `gc_time` counts each a share).
    pub command_ops: u64,
    /// Each block's erase count when the run started (after preconditioning), kept when
    /// `device.erase_limit` is set: wear accrued in the run, and the projected first failure.
    pub start_counts: Vec<u32>,
    /// Host writes VIOS places in a fast block (`Placement::Fastest`) program into blocks of
    /// their own: the hot stream, opened fastest-first (`sim::placement`). Set when the device
    /// queue places writes and no write-grouping policy owns the streams.
    pub fast_stream: bool,
    /// Host writes all go to the default stream: no grouping, no fast stream, no translation
    /// pages (`write_stream`'s one question on the default path; false, the safe answer, until
    /// the simulator has set up).
    pub plain_host: bool,
    /// Where wear leveling's own collections program their moves: `Placement::WearLevel`
    /// (`ftl.wear_leveling_moves = "worn"`, its stream of most-erased blocks) or
    /// `Placement::Static` (`"gc"`: GC's stream, among routine GC's moves).
    pub collect_place: Placement,
}

impl Wear {
    pub fn new(leveler: Option<Box<dyn WearLeveler>>, grouping: Option<Box<dyn WriteGrouping>>, planes: u32) -> Self {
        let reads = leveler.as_ref().is_some_and(|l| l.wants_reads());
        let per_plane = leveler.is_some();
        Wear {
            leveler,
            grouping,
            reads,
            command_ops: 1,
            wl_collecting: if per_plane { vec![false; planes as usize] } else { Vec::new() },
            dest: if reads { vec![Dest::default(); planes as usize] } else { Vec::new() },
            ..Default::default()
        }
    }

    /// Wear leveling's own collections program their moves where `place` says.
    pub fn with_collect_place(mut self, place: Placement) -> Self {
        self.collect_place = place;
        self
    }

    /// The stream a write transaction programs into.
    #[inline]
    pub fn write_stream(&self, x: &Txn) -> Stream {
        match x.kind {
            // (The default path asks one question.)
            TxnKind::HostWrite if self.plain_host => STREAM_DEFAULT,
            TxnKind::HostWrite if x.place == Placement::Mapping => STREAM_MAPPING,
            TxnKind::HostWrite => match &self.grouping {
                Some(g) => g.stream(x.lpn),
                None if self.fast_stream && x.place == Placement::Fastest => STREAM_HOT,
                None => STREAM_DEFAULT,
            },
            _ if x.place == Placement::Pinned => STREAM_MIGRATION,
            _ if x.place == Placement::WearLevel => STREAM_WEAR,
            _ => STREAM_DEFAULT,
        }
    }
}

impl Simulator {
    /// A request enters the device: show its pages to the write-grouping policy.
    pub(super) fn group_request(&mut self, write: bool, first_lpn: u64, pages: u64) {
        let Some(g) = self.wear.grouping.as_mut() else { return };
        let mut lpns = std::mem::take(&mut self.wear.lpns);
        lpns.clear();
        let mut lpn = first_lpn;
        for _ in 0..pages {
            lpns.push(lpn as Lpn);
            lpn += 1;
            if lpn >= self.logical_pages {
                lpn -= self.logical_pages;
            }
        }
        g.on_request(write, &lpns);
        self.wear.lpns = lpns;
    }

    /// A host read sensed `ppn` (the Page Read Table of read balance-oriented WL).
    #[inline]
    pub(super) fn wear_saw_read(&mut self, ppn: Ppn) {
        if self.wear.reads && ppn != NONE {
            if let Some(l) = self.wear.leveler.as_mut() {
                l.on_read(ppn);
            }
        }
    }

    /// A block was erased: tell the leveler, end the plane's collection, and let wear leveling
    /// ask for more.
    pub(super) fn wear_after_erase(&mut self, plane: u32, block: u32) {
        if let Some(w) = self.wear.leveler.as_mut() {
            w.on_erase(block);
            self.wear.wl_collecting[plane as usize] = false;
            self.maybe_wear_level();
        }
    }

    /// Wear leveling asks for blocks after an erase: run each action it names.
    fn maybe_wear_level(&mut self) {
        loop {
            let Some(action) = self.wear.leveler.as_mut().and_then(|w| w.next(&mut self.ftl)) else { break };
            let block = match action {
                WlAction::Collect(b) | WlAction::Split { block: b, .. } => b,
            };
            let plane = self.layout.plane_of_block(block);
            self.counters.wl_collections += 1;
            self.counters.wl_pages += self.ftl.valid_count(block) as u64;
            self.wear.wl_collecting[plane as usize] = true;
            match action {
                WlAction::Collect(b) => self.collect(plane, b, self.wear.collect_place),
                WlAction::Split { block, to, close } => self.split_collect(plane, block, to, close),
            }
        }
    }

    /// Move `block`'s valid pages half and half to the migration blocks of the planes `to`, then
    /// erase it.
    fn split_collect(&mut self, plane: u32, block: u32, to: [u32; 2], close: bool) {
        let moves = self.ftl.begin_gc(plane, block);
        self.counters.wl_split_collections += 1;
        let leveler = self.wear.leveler.as_ref().expect("a split comes from a leveler");
        // Read pages first, then unread ones, alternate between the two destinations, starting
        // with the first for the target that makes a block set and with the second for the one
        // that completes it: each destination gets half of each kind (to a page), and at most
        // ceil(v1 / 2) + floor(v2 / 2) <= pages per block in all.
        let mut order: Vec<usize> = (0..moves.len()).collect();
        order.sort_by_key(|&i| !leveler.page_read(moves[i].0));
        let mut dest = vec![0u32; moves.len()];
        let start = usize::from(close);
        for (n, &i) in order.iter().enumerate() {
            dest[i] = to[(start + n) % 2];
        }
        let planned: Vec<(Ppn, Lpn, u32)> = moves.iter().zip(&dest).map(|(&(src, lpn), &d)| (src, lpn, d)).collect();
        for &d in &to {
            let e = &mut self.wear.dest[d as usize];
            debug_assert!(e.pending == 0 || e.src == plane, "plane {d} takes migrations from two victims at once");
            e.src = plane;
            e.close |= close;
        }
        // Pinning the destinations took a free block from each plane: GC may be due there.
        for &d in &to {
            self.maybe_gc(d);
        }
        let die = self.layout.die_of_plane(plane);
        let empty = planned.is_empty();
        for &(_, _, d) in &planned {
            self.wear.dest[d as usize].pending += 1;
        }
        // A destination this target sends nothing to (a block with one valid page) closes now.
        for &d in &to {
            self.maybe_close_migration(d);
        }
        if empty {
            self.enqueue_erase(plane, block);
            return;
        }
        for (src, lpn, d) in planned {
            self.wear.migrations.insert(src, d);
            self.counters.wl_pages_split += 1;
            // Across chips the page goes out over the channel and back in: never copyback.
            let mut t = Txn::new(TxnKind::GcRead, NONE, lpn, src, plane, die, self.page_size as u32, self.now);
            t.place = Placement::Pinned;
            let t = self.txns.insert(t);
            self.to_tsu(t);
        }
    }

    /// The migration read `txn` is done: where its program goes (plane, die).
    pub(super) fn migration_destination(&mut self, txn: &Txn) -> (u32, u32) {
        let d = self.wear.migrations.remove(&txn.ppn).expect("a migration read has a planned destination");
        (d, self.layout.die_of_plane(d))
    }

    /// A migration move finished or was dropped (`txn` its read or its program): the plane its
    /// victim is in.
    pub(super) fn migration_over(&mut self, txn: &Txn) -> u32 {
        let d = if txn.kind == TxnKind::GcRead { self.wear.migrations.remove(&txn.ppn).expect("planned") } else { txn.plane };
        let e = &mut self.wear.dest[d as usize];
        e.pending -= 1;
        let src = e.src;
        self.maybe_close_migration(d);
        src
    }

    /// The plane's migration moves are all done: its block closes when its set is complete, and
    /// is parked otherwise, to wait for the target that completes its set while other sets use
    /// the plane.
    fn maybe_close_migration(&mut self, plane: u32) {
        let e = &mut self.wear.dest[plane as usize];
        if e.pending == 0 {
            if e.close {
                e.close = false;
                self.ftl.close_migration_block(plane);
            } else {
                self.ftl.park_migration_block(plane);
            }
        }
    }

    /// GC move `t` got page `ppn`: if it is one of wear leveling's own collections' moves, count
    /// whether it went to wear leveling's stream or GC's (planes may refuse it a block).
    pub(super) fn count_wear_move(&mut self, t: super::txn::TxnId, ppn: Ppn) {
        let x = self.txns.get(t);
        // With `gc` placement a collection's moves are `Static`, told apart from routine GC's by
        // their plane's collection (one per plane at a time); idle-time re-programs are not moves.
        let gc_placed = self.wear.collect_place == Placement::Static
            && x.place == Placement::Static
            && !x.is_reprogram()
            && self.wear.wl_collecting.get(x.plane as usize).copied().unwrap_or(false);
        if x.place == Placement::WearLevel || gc_placed {
            if self.ftl.open_block(x.plane, STREAM_WEAR) == Some(self.layout.block_of(ppn)) {
                self.counters.wl_pages_worn += 1;
            } else {
                self.counters.wl_pages_gc_stream += 1;
            }
        }
    }

    /// Count a GC transaction's flash time as routine GC's or wear leveling's.
    pub(super) fn gc_time(&mut self, txn: &Txn, victim_plane: u32) {
        let ns = (txn.bus + txn.array) / self.wear.command_ops;
        let wl = txn.place == Placement::Pinned || self.wear.wl_collecting.get(victim_plane as usize).copied().unwrap_or(false);
        if wl {
            self.counters.wl_flash_ns += ns;
        } else {
            self.counters.gc_flash_ns += ns;
        }
    }
}
