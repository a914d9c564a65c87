//! `noop`: Linux's NOOP ("none" under blk-mq): one FIFO, with contiguous requests of the same
//! direction merged (back merges, and front merges) up to `host.max_merge` bytes. No sorting, no
//! deadlines. From: Linux `block/noop-iosched.c` and the elevator merge hash; the PASS paper's
//! baseline. Parameters: `host.max_merge` (default 512KiB; 0 disables merging).

use std::collections::VecDeque;

use super::queues::{Added, Store};
use super::{Dispatched, HostParams, HostRequestView, HostScheduler};
use crate::engine::Time;
use crate::sim::txn::ReqId;

pub struct Noop {
    store: Store,
    fifo: VecDeque<ReqId>,
    max_merge: u64,
}

impl Noop {
    pub fn new(p: &HostParams) -> Self {
        Noop { store: Store::default(), fifo: VecDeque::new(), max_merge: p.max_merge }
    }
}

impl HostScheduler for Noop {
    fn name(&self) -> &'static str {
        "noop"
    }
    fn enqueue(&mut self, id: ReqId, req: &HostRequestView, now: Time) {
        if self.store.add(id, req, now, self.max_merge, true) == Added::New {
            self.fifo.push_back(id);
        }
    }
    fn dispatch(&mut self, _now: Time) -> Option<Dispatched> {
        self.fifo.pop_front().map(|id| self.store.take(id))
    }
    fn len(&self) -> usize {
        self.store.held()
    }
}
