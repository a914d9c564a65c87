//! `fifo`: requests go to the device in arrival order. No merging, no reordering: the reference
//! against which every other host scheduler is measured. No parameters.

use std::collections::VecDeque;

use super::{Dispatched, HostRequestView, HostScheduler};
use crate::engine::Time;
use crate::sim::txn::ReqId;

#[derive(Default)]
pub struct Fifo {
    queue: VecDeque<(ReqId, u64, u64)>,
}

impl HostScheduler for Fifo {
    fn name(&self) -> &'static str {
        "fifo"
    }
    fn enqueue(&mut self, id: ReqId, req: &HostRequestView, _now: Time) {
        self.queue.push_back((id, req.offset, req.len));
    }
    fn dispatch(&mut self, _now: Time) -> Option<Dispatched> {
        self.queue.pop_front().map(|(id, offset, len)| Dispatched { id, offset, len, merged: Vec::new() })
    }
    fn len(&self) -> usize {
        self.queue.len()
    }
}
