//! Pattern mining for pattern-based write scheduling (paper 004): frequent sets of co-written
//! addresses. The scheduler that uses it is `ftl::grouping::Pattern`.

pub mod fpgrowth;
