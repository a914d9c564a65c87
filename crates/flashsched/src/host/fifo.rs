//! `fifo`: requests go to the device in arrival order. No merging, no reordering: the reference
//! against which every other host scheduler is measured. No parameters.

use std::collections::VecDeque;

use super::{HostRequestView, HostScheduler};
use crate::engine::Time;
use crate::sim::txn::ReqId;

#[derive(Default)]
pub struct Fifo {
    queue: VecDeque<ReqId>,
}

impl HostScheduler for Fifo {
    fn name(&self) -> &'static str {
        "fifo"
    }
    fn enqueue(&mut self, id: ReqId, _req: &HostRequestView, _now: Time) {
        self.queue.push_back(id);
    }
    fn dispatch(&mut self, _now: Time) -> Option<ReqId> {
        self.queue.pop_front()
    }
    fn len(&self) -> usize {
        self.queue.len()
    }
}
