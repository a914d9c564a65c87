//! The FTL's invariants, checked: a cheap check after every run, and the whole one (every page's
//! mapping against the blocks' bitmaps and counts) that the property tests and `--check-invariants`
//! run.

use super::*;

impl Ftl {
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
            // Every block in state Active is a stream's open block or a parked migration block.
            let active = (first..first + self.layout.blocks_per_plane).filter(|&b| self.blocks[b].state == BlockState::Active).count() as u32;
            let open = ps.active.iter().filter(|&&a| a != NONE).count() as u32;
            if active != open + self.parked_blocks(i as u32) {
                return Err(format!("plane {i}: {active} active blocks but {open} open and {} parked", self.parked_blocks(i as u32)));
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
