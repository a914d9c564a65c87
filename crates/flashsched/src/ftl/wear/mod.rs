//! Wear leveling: which block to recycle, beyond what garbage collection chooses, so that erases
//! spread over all blocks. One policy per file. A policy only names blocks; the simulator collects
//! them through the same machinery as GC (moves as flash work, then the erase), one collection per
//! plane at a time, and counts them apart (`ssd.wear_leveling`).

mod bet;
mod rbwl;
mod swl;

pub use rbwl::Rbwl;
pub use swl::Swl;

use serde_json::Value;

use super::{BlockState, Ftl};
use crate::config::Settings;
use crate::nand::{Layout, Ppn, NONE};

/// What wear leveling asks the simulator to do with a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WlAction {
    /// Collect it as GC would: valid pages to its plane's wear-leveling stream (most erased
    /// blocks first; GC's stream with `ftl.wear_leveling_moves = "gc"` or when the plane cannot
    /// open a block there), then erase it.
    Collect(u32),
    /// Move its valid pages half and half into the migration blocks the policy pinned in the
    /// planes `to` (`Ftl::pin_migration_block`; read pages alternate between the two, unread
    /// pages too), then erase it. `close`: those blocks take nothing more once these moves are
    /// done; otherwise they are parked once these moves are done (`Ftl::park_migration_block`),
    /// waiting for the target that completes the set.
    Split { block: u32, to: [u32; 2], close: bool },
}

/// A wear-leveling policy (`ftl.wear_leveling`).
pub trait WearLeveler: Send {
    fn name(&self) -> &'static str;
    /// A block was erased (by GC or by wear leveling).
    fn on_erase(&mut self, block: u32);
    /// What wear leveling wants done now, if anything: a full block whose plane is not
    /// collecting. Called after every erase until it returns `None`.
    fn next(&mut self, ftl: &mut Ftl) -> Option<WlAction>;
    /// Whether it tracks host reads (`on_read`).
    fn wants_reads(&self) -> bool {
        false
    }
    /// A host read sensed physical page `ppn`.
    fn on_read(&mut self, _ppn: Ppn) {}
    /// Whether `ppn` has been read since its block was erased (for splitting read data).
    fn page_read(&self, _ppn: Ppn) -> bool {
        false
    }
    /// Memory its tables use (bytes).
    fn memory_bytes(&self) -> usize;
    /// What else it reports (merged into `ssd.wear_leveling`).
    fn report(&self) -> Value {
        Value::Object(Default::default())
    }
}

/// The policy `ftl.wear_leveling` names, or `None` for `none`.
pub fn build(s: &Settings, layout: Layout) -> Option<Box<dyn WearLeveler>> {
    let r = &s.resolved;
    let blocks = layout.blocks();
    match r.str("ftl.wear_leveling") {
        "none" => None,
        "swl" => Some(Box::new(Swl::new(blocks, r.int("ftl.swl.threshold") as u32, r.int("ftl.swl.set_bits") as u32, s.seed))),
        "rbwl" => Some(Box::new(Rbwl::new(
            layout,
            r.int("ftl.rbwl.threshold") as u32,
            r.float("ftl.rbwl.frequent_share"),
            r.float("ftl.rbwl.less_share"),
            s.rbwl_set_blocks(),
        ))),
        other => unreachable!("wear leveling {other} passed validation"),
    }
}

/// Whether wear leveling may collect `block` now: it holds data (full) and its plane is free.
pub fn collectable(ftl: &Ftl, block: u32) -> bool {
    ftl.block_state(block) == BlockState::Full && ftl.planes[ftl.layout.plane_of_block(block) as usize].gc_victim == NONE
}
