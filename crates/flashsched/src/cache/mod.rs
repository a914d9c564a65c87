//! The controller's DRAM: the data cache (which logical pages it holds, in what state, and how
//! long the DRAM takes to move them) and the cached mapping table. These are the parts that do
//! not depend on the simulator; `sim::cache` and `sim::mapping` drive them.
//!
//! - [`dram`]: DRAM access time of a transfer, as a real part computes it (`Formula::Rows`) and as
//!   MQSim does (`Formula::Mqsim`, not monotonic in the size).
//! - [`DataCache`]: the logical pages it holds, the sectors of each, clean, dirty or being written
//!   back to flash; which page to evict is an eviction policy's choice ([`evict`]).
//! - [`SectorBuffer`]: SSDSim's buffer, nodes of the sectors written to each page, counted in
//!   sectors.
//! - [`mapping::MappingCache`]: the mapping entries cached (DFTL-style), waiting for their
//!   translation page or valid, clean or dirty.

mod data;
pub mod dram;
pub mod evict;
pub mod mapping;
mod sectors;

pub use data::{DataCache, Insert, SlotState};
pub use sectors::{Departed, SectorBuffer};
