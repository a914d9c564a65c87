//! `lru`: evict the page least recently read or written (MQSim's data cache, `Data_Cache_Flash`:
//! a hit moves the slot to the most recent end, a full cache evicts from the other).

use super::EvictionPolicy;

const NIL: u32 = u32::MAX;

/// An intrusive doubly linked list over the slots, most recent first.
pub struct Lru {
    prev: Vec<u32>,
    next: Vec<u32>,
    head: u32,
    tail: u32,
}

impl Lru {
    pub fn new(slots: u32) -> Self {
        Lru {
            prev: vec![NIL; slots as usize],
            next: vec![NIL; slots as usize],
            head: NIL,
            tail: NIL,
        }
    }

    /// Room for slots `0..slots` (a table that may briefly hold more than its capacity).
    pub fn ensure(&mut self, slots: u32) {
        if self.prev.len() < slots as usize {
            self.prev.resize(slots as usize, NIL);
            self.next.resize(slots as usize, NIL);
        }
    }

    fn unlink(&mut self, s: u32) {
        let (p, n) = (self.prev[s as usize], self.next[s as usize]);
        if p == NIL {
            self.head = n
        } else {
            self.next[p as usize] = n
        }
        if n == NIL {
            self.tail = p
        } else {
            self.prev[n as usize] = p
        }
        self.prev[s as usize] = NIL;
        self.next[s as usize] = NIL;
    }

    fn push_front(&mut self, s: u32) {
        self.next[s as usize] = self.head;
        self.prev[s as usize] = NIL;
        if self.head == NIL {
            self.tail = s
        } else {
            self.prev[self.head as usize] = s
        }
        self.head = s;
    }
}

impl EvictionPolicy for Lru {
    fn name(&self) -> &'static str {
        "lru"
    }

    fn inserted(&mut self, slot: u32) {
        self.push_front(slot);
    }

    fn touched(&mut self, slot: u32) {
        if self.head != slot {
            self.unlink(slot);
            self.push_front(slot);
        }
    }

    fn removed(&mut self, slot: u32) {
        self.unlink(slot);
    }

    fn order(&self, out: &mut Vec<u32>) {
        let mut s = self.tail;
        while s != NIL {
            out.push(s);
            s = self.prev[s as usize];
        }
    }

    fn victim(&self, evictable: &dyn Fn(u32) -> bool) -> Option<u32> {
        let mut s = self.tail;
        while s != NIL {
            if evictable(s) {
                return Some(s);
            }
            s = self.prev[s as usize];
        }
        None
    }
}
