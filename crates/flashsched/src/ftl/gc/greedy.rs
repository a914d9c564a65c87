//! `greedy`: reclaim the full block with the most invalid pages (fewest valid pages to move); ties
//! go to the lowest block index, so runs are deterministic.
//!
//! From: the greedy policy of SSDSim (`pagemap.c`) and MQSim (`GC_and_WL_Unit_Page_Level`, GREEDY),
//! analysed by Bux and Iliadis, "Performance of greedy garbage collection in flash-based solid-state
//! drives", Performance Evaluation 67(11), 2010. No parameters.

use super::VictimPolicy;
use crate::ftl::{BlockState, Ftl};

pub struct Greedy;

impl VictimPolicy for Greedy {
    fn name(&self) -> &'static str {
        "greedy"
    }

    fn select(&mut self, ftl: &Ftl, plane: u32) -> Option<u32> {
        let first = ftl.layout.first_block_of_plane(plane);
        let ppb = ftl.layout.pages_per_block as u16;
        let mut best: Option<(u16, u32)> = None;
        // A linear scan of the plane's blocks: 2048 u16 comparisons per GC, far below the cost of
        // the moves it triggers; a bucket index would only pay off on much larger planes.
        for b in first..first + ftl.layout.blocks_per_plane {
            if ftl.block_state(b) != BlockState::Full {
                continue;
            }
            let valid = ftl.valid_count(b);
            if valid < ppb && best.is_none_or(|(v, _)| valid < v) {
                best = Some((valid, b));
            }
        }
        best.map(|(_, b)| b)
    }
}
