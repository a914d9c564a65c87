//! Host block-layer schedulers: hold whole requests above the device and release them while the
//! device queue has room (`host.queue_depth`). One policy per file.

mod fifo;

pub use fifo::Fifo;

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
}

pub trait HostScheduler: Send {
    fn name(&self) -> &'static str;
    fn enqueue(&mut self, id: ReqId, req: &HostRequestView, now: Time);
    /// The next request to send to the device, if any should go now.
    fn dispatch(&mut self, now: Time) -> Option<ReqId>;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

pub fn build(name: &str) -> Box<dyn HostScheduler> {
    match name {
        "fifo" => Box::new(Fifo::default()),
        other => unreachable!("host scheduler {other} passed validation"),
    }
}
