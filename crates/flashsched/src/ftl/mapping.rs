//! The logical-to-physical page table, allocated lazily in chunks: a 256 GiB drive has 62 million
//! logical pages, but a trace touches a few million, so memory follows the footprint, not the drive
//! (SSDSim and MQSim allocate every entry up front and spend seconds and gigabytes doing it).

use crate::nand::{Lpn, Ppn, NONE};

const CHUNK_BITS: u32 = 12;
const CHUNK: usize = 1 << CHUNK_BITS;

/// Entries hold `ppn + 1`, so 0 means unmapped and a new chunk is zeroed memory, which the
/// allocator gets from the OS without writing it.
#[derive(Debug, Clone)]
pub struct L2p {
    chunks: Vec<Option<Box<[u32]>>>,
    mapped: u64,
}

impl L2p {
    pub fn new(logical_pages: u64) -> Self {
        let n = (logical_pages as usize).div_ceil(CHUNK);
        L2p { chunks: (0..n).map(|_| None).collect(), mapped: 0 }
    }

    #[inline]
    pub fn get(&self, lpn: Lpn) -> Option<Ppn> {
        match &self.chunks[(lpn >> CHUNK_BITS) as usize] {
            Some(c) => c[lpn as usize & (CHUNK - 1)].checked_sub(1),
            None => None,
        }
    }

    #[inline]
    pub fn prefetch(&self, lpn: Lpn) {
        if let Some(c) = &self.chunks[(lpn >> CHUNK_BITS) as usize] {
            super::prefetch(&c[lpn as usize & (CHUNK - 1)]);
        }
    }

    /// Set or clear (`NONE`) the entry; returns the previous mapping.
    #[inline]
    pub fn set(&mut self, lpn: Lpn, ppn: Ppn) -> Option<Ppn> {
        let slot = &mut self.chunks[(lpn >> CHUNK_BITS) as usize];
        let chunk = slot.get_or_insert_with(|| vec![0u32; CHUNK].into_boxed_slice());
        let new = if ppn == NONE { 0 } else { ppn + 1 };
        let old = std::mem::replace(&mut chunk[lpn as usize & (CHUNK - 1)], new).checked_sub(1);
        match (old.is_some(), ppn != NONE) {
            (false, true) => self.mapped += 1,
            (true, false) => self.mapped -= 1,
            _ => {}
        }
        old
    }

    pub fn mapped(&self) -> u64 {
        self.mapped
    }

    /// Every (lpn, ppn) pair, for invariant checks.
    pub fn iter(&self) -> impl Iterator<Item = (Lpn, Ppn)> + '_ {
        self.chunks.iter().enumerate().flat_map(|(ci, c)| {
            c.iter().flat_map(move |c| {
                c.iter().enumerate().filter(|(_, &p)| p != 0).map(move |(i, &p)| (((ci << CHUNK_BITS) + i) as Lpn, p - 1))
            })
        })
    }

    pub fn allocated_bytes(&self) -> usize {
        self.chunks.iter().filter(|c| c.is_some()).count() * CHUNK * 4 + self.chunks.len() * 8
    }
}
