//! The logical-to-physical page table, allocated lazily in chunks: a 256 GiB drive has 62 million
//! logical pages, but a trace touches a few million, so memory follows the footprint, not the drive
//! (SSDSim and MQSim allocate every entry up front and spend seconds and gigabytes doing it).

use crate::nand::{Lpn, Ppn, NONE};

const CHUNK_BITS: u32 = 12;
const CHUNK: usize = 1 << CHUNK_BITS;

/// Chunks handed out from one slab (8 MiB of entries).
const SLAB_BITS: u32 = 9;
const SLAB_CHUNKS: usize = 1 << SLAB_BITS;
/// `chunk_at` of a chunk never written.
const NO_CHUNK: u32 = u32::MAX;
/// A slab of chunks: a fixed-size array, so that an entry's index, masked below its length,
/// needs no bounds check. A small drive's slab is mostly address space never touched (with
/// huge pages, the first 2 MiB touched is resident whole).
type Slab = [u32; SLAB_CHUNKS * CHUNK];

/// Where `lpn`'s entry lives in chunk `c`: (slab, index in the slab).
#[inline(always)]
fn slot(c: u32, lpn: Lpn) -> (usize, usize) {
    ((c >> SLAB_BITS) as usize, ((c as usize & (SLAB_CHUNKS - 1)) << CHUNK_BITS) | (lpn as usize & (CHUNK - 1)))
}

/// Entries hold `ppn + 1`, so 0 means unmapped and a new chunk is zeroed memory, which the
/// allocator gets from the OS without writing it. Chunks are numbered in the order they are first
/// written and carved from slabs of `SLAB_CHUNKS` advised as huge pages (`crate::mem`): the
/// entries a run touches are spread over the whole table, and with 4 KiB pages their lookups
/// missed in the TLB as well as in the cache.
pub struct L2p {
    /// Per chunk of the logical space: its number among the chunks handed out, or `NO_CHUNK`.
    chunk_at: Vec<u32>,
    slabs: Vec<Box<Slab>>,
    /// Chunks handed out.
    used: u32,
    mapped: u64,
}

impl L2p {
    pub fn new(logical_pages: u64) -> Self {
        let n = (logical_pages as usize).div_ceil(CHUNK);
        L2p { chunk_at: vec![NO_CHUNK; n], slabs: Vec::new(), used: 0, mapped: 0 }
    }

    /// Room for `logical_pages` logical pages (more than before).
    pub fn grow(&mut self, logical_pages: u64) {
        let n = (logical_pages as usize).div_ceil(CHUNK);
        if n > self.chunk_at.len() {
            self.chunk_at.resize(n, NO_CHUNK);
        }
    }

    /// The entry of `lpn` if its chunk was ever written.
    #[inline]
    fn entry(&self, lpn: Lpn) -> Option<&u32> {
        let c = self.chunk_at[(lpn >> CHUNK_BITS) as usize];
        if c == NO_CHUNK {
            return None;
        }
        let (slab, i) = slot(c, lpn);
        Some(&self.slabs[slab][i])
    }

    #[inline]
    pub fn get(&self, lpn: Lpn) -> Option<Ppn> {
        self.entry(lpn).and_then(|&e| e.checked_sub(1))
    }

    #[inline]
    pub fn prefetch(&self, lpn: Lpn) {
        if let Some(e) = self.entry(lpn) {
            crate::mem::prefetch(e);
        }
    }

    /// Set or clear (`NONE`) the entry; returns the previous mapping.
    #[inline]
    pub fn set(&mut self, lpn: Lpn, ppn: Ppn) -> Option<Ppn> {
        let ci = (lpn >> CHUNK_BITS) as usize;
        if self.chunk_at[ci] == NO_CHUNK {
            self.chunk_at[ci] = self.new_chunk();
        }
        let (slab, i) = slot(self.chunk_at[ci], lpn);
        let e = &mut self.slabs[slab][i];
        let new = if ppn == NONE { 0 } else { ppn + 1 };
        let old = std::mem::replace(e, new).checked_sub(1);
        match (old.is_some(), ppn != NONE) {
            (false, true) => self.mapped += 1,
            (true, false) => self.mapped -= 1,
            _ => {}
        }
        old
    }

    /// Hand out the next chunk, starting a slab when the last one is full.
    #[cold]
    fn new_chunk(&mut self) -> u32 {
        let c = self.used;
        if c as usize % SLAB_CHUNKS == 0 {
            let slab: Box<[u32]> = crate::mem::zeroed(SLAB_CHUNKS * CHUNK).into_boxed_slice();
            self.slabs.push(slab.try_into().expect("a slab's length"));
        }
        self.used += 1;
        c
    }

    pub fn mapped(&self) -> u64 {
        self.mapped
    }

    /// Every (lpn, ppn) pair, for invariant checks.
    pub fn iter(&self) -> impl Iterator<Item = (Lpn, Ppn)> + '_ {
        (0..self.chunk_at.len()).filter(|&ci| self.chunk_at[ci] != NO_CHUNK).flat_map(move |ci| {
            (0..CHUNK).filter_map(move |i| {
                let lpn = ((ci << CHUNK_BITS) + i) as Lpn;
                self.get(lpn).map(|p| (lpn, p))
            })
        })
    }

    pub fn allocated_bytes(&self) -> usize {
        // The chunks handed out (a slab's untouched rest is address space, not memory) and the
        // index of every chunk of the logical space.
        self.used as usize * CHUNK * 4 + self.chunk_at.len() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The table against a plain vector of entries, over more than one slab of chunks written in
    /// scattered order, with entries cleared (also in chunks never written) and overwritten.
    #[test]
    fn the_slabbed_table_is_a_map_from_logical_pages() {
        let pages = (SLAB_CHUNKS * 2 + 37) * CHUNK;
        let mut t = L2p::new(pages as u64);
        let mut want: Vec<Option<Ppn>> = vec![None; pages];
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
        for _ in 0..40_000 {
            let lpn = rng.random_range(0..pages) as Lpn;
            let ppn = if rng.random_range(0..8) == 0 { NONE } else { rng.random_range(0..1u32 << 30) };
            let old = t.set(lpn, ppn);
            assert_eq!(old, want[lpn as usize], "lpn {lpn}");
            want[lpn as usize] = (ppn != NONE).then_some(ppn);
        }
        assert!(t.used as usize > SLAB_CHUNKS, "the test must reach a second slab");
        for (lpn, w) in want.iter().enumerate() {
            assert_eq!(t.get(lpn as Lpn), *w);
        }
        let listed: Vec<(Lpn, Ppn)> = t.iter().collect();
        let expected: Vec<(Lpn, Ppn)> = want.iter().enumerate().filter_map(|(l, w)| w.map(|p| (l as Lpn, p))).collect();
        assert_eq!(listed, expected);
        assert_eq!(t.mapped(), expected.len() as u64);
        let chunks = (0..pages.div_ceil(CHUNK)).filter(|&c| t.chunk_at[c] != NO_CHUNK).count();
        assert_eq!(t.allocated_bytes(), chunks * CHUNK * 4 + pages.div_ceil(CHUNK) * 4);
    }
}
