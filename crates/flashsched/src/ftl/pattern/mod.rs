//! Pattern-based write scheduling (paper 004): frequent sets of co-written addresses, mined per
//! window of requests, decide which writes go to lightly erased blocks.
//!
//! So far: the miner ([`fpgrowth`]). The scheduler, the wear-leveling slot and the paper's
//! experiments are the rest of issue 12.

pub mod fpgrowth;
