//! The discrete-event core: simulated time in `u64` nanoseconds and a queue of events ordered by
//! `(time, insertion sequence)`, so simultaneous events run first-in, first-out and a run is
//! deterministic. Randomness comes only from [`rng`] streams.

mod queue;
pub mod rng;

pub use queue::EventQueue;

/// Simulated time in nanoseconds.
pub type Time = u64;

/// The latest arrival a run accepts: 2^62 ns, about 146 years. Arrival times past it are refused
/// where they are read (a trace line, a workload key), with the place named, so that an arrival
/// plus its service and queueing times stays far below 2^64 and event times never wrap.
pub const MAX_TIME: Time = 1 << 62;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event<K> {
    pub time: Time,
    pub kind: K,
}
