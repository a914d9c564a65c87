//! The controller's DRAM data cache: which logical pages it holds, in what state, and how long
//! the DRAM takes to move them. These are the parts of a write buffer that do not depend on the
//! simulator; the simulator does not use them yet, so no configuration key reaches them.
//!
//! - [`dram`]: DRAM access time of a transfer, as a real part computes it (`Formula::Rows`) and as
//!   MQSim does (`Formula::Mqsim`, not monotonic in the size).
//! - [`DataCache`]: the logical pages it holds, the sectors of each, clean, dirty or being written
//!   back to flash; which page to evict is an eviction policy's choice ([`evict`]).

mod data;
pub mod dram;
pub mod evict;

pub use data::{DataCache, Insert, SlotState};
