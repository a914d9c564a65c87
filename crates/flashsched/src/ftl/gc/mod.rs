//! Garbage-collection victim selection. One policy per file. Triggering (the free-block floor) and
//! the moves themselves belong to the FTL and the simulator, so every policy is timed the same way.

mod greedy;

pub use greedy::Greedy;

use super::Ftl;
use crate::config::Settings;

/// Picks the block to reclaim in a plane, among full blocks (not the active block, not a block
/// already being collected). `None` if no block has an invalid page.
pub trait VictimPolicy: Send {
    fn name(&self) -> &'static str;
    fn select(&mut self, ftl: &Ftl, plane: u32) -> Option<u32>;
}

pub fn build(s: &Settings) -> Box<dyn VictimPolicy> {
    match s.ftl.gc_policy.as_str() {
        "greedy" => Box::new(Greedy),
        other => unreachable!("gc policy {other} passed validation"),
    }
}
