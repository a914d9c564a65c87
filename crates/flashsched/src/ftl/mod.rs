//! The page-level FTL's state: logical-to-physical mapping, per-block valid bitmaps and counts,
//! write pointers, erase counts, and each plane's active block and free blocks.
//!
//! This module is untimed bookkeeping. The simulator decides *when* a program, a GC move or an
//! erase happens and calls in here at that moment; preconditioning calls the same functions with no
//! time at all. Its invariants ([`Ftl::check_invariants`], in `check.rs`) are property-tested;
//! where in a plane writes go (open blocks per stream, free blocks) is `frontier.rs`.

pub mod alloc;
pub mod gc;
pub mod grouping;
pub mod idle;
pub mod pattern;
pub mod speed;
pub mod wear;
mod blocks;
mod check;
mod fewest;
mod frontier;
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
/// Wear leveling's own collections (`WlAction::Collect`): the cold pages they move go to blocks
/// opened most-erased-first (Pattern §II-C, §III-C: "to other free blocks having a relative high
/// erase count"), never among host writes or routine GC's moves. A move takes a page here while
/// the stream's open block has one, or a new block opens leaving GC a block's worth of free
/// pages; otherwise it goes to the default stream, as any GC move (`Ftl::stream_for`).
pub const STREAM_WEAR: Stream = 3;
/// The cached mapping table's translation pages (`ftl.mapping_cache`): the table's own writes go
/// to blocks of their own, never among data (GC moves the pages it collects into GC's stream, as
/// any page).
pub const STREAM_MAPPING: Stream = 4;
pub const STREAMS: usize = 5;

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
    /// The free block with the largest speed key (`Ftl::set_speed_keys`; VIOS: the fastest
    /// detected program step) of the plane (ties: oldest).
    Fastest,
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
    /// Per block, what `OpenRule::Fastest` ranks free blocks by (empty unless a stream uses it).
    speed_keys: Vec<u16>,
    /// Per plane, the free block `OpenRule::Fastest` picks and its index in the free list, once
    /// found (`None`: to be found again; forgotten at every change of the list or of a key).
    fastest: Vec<std::cell::Cell<Option<(u32, usize)>>>,
    /// Each collected plane's full block with the fewest valid pages (`fewest`): kept in step
    /// with every change of a block's state (`set_state`) and of a full block's valid pages.
    fewest: FewestValid,
    /// Per plane, migration blocks parked out of the migration stream while their block set waits
    /// for its partner (`park_migration_block`); empty until one is parked.
    parked: Vec<u16>,
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
            open_rules: [OpenRule::Oldest, OpenRule::Oldest, OpenRule::Oldest, OpenRule::MostWorn, OpenRule::Oldest],
            chip_frontier_gen: vec![0; layout.chips() as usize],
            speed_keys: Vec::new(),
            fastest: vec![std::cell::Cell::new(None); layout.planes() as usize],
            fewest: FewestValid::new(layout.planes(), layout.blocks_per_plane),
            parked: Vec::new(),
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

    // ---- programming (allocation, the write frontiers: frontier.rs)

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
        self.fastest[plane as usize].set(None);
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

    /// `extra` more logical pages past the current ones (the cached mapping table's translation
    /// pages, `sim::mapping`).
    pub fn add_logical_pages(&mut self, extra: u64) {
        self.logical_pages += extra;
        self.l2p.grow(self.logical_pages);
    }

    /// Untimed host write (preconditioning): allocate, program, collect as needed.
    pub fn write_untimed(&mut self, lpn: Lpn, plane: u32, policy: &mut dyn gc::VictimPolicy) -> Result<(), String> {
        self.write_untimed_in(lpn, plane, STREAM_DEFAULT, policy)
    }

    /// `write_untimed` into `stream`'s open block.
    pub fn write_untimed_in(&mut self, lpn: Lpn, plane: u32, stream: Stream, policy: &mut dyn gc::VictimPolicy) -> Result<(), String> {
        let ppn = match self.allocate_in(plane, Writer::Host, stream) {
            Some(p) => p,
            None => {
                if !self.collect_untimed(plane, policy) {
                    return Err(format!("plane {plane} is full of valid data; no block can be reclaimed"));
                }
                self.allocate_in(plane, Writer::Host, stream).ok_or_else(|| format!("plane {plane}: no page after GC"))?
            }
        };
        self.program(lpn, ppn);
        self.counters.host_pages_written += 1;
        if self.needs_gc(plane) && !self.collect_untimed(plane, policy) {
            return Err(format!("plane {plane} is full of valid data; no block can be reclaimed"));
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

#[cfg(test)]
mod tests;
