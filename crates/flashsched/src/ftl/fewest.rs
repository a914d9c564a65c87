//! The full block with the fewest valid pages in each plane (greedy GC's victim), kept up to date
//! once a plane has been collected.
//!
//! Why: greedy GC looked at every block of the plane for each victim. On a large drive under
//! steady GC that walk is most of the work: 2,048 records of 16 bytes a plane on the reference
//! drive, cold in cache because other planes' work came between two collections of this one (a
//! third of preconditioning a full `bench8x8` with overwrites; 5% of the GC-heavy benchmark, whose
//! planes are about half as large). A tournament tree per plane answers in one read and changes
//! in a walk from a leaf towards the root when a full block loses a valid page, a block becomes
//! full, or a full block is taken as a victim.
//!
//! The tree holds one key per block: `valid << 16 | index in the plane` for a full block, no key
//! (`u32::MAX`) for any other, so its minimum is the full block with the fewest valid pages, the
//! lowest-numbered on ties: the scan's answer exactly. (The one full block whose key is
//! `u32::MAX`, 65,535 valid pages at index 65,535, holds a whole block of valid pages: greedy
//! never takes it either way.) Four-byte keys keep a plane of 2,048 blocks in 16 KiB (8 MiB for
//! the 512 planes of the reference drive, half its block table), and were 5% faster than
//! eight-byte ones when preconditioning it. A plane gets its tree when it is first collected
//! (`Ftl::begin_gc`), so runs without GC (and planes a run never collects) pay only a test
//! where a full block loses a page. Planes of more than `MAX_LEAVES` blocks keep the scan: a
//! block's index must fit the key's low 16 bits.

/// What a plane's index says (`Ftl::fewest_valid_full`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fewest {
    /// The plane has no index (not collected yet, or too large): look at its blocks.
    NotIndexed,
    /// No block of the plane is full.
    NoFullBlock,
    /// The full block with the fewest valid pages (`valid`), the lowest-numbered on ties.
    Block { block: u32, valid: u16 },
}

/// No candidate: the block is not full.
pub(super) const NO_KEY: u32 = u32::MAX;

/// The largest plane indexed (blocks): a block's index must fit the key's low 16 bits (65,536
/// blocks make a 512 KiB tree).
const MAX_LEAVES: usize = 1 << 16;

/// A block's key: full blocks by valid pages, then by index in the plane (below `MAX_LEAVES`).
#[inline]
pub(super) fn key(full: bool, valid: u16, index: u32) -> u32 {
    debug_assert!((index as usize) < MAX_LEAVES);
    if full { (u32::from(valid) << 16) | index } else { NO_KEY }
}

#[derive(Debug, Clone)]
pub(super) struct FewestValid {
    /// Leaves of a tree: the blocks per plane rounded up to a power of two (0: no plane indexed).
    leaves: usize,
    /// Per plane, empty until the plane is indexed; then the tree in heap order: node 1 the
    /// root, node `i`'s children `2i` and `2i + 1`, the leaf of the plane's block `j` at
    /// `leaves + j` (leaves past the last block hold no key).
    trees: Vec<Vec<u32>>,
}

impl FewestValid {
    pub fn new(planes: u32, blocks_per_plane: u32) -> Self {
        let leaves = (blocks_per_plane as usize).next_power_of_two();
        FewestValid { leaves: if leaves <= MAX_LEAVES { leaves } else { 0 }, trees: vec![Vec::new(); planes as usize] }
    }

    /// Is `plane` indexed (its tree built and kept)?
    #[inline]
    pub fn indexed(&self, plane: u32) -> bool {
        !self.trees[plane as usize].is_empty()
    }

    /// Index `plane` from its blocks' keys, in block order (nothing when it is indexed already,
    /// or too large to be).
    pub fn index(&mut self, plane: u32, keys: impl Iterator<Item = u32>) {
        if self.leaves == 0 || self.indexed(plane) {
            return;
        }
        let n = self.leaves;
        let mut tree = vec![NO_KEY; 2 * n];
        for (leaf, k) in tree[n..].iter_mut().zip(keys) {
            *leaf = k;
        }
        for i in (1..n).rev() {
            tree[i] = tree[2 * i].min(tree[2 * i + 1]);
        }
        self.trees[plane as usize] = tree;
    }

    /// Block `index` of an indexed `plane` now has key `k`.
    #[inline]
    pub fn set(&mut self, plane: u32, index: u32, k: u32) {
        let tree = &mut self.trees[plane as usize];
        let mut i = self.leaves + index as usize;
        if tree[i] == k {
            return;
        }
        tree[i] = k;
        // Towards the root while the minimum below a node changes.
        while i > 1 {
            let parent = i / 2;
            let m = tree[i].min(tree[i ^ 1]);
            if tree[parent] == m {
                break;
            }
            tree[parent] = m;
            i = parent;
        }
    }

    /// Hint that block `index` of an indexed `plane` will change soon: its leaf and its parent,
    /// in different cache lines (where a walk up usually stops).
    #[inline]
    pub fn prefetch(&self, plane: u32, index: u32) {
        let tree = &self.trees[plane as usize];
        let leaf = self.leaves + index as usize;
        crate::mem::prefetch(&tree[leaf]);
        crate::mem::prefetch(&tree[leaf / 2]);
    }

    /// The smallest key of an indexed `plane` (`NO_KEY`: no full block).
    #[inline]
    pub fn smallest(&self, plane: u32) -> u32 {
        self.trees[plane as usize][1]
    }

    pub fn allocated_bytes(&self) -> usize {
        self.trees.iter().map(|t| t.len() * 4).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// After any sequence of key changes, the root is the smallest key, as a scan finds it;
        /// on planes whose block count is not a power of two too.
        #[test]
        fn the_root_is_the_smallest_key(
            blocks in 1u32..40,
            start in proptest::collection::vec((any::<bool>(), 0u16..6), 40),
            changes in proptest::collection::vec((0u32..40, any::<bool>(), 0u16..6), 0..200),
        ) {
            let mut f = FewestValid::new(2, blocks);
            let mut keys: Vec<u32> = (0..blocks).map(|j| key(start[j as usize].0, start[j as usize].1, j)).collect();
            f.index(1, keys.iter().copied());
            prop_assert!(!f.indexed(0) && f.indexed(1));
            prop_assert_eq!(f.smallest(1), keys.iter().copied().min().unwrap());
            for (j, full, valid) in changes {
                let j = j % blocks;
                keys[j as usize] = key(full, valid, j);
                f.set(1, j, keys[j as usize]);
                prop_assert_eq!(f.smallest(1), keys.iter().copied().min().unwrap());
            }
        }
    }

    #[test]
    fn keys_order_by_valid_pages_then_by_block() {
        assert!(key(true, 3, 9) < key(true, 4, 0));
        assert!(key(true, 3, 1) < key(true, 3, 2));
        assert!(key(true, u16::MAX - 1, (MAX_LEAVES - 1) as u32) < NO_KEY);
        assert!(key(true, u16::MAX, (MAX_LEAVES - 2) as u32) < NO_KEY);
        assert_eq!(key(false, 0, 0), NO_KEY);
    }

    #[test]
    fn planes_too_large_are_not_indexed() {
        let mut f = FewestValid::new(1, (MAX_LEAVES + 1) as u32);
        f.index(0, std::iter::empty());
        assert!(!f.indexed(0));
        assert_eq!(f.allocated_bytes(), 0);
    }
}
