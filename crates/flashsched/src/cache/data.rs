//! The data cache: one slot per cached logical page, holding a bitmap of its sectors (a
//! write may cover part of a page), in one of three states. Dirty pages reach flash when evicted
//! or flushed; a page being written back stays readable and cannot be evicted until its program
//! is done, and a write to it meanwhile leaves it dirty again afterwards.

use rustc_hash::FxHashMap;

use super::evict::EvictionPolicy;
use crate::nand::Lpn;

/// What a cached page holds compared with flash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotState {
    /// The same as flash (read into the cache, or written back).
    Clean,
    /// Newer than flash.
    Dirty,
    /// Being written back (its program issued, not done).
    Flushing,
}

/// What putting a page into the cache did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Insert {
    /// The page was cached already: its sectors were merged.
    Hit,
    /// A free slot took it.
    Placed,
    /// The policy's victim made room: `dirty` pages must now be written to flash by the caller.
    Evicted { lpn: Lpn, sectors: u64, dirty: bool },
    /// Every slot is being written back: nothing was cached (the caller waits for a program).
    Full,
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    lpn: Lpn,
    sectors: u64,
    state: SlotState,
    /// Written again while `Flushing`: dirty once the write-back is done.
    rewritten: bool,
}

/// The cached pages, at most `capacity`, evicted in the order of an [`EvictionPolicy`].
pub struct DataCache {
    capacity: u32,
    slots: Vec<Slot>,
    map: FxHashMap<Lpn, u32>,
    free: Vec<u32>,
    policy: Box<dyn EvictionPolicy>,
}

impl DataCache {
    /// A cache of `capacity` pages (at least one). `sectors` bitmaps hold up to 64 sectors a page.
    pub fn new(capacity: u32, policy: Box<dyn EvictionPolicy>) -> Self {
        let capacity = capacity.max(1);
        DataCache {
            capacity,
            slots: Vec::new(),
            map: FxHashMap::default(),
            free: Vec::new(),
            policy,
        }
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
        self.map
            .get(&lpn)
            .map(|&s| (self.slots[s as usize].state, self.slots[s as usize].sectors))
    }

    /// A read of `sectors` of `lpn`: the sectors of them the cache holds (0: a miss). A hit
    /// counts as a use for the eviction policy.
    pub fn read(&mut self, lpn: Lpn, sectors: u64) -> u64 {
        let Some(&s) = self.map.get(&lpn) else {
            return 0;
        };
        let held = self.slots[s as usize].sectors & sectors;
        if held != 0 {
            self.policy.touched(s);
        }
        held
    }

    /// A write of `sectors` of `lpn` into the cache: the page becomes (or stays) dirty.
    pub fn write(&mut self, lpn: Lpn, sectors: u64) -> Insert {
        self.put(lpn, sectors, SlotState::Dirty)
    }

    /// Cache `sectors` of `lpn` as read from flash (clean; a dirty page keeps its state).
    pub fn fill(&mut self, lpn: Lpn, sectors: u64) -> Insert {
        self.put(lpn, sectors, SlotState::Clean)
    }

    fn put(&mut self, lpn: Lpn, sectors: u64, state: SlotState) -> Insert {
        if let Some(&s) = self.map.get(&lpn) {
            let slot = &mut self.slots[s as usize];
            slot.sectors |= sectors;
            if state == SlotState::Dirty {
                match slot.state {
                    SlotState::Flushing => slot.rewritten = true,
                    _ => slot.state = SlotState::Dirty,
                }
            }
            self.policy.touched(s);
            return Insert::Hit;
        }
        let mut out = Insert::Placed;
        let s = if let Some(s) = self.free.pop() {
            s
        } else if (self.slots.len() as u32) < self.capacity {
            self.slots.push(Slot {
                lpn,
                sectors: 0,
                state: SlotState::Clean,
                rewritten: false,
            });
            self.slots.len() as u32 - 1
        } else {
            let slots = &self.slots;
            let Some(v) = self
                .policy
                .victim(&|s| slots[s as usize].state != SlotState::Flushing)
            else {
                return Insert::Full;
            };
            let old = self.slots[v as usize];
            self.map.remove(&old.lpn);
            self.policy.removed(v);
            out = Insert::Evicted {
                lpn: old.lpn,
                sectors: old.sectors,
                dirty: old.state == SlotState::Dirty,
            };
            v
        };
        self.slots[s as usize] = Slot {
            lpn,
            sectors,
            state,
            rewritten: false,
        };
        self.map.insert(lpn, s);
        self.policy.inserted(s);
        out
    }

    /// Start writing back dirty `lpn` (its program is issued): it stays cached and readable but
    /// cannot be evicted until [`flush_done`](Self::flush_done). False if it is not dirty.
    pub fn start_flush(&mut self, lpn: Lpn) -> bool {
        match self.map.get(&lpn) {
            Some(&s) if self.slots[s as usize].state == SlotState::Dirty => {
                self.slots[s as usize].state = SlotState::Flushing;
                true
            }
            _ => false,
        }
    }

    /// `lpn`'s write-back program is done: clean, or dirty again if it was written meanwhile.
    pub fn flush_done(&mut self, lpn: Lpn) {
        if let Some(&s) = self.map.get(&lpn) {
            let slot = &mut self.slots[s as usize];
            debug_assert_eq!(
                slot.state,
                SlotState::Flushing,
                "lpn {lpn} was not being written back"
            );
            slot.state = if std::mem::take(&mut slot.rewritten) {
                SlotState::Dirty
            } else {
                SlotState::Clean
            };
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
        order
            .into_iter()
            .map(|s| self.slots[s as usize])
            .filter(|x| x.state == SlotState::Dirty)
            .map(|x| x.lpn)
            .collect()
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
        assert_eq!(c.write(10, 0b0011), Insert::Placed);
        assert_eq!(c.write(11, 0b1111), Insert::Placed);
        assert_eq!(c.write(10, 0b1100), Insert::Hit, "a rewrite merges");
        assert_eq!(c.get(10), Some((SlotState::Dirty, 0b1111)));
        // 11 is now the least recently used: a third page evicts it, dirty, for the caller to program.
        assert_eq!(
            c.write(12, 1),
            Insert::Evicted {
                lpn: 11,
                sectors: 0b1111,
                dirty: true
            }
        );
        assert_eq!(c.get(11), None);
        // A read hit counts as a use: 10 is read, so 12 goes next.
        assert_eq!(c.read(10, 0b0110), 0b0110);
        assert_eq!(c.read(10, 1 << 8), 0, "a sector it does not hold is a miss");
        assert_eq!(
            c.fill(13, 0xff),
            Insert::Evicted {
                lpn: 12,
                sectors: 1,
                dirty: true
            }
        );
        // A clean page is evicted as clean: nothing to write.
        assert_eq!(
            c.write(14, 1),
            Insert::Evicted {
                lpn: 10,
                sectors: 0b1111,
                dirty: true
            }
        );
        assert_eq!(
            c.write(15, 1),
            Insert::Evicted {
                lpn: 13,
                sectors: 0xff,
                dirty: false
            }
        );
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn a_page_being_written_back_stays_readable_and_is_not_evicted() {
        let mut c = cache(2);
        c.write(1, 1);
        c.write(2, 1);
        assert!(c.start_flush(1));
        assert!(!c.start_flush(1), "already on its way");
        assert_eq!(c.get(1), Some((SlotState::Flushing, 1)));
        assert_eq!(c.read(1, 1), 1);
        // 1 is least recent but flushing: 2 is evicted instead.
        c.read(2, 1);
        assert_eq!(
            c.write(3, 1),
            Insert::Evicted {
                lpn: 2,
                sectors: 1,
                dirty: true
            }
        );
        // Rewritten while flushing: dirty again once its program is done.
        assert_eq!(c.write(1, 2), Insert::Hit);
        assert_eq!(c.get(1), Some((SlotState::Flushing, 3)));
        c.flush_done(1);
        assert_eq!(c.get(1), Some((SlotState::Dirty, 3)));
        assert!(c.start_flush(1));
        c.flush_done(1);
        assert_eq!(c.get(1), Some((SlotState::Clean, 3)));
        // Every slot flushing: nothing can be evicted.
        assert!(c.start_flush(3));
        c.write(1, 1);
        assert!(c.start_flush(1));
        assert_eq!(c.write(4, 1), Insert::Full);
        assert_eq!(c.get(4), None);
    }

    #[test]
    fn dirty_pages_are_listed_in_eviction_order_and_removal_frees_a_slot() {
        let mut c = cache(4);
        for l in [5, 6, 7, 8] {
            c.write(l, 1);
        }
        c.fill(9, 1); // evicts 5
        c.read(6, 1);
        assert_eq!(c.dirty(), vec![7, 8, 6]);
        assert_eq!(c.remove(7), Some((SlotState::Dirty, 1)));
        assert_eq!(c.remove(7), None);
        assert_eq!(c.write(10, 1), Insert::Placed, "the freed slot");
        assert_eq!(c.dirty(), vec![8, 6, 10]);
        assert_eq!(c.policy(), "lru");
    }
}
