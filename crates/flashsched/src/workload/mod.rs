//! Workloads yield host requests in arrival order: a replayed trace or the synthetic generator.
//! [`Shaped`] applies the options common to both (skip, limit, time scale, the fold check), so each
//! source only produces records.

mod closed_loop;
pub mod page_cache;
mod replay;
mod synthetic;

pub use closed_loop::ClosedLoop;
pub use page_cache::{Buffered, PageCacheSettings};
pub use replay::Replay;
pub use synthetic::Synthetic;

use serde_json::{json, Value};

use crate::config::Settings;
use crate::engine::Time;
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

/// Skip, limit, time scaling and the fold check, around any source.
pub struct Shaped {
    inner: Box<dyn Workload>,
    skip: u64,
    max: u64,
    scale: f64,
    base: Option<Time>,
    emitted: u64,
    fold_error_bytes: Option<u64>,
    file: String,
}

impl Shaped {
    pub fn new(inner: Box<dyn Workload>, s: &Settings, file: String) -> Self {
        let w = &s.workload;
        Shaped {
            inner,
            skip: w.skip,
            max: w.max_requests,
            scale: w.time_scale,
            base: None,
            emitted: 0,
            fold_error_bytes: (!w.fold_modulo).then(|| s.logical_bytes()),
            file,
        }
    }
}

impl Workload for Shaped {
    fn next_request(&mut self) -> Result<Option<HostRequest>, TraceError> {
        while self.skip > 0 {
            if self.inner.next_request()?.is_none() {
                return Ok(None);
            }
            self.skip -= 1;
        }
        if self.max > 0 && self.emitted >= self.max {
            return Ok(None);
        }
        let Some(mut r) = self.inner.next_request()? else { return Ok(None) };
        let base = *self.base.get_or_insert(r.arrival);
        let rel = r.arrival - base;
        r.arrival = if self.scale == 1.0 { rel } else { (rel as f64 * self.scale).round() as u64 };
        if let Some(cap) = self.fold_error_bytes {
            if r.offset + r.len > cap && matches!(r.op, Op::Read | Op::Write | Op::Trim) {
                return Err(TraceError {
                    file: self.file.clone(),
                    line: r.line,
                    message: format!(
                        "bytes {}..{} lie beyond the drive's logical capacity of {cap} bytes (workload.fold = \"error\"; use \"modulo\" to fold)",
                        r.offset,
                        r.offset + r.len
                    ),
                });
            }
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
        d
    }
    fn on_complete(&mut self, job: u32, now: Time) -> Option<HostRequest> {
        // Closed-loop jobs count their own requests; skip and time scale apply to streams only.
        self.inner.on_complete(job, now).inspect(|_| self.emitted += 1)
    }
    fn on_request_done(&mut self, req: &HostRequest, now: Time) -> Option<HostRequest> {
        self.inner.on_request_done(req, now).inspect(|_| self.emitted += 1)
    }
    fn take_released(&mut self) -> Option<HostRequest> {
        self.inner.take_released().inspect(|_| self.emitted += 1)
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
        "trace" => (Box::new(Replay::open(s)?), w.trace.path.clone()),
        "synthetic" => (Box::new(Synthetic::new(s)), "synthetic".into()),
        "jobs" if w.page_cache.buffered => (Box::new(Buffered::new(s)), "jobs".into()),
        "jobs" => (Box::new(ClosedLoop::new(s)), "jobs".into()),
        _ => {
            return Err(TraceError {
                file: "config".into(),
                line: 0,
                message: "no workload: give --trace FILE, or set workload.kind = \"synthetic\" or \"jobs\"".into(),
            })
        }
    };
    Ok(Box::new(Shaped::new(inner, s, file)))
}
