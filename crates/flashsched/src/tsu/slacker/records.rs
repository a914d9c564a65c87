//! What Slacker records as it runs: per sub-request its slack and estimated completion, per
//! request its live sub-requests and latest estimate (the slack of eq. 8 is taken against it),
//! and over the run the mechanisms used and the estimator's error against actual completions.
//! The mechanisms that act on these records are in `tsu::slacker`.

use serde_json::json;

use crate::engine::Time;
use crate::sim::txn::{ReqId, Txn, TxnId};

/// A request used a mechanism (bits of `Track::used`).
pub(super) const USED_RBYP: u8 = 1;
pub(super) const USED_WBYP: u8 = 2;
pub(super) const USED_WP: u8 = 4;

/// What Slacker keeps per transaction id (ids are reused once a transaction is done; entries are
/// rewritten when a host transaction is queued).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Sub {
    /// Slack left (ns): how much longer it may wait without delaying its request.
    pub(super) slack: u64,
    /// Estimated completion time and when it was queued.
    pub(super) est_done: Time,
    pub(super) queued: Time,
    /// A host transaction (GC ones are not counted in the queue terms: eq. 5 covers GC), and
    /// whether it is a write.
    pub(super) host: bool,
    pub(super) write: bool,
}

impl Sub {
    /// The record of host transaction `txn` as it enters its queue: no slack or estimate yet.
    pub(super) fn host(txn: &Txn) -> Self {
        Sub { slack: 0, est_done: 0, queued: txn.enqueued, host: true, write: !txn.kind.is_read() }
    }
}

/// A host request whose sub-requests are in the queues.
#[derive(Debug, Default)]
pub(super) struct Track {
    /// Sub-requests queued and not yet done.
    pub(super) live: Vec<TxnId>,
    /// The latest estimated completion among all its sub-requests.
    pub(super) est_max: Time,
    pub(super) all_queued: bool,
    pub(super) used: u8,
    /// The latest actual completion among its sub-requests so far.
    pub(super) done: Time,
}

/// The tracks of the requests in the queues, by request id. Request ids are the simulator's slab
/// indices (reused once a request is done, and never more than the requests in flight), so a
/// vector indexed by them does what a hash map would, without hashing on every sub-request.
#[derive(Debug, Default)]
pub(super) struct Tracks {
    pub(super) slots: Vec<Option<Track>>,
}

impl Tracks {
    #[inline]
    pub(super) fn get_mut(&mut self, req: ReqId) -> Option<&mut Track> {
        self.slots.get_mut(req as usize).and_then(Option::as_mut)
    }
    #[inline]
    pub(super) fn get_or_insert_with(&mut self, req: ReqId, new: impl FnOnce() -> Track) -> &mut Track {
        let i = req as usize;
        if i >= self.slots.len() {
            self.slots.resize_with(i + 1, || None);
        }
        self.slots[i].get_or_insert_with(new)
    }
    #[inline]
    pub(super) fn remove(&mut self, req: ReqId) -> Option<Track> {
        self.slots.get_mut(req as usize).and_then(Option::take)
    }
}

/// Estimated against actual response times of host sub-requests of one direction (sums in ns,
/// kept as integers: exact, and an integer add on every completion).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct ErrorSums {
    pub(super) n: u64,
    pub(super) est: u128,
    pub(super) actual: u128,
    pub(super) abs_err: u128,
}

impl ErrorSums {
    /// One sub-request queued at `queued`, estimated to complete at `est_done`, completed at `done`.
    #[inline]
    pub(super) fn add(&mut self, queued: Time, est_done: Time, done: Time) {
        self.n += 1;
        self.est += u128::from(est_done - queued);
        self.actual += u128::from(done - queued);
        self.abs_err += u128::from(est_done.abs_diff(done));
    }

    pub(super) fn merged(&self, other: &ErrorSums) -> ErrorSums {
        ErrorSums { n: self.n + other.n, est: self.est + other.est, actual: self.actual + other.actual, abs_err: self.abs_err + other.abs_err }
    }

    pub(super) fn json(&self) -> serde_json::Value {
        let (est, actual, abs_err) = (self.est as f64, self.actual as f64, self.abs_err as f64);
        let mean = |x: f64| if self.n == 0 { 0.0 } else { x / self.n as f64 };
        json!({
            "sub_requests": self.n,
            "estimate_mean_ns": mean(est),
            "actual_mean_ns": mean(actual),
            "mean_abs_error_ns": mean(abs_err),
            // sum |estimate - actual| / sum actual
            "relative_abs_error": if actual > 0.0 { abs_err / actual } else { 0.0 },
            // (mean estimate - mean actual) / mean actual
            "relative_mean_error": if actual > 0.0 { (est - actual) / actual } else { 0.0 },
        })
    }
}

#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Counts {
    pub(super) requests: u64,
    pub(super) used_rbyp: u64,
    pub(super) used_wbyp: u64,
    pub(super) used_wp: u64,
    /// Sub-requests that moved ahead, and the entries they passed.
    pub(super) read_bypasses: u64,
    pub(super) reads_passed: u64,
    pub(super) write_bypasses: u64,
    pub(super) writes_passed: u64,
    /// Programs paused, and reads served during pauses.
    pub(super) pauses: u64,
    pub(super) pause_reads: u64,
    pub(super) read_err: ErrorSums,
    pub(super) write_err: ErrorSums,
    /// Requests that completed later than their estimated completion (the latest estimate among
    /// their sub-requests), and by how much in total (ns).
    pub(super) late: u64,
    pub(super) late_ns: u64,
    /// Estimated slack (eq. 8) given to host sub-requests: count, sum, sum of squares (ns).
    pub(super) slack_n: u64,
    pub(super) slack_sum: f64,
    pub(super) slack_sq: f64,
}

