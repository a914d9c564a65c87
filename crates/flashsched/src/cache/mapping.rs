//! The cached mapping table (CMT, DFTL-style): the mapping entries of the logical pages the
//! controller's DRAM holds, at most `capacity`, one per logical page, evicted least recently
//! used first. The full table lives on flash in translation pages of `per_page` entries each
//! (translation page `mvpn` holds the entries of logical pages `mvpn x per_page ..`); an entry
//! that is not cached must be read from its translation page, and a dirty entry written back to
//! it when evicted.

use rustc_hash::FxHashMap;

use super::evict::{EvictionPolicy, Lru};
use crate::nand::Lpn;

/// What a lookup found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// The entry is cached.
    Hit,
    /// The entry has a slot and its translation page's read is under way.
    Waiting,
    /// The entry is not cached.
    Miss,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    lpn: Lpn,
    /// Its translation page's read has not arrived yet.
    waiting: bool,
    dirty: bool,
    /// The other cached entries of its translation page: a list through the slots.
    prev_on_page: u32,
    next_on_page: u32,
}

const NIL: u32 = u32::MAX;

/// An evicted entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Evicted {
    pub lpn: Lpn,
    pub dirty: bool,
}

/// The cached mapping entries.
pub struct MappingCache {
    capacity: u32,
    per_page: u32,
    slots: Vec<Entry>,
    map: FxHashMap<Lpn, u32>,
    free: Vec<u32>,
    lru: Lru,
    /// The first slot of each translation page's cached entries (a write-back visits these, not
    /// the page's every logical page), by translation page (`NIL`: none cached). A vector: there
    /// are few translation pages (one per 819 logical pages on bench8x8), and every miss and
    /// eviction visits it.
    by_page: Vec<u32>,
    /// Reused buffer: a write-back's dirty entries, by logical page.
    scratch: Vec<(Lpn, u32)>,
}

impl MappingCache {
    /// A table of `capacity` entries (at least one) over translation pages of `per_page` entries.
    pub fn new(capacity: u32, per_page: u32) -> Self {
        let capacity = capacity.max(1);
        MappingCache {
            capacity,
            per_page: per_page.max(1),
            slots: Vec::new(),
            map: FxHashMap::default(),
            free: Vec::new(),
            lru: Lru::new(capacity),
            by_page: Vec::new(),
            scratch: Vec::new(),
        }
    }

    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    pub fn per_page(&self) -> u32 {
        self.per_page
    }

    /// Entries held (waiting ones included).
    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The translation page holding `lpn`'s entry.
    #[inline]
    pub fn mvpn(&self, lpn: Lpn) -> u32 {
        lpn / self.per_page
    }

    /// Look `lpn` up; a hit is a use (the entry moves to the most recent end, as MQSim's
    /// `Rerieve_ppa` does).
    pub fn lookup(&mut self, lpn: Lpn) -> Lookup {
        match self.map.get(&lpn) {
            None => Lookup::Miss,
            Some(&s) if self.slots[s as usize].waiting => Lookup::Waiting,
            Some(&s) => {
                self.lru.touched(s);
                Lookup::Hit
            }
        }
    }

    /// Give `lpn` a slot, waiting for its translation page's read or (`waiting` false) valid at
    /// once; while the table is full the least recently used entries that are not waiting leave
    /// first, into `evicted` (with every entry waiting, the table holds more for the moment, and
    /// comes back to its capacity at the next reservations).
    pub fn reserve(&mut self, lpn: Lpn, waiting: bool, evicted: &mut Vec<Evicted>) {
        debug_assert!(!self.map.contains_key(&lpn), "lpn {lpn} already has a slot");
        while self.map.len() as u32 >= self.capacity {
            let slots = &self.slots;
            let Some(v) = self.lru.victim(&|s| !slots[s as usize].waiting) else { break };
            let e = self.slots[v as usize];
            self.map.remove(&e.lpn);
            self.lru.removed(v);
            self.free.push(v);
            self.unlink_from_page(v);
            evicted.push(Evicted { lpn: e.lpn, dirty: e.dirty });
        }
        let mvpn = lpn / self.per_page;
        if mvpn as usize >= self.by_page.len() {
            self.by_page.resize(mvpn as usize + 1, NIL);
        }
        let head = std::mem::replace(&mut self.by_page[mvpn as usize], self.free.last().copied().unwrap_or(self.slots.len() as u32));
        let entry = Entry { lpn, waiting, dirty: false, prev_on_page: NIL, next_on_page: head };
        let s = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = entry;
                s
            }
            None => {
                self.slots.push(entry);
                self.slots.len() as u32 - 1
            }
        };
        if head != NIL {
            self.slots[head as usize].prev_on_page = s;
        }
        self.lru.ensure(s + 1);
        self.map.insert(lpn, s);
        self.lru.inserted(s);
    }

    /// Take slot `s` off its translation page's list.
    fn unlink_from_page(&mut self, s: u32) {
        let e = self.slots[s as usize];
        if e.prev_on_page == NIL {
            let mvpn = e.lpn / self.per_page;
            self.by_page[mvpn as usize] = e.next_on_page;
        } else {
            self.slots[e.prev_on_page as usize].next_on_page = e.next_on_page;
        }
        if e.next_on_page != NIL {
            self.slots[e.next_on_page as usize].prev_on_page = e.prev_on_page;
        }
    }

    /// `lpn`'s translation page arrived: its entry is valid (it keeps its place in the order),
    /// and dirty if `dirty` (the write that waited for it changes it).
    pub fn arrived(&mut self, lpn: Lpn, dirty: bool) {
        if let Some(&s) = self.map.get(&lpn) {
            let e = &mut self.slots[s as usize];
            e.waiting = false;
            e.dirty |= dirty;
        }
    }

    /// `lpn`'s mapping changed (a write, or an entry created for a read): its entry, if cached,
    /// must reach flash before it leaves.
    pub fn set_dirty(&mut self, lpn: Lpn) {
        if let Some(&s) = self.map.get(&lpn) {
            self.slots[s as usize].dirty = true;
        }
    }

    pub fn is_dirty(&self, lpn: Lpn) -> bool {
        self.map.get(&lpn).is_some_and(|&s| self.slots[s as usize].dirty)
    }

    /// Write-back of translation page `mvpn`: its cached dirty entries become clean (with
    /// `touch`, each also moves to the most recent end, as MQSim's `Rerieve_ppa` on them does).
    /// Returns how many were cleaned, and the 512-byte sectors of the translation page holding
    /// its clean valid cached entries (entries of `entry_bytes`): what MQSim's merge read reads.
    pub fn clean_page(&mut self, mvpn: u32, entry_bytes: u32, touch: bool) -> (u32, u32) {
        let first = mvpn * self.per_page;
        let mut sectors = 0u64;
        let mut dirty = std::mem::take(&mut self.scratch);
        dirty.clear();
        let mut s = self.by_page.get(mvpn as usize).copied().unwrap_or(NIL);
        while s != NIL {
            let e = &mut self.slots[s as usize];
            let at = s;
            s = e.next_on_page;
            if e.waiting {
                continue;
            }
            if e.dirty {
                e.dirty = false;
                dirty.push((e.lpn, at));
            } else {
                let bit = ((e.lpn - first) * entry_bytes / 512).min(63);
                sectors |= 1 << bit;
            }
        }
        if touch {
            // In the page's order, as MQSim walks it: the last one cleaned is the most recent.
            dirty.sort_unstable();
            for &(_, s) in &dirty {
                self.lru.touched(s);
            }
        }
        let cleaned = dirty.len() as u32;
        self.scratch = dirty;
        (cleaned, sectors.count_ones())
    }

    /// Bytes of memory the bookkeeping holds.
    pub fn memory_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Entry>() + self.map.capacity() * 9 + self.slots.capacity() * 8 + self.by_page.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn misses_reserve_slots_and_the_least_recently_used_valid_entry_leaves() {
        let mut c = MappingCache::new(2, 819);
        let mut out = Vec::new();
        let mut reserve = |c: &mut MappingCache, lpn, waiting| {
            out.clear();
            c.reserve(lpn, waiting, &mut out);
            out.clone()
        };
        assert_eq!(c.lookup(5), Lookup::Miss);
        assert_eq!(reserve(&mut c, 5, true), vec![]);
        assert_eq!(c.lookup(5), Lookup::Waiting);
        c.arrived(5, false);
        assert_eq!(c.lookup(5), Lookup::Hit);
        reserve(&mut c, 900, false);
        c.set_dirty(900);
        // 5 was used last but one: a third entry evicts it, clean.
        assert_eq!(reserve(&mut c, 7, true), vec![Evicted { lpn: 5, dirty: false }]);
        // Only 900 is valid, and dirty: it goes, though 7 is older.
        assert_eq!(reserve(&mut c, 8, true), vec![Evicted { lpn: 900, dirty: true }]);
        // Both left are waiting: the table holds one more for now.
        assert_eq!(reserve(&mut c, 9, true), vec![]);
        assert_eq!(c.len(), 3);
        // Once they arrived, the next entry brings the table back to its capacity.
        for lpn in [7, 8, 9] {
            c.arrived(lpn, false);
        }
        assert_eq!(reserve(&mut c, 10, false), vec![Evicted { lpn: 7, dirty: false }, Evicted { lpn: 8, dirty: false }]);
        assert_eq!(c.len(), 2);
        assert_eq!(c.mvpn(900), 1);
    }

    #[test]
    fn a_write_back_cleans_its_page_and_counts_the_sectors_of_clean_entries() {
        let mut c = MappingCache::new(8, 819);
        for lpn in [0, 1, 300, 819] {
            c.reserve(lpn, false, &mut Vec::new());
        }
        c.set_dirty(1);
        c.set_dirty(819);
        // lpn 0 (bytes 0-4) and lpn 300 (bytes 1500-1504): sectors 0 and 2, clean; lpn 1 cleaned.
        assert_eq!(c.clean_page(0, 5, false), (1, 2));
        assert!(!c.is_dirty(1) && c.is_dirty(819));
    }
}
