//! Wear leveling: which block to recycle, beyond what garbage collection chooses, so that erases
//! spread over all blocks. One policy per file. A policy only names blocks; the simulator collects
//! them through the same machinery as GC (moves as flash work, then the erase), one collection per
//! plane at a time, and counts them apart (`ssd.wear_leveling`).

mod swl;

pub use swl::Swl;

use super::{BlockState, Ftl};
use crate::config::Settings;
use crate::nand::NONE;

/// A wear-leveling policy (`ftl.wear_leveling`).
pub trait WearLeveler: Send {
    fn name(&self) -> &'static str;
    /// A block was erased (by GC or by wear leveling).
    fn on_erase(&mut self, block: u32);
    /// The next block wear leveling wants collected now, if any: a full block whose plane is not
    /// collecting. Called after every erase until it returns `None`.
    fn next(&mut self, ftl: &Ftl) -> Option<u32>;
    /// Memory its tables use (bytes).
    fn memory_bytes(&self) -> usize;
}

/// The policy `ftl.wear_leveling` names, or `None` for `none`.
pub fn build(s: &Settings, blocks: u32) -> Option<Box<dyn WearLeveler>> {
    let r = &s.resolved;
    match r.str("ftl.wear_leveling") {
        "none" => None,
        "swl" => Some(Box::new(Swl::new(blocks, r.int("ftl.swl.threshold") as u32, r.int("ftl.swl.set_bits") as u32, s.seed))),
        other => unreachable!("wear leveling {other} passed validation"),
    }
}

/// Whether wear leveling may collect `block` now: it holds data (full) and its plane is free.
pub fn collectable(ftl: &Ftl, block: u32) -> bool {
    ftl.block_state(block) == BlockState::Full && ftl.planes[ftl.layout.plane_of_block(block) as usize].gc_victim == NONE
}
