//! SSDSim's DRAM buffer (SSDsim 2.1, `flash.c` `insert2buffer`, `ssd.c` `buffer_management`): a
//! least-recently-used list of nodes, one per logical page, each holding the sectors written to
//! it. Its capacity counts sectors, not pages, and every node is dirty (reads never fill it), so
//! every node that leaves is written to flash.

use rustc_hash::FxHashMap;

use super::evict::{EvictionPolicy, Lru};
use crate::nand::Lpn;

/// A node that left the buffer: its page and sectors, for the caller to program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Departed {
    pub lpn: Lpn,
    pub sectors: u64,
}

/// The buffered pages, at most `max_sectors` sectors in all.
pub struct SectorBuffer {
    max_sectors: u64,
    sectors: u64,
    /// By node: its page and sectors.
    nodes: Vec<(Lpn, u64)>,
    map: FxHashMap<Lpn, u32>,
    free: Vec<u32>,
    lru: Lru,
}

impl SectorBuffer {
    /// A buffer of `max_sectors` sectors (at least one page's worth: the caller checks).
    pub fn new(max_sectors: u64) -> Self {
        SectorBuffer { max_sectors, sectors: 0, nodes: Vec::new(), map: FxHashMap::default(), free: Vec::new(), lru: Lru::new(0) }
    }

    pub fn max_sectors(&self) -> u64 {
        self.max_sectors
    }

    /// Sectors held.
    pub fn sectors(&self) -> u64 {
        self.sectors
    }

    /// Nodes (pages) held.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// A read of `sectors` of `lpn`: the sectors of them the buffer holds. A node holding any of
    /// them moves to the most recent end (SSDSim moves it at each sector it finds); one holding
    /// none of them stays where it is.
    pub fn read(&mut self, lpn: Lpn, sectors: u64) -> u64 {
        let Some(&n) = self.map.get(&lpn) else { return 0 };
        let held = self.nodes[n as usize].1 & sectors;
        if held != 0 {
            self.lru.touched(n);
        }
        held
    }

    /// A write of `sectors` of `lpn` (SSDSim's `insert2buffer`). The nodes it pushes out, least
    /// recently used first, are appended to `out`; it returns whether `lpn` had a node (a hit).
    ///
    /// - No node: least recently used nodes leave until the write's sectors fit (a node leaves
    ///   whole, so more may leave than the write needs), then a node of the write's sectors is
    ///   made at the most recent end.
    /// - A node: it moves to the most recent end; each sector it lacks is added one at a time,
    ///   and when the buffer is full the least recently used node other than this one leaves
    ///   first (SSDSim swaps the node out of the tail).
    pub fn write(&mut self, lpn: Lpn, sectors: u64, out: &mut Vec<Departed>) -> bool {
        if let Some(&n) = self.map.get(&lpn) {
            self.lru.touched(n);
            let mut new = sectors & !self.nodes[n as usize].1;
            while new != 0 {
                let bit = new & new.wrapping_neg();
                new &= new - 1;
                if self.sectors >= self.max_sectors {
                    if let Some(v) = self.lru.victim(&|s| s != n) {
                        out.push(self.remove_node(v));
                    }
                }
                self.nodes[n as usize].1 |= bit;
                self.sectors += 1;
            }
            return true;
        }
        let count = sectors.count_ones() as u64;
        while self.sectors + count > self.max_sectors {
            let Some(v) = self.lru.victim(&|_| true) else { break };
            out.push(self.remove_node(v));
        }
        let n = match self.free.pop() {
            Some(n) => {
                self.nodes[n as usize] = (lpn, sectors);
                n
            }
            None => {
                self.nodes.push((lpn, sectors));
                self.nodes.len() as u32 - 1
            }
        };
        self.lru.ensure(n + 1);
        self.map.insert(lpn, n);
        self.lru.inserted(n);
        self.sectors += count;
        false
    }

    fn remove_node(&mut self, n: u32) -> Departed {
        let (lpn, sectors) = self.nodes[n as usize];
        self.map.remove(&lpn);
        self.lru.removed(n);
        self.free.push(n);
        self.sectors -= sectors.count_ones() as u64;
        Departed { lpn, sectors }
    }

    /// Drop `lpn`'s node (a trim): its data is not written.
    pub fn remove(&mut self, lpn: Lpn) {
        if let Some(&n) = self.map.get(&lpn) {
            self.remove_node(n);
        }
    }

    /// Every node leaves, least recently used first (a flush).
    pub fn drain(&mut self, out: &mut Vec<Departed>) {
        let mut order = Vec::with_capacity(self.map.len());
        self.lru.order(&mut order);
        for n in order {
            out.push(self.remove_node(n));
        }
    }

    /// Bytes of memory the bookkeeping holds.
    pub fn memory_bytes(&self) -> usize {
        self.nodes.capacity() * (std::mem::size_of::<(Lpn, u64)>() + 8) + self.map.capacity() * (std::mem::size_of::<(Lpn, u32)>() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(b: &mut SectorBuffer, lpn: Lpn, sectors: u64) -> (bool, Vec<Departed>) {
        let mut out = Vec::new();
        let hit = b.write(lpn, sectors, &mut out);
        (hit, out)
    }

    #[test]
    fn capacity_counts_sectors_and_whole_nodes_leave_least_recent_first() {
        // Room for 8 sectors.
        let mut b = SectorBuffer::new(8);
        assert_eq!(write(&mut b, 1, 0b0011), (false, vec![]));
        assert_eq!(write(&mut b, 2, 0b1111), (false, vec![]));
        assert_eq!(b.sectors(), 6);
        // Three sectors more do not fit: the least recent node (1, two sectors) leaves whole.
        assert_eq!(write(&mut b, 3, 0b0111), (false, vec![Departed { lpn: 1, sectors: 0b0011 }]));
        assert_eq!(b.sectors(), 7);
        // A read that finds a sector moves its node to the recent end; one that finds none does not.
        assert_eq!(b.read(2, 0b1_0000), 0);
        assert_eq!(b.read(2, 0b0001), 0b0001);
        // Two more: 3 is now the least recent and leaves.
        assert_eq!(write(&mut b, 4, 0b11), (false, vec![Departed { lpn: 3, sectors: 0b0111 }]));
        assert_eq!(b.len(), 2);
    }

    #[test]
    fn a_hit_adds_sectors_one_at_a_time_evicting_other_nodes() {
        let mut b = SectorBuffer::new(8);
        write(&mut b, 1, 0b1111);
        write(&mut b, 2, 0b1111);
        // Node 1 is the least recent; writing two new sectors to it must push out node 2, not 1.
        let (hit, out) = write(&mut b, 1, 0b11_0000);
        assert!(hit);
        assert_eq!(out, vec![Departed { lpn: 2, sectors: 0b1111 }]);
        assert_eq!(b.sectors(), 6);
        assert_eq!(b.read(1, 0xff), 0b11_1111);
        // Rewriting sectors it holds changes nothing but the order.
        assert_eq!(write(&mut b, 1, 0b11), (true, vec![]));
        assert_eq!(b.sectors(), 6);
    }

    #[test]
    fn trims_and_flushes_empty_it() {
        let mut b = SectorBuffer::new(64);
        write(&mut b, 1, 1);
        write(&mut b, 2, 3);
        write(&mut b, 3, 7);
        b.remove(2);
        assert_eq!(b.sectors(), 4);
        let mut out = Vec::new();
        b.drain(&mut out);
        assert_eq!(out, vec![Departed { lpn: 1, sectors: 1 }, Departed { lpn: 3, sectors: 7 }]);
        assert!(b.is_empty());
        assert_eq!(b.sectors(), 0);
    }
}
