//! The data cache: one slot per cached logical page, holding a bitmap of its sectors (a write may
//! cover part of a page), in one of three states. Dirty pages reach flash when evicted, flushed or
//! written through; a page being written back stays readable. Every write gives its page a new
//! version, so the end of an older program can tell that the page was written again since.

use rustc_hash::FxHashMap;

use super::evict::EvictionPolicy;
use crate::nand::Lpn;

/// What a cached page holds compared with flash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotState {
    /// The same as flash (read into the cache, or written back).
    Clean,
    /// Newer than flash, and no program of it is under way.
    Dirty,
    /// Being written back: a program of this version is under way.
    Flushing,
}

/// What putting a page into the cache did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Insert {
    /// The page was cached already: its sectors were merged.
    Hit,
    /// A free slot took it.
    Placed,
    /// The policy's victim made room. A `Dirty` victim must now be written to flash by the
    /// caller; a `Flushing` one already is (its program's end finds the page gone); a `Clean`
    /// one is simply dropped.
    Evicted { lpn: Lpn, sectors: u64, state: SlotState, version: u32 },
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    lpn: Lpn,
    sectors: u64,
    state: SlotState,
    version: u32,
}

/// The cached pages, at most `capacity`, evicted in the order of an [`EvictionPolicy`].
pub struct DataCache {
    capacity: u32,
    slots: Vec<Slot>,
    map: FxHashMap<Lpn, u32>,
    free: Vec<u32>,
    policy: Box<dyn EvictionPolicy>,
    /// The version the next write gives its page.
    next_version: u32,
}

impl DataCache {
    /// A cache of `capacity` pages (at least one). `sectors` bitmaps hold up to 64 sectors a page.
    pub fn new(capacity: u32, policy: Box<dyn EvictionPolicy>) -> Self {
        let capacity = capacity.max(1);
        DataCache { capacity, slots: Vec::new(), map: FxHashMap::default(), free: Vec::new(), policy, next_version: 1 }
    }

    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Pages cached.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The eviction policy's name.
    pub fn policy(&self) -> &'static str {
        self.policy.name()
    }

    /// The page's state and the sectors cached, if it is cached.
    pub fn get(&self, lpn: Lpn) -> Option<(SlotState, u64)> {
        self.map.get(&lpn).map(|&s| (self.slots[s as usize].state, self.slots[s as usize].sectors))
    }

    /// A read of `sectors` of `lpn`: the sectors of them the cache holds (0: a miss). Finding the
    /// page counts as a use for the eviction policy, whatever it holds (MQSim's `Get_slot`).
    pub fn read(&mut self, lpn: Lpn, sectors: u64) -> u64 {
        let Some(&s) = self.map.get(&lpn) else {
            return 0;
        };
        self.policy.touched(s);
        self.slots[s as usize].sectors & sectors
    }

    /// A write of `sectors` of `lpn` into the cache: the page becomes dirty, with a new version
    /// (returned with what the insertion did).
    pub fn write(&mut self, lpn: Lpn, sectors: u64) -> (Insert, u32) {
        let version = self.next_version;
        self.next_version = self.next_version.wrapping_add(1).max(1);
        (self.put(lpn, sectors, SlotState::Dirty, version), version)
    }

    /// Cache `sectors` of `lpn` as read from flash (clean; a cached page keeps its state).
    pub fn fill(&mut self, lpn: Lpn, sectors: u64) -> Insert {
        self.put(lpn, sectors, SlotState::Clean, 0)
    }

    fn put(&mut self, lpn: Lpn, sectors: u64, state: SlotState, version: u32) -> Insert {
        use std::collections::hash_map::Entry;
        // A miss (nearly every write of a large working set) costs one lookup and, when the cache
        // is full, one removal.
        let mut evicting = false;
        let s = match self.map.entry(lpn) {
            Entry::Occupied(o) => {
                let s = *o.get();
                let slot = &mut self.slots[s as usize];
                slot.sectors |= sectors;
                if state == SlotState::Dirty {
                    // A write over a page being written back: dirty again, and the program under
                    // way no longer holds its newest data.
                    slot.state = SlotState::Dirty;
                    slot.version = version;
                }
                self.policy.touched(s);
                return Insert::Hit;
            }
            Entry::Vacant(v) => {
                let s = match self.free.pop() {
                    Some(s) => s,
                    None if (self.slots.len() as u32) < self.capacity => {
                        self.slots.push(Slot { lpn, sectors: 0, state: SlotState::Clean, version: 0 });
                        self.slots.len() as u32 - 1
                    }
                    None => {
                        evicting = true;
                        self.policy.victim(&|_| true).expect("a full cache has a page to evict")
                    }
                };
                v.insert(s);
                s
            }
        };
        let mut out = Insert::Placed;
        if evicting {
            let old = self.slots[s as usize];
            self.map.remove(&old.lpn);
            self.policy.removed(s);
            out = Insert::Evicted { lpn: old.lpn, sectors: old.sectors, state: old.state, version: old.version };
        }
        self.slots[s as usize] = Slot { lpn, sectors, state, version };
        self.policy.inserted(s);
        out
    }

    /// Start writing back dirty `lpn` (its program is issued): it stays cached and readable. The
    /// sectors to program and the version they are, or `None` if it is not dirty.
    pub fn start_flush(&mut self, lpn: Lpn) -> Option<(u64, u32)> {
        match self.map.get(&lpn) {
            Some(&s) if self.slots[s as usize].state == SlotState::Dirty => {
                let slot = &mut self.slots[s as usize];
                slot.state = SlotState::Flushing;
                Some((slot.sectors, slot.version))
            }
            _ => None,
        }
    }

    /// The program of `version` of `lpn` is done. If the page is still cached at that version it
    /// is now clean, or, with `drop`, leaves the cache (MQSim drops a written-through page);
    /// written again since, or evicted, it is left as it is.
    pub fn flush_done(&mut self, lpn: Lpn, version: u32, drop: bool) {
        let Some(&s) = self.map.get(&lpn) else { return };
        let slot = &mut self.slots[s as usize];
        if slot.version != version || slot.state != SlotState::Flushing {
            return;
        }
        if drop {
            self.remove(lpn);
        } else {
            slot.state = SlotState::Clean;
        }
    }

    /// Drop `lpn` from the cache whatever its state; returns what it held.
    pub fn remove(&mut self, lpn: Lpn) -> Option<(SlotState, u64)> {
        let s = self.map.remove(&lpn)?;
        self.policy.removed(s);
        self.free.push(s);
        let slot = self.slots[s as usize];
        Some((slot.state, slot.sectors))
    }

    /// The dirty pages, in the order the policy would evict them (a flush writes them back).
    pub fn dirty(&self) -> Vec<Lpn> {
        let mut order = Vec::with_capacity(self.map.len());
        self.policy.order(&mut order);
        order.into_iter().map(|s| self.slots[s as usize]).filter(|x| x.state == SlotState::Dirty).map(|x| x.lpn).collect()
    }

    /// Bytes of memory the bookkeeping holds (slots, map and the policy's order).
    pub fn memory_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot>() + self.map.capacity() * (std::mem::size_of::<(Lpn, u32)>() + 1) + self.capacity as usize * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::evict::Lru;

    fn cache(n: u32) -> DataCache {
        DataCache::new(n, Box::new(Lru::new(n)))
    }

    #[test]
    fn writes_merge_sectors_and_evict_the_least_recently_used_page() {
        let mut c = cache(2);
        assert_eq!(c.write(10, 0b0011).0, Insert::Placed);
        assert_eq!(c.write(11, 0b1111).0, Insert::Placed);
        assert_eq!(c.write(10, 0b1100).0, Insert::Hit, "a rewrite merges");
        assert_eq!(c.get(10), Some((SlotState::Dirty, 0b1111)));
        // 11 is now the least recently used: a third page evicts it, dirty, for the caller to program.
        assert!(matches!(c.write(12, 1).0, Insert::Evicted { lpn: 11, sectors: 0b1111, state: SlotState::Dirty, .. }));
        assert_eq!(c.get(11), None);
        // A read counts as a use: 10 is read, so 12 goes next.
        assert_eq!(c.read(10, 0b0110), 0b0110);
        assert_eq!(c.read(10, 1 << 8), 0, "a sector it does not hold is a miss");
        assert!(matches!(c.fill(13, 0xff), Insert::Evicted { lpn: 12, sectors: 1, state: SlotState::Dirty, .. }));
        assert!(matches!(c.write(14, 1).0, Insert::Evicted { lpn: 10, sectors: 0b1111, state: SlotState::Dirty, .. }));
        // A clean page is evicted as clean: nothing to write.
        assert_eq!(c.write(15, 1).0, Insert::Evicted { lpn: 13, sectors: 0xff, state: SlotState::Clean, version: 0 });
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn a_program_ends_only_the_version_it_wrote() {
        let mut c = cache(4);
        let (_, v1) = c.write(5, 0xff);
        assert_eq!(c.start_flush(5), Some((0xff, v1)));
        assert_eq!(c.start_flush(5), None, "already being written back");
        // Written again while its program runs: the program's end leaves it dirty.
        let (_, v2) = c.write(5, 1);
        assert_ne!(v1, v2);
        c.flush_done(5, v1, true);
        assert_eq!(c.get(5), Some((SlotState::Dirty, 0xff)));
        assert_eq!(c.start_flush(5), Some((0xff, v2)));
        c.flush_done(5, v2, false);
        assert_eq!(c.get(5), Some((SlotState::Clean, 0xff)));
        // MQSim's write-through: the page leaves when its program ends.
        let (_, v3) = c.write(6, 3);
        c.start_flush(6);
        c.flush_done(6, v3, true);
        assert_eq!(c.get(6), None);
    }
}
