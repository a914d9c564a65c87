//! `mq-deadline`: the current Linux deadline scheduler (blk-mq). Like `deadline`, but a batch
//! continues from the last dispatched position of its direction (`latest_pos`) and the first
//! direction served is write. All requests are best-effort priority here (the simulator has no
//! I/O priority classes), so priority aging never applies.
//!
//! From: Linux `block/mq-deadline.c` (`dd_dispatch_request`, `__dd_dispatch_request`).
//! Parameters: `host.deadline.read_expire` (500ms), `write_expire` (5s), `writes_starved` (2),
//! `fifo_batch` (16), `front_merges` (true), `host.max_merge` (512KiB).

use super::queues::{Added, DirQueue, Store};
use super::{Dispatched, HostParams, HostRequestView, HostScheduler};
use crate::engine::Time;
use crate::sim::txn::ReqId;

const READ: usize = 0;
const WRITE: usize = 1;

pub struct MqDeadline {
    p: HostParams,
    store: Store,
    dq: [DirQueue; 2],
    latest_pos: [u64; 2],
    last_dir: usize,
    batching: u32,
    starved: u32,
}

impl MqDeadline {
    pub fn new(p: &HostParams) -> Self {
        MqDeadline { p: p.clone(), store: Store::default(), dq: Default::default(), latest_pos: [0; 2], last_dir: WRITE, batching: 0, starved: 0 }
    }
}

impl HostScheduler for MqDeadline {
    fn name(&self) -> &'static str {
        "mq-deadline"
    }

    fn enqueue(&mut self, id: ReqId, req: &HostRequestView, now: Time) {
        let dir = super::dir_of(req.op);
        let expire = if dir == READ { self.p.read_expire } else { self.p.write_expire };
        match self.store.add(id, req, now + expire, self.p.max_merge, self.p.front_merges) {
            Added::New => self.dq[dir].insert(id, &self.store),
            Added::BackMerged(_) => {}
            Added::FrontMerged(host, old) => {
                let new = self.store.get(host).expect("queued").offset;
                self.dq[dir].reposition(host, old, new);
            }
        }
    }

    fn dispatch(&mut self, now: Time) -> Option<Dispatched> {
        let cont = self.dq[self.last_dir].at_or_after(self.latest_pos[self.last_dir]);
        let rq = match cont {
            Some(rq) if self.batching < self.p.fifo_batch => rq,
            _ => {
                let dir = super::queues::choose_direction(&self.dq, &mut self.starved, self.p.writes_starved)?;
                let next = self.dq[dir].at_or_after(self.latest_pos[dir]);
                let head = self.dq[dir].fifo_head(&self.store);
                let expired = head.is_some_and(|h| self.store.get(h).is_some_and(|q| q.deadline <= now));
                self.last_dir = dir;
                self.batching = 0;
                if expired || next.is_none() { head.expect("direction has requests") } else { next.unwrap() }
            }
        };
        self.batching += 1;
        let q = self.store.get(rq).expect("queued");
        let (dir, offset) = (q.dir, q.offset);
        self.dq[dir].remove(rq, offset);
        self.latest_pos[dir] = offset;
        Some(self.store.take(rq))
    }

    fn len(&self) -> usize {
        self.store.held()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Op;

    fn params(fifo_batch: u32) -> HostParams {
        HostParams { fifo_batch, ..HostParams::for_tests() }
    }

    fn add(s: &mut MqDeadline, id: ReqId, op: Op, page: u64, now: Time) {
        s.enqueue(id, &HostRequestView { arrival: now, op, offset: page * 4096, len: 4096, stream: 0 }, now);
    }

    #[test]
    fn batches_of_fifo_batch_then_direction_choice() {
        let mut s = MqDeadline::new(&params(2));
        for i in 0..4 {
            add(&mut s, i, Op::Read, i as u64 * 10, 0);
        }
        add(&mut s, 10, Op::Write, 5, 0);
        let order: Vec<ReqId> = std::iter::from_fn(|| s.dispatch(0).map(|d| d.id)).collect();
        // the scheduler starts in the write direction (last_dir = WRITE), then batches of 2 reads
        assert_eq!(order, vec![10, 0, 1, 2, 3]);
    }

    #[test]
    fn writes_starved_lets_a_write_through() {
        let mut s = MqDeadline::new(&params(1));
        for i in 0..6 {
            add(&mut s, i, Op::Read, i as u64 * 10, 0);
        }
        // No write waits: reads go and `starved` stays 0 (the kernel increments it only when
        // dd->fifo_list[WRITE] is non-empty, block/mq-deadline.c __dd_dispatch_request).
        assert_eq!(s.dispatch(0).unwrap().id, 0);
        assert_eq!(s.dispatch(0).unwrap().id, 1);
        add(&mut s, 10, Op::Write, 5, 0);
        let order: Vec<ReqId> = std::iter::from_fn(|| s.dispatch(0).map(|d| d.id)).collect();
        // two read batches while the write waits (starved 0 -> 1 -> 2), then the write goes
        assert_eq!(order, vec![2, 3, 10, 4, 5]);
    }

    #[test]
    fn expiry_wins_over_address_order() {
        let mut s = MqDeadline::new(&params(1));
        add(&mut s, 1, Op::Read, 50, 0);
        add(&mut s, 2, Op::Read, 1, 100);
        add(&mut s, 3, Op::Read, 2, 100);
        assert_eq!(s.dispatch(10).unwrap().id, 2); // address order from position 0
        assert_eq!(s.dispatch(600_000_000).unwrap().id, 1); // request 1 expired at 500 ms
    }
}
