//! The physical-to-logical (reverse) map: for each block that holds data, the logical page each of
//! its pages stores. GC reads it to know what a victim's valid pages are.
//!
//! A block gets a slot of `pages_per_block` entries when it is first opened and gives it back when
//! it holds no valid page any more, so the map follows the blocks holding data, not every block
//! ever written. Slots live in segments of about 8 MiB, each zeroed memory from the allocator
//! advised as huge pages (`crate::mem`, as the mapping's slabs are), taken as the slots handed
//! out need them and never moved. The first version was one vector
//! grown by doubling and filled with a marker: every growth copied the whole map into fresh pages,
//! and together with the fill that was a third of the reference benchmark's page faults (in this
//! virtual machine a fault, and the zeroing of the huge page behind it, is the costliest thing a
//! short run does outside the simulation; docs/performance.md, "What limits the speed"). Entries are never
//! read before they are written (only valid pages' entries are read, and each is written when its
//! page is programmed), so a slot needs no fill, not even when it is reused.

use crate::nand::{Divisor, Lpn};

/// No slot: a block's record holds it until the block is first opened. Slot 0 is never handed
/// out, so that a new block's all-zero record means "no slot" (`blocks::BlockMeta`).
pub(super) const NO_SLOT: u32 = 0;

/// Entries in a segment, at least (one slot's when a block has more pages): 8 MiB of them, large
/// enough to hold whole huge pages (with 2 MiB segments, `mem` gave none: 15% more page faults on
/// the reference benchmark).
const SEGMENT_ENTRIES: u32 = 1 << 21;

#[derive(Debug, Clone)]
pub(super) struct ReverseMap {
    segments: Vec<Box<[Lpn]>>,
    /// Slots a segment holds, and entries a slot holds (pages per block).
    per_segment: Divisor,
    per_slot: u32,
    /// Slots handed out (counting slot 0, which never is), and those given back for reuse.
    used: u32,
    free: Vec<u32>,
}

impl ReverseMap {
    pub fn new(pages_per_block: u32) -> Self {
        ReverseMap {
            segments: Vec::new(),
            per_segment: Divisor::new((SEGMENT_ENTRIES / pages_per_block).max(1)),
            per_slot: pages_per_block,
            used: 1,
            free: Vec::new(),
        }
    }

    /// A slot for a block being opened: one given back, or the next new one.
    pub fn take(&mut self) -> u32 {
        if let Some(s) = self.free.pop() {
            return s;
        }
        let s = self.used;
        let n = (self.per_segment.get() * self.per_slot) as usize;
        while self.segments.len() <= self.per_segment.div(s) as usize {
            self.segments.push(crate::mem::zeroed(n).into_boxed_slice());
        }
        self.used += 1;
        s
    }

    /// The block holding `slot` keeps no valid page: the slot may go to another block.
    pub fn give_back(&mut self, slot: u32) {
        self.free.push(slot);
    }

    /// Where entry `page` of `slot` lives: (segment, index in it).
    #[inline(always)]
    fn at(&self, slot: u32, page: u32) -> (usize, usize) {
        debug_assert!(slot != NO_SLOT && slot < self.used && page < self.per_slot);
        let seg = self.per_segment.div(slot);
        (seg as usize, ((slot - seg * self.per_segment.get()) * self.per_slot + page) as usize)
    }

    #[inline]
    pub fn get(&self, slot: u32, page: u32) -> Lpn {
        let (s, i) = self.at(slot, page);
        self.segments[s][i]
    }

    /// Hint that the entries of `slot` will be read soon (a GC victim's pages, in order).
    #[inline]
    pub fn prefetch_slot(&self, slot: u32) {
        let (s, i) = self.at(slot, 0);
        let entries = &self.segments[s][i..i + self.per_slot as usize];
        for line in entries.chunks(16) {
            crate::mem::prefetch(&line[0]);
        }
    }

    #[inline]
    pub fn set(&mut self, slot: u32, page: u32, lpn: Lpn) {
        let (s, i) = self.at(slot, page);
        self.segments[s][i] = lpn;
    }

    /// Bytes of the slots handed out (a segment's untouched rest is address space, not memory).
    pub fn allocated_bytes(&self) -> usize {
        (self.used - 1) as usize * self.per_slot as usize * std::mem::size_of::<Lpn>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Slots taken, written, given back and reused across several segments, for a power-of-two
    /// block and two that are not (one larger than a segment), against a map of what was written.
    #[test]
    fn slots_keep_what_was_written_across_segments() {
        for ppb in [64u32, 1152, SEGMENT_ENTRIES + 3] {
            let mut m = ReverseMap::new(ppb);
            let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(ppb as u64);
            let mut held: Vec<(u32, Vec<(u32, Lpn)>)> = Vec::new();
            let mut out = std::collections::HashSet::new();
            let want_slots = 3 * m.per_segment.get() + 1;
            while m.used < want_slots {
                if !held.is_empty() && rng.random_range(0..4) == 0 {
                    let (slot, _) = held.swap_remove(rng.random_range(0..held.len()));
                    out.remove(&slot);
                    m.give_back(slot);
                    continue;
                }
                let slot = m.take();
                assert_ne!(slot, NO_SLOT);
                assert!(out.insert(slot), "slot {slot} handed out twice");
                let pages: Vec<(u32, Lpn)> = (0..8).map(|_| (rng.random_range(0..ppb), rng.random())).collect();
                for &(p, l) in &pages {
                    m.set(slot, p, l);
                }
                held.push((slot, pages));
            }
            assert!(m.segments.len() >= 3, "ppb {ppb}: the test must span segments");
            for (slot, pages) in &held {
                // The last write of a page wins.
                for (k, &(p, l)) in pages.iter().enumerate() {
                    if !pages[k + 1..].iter().any(|&(q, _)| q == p) {
                        assert_eq!(m.get(*slot, p), l, "ppb {ppb} slot {slot} page {p}");
                    }
                }
            }
            assert_eq!(m.allocated_bytes(), (m.used - 1) as usize * ppb as usize * 4);
        }
    }
}
