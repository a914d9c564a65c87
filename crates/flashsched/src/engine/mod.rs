//! The discrete-event core: simulated time in `u64` nanoseconds and a queue of events ordered by
//! `(time, insertion sequence)`, so simultaneous events run first-in, first-out and a run is
//! deterministic. Randomness comes only from [`rng`] streams.

mod queue;
pub mod rng;

pub use queue::EventQueue;

/// Simulated time in nanoseconds.
pub type Time = u64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event<K> {
    pub time: Time,
    pub kind: K,
}
