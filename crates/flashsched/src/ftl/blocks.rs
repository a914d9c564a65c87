//! Per-block records and per-page valid bits, laid out so that the blocks the drive is writing
//! do not fight over the same cache sets.
//!
//! Why the padding: blocks are numbered plane by plane, so the open blocks of the drive's planes
//! (the ones every write touches) sit `blocks_per_plane` records apart, a power of two on most
//! geometries. With 2,048 blocks of 16 bytes that is a 32 KiB stride, and every address 32 KiB
//! apart falls into the same few sets of a set-associative cache: the 512 open blocks of the
//! reference drive competed for 2 sets of a 1 MiB, 16-way cache, and about one program in two missed
//! in L2 on its own block's record (cachegrind, docs/performance.md). One cache line of padding
//! after each plane's records staggers the planes over all sets. The valid bits get the same
//! treatment. Nothing outside this module sees the padding.

use super::BlockState;
use crate::nand::{Divisor, Layout, Ppn};

/// What the FTL knows about one erase block.
#[derive(Debug, Clone, Copy)]
pub(super) struct BlockMeta {
    /// Valid pages.
    pub valid: u16,
    /// Pages invalidated since the last erase (overwritten, trimmed or moved by GC), counted as
    /// they happen, so that valid + invalid + free = pages per block is a real check.
    pub invalid: u16,
    /// Next page to program; pages below it are programmed (valid or invalid), above it free.
    pub write_ptr: u16,
    pub state: BlockState,
    pub erase_count: u32,
    /// The block's slot in the reverse map (`super::p2l`), taken when the block is first opened;
    /// `NO_SLOT` (0) while it has none.
    pub p2l_slot: u32,
}

// SAFETY: integers, and `BlockState`, whose `Free` is 0: all-zero bytes are a free block that was
// never erased and has no reverse-map slot, which is what every block starts as.
unsafe impl crate::mem::ZeroValid for BlockMeta {}
const _: () = assert!(BlockState::Free as u8 == 0, "an all-zero block record must be a free block");

// One 16-byte record, so that a program touches one cache line of block metadata.
const _: () = assert!(std::mem::size_of::<BlockMeta>() == 16);

/// Records of padding after each plane's blocks: one 64-byte cache line.
const META_PAD: u32 = 64 / std::mem::size_of::<BlockMeta>() as u32;
/// Words of padding after each plane's valid bits: one 64-byte cache line.
const BITS_PAD: u32 = 8;

/// Block records, indexed by global block number.
#[derive(Debug, Clone)]
pub(super) struct BlockTable {
    metas: Vec<BlockMeta>,
    /// Blocks per plane.
    per_plane: Divisor,
}

impl BlockTable {
    /// Every block free, never erased, without a reverse-map slot: all-zero records, so the table
    /// is zeroed memory, resident only where it is touched (`mem::zeroed_records`).
    pub fn new(layout: &Layout) -> Self {
        let n = (layout.planes() * (layout.blocks_per_plane + META_PAD)) as usize;
        BlockTable { metas: crate::mem::zeroed_records(n), per_plane: Divisor::new(layout.blocks_per_plane) }
    }

    #[inline(always)]
    fn index(&self, block: u32) -> usize {
        (block + self.per_plane.div(block) * META_PAD) as usize
    }

    /// The records of `plane`'s blocks, in block order: a plane's records are contiguous (the
    /// padding follows them), so a policy that looks at every block of a plane walks a slice.
    #[inline]
    pub fn plane(&self, plane: u32) -> &[BlockMeta] {
        let bpp = self.per_plane.get() as usize;
        let first = plane as usize * (bpp + META_PAD as usize);
        &self.metas[first..first + bpp]
    }

    /// Every block's record, in block order (no padding).
    pub fn iter(&self) -> impl Iterator<Item = &BlockMeta> + '_ {
        let bpp = self.per_plane.get() as usize;
        self.metas.chunks(bpp + META_PAD as usize).flat_map(move |c| &c[..bpp])
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut BlockMeta> + '_ {
        let bpp = self.per_plane.get() as usize;
        let stride = bpp + META_PAD as usize;
        self.metas.chunks_mut(stride).flat_map(move |c| &mut c[..bpp])
    }

    pub fn allocated_bytes(&self) -> usize {
        self.metas.len() * std::mem::size_of::<BlockMeta>()
    }
}

impl std::ops::Index<u32> for BlockTable {
    type Output = BlockMeta;
    #[inline(always)]
    fn index(&self, block: u32) -> &BlockMeta {
        let i = BlockTable::index(self, block);
        &self.metas[i]
    }
}

impl std::ops::IndexMut<u32> for BlockTable {
    #[inline(always)]
    fn index_mut(&mut self, block: u32) -> &mut BlockMeta {
        let i = BlockTable::index(self, block);
        &mut self.metas[i]
    }
}

/// One bit per physical page: set while the page holds the current copy of a logical page.
#[derive(Debug, Clone)]
pub(super) struct ValidBits {
    words: Vec<u64>,
    per_plane: Divisor,
}

impl ValidBits {
    pub fn new(layout: &Layout) -> Self {
        // Words of consecutive pages; a word may hold pages of two planes when a plane's pages are
        // not a multiple of 64: each plane's part of it then lives in that plane's own copy.
        let n = (layout.pages().div_ceil(64) + layout.planes() as u64 * BITS_PAD as u64) as usize;
        // calloc: untouched pages of a large drive cost no memory or time.
        ValidBits { words: crate::mem::zeroed(n), per_plane: Divisor::new(layout.pages_per_plane) }
    }

    /// The word holding `ppn`'s bit.
    #[inline(always)]
    fn word(&self, ppn: Ppn) -> usize {
        (ppn >> 6) as usize + (self.per_plane.div(ppn) * BITS_PAD) as usize
    }

    #[inline]
    pub fn get(&self, ppn: Ppn) -> bool {
        self.words[self.word(ppn)] & (1u64 << (ppn & 63)) != 0
    }
    #[inline]
    pub fn set(&mut self, ppn: Ppn) {
        let w = self.word(ppn);
        self.words[w] |= 1u64 << (ppn & 63);
    }
    #[inline]
    pub fn clear(&mut self, ppn: Ppn) {
        let w = self.word(ppn);
        self.words[w] &= !(1u64 << (ppn & 63));
    }
    #[inline]
    pub fn prefetch(&self, ppn: Ppn) {
        crate::mem::prefetch(&self.words[self.word(ppn)]);
    }

    /// Clear the bits of pages `first..first + n` (one block: all in one plane).
    pub fn clear_range(&mut self, first: Ppn, n: u32) {
        let skew = (self.per_plane.div(first) * BITS_PAD) as usize;
        for w in (first >> 6)..=((first + n - 1) >> 6) {
            // Clear only these pages' bits (a word may be shared with a neighbour when n < 64).
            let lo = first.max(w << 6);
            let hi = (first + n).min((w + 1) << 6);
            let mask = if hi - lo == 64 { u64::MAX } else { ((1u64 << (hi - lo)) - 1) << (lo & 63) };
            self.words[w as usize + skew] &= !mask;
        }
    }

    pub fn allocated_bytes(&self) -> usize {
        self.words.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Geometry;

    fn layout(planes_per_die: u32, blocks_per_plane: u32, pages_per_block: u32) -> Layout {
        Layout::new(&Geometry { channels: 2, chips_per_channel: 1, dies_per_chip: 1, planes_per_die, blocks_per_plane, pages_per_block, page_size: 4096 })
    }

    #[test]
    fn padded_tables_behave_as_plain_arrays() {
        // Odd sizes too: a plane's pages need not be a multiple of 64, nor its blocks a power of two.
        for (ppd, bpp, ppb) in [(2, 8, 64), (2, 3, 7), (4, 5, 100), (1, 1, 1)] {
            let l = layout(ppd, bpp, ppb);
            let mut t = BlockTable::new(&l);
            assert!(t.iter().all(|m| m.valid == 0 && m.invalid == 0 && m.write_ptr == 0 && m.state == BlockState::Free && m.erase_count == 0 && m.p2l_slot == 0));
            for b in 0..l.blocks() {
                t[b].erase_count = b * 3 + 1;
            }
            let counts: Vec<u32> = t.iter().map(|m| m.erase_count).collect();
            assert_eq!(counts, (0..l.blocks()).map(|b| b * 3 + 1).collect::<Vec<_>>());
            t.iter_mut().for_each(|m| m.erase_count += 1);
            assert!((0..l.blocks()).all(|b| t[b].erase_count == b * 3 + 2));

            let mut v = ValidBits::new(&l);
            let pages = l.pages() as u32;
            let mut plain = vec![false; pages as usize];
            for p in (0..pages).filter(|p| p % 3 != 1) {
                v.set(p);
                plain[p as usize] = true;
            }
            for b in (0..l.blocks()).step_by(2) {
                v.clear_range(b * ppb, ppb);
                plain[(b * ppb) as usize..((b + 1) * ppb) as usize].fill(false);
            }
            v.clear(pages - 1);
            plain[pages as usize - 1] = false;
            assert!((0..pages).all(|p| v.get(p) == plain[p as usize]), "geometry {ppd}x{bpp}x{ppb}");
        }
    }
}
