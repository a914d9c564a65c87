//! Which cached page to evict when a new one needs room: one policy per file. A policy sees slot
//! numbers only (the data cache owns what they hold) and keeps its own order over them.

mod lru;

pub use lru::Lru;

/// The policy `cache.eviction` names, over `slots` slots.
pub fn build(name: &str, slots: u32) -> Box<dyn EvictionPolicy> {
    match name {
        "lru" => Box::new(Lru::new(slots)),
        other => unreachable!("cache.eviction {other:?} passed validation"),
    }
}

/// An eviction policy of the data cache.
pub trait EvictionPolicy: Send {
    fn name(&self) -> &'static str;
    /// `slot` now holds a page newly cached.
    fn inserted(&mut self, slot: u32);
    /// `slot`'s page was read or written again.
    fn touched(&mut self, slot: u32);
    /// `slot` holds nothing any more.
    fn removed(&mut self, slot: u32);
    /// The slot to evict, the first in the policy's order that `evictable` allows (`None`: none).
    fn victim(&self, evictable: &dyn Fn(u32) -> bool) -> Option<u32>;
    /// Every occupied slot, in the order the policy would evict them.
    fn order(&self, out: &mut Vec<u32>);
}
