//! `deadline`: the legacy Linux Deadline scheduler. Per direction, a tree sorted by address and a
//! FIFO with deadlines (arrival + `read_expire`/`write_expire`). It dispatches batches of up to
//! `fifo_batch` requests in address order (a one-way elevator), prefers reads but lets writes go
//! after `writes_starved` read batches, and serves an expired FIFO head first. Contiguous requests
//! are merged up to `host.max_merge`.
//!
//! From: Linux 2.6.20 `block/deadline-iosched.c` (`deadline_dispatch_requests`); the PASS paper's
//! baseline. Parameters: `host.deadline.read_expire` (500ms), `write_expire` (5s),
//! `writes_starved` (2), `fifo_batch` (16), `front_merges` (true), `host.max_merge` (512KiB).

use super::queues::{Added, DirQueue, Store};
use super::{Dispatched, HostParams, HostRequestView, HostScheduler};
use crate::engine::Time;
use crate::sim::txn::ReqId;

const READ: usize = 0;
const WRITE: usize = 1;

pub struct Deadline {
    p: HostParams,
    store: Store,
    dq: [DirQueue; 2],
    next_rq: [Option<ReqId>; 2],
    last_end: u64,
    batching: u32,
    starved: u32,
}

impl Deadline {
    pub fn new(p: &HostParams) -> Self {
        Deadline { p: p.clone(), store: Store::default(), dq: Default::default(), next_rq: [None; 2], last_end: u64::MAX, batching: 0, starved: 0 }
    }

    fn expired(&mut self, dir: usize, now: Time) -> Option<ReqId> {
        let head = self.dq[dir].fifo_head(&self.store)?;
        (self.store.get(head)?.deadline <= now).then_some(head)
    }

    fn take(&mut self, id: ReqId) -> Dispatched {
        let q = self.store.get(id).expect("queued");
        let (dir, offset) = (q.dir, q.offset);
        self.dq[dir].remove(id, offset);
        let d = self.store.take(id);
        self.next_rq = [None; 2];
        self.next_rq[dir] = self.dq[dir].at_or_after(offset);
        self.last_end = d.offset + d.len;
        self.batching += 1;
        d
    }
}

impl HostScheduler for Deadline {
    fn name(&self) -> &'static str {
        "deadline"
    }

    fn enqueue(&mut self, id: ReqId, req: &HostRequestView, now: Time) {
        let expire = if super::dir_of(req.op) == READ { self.p.read_expire } else { self.p.write_expire };
        match self.store.add(id, req, now + expire, self.p.max_merge, self.p.front_merges) {
            Added::New => self.dq[super::dir_of(req.op)].insert(id, &self.store),
            Added::BackMerged(_) => {}
            Added::FrontMerged(host, old) => {
                let q = self.store.get(host).expect("queued");
                let (dir, new) = (q.dir, q.offset);
                self.dq[dir].reposition(host, old, new);
            }
        }
    }

    fn dispatch(&mut self, now: Time) -> Option<Dispatched> {
        // Continue the current batch while it stays sequential and short.
        if let Some(rq) = self.next_rq[WRITE].or(self.next_rq[READ]) {
            if self.store.get(rq).map(|q| q.offset) != Some(self.last_end) {
                self.batching += self.p.fifo_batch;
            }
            if self.batching < self.p.fifo_batch {
                return Some(self.take(rq));
            }
        }
        let dir = super::queues::choose_direction(&self.dq, &mut self.starved, self.p.writes_starved)?;
        let rq = if let Some(e) = self.expired(dir, now) {
            self.batching = 0;
            e
        } else if let Some(n) = self.next_rq[dir] {
            n
        } else {
            self.batching = 0;
            self.dq[dir].lowest().expect("direction has requests")
        };
        Some(self.take(rq))
    }

    fn len(&self) -> usize {
        self.store.held()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Op;

    fn params() -> HostParams {
        HostParams::for_tests()
    }

    fn add(s: &mut Deadline, id: ReqId, op: Op, offset: u64, now: Time) {
        s.enqueue(id, &HostRequestView { arrival: now, op, offset, len: 4096, stream: 0 }, now);
    }

    #[test]
    fn sequential_batch_in_address_order() {
        let mut s = Deadline::new(&params());
        for (id, off) in [(1, 3), (2, 1), (3, 2), (4, 0)] {
            add(&mut s, id, Op::Read, off * 4096, 0);
        }
        let order: Vec<ReqId> = std::iter::from_fn(|| s.dispatch(0).map(|d| d.id)).collect();
        assert_eq!(order, vec![4, 2, 3, 1]);
    }

    #[test]
    fn writes_go_after_writes_starved_read_batches() {
        let mut p = params();
        p.fifo_batch = 1; // every dispatch is a batch of one
        let mut s = Deadline::new(&p);
        add(&mut s, 100, Op::Write, 1 << 30, 0);
        for i in 0..5 {
            add(&mut s, i, Op::Read, i as u64 * 8192, 0); // not contiguous: each read ends its batch
        }
        let order: Vec<ReqId> = std::iter::from_fn(|| s.dispatch(0).map(|d| d.id)).collect();
        // reads win twice (starved 0 -> 1 -> 2), then the write goes
        assert_eq!(order, vec![0, 1, 100, 2, 3, 4]);
    }

    #[test]
    fn reads_count_as_starving_writes_only_while_writes_wait() {
        // Linux deadline_dispatch_requests: `if (!list_empty(&dd->fifo_list[WRITE]) &&
        // (dd->starved++ >= dd->writes_starved))` -- read batches dispatched while no write is
        // queued do not count.
        let mut p = params();
        p.fifo_batch = 1;
        let mut s = Deadline::new(&p);
        for i in 0..6 {
            add(&mut s, i, Op::Read, i as u64 * 8192, 0);
        }
        assert_eq!(s.dispatch(0).unwrap().id, 0);
        assert_eq!(s.dispatch(0).unwrap().id, 1);
        assert_eq!(s.dispatch(0).unwrap().id, 2);
        add(&mut s, 100, Op::Write, 1 << 30, 0);
        let order: Vec<ReqId> = std::iter::from_fn(|| s.dispatch(0).map(|d| d.id)).collect();
        assert_eq!(order, vec![3, 4, 100, 5]);
    }

    #[test]
    fn expired_fifo_head_is_served_first() {
        let mut p = params();
        p.fifo_batch = 1;
        let mut s = Deadline::new(&p);
        add(&mut s, 1, Op::Read, 100 * 4096, 0); // oldest, far address
        add(&mut s, 2, Op::Read, 0, 10);
        add(&mut s, 3, Op::Read, 4096 * 2, 10);
        // before the deadline: address order from the lowest
        assert_eq!(s.dispatch(0).unwrap().id, 2);
        // after read_expire the oldest goes first
        assert_eq!(s.dispatch(500_000_001).unwrap().id, 1);
    }

    #[test]
    fn contiguous_requests_merge() {
        let mut p = params();
        p.max_merge = 1 << 20;
        let mut s = Deadline::new(&p);
        add(&mut s, 1, Op::Write, 0, 0);
        add(&mut s, 2, Op::Write, 4096, 0);
        let d = s.dispatch(0).unwrap();
        assert_eq!((d.id, d.len, d.merged.clone()), (1, 8192, vec![2]));
        assert!(s.dispatch(0).is_none() && s.is_empty());
    }
}
