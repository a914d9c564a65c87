//! Workloads yield host requests in arrival order: a replayed trace or the synthetic generator.
//! [`Shaped`] applies the options common to both (skip, limit, time scale, the fold check and
//! count), so each source only produces records.

mod closed_loop;
pub mod page_cache;
mod prefetch;
mod replay;
mod synthetic;
mod sysbench;

pub use closed_loop::ClosedLoop;
pub use page_cache::{Buffered, PageCacheSettings};
pub use prefetch::Prefetched;
pub use replay::Replay;
pub use synthetic::Synthetic;
pub use sysbench::Sysbench;

use serde_json::{json, Value};

use crate::config::Settings;
use crate::engine::{Time, MAX_TIME};
use crate::trace::{Op, TraceError};

/// One host request as the simulator receives it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HostRequest {
    pub arrival: Time,
    pub op: Op,
    pub offset: u64,
    pub len: u64,
    /// Trace line (0 for generated requests).
    pub line: u64,
    /// The closed-loop job that issued it, or `u32::MAX` for open-loop workloads.
    pub job: u32,
}

/// No job: an open-loop request.
pub const NO_JOB: u32 = u32::MAX;

pub trait Workload: Send {
    /// The next request, in non-decreasing arrival order; `None` when the workload is exhausted.
    fn next_request(&mut self) -> Result<Option<HostRequest>, TraceError>;
    /// Fraction done, for progress bars (0..1).
    fn progress(&self) -> f64;
    /// Where the requests come from, for the output's `workload` block.
    fn describe(&self) -> Value;
    /// A request of closed-loop job `job` completed at `now`: the job's next request, if any.
    /// Open-loop workloads issue nothing on completions.
    fn on_complete(&mut self, _job: u32, _now: Time) -> Option<HostRequest> {
        None
    }
    /// Drop the first `n` requests without simulating them (`workload.skip`); returns how many
    /// were dropped (fewer if the workload ran out). Streams drop the head of their stream.
    fn skip(&mut self, n: u64) -> Result<u64, TraceError> {
        let mut done = 0;
        while done < n && self.next_request()?.is_some() {
            done += 1;
        }
        Ok(done)
    }
    /// Request `req` of a closed-loop job (`req.job != NO_JOB`) completed at `now`: what the
    /// simulator calls. The default hands the job to `on_complete`; workloads that must know which
    /// request completed (a page cache's write-back) override it.
    fn on_request_done(&mut self, req: &HostRequest, now: Time) -> Option<HostRequest> {
        self.on_complete(req.job, now)
    }
    /// Further requests released at once (a burst of write-back), drained by the simulator after
    /// every `on_request_done` and `on_wakeup`; each arrives at `max(arrival, now)`.
    fn take_released(&mut self) -> Option<HostRequest> {
        None
    }
    /// When the workload wants `on_wakeup` called (a timer of its own), if ever.
    fn next_wakeup(&self) -> Option<Time> {
        None
    }
    /// The time of `next_wakeup` came (or passed).
    fn on_wakeup(&mut self, _now: Time) {}
}

/// Skip, limit, time scaling and the fold check and count, around any source. Skip and limit apply to
/// every request the workload issues: closed-loop jobs skip inside the source (their first
/// requests, before any starts) and the limit also holds for requests issued on completions.
pub struct Shaped {
    inner: Box<dyn Workload>,
    /// Requests still to skip before the first one is handed on (done once, on the first call).
    skip: u64,
    skip_pending: bool,
    skipped: u64,
    max: u64,
    scale: f64,
    base: Option<Time>,
    emitted: u64,
    /// The drive's logical capacity: a request ending past it is folded (or an error).
    logical_bytes: u64,
    fold_error: bool,
    /// Requests that reach past the logical capacity, which the simulator folds (`workload.fold
    /// = "modulo"`: lpn mod logical_pages).
    folded: u64,
    /// `workload.max_request_size`: a larger request is an error at its line.
    max_request: u64,
    file: String,
}

impl Shaped {
    pub fn new(inner: Box<dyn Workload>, s: &Settings, file: String) -> Self {
        let w = &s.workload;
        Shaped {
            inner,
            skip: w.skip,
            skip_pending: w.skip > 0,
            skipped: 0,
            max: w.max_requests,
            scale: w.time_scale,
            base: None,
            emitted: 0,
            logical_bytes: s.logical_bytes(),
            fold_error: !w.fold_modulo,
            folded: 0,
            max_request: w.max_request_bytes,
            file,
        }
    }

    /// A request the source issued after the start (on a completion, or released by its timer):
    /// counted, and dropped once `workload.max_requests` is reached. Closed-loop jobs' arrival
    /// times follow completions (no time scale), and their areas lie inside the logical space
    /// (checked by the configuration).
    fn admit(&mut self, r: HostRequest) -> Option<HostRequest> {
        if self.limit_reached() {
            return None;
        }
        debug_assert!(r.job == NO_JOB || !self.past_end(&r), "a job's area lies inside the logical space");
        if self.past_end(&r) {
            self.folded += 1;
        }
        self.emitted += 1;
        Some(r)
    }

    /// A problem with the request at `line` of the workload's source (out of line: the checks
    /// that call it run on every request, the error almost never).
    #[cold]
    #[inline(never)]
    fn error_at(&self, line: u64, message: String) -> TraceError {
        TraceError { file: self.file.clone(), line, message }
    }

    fn limit_reached(&self) -> bool {
        self.max > 0 && self.emitted >= self.max
    }

    /// Does the request reach past the logical capacity (so the simulator folds some of its pages)?
    /// Flushes carry no address. Trace readers guarantee that offset + len does not overflow.
    #[inline]
    fn past_end(&self, r: &HostRequest) -> bool {
        r.offset + r.len > self.logical_bytes && matches!(r.op, Op::Read | Op::Write | Op::Trim)
    }
}

impl Workload for Shaped {
    fn next_request(&mut self) -> Result<Option<HostRequest>, TraceError> {
        if self.skip_pending {
            self.skip_pending = false;
            self.skipped = self.inner.skip(self.skip)?;
        }
        if self.limit_reached() {
            return Ok(None);
        }
        let Some(mut r) = self.inner.next_request()? else { return Ok(None) };
        if r.len > self.max_request {
            let message = format!(
                "a request of {} bytes is larger than workload.max_request_size ({} bytes): raise it if the size is right",
                r.len, self.max_request
            );
            return Err(self.error_at(r.line, message));
        }
        let base = *self.base.get_or_insert(r.arrival);
        let rel = r.arrival - base;
        if self.scale != 1.0 {
            let scaled = (rel as f64 * self.scale).round();
            if scaled > MAX_TIME as f64 {
                let message = format!(
                    "at {rel} ns, scaled by workload.time_scale = {}, this request would arrive at {scaled:.0} ns, past the latest time a run can reach ({MAX_TIME} ns, about 146 years)",
                    self.scale
                );
                return Err(self.error_at(r.line, message));
            }
            r.arrival = scaled as u64;
        }
        if self.past_end(&r) {
            if self.fold_error {
                let message = format!(
                    "bytes {}..{} lie beyond the drive's logical capacity of {} bytes (workload.fold = \"error\"; use \"modulo\" to fold)",
                    r.offset,
                    r.offset + r.len,
                    self.logical_bytes
                );
                return Err(self.error_at(r.line, message));
            }
            self.folded += 1;
        }
        self.emitted += 1;
        Ok(Some(r))
    }
    fn progress(&self) -> f64 {
        if self.max > 0 {
            (self.emitted as f64 / self.max as f64).max(self.inner.progress()).min(1.0)
        } else {
            self.inner.progress()
        }
    }
    fn describe(&self) -> Value {
        let mut d = self.inner.describe();
        d["emitted"] = json!(self.emitted);
        d["skipped"] = json!(self.skipped);
        d["folded"] = json!(self.folded);
        d
    }
    fn on_complete(&mut self, job: u32, now: Time) -> Option<HostRequest> {
        if self.limit_reached() {
            return None; // the job issues nothing more (its `issued` count stays exact)
        }
        let r = self.inner.on_complete(job, now)?;
        self.admit(r)
    }
    fn on_request_done(&mut self, req: &HostRequest, now: Time) -> Option<HostRequest> {
        // The source always hears of the completion (a page cache's write-back must); what it
        // issues in return is subject to the limit.
        let r = self.inner.on_request_done(req, now)?;
        self.admit(r)
    }
    fn take_released(&mut self) -> Option<HostRequest> {
        if self.limit_reached() {
            return None;
        }
        let r = self.inner.take_released()?;
        self.admit(r)
    }
    fn next_wakeup(&self) -> Option<Time> {
        self.inner.next_wakeup()
    }
    fn on_wakeup(&mut self, now: Time) {
        self.inner.on_wakeup(now)
    }
}

/// Build the configured workload. Errors name the trace file.
pub fn build(s: &Settings) -> Result<Box<dyn Workload>, TraceError> {
    let w = &s.workload;
    let (inner, file): (Box<dyn Workload>, String) = match w.kind.as_str() {
        // Decoded on a thread of its own, ahead of the simulation (`Prefetched`).
        "trace" => (Box::new(Prefetched::new(Replay::open(s)?)), w.trace.path.clone()),
        "synthetic" => (Box::new(Synthetic::new(s)), "synthetic".into()),
        "jobs" if w.page_cache.buffered => (Box::new(Buffered::new(s)), "jobs".into()),
        "jobs" => (Box::new(ClosedLoop::new(s)), "jobs".into()),
        "sysbench" => (Box::new(Sysbench::new(s)), "sysbench".into()),
        _ => {
            return Err(TraceError {
                file: "config".into(),
                line: 0,
                message: "no workload: give --trace FILE, or set workload.kind = \"synthetic\", \"jobs\" or \"sysbench\"".into(),
            })
        }
    };
    Ok(Box::new(Shaped::new(inner, s, file)))
}
