//! The page-level FTL's state: logical-to-physical mapping, per-block valid bitmaps and counts,
//! write pointers, erase counts, and each plane's active block and free blocks.
//!
//! This module is untimed bookkeeping. The simulator decides *when* a program, a GC move or an
//! erase happens and calls in here at that moment; preconditioning calls the same functions with no
//! time at all. Its invariants ([`Ftl::check_invariants`]) are property-tested.

pub mod alloc;
pub mod gc;
pub mod grouping;
pub mod idle;
pub mod pattern;
pub mod speed;
pub mod wear;
mod blocks;
mod fewest;
mod mapping;
mod p2l;
pub mod precondition;

use std::collections::VecDeque;

use crate::nand::{Layout, Lpn, Ppn, NONE};
use blocks::{BlockMeta, BlockTable, ValidBits};
use fewest::FewestValid;
pub use fewest::Fewest;
use p2l::{ReverseMap, NO_SLOT};
pub use mapping::L2p;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum BlockState {
    /// Erased, in the plane's free pool.
    Free = 0,
    /// The plane's write frontier: pages are programmed here in order.
    Active = 1,
    /// Every page programmed; a GC candidate.
    Full = 2,
    /// Chosen by GC; its valid pages are being moved, then it is erased.
    Victim = 3,
}

/// Who is asking for a page: host writes may not take a plane's last free block, which is kept so
/// that GC can always move pages and make progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writer {
    Host,
    Gc,
}

/// A write stream: each plane keeps one open block per stream, so data of different kinds
/// (grouped hot writes, the rest, wear-leveling migrations) never share a block.
pub type Stream = u8;
/// Host writes no grouping policy singles out, and GC moves (the only stream without grouping).
pub const STREAM_DEFAULT: Stream = 0;
/// Host writes a grouping policy (`ftl.write_grouping`) marks hot: PGIS's hot data, Pattern's hits.
pub const STREAM_HOT: Stream = 1;
/// Blocks wear leveling pins explicitly as destinations of its migrations (never opened by
/// allocation).
pub const STREAM_MIGRATION: Stream = 2;
pub const STREAMS: usize = 3;

/// Which free block a stream opens next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OpenRule {
    /// The oldest-erased (FIFO), as SSDSim and MQSim do.
    #[default]
    Oldest,
    /// The least erased free block of the plane (ties: oldest).
    LeastWorn,
    /// The most erased free block of the plane (ties: oldest).
    MostWorn,
}

/// Exactly one cache line (`repr(C)`, 64-byte aligned): a write touches its plane's record, and
/// with hundreds of planes it is rarely still in the first-level cache by the plane's next write
/// (docs/performance.md). The free list, read only when a block opens, is kept apart
/// (`Ftl::free_lists`).
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub struct PlaneState {
    /// The open block of each stream (`NONE`: none). Private: `open_wp` must follow it.
    active: [u32; STREAMS],
    /// The write pointer of each stream's open block (0 without one): the block record's own,
    /// kept here too so that an allocation reads the plane's record only. The open blocks of all
    /// planes are spread over the whole block table, and that load missed the cache on most
    /// writes (docs/performance.md); the plane records are few and stay cached.
    open_wp: [u16; STREAMS],
    /// Blocks never used yet are handed out from here on (`Ftl::free_lists` holds the erased ones).
    next_fresh: u32,
    pub free_blocks: u32,
    /// GC in progress in this plane (one victim at a time).
    pub gc_victim: u32,
    /// GC moves of the current victim not yet finished.
    pub gc_pending: u32,
    /// Bumped whenever the block `peek_allocation` returns may change (a block opens or fills,
    /// a block of the plane is erased): lets callers cache what they derive from it.
    pub frontier_gen: u32,
    /// Bumped whenever the set of free blocks changes (a block is taken or erased).
    pub free_gen: u32,
}

const _: () = assert!(std::mem::size_of::<PlaneState>() == 64);

/// Device-wide counters (pages, not bytes).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FtlCounters {
    pub host_pages_written: u64,
    pub gc_pages_moved: u64,
    pub erases: u64,
    pub gc_invocations: u64,
    pub trimmed_pages: u64,
}

pub struct Ftl {
    pub layout: Layout,
    pub logical_pages: u64,
    pub gc_floor: u32,
    l2p: L2p,
    /// One bit per physical page: holds the current copy of a logical page.
    valid_bits: ValidBits,
    /// Per-block state, one 16-byte record each so that a program touches one cache line.
    blocks: BlockTable,
    /// Reverse maps: a slot of `pages_per_block` entries per block holding data (`p2l`).
    p2l: ReverseMap,
    /// Erased blocks of each plane, oldest-freed first (apart from `PlaneState`, which then fits
    /// one cache line).
    free_lists: Vec<VecDeque<u32>>,
    pub planes: Vec<PlaneState>,
    /// The block each stream opens when it needs one.
    pub open_rules: [OpenRule; STREAMS],
    /// Per chip, the sum of its planes' `frontier_gen` bumps.
    chip_frontier_gen: Vec<u32>,
    /// Each collected plane's full block with the fewest valid pages (`fewest`): kept in step
    /// with every change of a block's state (`set_state`) and of a full block's valid pages.
    fewest: FewestValid,
    pub counters: FtlCounters,
}

impl Ftl {
    pub fn new(layout: Layout, logical_pages: u64, gc_floor: u32) -> Self {
        let planes = (0..layout.planes())
            .map(|_| PlaneState {
                active: [NONE; STREAMS],
                open_wp: [0; STREAMS],
                next_fresh: 0,
                free_blocks: layout.blocks_per_plane,
                gc_victim: NONE,
                gc_pending: 0,
                frontier_gen: 0,
                free_gen: 0,
            })
            .collect();
        Ftl {
            layout,
            logical_pages,
            gc_floor,
            l2p: L2p::new(logical_pages),
            valid_bits: ValidBits::new(&layout),
            blocks: BlockTable::new(&layout),
            p2l: ReverseMap::new(layout.pages_per_block),
            free_lists: vec![VecDeque::new(); layout.planes() as usize],
            planes,
            open_rules: [OpenRule::Oldest; STREAMS],
            chip_frontier_gen: vec![0; layout.chips() as usize],
            fewest: FewestValid::new(layout.planes(), layout.blocks_per_plane),
            counters: FtlCounters::default(),
        }
    }

    // ---- queries

    #[inline]
    pub fn lookup(&self, lpn: Lpn) -> Option<Ppn> {
        self.l2p.get(lpn)
    }
    #[inline]
    pub fn is_valid(&self, ppn: Ppn) -> bool {
        self.valid_bits.get(ppn)
    }
    /// The records of `plane`'s blocks, in block order (for GC's victim policies, which look
    /// at all of them).
    #[inline]
    pub(in crate::ftl) fn plane_blocks(&self, plane: u32) -> &[BlockMeta] {
        self.blocks.plane(plane)
    }
    #[inline]
    pub fn valid_count(&self, block: u32) -> u16 {
        self.blocks[block].valid
    }
    #[inline]
    pub fn block_state(&self, block: u32) -> BlockState {
        self.blocks[block].state
    }
    pub fn erase_count(&self, block: u32) -> u32 {
        self.blocks[block].erase_count
    }
    /// Every block's erase count, in block order. The report's copy of a 16 MB table: made in
    /// huge pages (`crate::mem`), it takes a few page faults instead of a thousand.
    pub fn erase_counts(&self) -> Vec<u32> {
        let mut v = crate::mem::zeroed(self.layout.blocks() as usize);
        for (c, b) in v.iter_mut().zip(self.blocks.iter()) {
            *c = b.erase_count;
        }
        v
    }
    pub fn write_pointer(&self, block: u32) -> u16 {
        self.blocks[block].write_ptr
    }
    pub fn mapped_pages(&self) -> u64 {
        self.l2p.mapped()
    }
    pub fn free_blocks(&self, plane: u32) -> u32 {
        self.planes[plane as usize].free_blocks
    }
    pub fn total_free_blocks(&self) -> u64 {
        self.planes.iter().map(|p| p.free_blocks as u64).sum()
    }
    pub fn min_free_blocks(&self) -> u32 {
        self.planes.iter().map(|p| p.free_blocks).min().unwrap_or(0)
    }
    /// The logical page stored at `ppn` (meaningful only while the page is valid).
    pub fn lpn_at(&self, ppn: Ppn) -> Lpn {
        let block = self.layout.block_of(ppn);
        let slot = self.blocks[block].p2l_slot;
        debug_assert!(slot != NO_SLOT);
        self.p2l.get(slot, self.layout.page_in_block(ppn))
    }
    /// Valid pages of a block, with the logical page each holds.
    pub fn valid_pages(&self, block: u32) -> Vec<(Ppn, Lpn)> {
        let ppb = self.layout.pages_per_block;
        let first = block * ppb;
        // A victim was written long ago: its reverse-map entries are out of cache. Asked for all
        // at once, their misses overlap.
        let slot = self.blocks[block].p2l_slot;
        if slot != NO_SLOT {
            self.p2l.prefetch_slot(slot);
        }
        (first..first + ppb).filter(|&p| self.is_valid(p)).map(|p| (p, self.lpn_at(p))).collect()
    }
    /// Bytes of FTL metadata actually allocated (reported in the output).
    pub fn memory_bytes(&self) -> usize {
        self.l2p.allocated_bytes()
            + self.valid_bits.allocated_bytes()
            + self.blocks.allocated_bytes()
            + self.p2l.allocated_bytes()
            + self.fewest.allocated_bytes()
    }

    /// Hint that `lpn`'s mapping entry will be read soon.
    #[inline]
    pub fn prefetch_mapping(&self, lpn: Lpn) {
        self.l2p.prefetch(lpn);
    }

    /// Hint that `lpn`'s current physical copy will be invalidated soon (an overwrite).
    #[inline]
    pub fn prefetch_current_copy(&self, lpn: Lpn) {
        if let Some(old) = self.l2p.get(lpn) {
            self.valid_bits.prefetch(old);
            crate::mem::prefetch(&self.blocks[self.layout.block_of(old)]);
        }
    }

    /// `prefetch_current_copy`, and the entry of the copy's block in its plane's fewest-valid
    /// index with its parent's (where an overwrite's invalidation changes it): preconditioning's
    /// overwrites, whose planes are all indexed once GC has begun.
    #[inline]
    pub fn prefetch_overwrite(&self, lpn: Lpn) {
        if let Some(old) = self.l2p.get(lpn) {
            self.valid_bits.prefetch(old);
            let block = self.layout.block_of(old);
            crate::mem::prefetch(&self.blocks[block]);
            let plane = self.layout.plane_of_block(block);
            if self.fewest.indexed(plane) {
                self.fewest.prefetch(plane, block - self.layout.first_block_of_plane(plane));
            }
        }
    }

    // ---- aging

    /// Set every block's erase count (preconditioning to a wear stage).
    pub fn age_all(&mut self, pe_cycles: u32) {
        self.blocks.iter_mut().for_each(|b| b.erase_count = pe_cycles);
    }

    // ---- allocation and programming

    /// Reserve the next free page of the plane's active block, opening a free block if needed.
    /// A host write gets a page only while more than one block's worth of free pages would remain
    /// in the plane: GC of one victim moves at most `pages_per_block - 1` pages, so this reserve
    /// guarantees GC can always finish, even with host writes interleaved with its moves.
    /// `None` when the page is refused (or the plane has no free page at all).
    pub fn allocate(&mut self, plane: u32, who: Writer) -> Option<Ppn> {
        self.allocate_in(plane, who, STREAM_DEFAULT)
    }

    /// `allocate` on the open block of `stream`. The reserve is GC's: what GC's stream (the
    /// default one) could still program after this page, which a host write must leave at a block
    /// or more. The migration stream never opens a block: it writes only to a pinned one.
    pub fn allocate_in(&mut self, plane: u32, who: Writer, stream: Stream) -> Option<Ppn> {
        #[cfg(debug_assertions)]
        let peeked = self.peek_in(plane, who, stream);
        let got = self.allocate_page(plane, who, stream);
        #[cfg(debug_assertions)]
        debug_assert_eq!(peeked, got, "peek_allocation disagrees with allocate on plane {plane}");
        got
    }

    /// At least as many pages as host writes of the default stream can still take in `plane`,
    /// while nothing else takes or frees any: `may_take` lets the host take a page only while the
    /// free blocks' pages and those left in the default stream's open block exceed GC's reserve of
    /// a block, and each page taken lowers them by one.
    pub fn host_room_bound(&self, plane: u32) -> u64 {
        let ppb = self.layout.pages_per_block as u64;
        (self.planes[plane as usize].free_blocks as u64 * ppb + self.left_in(plane, STREAM_DEFAULT) as u64).saturating_sub(ppb)
    }

    /// `host_room_bound` with write grouping's hot stream as well: its open block's pages come
    /// on top (a hot write takes one while the pages above GC's reserve are at least a block,
    /// and a hot block opened takes a block's worth of them).
    pub fn host_room_bound_streams(&self, plane: u32) -> u64 {
        self.host_room_bound(plane) + self.left_in(plane, STREAM_HOT) as u64
    }

    /// Whether a host write of `stream` can take a page of `plane` now.
    pub fn host_may_take(&self, plane: u32, stream: Stream) -> bool {
        self.may_take(plane, Writer::Host, stream, self.left_in(plane, stream))
    }

    /// Pages left in the open block of `stream` of `plane` (0 without one).
    #[inline]
    fn left_in(&self, plane: u32, stream: Stream) -> u32 {
        let ps = &self.planes[plane as usize];
        if ps.active[stream as usize] == NONE { 0 } else { self.layout.pages_per_block - ps.open_wp[stream as usize] as u32 }
    }

    /// May `who` take a page of `stream` in `plane` (whose open block has `left` pages)?
    #[inline]
    fn may_take(&self, plane: u32, who: Writer, stream: Stream, left: u32) -> bool {
        let ppb = self.layout.pages_per_block as u64;
        let ps = &self.planes[plane as usize];
        if stream == STREAM_MIGRATION {
            return left > 0;
        }
        // GC's stream is the default one: its open block's room is `left` when that is the stream.
        let gc_left = if stream == STREAM_DEFAULT { left as u64 } else { self.left_in(plane, STREAM_DEFAULT) as u64 };
        let free_pages = ps.free_blocks as u64 * ppb + gc_left;
        // Free pages GC's stream keeps after this allocation, plus one (the rule as first
        // written for one stream: refuse when free pages <= reserve).
        let after = match (stream == STREAM_DEFAULT, left > 0) {
            (true, _) => free_pages,
            (false, true) => free_pages + 1,
            (false, false) => free_pages.saturating_sub(ppb) + 1,
        };
        let reserve = if who == Writer::Host { ppb } else { 0 };
        after > reserve && (left > 0 || ps.free_blocks > 0)
    }

    fn allocate_page(&mut self, plane: u32, who: Writer, stream: Stream) -> Option<Ppn> {
        let left = self.left_in(plane, stream);
        if !self.may_take(plane, who, stream, left) {
            return None;
        }
        if left <= 1 {
            // This allocation fills the open block, or opens a new one.
            self.frontier_moved(plane);
        }
        if left == 0 {
            let old = self.planes[plane as usize].active[stream as usize];
            if old != NONE {
                self.set_state(old, BlockState::Full);
            }
            let b = self.take_free_block(plane, self.open_rules[stream as usize]);
            self.set_state(b, BlockState::Active);
            self.open(plane, stream, b);
        }
        let ps = &mut self.planes[plane as usize];
        let b = ps.active[stream as usize];
        let page = ps.open_wp[stream as usize];
        ps.open_wp[stream as usize] = page + 1;
        self.blocks[b].write_ptr = page + 1;
        // A block that just became full stays `Active` until the next allocation, so it is not a
        // GC candidate while its last program may still be in flight.
        Some(b * self.layout.pages_per_block + page as u32)
    }

    /// The page `allocate(plane, who)` would return now, without allocating it (multi-plane
    /// packing checks that planes' next pages line up before taking them).
    pub fn peek_allocation(&self, plane: u32, who: Writer) -> Option<Ppn> {
        self.peek_in(plane, who, STREAM_DEFAULT)
    }

    /// The offset within its block of the page `peek_in(plane, _, stream)` returns when it
    /// returns one, for any writer: the open block's next page, or the first of a new block.
    #[inline]
    pub fn next_offset(&self, plane: u32, stream: Stream) -> u32 {
        if self.left_in(plane, stream) > 0 { u32::from(self.planes[plane as usize].open_wp[stream as usize]) } else { 0 }
    }

    /// The page `allocate_in(plane, who, stream)` would return now.
    pub fn peek_in(&self, plane: u32, who: Writer, stream: Stream) -> Option<Ppn> {
        let ppb = self.layout.pages_per_block;
        let left = self.left_in(plane, stream);
        if !self.may_take(plane, who, stream, left) {
            return None;
        }
        let ps = &self.planes[plane as usize];
        if left > 0 {
            return Some(ps.active[stream as usize] * ppb + ps.open_wp[stream as usize] as u32);
        }
        Some(self.pick_free(plane, self.open_rules[stream as usize]).0 * ppb)
    }

    /// The free block `rule` opens next in `plane` and its index in the free list (`None`: the
    /// next never-used block). The plane must have a free block.
    fn pick_free(&self, plane: u32, rule: OpenRule) -> (u32, Option<usize>) {
        let ps = &self.planes[plane as usize];
        let fresh = (ps.next_fresh < self.layout.blocks_per_plane).then(|| self.layout.first_block_of_plane(plane) + ps.next_fresh);
        let count = |b: u32| self.blocks[b].erase_count;
        let free = &self.free_lists[plane as usize];
        let listed = match rule {
            OpenRule::Oldest => free.front().map(|&b| (b, 0)),
            // Never-used blocks all have the same count (0, or the preconditioned age), so the
            // next of them stands for all.
            OpenRule::LeastWorn => free.iter().enumerate().min_by_key(|&(i, &b)| (count(b), i)).map(|(i, &b)| (b, i)),
            OpenRule::MostWorn => free.iter().enumerate().max_by_key(|&(i, &b)| (count(b), std::cmp::Reverse(i))).map(|(i, &b)| (b, i)),
        };
        match (listed, fresh) {
            (Some((b, i)), None) => (b, Some(i)),
            (None, Some(f)) => (f, None),
            (Some((b, i)), Some(f)) => {
                let take_fresh = match rule {
                    OpenRule::Oldest => false,
                    OpenRule::LeastWorn => count(f) < count(b),
                    OpenRule::MostWorn => count(f) > count(b),
                };
                if take_fresh { (f, None) } else { (b, Some(i)) }
            }
            (None, None) => panic!("plane {plane}: free count says a block is free but none is"),
        }
    }

    /// Pin a free block of `plane` as the open block of the migration stream, chosen by `rule`,
    /// leaving at least `keep` free blocks and GC its reserve; returns it (`None`: the stream
    /// already has a block, or too few free blocks).
    pub fn pin_migration_block(&mut self, plane: u32, rule: OpenRule, keep: u32) -> Option<u32> {
        let ps = &self.planes[plane as usize];
        // Like a host write opening a block of its own stream: GC keeps a block's worth of pages.
        if ps.active[STREAM_MIGRATION as usize] != NONE || ps.free_blocks <= keep || !self.may_take(plane, Writer::Host, STREAM_HOT, 0) {
            return None;
        }
        let b = self.take_free_block(plane, rule);
        self.set_state(b, BlockState::Active);
        self.open(plane, STREAM_MIGRATION, b);
        self.frontier_moved(plane);
        Some(b)
    }

    /// `block` (just taken free: nothing written yet) is the open block of `stream` of `plane`.
    fn open(&mut self, plane: u32, stream: Stream, block: u32) {
        debug_assert_eq!(self.blocks[block].write_ptr, 0);
        let ps = &mut self.planes[plane as usize];
        ps.active[stream as usize] = block;
        ps.open_wp[stream as usize] = 0;
    }

    /// `stream` of `plane` has no open block any more; returns the one it had (`NONE`: none).
    fn close(&mut self, plane: u32, stream: Stream) -> u32 {
        let ps = &mut self.planes[plane as usize];
        ps.open_wp[stream as usize] = 0;
        std::mem::replace(&mut ps.active[stream as usize], NONE)
    }

    /// Close `block` if it is the full open block of a grouped (non-default, non-migration)
    /// stream of `plane`: called when its last page's program is done, so that GC can take it
    /// even if the stream writes nothing more. (The default stream keeps its full block open
    /// until its next allocation, as SSDSim and MQSim do.)
    pub fn close_if_full(&mut self, plane: u32, block: u32) {
        if self.blocks[block].write_ptr as u32 != self.layout.pages_per_block {
            return;
        }
        if self.planes[plane as usize].active[STREAM_HOT as usize] == block {
            self.close(plane, STREAM_HOT);
            self.set_state(block, BlockState::Full);
            self.frontier_moved(plane);
        }
    }

    /// Whether `pin_migration_block` could take a block of `plane` now (besides `keep`).
    pub fn may_pin(&self, plane: u32) -> bool {
        self.planes[plane as usize].active[STREAM_MIGRATION as usize] == NONE && self.may_take(plane, Writer::Host, STREAM_HOT, 0)
    }

    /// The migration stream's block of `plane`, if one is pinned.
    pub fn migration_block(&self, plane: u32) -> Option<u32> {
        Some(self.planes[plane as usize].active[STREAM_MIGRATION as usize]).filter(|&b| b != NONE)
    }

    /// Close the migration stream's block of `plane`: it becomes a GC candidate like any full
    /// block, its unwritten pages unused until it is erased.
    pub fn close_migration_block(&mut self, plane: u32) {
        let b = self.close(plane, STREAM_MIGRATION);
        if b != NONE {
            self.set_state(b, BlockState::Full);
            self.frontier_moved(plane);
        }
    }

    /// The plane's next allocation opens a new block (no open block, or it is full).
    pub fn needs_open(&self, plane: u32) -> bool {
        self.left_in(plane, STREAM_DEFAULT) == 0
    }

    /// The plane's free blocks, in the order they would open. Blocks never used are listed too
    /// (they are moved into the free list on first call, for speed-aware opening).
    pub fn free_list(&mut self, plane: u32) -> &VecDeque<u32> {
        let first = self.layout.first_block_of_plane(plane);
        let bpp = self.layout.blocks_per_plane;
        let ps = &mut self.planes[plane as usize];
        if ps.next_fresh < bpp {
            self.free_lists[plane as usize].extend(first + ps.next_fresh..first + bpp);
            ps.next_fresh = bpp;
        }
        &self.free_lists[plane as usize]
    }

    /// Make free block `block` of `plane` the next one it opens.
    pub fn open_next(&mut self, plane: u32, block: u32) {
        let free = &mut self.free_lists[plane as usize];
        let i = free.iter().position(|&b| b == block).expect("open_next: the block is free in the plane");
        free.remove(i);
        free.push_front(block);
        self.frontier_moved(plane);
    }

    /// The block `peek_allocation(plane, ..)` returns may have changed.
    fn frontier_moved(&mut self, plane: u32) {
        self.planes[plane as usize].frontier_gen += 1;
        let chip = self.layout.chip_of_die(self.layout.die_of_plane(plane));
        self.chip_frontier_gen[chip as usize] += 1;
    }

    /// Bumped whenever the frontier of a plane of `chip` may have changed (`PlaneState::frontier_gen`).
    pub fn chip_frontier_gen(&self, chip: u32) -> u32 {
        self.chip_frontier_gen[chip as usize]
    }

    fn take_free_block(&mut self, plane: u32, rule: OpenRule) -> u32 {
        let (b, at) = self.pick_free(plane, rule);
        let ps = &mut self.planes[plane as usize];
        match at {
            Some(0) => {
                self.free_lists[plane as usize].pop_front();
            }
            Some(i) => {
                self.free_lists[plane as usize].remove(i);
            }
            None => ps.next_fresh += 1,
        }
        ps.free_blocks -= 1;
        ps.free_gen += 1;
        if self.blocks[b].p2l_slot == NO_SLOT {
            self.blocks[b].p2l_slot = self.p2l.take();
        }
        b
    }

    /// Record that `lpn` now lives at `ppn` (just allocated): the old copy, if any, becomes
    /// invalid. Returns that old copy.
    pub fn program(&mut self, lpn: Lpn, ppn: Ppn) -> Option<Ppn> {
        let old = self.l2p.set(lpn, ppn);
        if let Some(old) = old {
            self.invalidate(old);
        }
        let block = self.layout.block_of(ppn);
        self.valid_bits.set(ppn);
        self.blocks[block].valid += 1;
        let slot = self.blocks[block].p2l_slot;
        self.p2l.set(slot, self.layout.page_in_block(ppn), lpn);
        old
    }

    fn invalidate(&mut self, ppn: Ppn) {
        let block = self.layout.block_of(ppn);
        debug_assert!(self.is_valid(ppn));
        self.valid_bits.clear(ppn);
        let b = &mut self.blocks[block];
        b.valid -= 1;
        b.invalid += 1;
        let full = b.state == BlockState::Full;
        if b.valid == 0 && b.state != BlockState::Active {
            self.release_p2l(block);
        }
        if full {
            self.note_block(block);
        }
    }

    /// Set `block`'s state, keeping its plane's fewest-valid index in step.
    #[inline]
    fn set_state(&mut self, block: u32, state: BlockState) {
        self.blocks[block].state = state;
        self.note_block(block);
    }

    /// `block`'s state or valid pages changed: its key in its plane's fewest-valid index, if the
    /// plane has one (`fewest`).
    #[inline]
    fn note_block(&mut self, block: u32) {
        let plane = self.layout.plane_of_block(block);
        if self.fewest.indexed(plane) {
            let m = self.blocks[block];
            let j = block - self.layout.first_block_of_plane(plane);
            self.fewest.set(plane, j, fewest::key(m.state == BlockState::Full, m.valid, j));
        }
    }

    /// The full block of `plane` with the fewest valid pages, the lowest-numbered on ties (greedy
    /// GC's victim, found without looking at every block), once the plane has been collected.
    #[inline]
    pub fn fewest_valid_full(&self, plane: u32) -> Fewest {
        if !self.fewest.indexed(plane) {
            return Fewest::NotIndexed;
        }
        match self.fewest.smallest(plane) {
            fewest::NO_KEY => Fewest::NoFullBlock,
            k => Fewest::Block { block: self.layout.first_block_of_plane(plane) + (k & 0xffff), valid: (k >> 16) as u16 },
        }
    }

    /// `block` holds no valid page and takes no more programs: its reverse map can go to another.
    fn release_p2l(&mut self, block: u32) {
        let slot = std::mem::replace(&mut self.blocks[block].p2l_slot, NO_SLOT);
        if slot != NO_SLOT {
            self.p2l.give_back(slot);
        }
    }

    /// Discard a logical page (TRIM): its physical copy becomes invalid. Returns that copy
    /// (`None`: the page was not mapped).
    pub fn trim(&mut self, lpn: Lpn) -> Option<Ppn> {
        let old = self.l2p.set(lpn, NONE);
        if let Some(old) = old {
            self.invalidate(old);
            self.counters.trimmed_pages += 1;
        }
        old
    }

    // ---- garbage collection

    /// Should GC start in this plane? Free blocks below the floor and no GC already running.
    #[inline]
    pub fn needs_gc(&self, plane: u32) -> bool {
        let ps = &self.planes[plane as usize];
        ps.free_blocks < self.gc_floor && ps.gc_victim == NONE
    }

    /// Mark `block` as the plane's GC victim; returns its valid pages to move.
    pub fn begin_gc(&mut self, plane: u32, block: u32) -> Vec<(Ppn, Lpn)> {
        assert_eq!(self.blocks[block].state, BlockState::Full, "GC victim must be a full block");
        self.set_state(block, BlockState::Victim);
        // From its first collection on, the plane keeps its fewest-valid index (`fewest`).
        if !self.fewest.indexed(plane) {
            let keys = self.blocks.plane(plane).iter().zip(0..).map(|(m, j)| fewest::key(m.state == BlockState::Full, m.valid, j));
            self.fewest.index(plane, keys);
        }
        let moves = self.valid_pages(block);
        let ps = &mut self.planes[plane as usize];
        ps.gc_victim = block;
        ps.gc_pending = moves.len() as u32;
        self.counters.gc_invocations += 1;
        moves
    }

    /// Is the page at `src` still the current copy of `lpn`? (The host may have overwritten or
    /// trimmed it since GC chose the victim; then the move is dropped.)
    #[inline]
    pub fn still_current(&self, lpn: Lpn, src: Ppn) -> bool {
        self.l2p.get(lpn) == Some(src)
    }

    /// A GC move finished (or was dropped); true when the victim has no moves left to wait for.
    pub fn gc_move_done(&mut self, plane: u32, moved: bool) -> bool {
        if moved {
            self.counters.gc_pages_moved += 1;
        }
        let ps = &mut self.planes[plane as usize];
        ps.gc_pending -= 1;
        ps.gc_pending == 0
    }

    /// Erase a block: every page free again, erase count + 1, back to the plane's free pool.
    pub fn erase(&mut self, block: u32) {
        assert_eq!(self.blocks[block].valid, 0, "erasing block {block} with valid pages");
        let plane = self.layout.plane_of_block(block);
        let ppb = self.layout.pages_per_block;
        let first = block * ppb;
        self.valid_bits.clear_range(first, ppb);
        self.release_p2l(block);
        self.blocks[block].write_ptr = 0;
        self.blocks[block].invalid = 0;
        self.blocks[block].erase_count += 1;
        self.set_state(block, BlockState::Free);
        let ps = &mut self.planes[plane as usize];
        if ps.gc_victim == block {
            ps.gc_victim = NONE;
        }
        self.free_lists[plane as usize].push_back(block);
        ps.free_blocks += 1;
        ps.free_gen += 1;
        self.frontier_moved(plane);
        self.counters.erases += 1;
    }

    /// How many moves ahead untimed GC prefetches a move's mapping entry (`collect_untimed`).
    const MOVES_AHEAD: usize = 8;

    /// Untimed GC of one plane until it is back above the floor (preconditioning, tests).
    /// Returns false if no block could be reclaimed.
    pub fn collect_untimed(&mut self, plane: u32, policy: &mut dyn gc::VictimPolicy) -> bool {
        while self.planes[plane as usize].free_blocks < self.gc_floor {
            let Some(victim) = policy.select(self, plane) else { return false };
            let moves = self.begin_gc(plane, victim);
            // Each move rewrites a mapping entry anywhere in the table: fetched `Self::MOVES_AHEAD`
            // moves ahead, their cache misses overlap instead of following one another.
            for &(_, lpn) in moves.iter().take(Self::MOVES_AHEAD) {
                self.l2p.prefetch(lpn);
            }
            for (i, &(_, lpn)) in moves.iter().enumerate() {
                if let Some(&(_, next)) = moves.get(i + Self::MOVES_AHEAD) {
                    self.l2p.prefetch(next);
                }
                let dst = self.allocate(plane, Writer::Gc).expect("GC always finds a page in its reserve");
                self.program(lpn, dst);
                self.gc_move_done(plane, true);
            }
            self.erase(victim);
        }
        true
    }

    /// Untimed host write (preconditioning): allocate, program, collect as needed.
    pub fn write_untimed(&mut self, lpn: Lpn, plane: u32, policy: &mut dyn gc::VictimPolicy) -> Result<(), String> {
        let ppn = match self.allocate(plane, Writer::Host) {
            Some(p) => p,
            None => {
                if !self.collect_untimed(plane, policy) {
                    return Err(format!("plane {plane} is full of valid data; no block can be reclaimed"));
                }
                self.allocate(plane, Writer::Host).ok_or_else(|| format!("plane {plane}: no page after GC"))?
            }
        };
        self.program(lpn, ppn);
        self.counters.host_pages_written += 1;
        if self.needs_gc(plane) && !self.collect_untimed(plane, policy) {
            return Err(format!("plane {plane} is full of valid data; no block can be reclaimed"));
        }
        Ok(())
    }

    /// A cheap check run after every simulation: valid pages add up to mapped pages, and free
    /// counts to free blocks per plane. [`Ftl::check_invariants`] checks everything.
    pub fn quick_check(&self) -> Result<(), String> {
        let mut sums = BlockSums::default();
        for b in self.blocks.iter() {
            sums.add(b);
        }
        self.check_sums(sums)
    }

    /// `quick_check`, every block's erase count (`erase_counts`) and the fewest and most valid
    /// pages of a plane (`plane_valid_range`), in the same pass: the end of every run needs
    /// them, and each walk of the block table is 16 MB on the reference drive (a visible share
    /// of a short run's end).
    pub fn erase_counts_and_check(&self) -> (Vec<u32>, Result<(), String>, (u32, u32)) {
        let mut counts: Vec<u32> = crate::mem::zeroed(self.layout.blocks() as usize);
        // The loops below must not end early: every block is summed.
        debug_assert_eq!(counts.len(), self.blocks.iter().count());
        let mut sums = BlockSums::default();
        let mut range = (u32::MAX, 0);
        let mut blocks = self.blocks.iter();
        for plane in counts.chunks_mut(self.layout.blocks_per_plane as usize) {
            let mut valid = 0u32;
            for (c, b) in plane.iter_mut().zip(&mut blocks) {
                sums.add(b);
                *c = b.erase_count;
                valid += b.valid as u32;
            }
            range = (range.0.min(valid), range.1.max(valid));
        }
        (counts, self.check_sums(sums), range)
    }

    /// The fewest and the most valid pages any plane holds.
    pub fn plane_valid_range(&self) -> (u32, u32) {
        (0..self.layout.planes()).map(|p| self.plane_valid_pages(p)).fold((u32::MAX, 0), |(lo, hi), v| (lo.min(v), hi.max(v)))
    }

    /// Valid pages in `plane`'s blocks (a walk of them).
    pub fn plane_valid_pages(&self, plane: u32) -> u32 {
        let first = self.layout.first_block_of_plane(plane);
        (first..first + self.layout.blocks_per_plane).map(|b| self.blocks[b].valid as u32).sum()
    }

    fn check_sums(&self, BlockSums { valid, invalid, programmed, free }: BlockSums) -> Result<(), String> {
        if valid != self.l2p.mapped() {
            return Err(format!("{valid} valid pages but {} mapped logical pages", self.l2p.mapped()));
        }
        if valid + invalid != programmed {
            return Err(format!("{valid} valid + {invalid} invalid pages but {programmed} programmed (below the write pointers)"));
        }
        if free != self.total_free_blocks() {
            return Err(format!("{free} free blocks but the planes count {}", self.total_free_blocks()));
        }
        Ok(())
    }

    /// Check every FTL invariant; the error names the first one broken.
    /// - every mapped logical page maps to a valid physical page whose reverse entry points back;
    /// - the number of valid bits equals the number of mapped pages, and per-block valid counts
    ///   match the bitmaps;
    /// - per block, valid + invalid + free pages = pages per block (free = above the write pointer);
    /// - per plane, the free count matches the blocks in state Free.
    pub fn check_invariants(&self) -> Result<(), String> {
        let ppb = self.layout.pages_per_block;
        let mut mapped = 0u64;
        for (lpn, ppn) in self.l2p.iter() {
            mapped += 1;
            if !self.is_valid(ppn) {
                return Err(format!("lpn {lpn} maps to ppn {ppn}, which is not valid"));
            }
            if self.lpn_at(ppn) != lpn {
                return Err(format!("ppn {ppn} holds lpn {} but lpn {lpn} maps to it", self.lpn_at(ppn)));
            }
        }
        let mut valid_total = 0u64;
        for b in 0..self.layout.blocks() {
            let first = b * ppb;
            let bits = (first..first + ppb).filter(|&p| self.is_valid(p)).count() as u16;
            if bits != self.blocks[b].valid {
                return Err(format!("block {b}: valid count {} but {bits} valid bits", self.blocks[b].valid));
            }
            let wp = self.blocks[b].write_ptr as u32;
            if (first + wp..first + ppb).any(|p| self.is_valid(p)) {
                return Err(format!("block {b}: a page above the write pointer is valid"));
            }
            let invalid = self.blocks[b].invalid as u32;
            let free = ppb - wp;
            if bits as u32 + invalid + free != ppb {
                return Err(format!("block {b}: {bits} valid + {invalid} invalid + {free} free != {ppb} pages per block"));
            }
            if self.blocks[b].state == BlockState::Free && wp != 0 {
                return Err(format!("block {b} is free but has a write pointer of {wp}"));
            }
            valid_total += bits as u64;
        }
        if valid_total != mapped {
            return Err(format!("{valid_total} valid pages but {mapped} mapped logical pages"));
        }
        for (i, ps) in self.planes.iter().enumerate() {
            let first = self.layout.first_block_of_plane(i as u32);
            let free = (first..first + self.layout.blocks_per_plane).filter(|&b| self.blocks[b].state == BlockState::Free).count() as u32;
            if free != ps.free_blocks {
                return Err(format!("plane {i}: free count {} but {free} free blocks", ps.free_blocks));
            }
            for (s, (&a, &wp)) in ps.active.iter().zip(&ps.open_wp).enumerate() {
                let want = if a == NONE { 0 } else { self.blocks[a].write_ptr };
                if wp != want {
                    return Err(if a == NONE {
                        format!("plane {i}: stream {s} has no open block but the plane keeps a write pointer of {wp} for it")
                    } else {
                        format!("plane {i}: stream {s}'s open block {a} has write pointer {want} but the plane says {wp}")
                    });
                }
            }
        }
        Ok(())
    }
}

/// Latency models that depend on wear read it from the FTL's erase counts.
impl crate::nand::latency::BlockWear for Ftl {
    #[inline]
    fn erase_count(&self, block: u32) -> u32 {
        Ftl::erase_count(self, block)
    }
}

/// Per-block counts summed over the block table (`Ftl::quick_check`).
#[derive(Default, Clone, Copy)]
struct BlockSums {
    valid: u64,
    invalid: u64,
    programmed: u64,
    free: u64,
}

impl BlockSums {
    #[inline(always)]
    fn add(&mut self, b: &BlockMeta) {
        self.valid += b.valid as u64;
        self.invalid += b.invalid as u64;
        self.programmed += b.write_ptr as u64;
        self.free += u64::from(b.state == BlockState::Free);
    }
}

#[cfg(test)]
mod tests {
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
        f.open_rules = [OpenRule::MostWorn, OpenRule::LeastWorn, OpenRule::Oldest];
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
}
