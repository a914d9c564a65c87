//! Host block-layer schedulers: hold whole requests above the device and release them while the
//! device queue has room (`host.queue_depth`). One policy per file; the shared request store,
//! per-direction sorted trees and FIFOs, and contiguous-request merging live in [`queues`].

mod anticipatory;
mod cfq;
mod deadline;
mod fifo;
mod irbw;
mod kyber;
mod mq_deadline;
mod noop;
mod pass;
pub mod queues;

pub use anticipatory::{Anticipatory, AsParams};
pub use cfq::{Cfq, CfqParams};
pub use deadline::Deadline;
pub use fifo::Fifo;
pub use irbw::{Irbw, IrbwParams};
pub use kyber::Kyber;
pub use mq_deadline::MqDeadline;
pub use noop::Noop;
pub use pass::Pass;

use crate::config::Settings;
use crate::engine::Time;
use crate::sim::txn::ReqId;
use crate::trace::Op;

/// What a host scheduler may look at when ordering a request.
#[derive(Debug, Clone, Copy)]
pub struct HostRequestView {
    pub arrival: Time,
    pub op: Op,
    pub offset: u64,
    pub len: u64,
    /// The issuing stream (a closed-loop job; 0 for open-loop workloads): the "process" CFQ and
    /// AS keep queues and statistics for.
    pub stream: u32,
}

/// A request released to the device: `id`, now covering `offset..offset + len` because requests
/// contiguous with it were merged into it (`merged`, which complete when it does).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Dispatched {
    pub id: ReqId,
    pub offset: u64,
    pub len: u64,
    pub merged: Vec<ReqId>,
}

pub trait HostScheduler: Send {
    fn name(&self) -> &'static str;
    fn enqueue(&mut self, id: ReqId, req: &HostRequestView, now: Time);
    /// The next request to send to the device, if any should go now.
    fn dispatch(&mut self, now: Time) -> Option<Dispatched>;
    /// Requests held (merged ones included).
    fn len(&self) -> usize;
    /// A request this scheduler dispatched has completed (idling schedulers start waiting here).
    fn on_complete(&mut self, _id: ReqId, _req: &HostRequestView, _now: Time) {}
    /// When the scheduler wants `dispatch` called again although nothing arrived or completed (the
    /// end of an idle window); `None` if it does not.
    fn wakeup(&self) -> Option<Time> {
        None
    }
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Host-layer parameters shared by the policies, resolved from `host.*`.
#[derive(Debug, Clone, PartialEq)]
pub struct HostParams {
    pub max_merge: u64,
    pub read_expire: u64,
    pub write_expire: u64,
    pub writes_starved: u32,
    pub fifo_batch: u32,
    pub front_merges: bool,
    pub pass_region: u64,
    pub pass_batch: u32,
    /// `host.pass.threshold = "outstanding"`: the threshold also caps a region's requests at the
    /// device.
    pub pass_cap: bool,
}

#[cfg(test)]
impl HostParams {
    /// The Linux defaults (as the config's), without merging: the unit tests' starting point.
    pub fn for_tests() -> Self {
        HostParams {
            max_merge: 0,
            read_expire: 500_000_000,
            write_expire: 5_000_000_000,
            writes_starved: 2,
            fifo_batch: 16,
            front_merges: true,
            pass_region: 1 << 30,
            pass_batch: 16,
            pass_cap: false,
        }
    }
}

pub fn params(s: &Settings) -> HostParams {
    let r = &s.resolved;
    HostParams {
        max_merge: r.bytes("host.max_merge"),
        read_expire: r.ns("host.deadline.read_expire"),
        write_expire: r.ns("host.deadline.write_expire"),
        writes_starved: r.int("host.deadline.writes_starved") as u32,
        fifo_batch: r.int("host.deadline.fifo_batch") as u32,
        front_merges: r.bool("host.deadline.front_merges"),
        pass_region: r.bytes("host.pass.region_size"),
        pass_batch: r.int("host.pass.batch_threshold") as u32,
        pass_cap: r.str("host.pass.threshold") == "outstanding",
    }
}

pub fn build(s: &Settings) -> Box<dyn HostScheduler> {
    let p = params(s);
    match s.host_scheduler.as_str() {
        "fifo" => Box::new(Fifo::default()),
        "noop" => Box::new(Noop::new(&p)),
        "deadline" => Box::new(Deadline::new(&p)),
        "mq-deadline" => Box::new(MqDeadline::new(&p)),
        "pass" => Box::new(Pass::new(&p, s.logical_bytes())),
        "kyber" => Box::new(Kyber::new(s.resolved.ns("host.kyber.read_target"), s.resolved.ns("host.kyber.write_target"))),
        "irbw-fifo" | "irbw-fifo-rp" => {
            let r = &s.resolved;
            Box::new(Irbw::new(IrbwParams {
                bundle_size: r.bytes("host.irbw.bundle_size"),
                bundle_timeout: r.ns("host.irbw.bundle_timeout"),
                write_expire: r.ns("host.irbw.write_expire"),
                read_preference: s.host_scheduler == "irbw-fifo-rp",
            }))
        }
        "cfq" => {
            let r = &s.resolved;
            Box::new(Cfq::new(CfqParams {
                quantum: r.int("host.cfq.quantum") as u32,
                slice: r.ns("host.cfq.slice"),
                slice_idle: r.ns("host.cfq.slice_idle"),
                fifo_expire: r.ns("host.cfq.fifo_expire"),
            }))
        }
        "as" => {
            let r = &s.resolved;
            Box::new(Anticipatory::new(AsParams {
                antic_expire: r.ns("host.as.antic_expire"),
                read_expire: r.ns("host.as.read_expire"),
                write_expire: r.ns("host.as.write_expire"),
                read_batch_expire: r.ns("host.as.read_batch_expire"),
                write_batch_expire: r.ns("host.as.write_batch_expire"),
            }))
        }
        other => unreachable!("host scheduler {other} passed validation"),
    }
}

/// Reads are one direction; writes, trims and flushes the other (as the block layer's sync/async
/// split puts them).
#[inline]
pub fn dir_of(op: Op) -> usize {
    if op == Op::Read { 0 } else { 1 }
}
