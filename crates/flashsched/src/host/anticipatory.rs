//! `as`: a reduced Anticipatory scheduler. Deadline-like: per direction an address-sorted tree and
//! a FIFO with deadlines (`read_expire`, `write_expire`); reads and writes are served in batches
//! that last at most `read_batch_expire` / `write_batch_expire`. After a read completes, AS keeps
//! the device idle for up to `antic_expire`, anticipating another read from the same stream: if
//! one arrives it is dispatched at once; if the window runs out (or a request expires), normal
//! service resumes. Reduced: it always anticipates (no per-process think-time or seek statistics),
//! and there is no backward-seek costing.
//!
//! From: Linux `block/as-iosched.c` (read_expire HZ/8, write_expire HZ/4, read_batch_expire HZ/2,
//! write_batch_expire HZ/8, antic_expire ~HZ/150); the PASS paper's baseline. Parameters:
//! `host.as.antic_expire` (6.7ms), `host.as.read_expire` (125ms), `host.as.write_expire` (250ms),
//! `host.as.read_batch_expire` (500ms), `host.as.write_batch_expire` (125ms).

use rustc_hash::FxHashMap as HashMap;

use super::queues::{DirQueue, Store};
use super::{dir_of, Dispatched, HostRequestView, HostScheduler};
use crate::engine::Time;
use crate::sim::txn::ReqId;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AsParams {
    pub antic_expire: u64,
    pub read_expire: u64,
    pub write_expire: u64,
    pub read_batch_expire: u64,
    pub write_batch_expire: u64,
}

const READ: usize = 0;
const WRITE: usize = 1;

pub struct Anticipatory {
    p: AsParams,
    store: Store,
    dq: [DirQueue; 2],
    stream_of: HashMap<ReqId, u32>,
    batch_dir: usize,
    batch_end: Time,
    pos: [u64; 2],
    /// Waiting for a read from this stream until then.
    antic: Option<(u32, Time)>,
}

impl Anticipatory {
    pub fn new(p: AsParams) -> Self {
        Anticipatory { p, store: Store::default(), dq: Default::default(), stream_of: HashMap::default(), batch_dir: READ, batch_end: 0, pos: [0; 2], antic: None }
    }

    fn expired(&mut self, dir: usize, now: Time) -> Option<ReqId> {
        let h = self.dq[dir].fifo_head(&self.store)?;
        (self.store.get(h)?.deadline <= now).then_some(h)
    }

    fn take(&mut self, id: ReqId) -> Dispatched {
        let q = self.store.get(id).expect("queued");
        let (dir, offset) = (q.dir, q.offset);
        self.dq[dir].remove(id, offset);
        self.stream_of.remove(&id);
        let d = self.store.take(id);
        self.pos[dir] = d.offset + d.len;
        d
    }

    fn start_batch(&mut self, dir: usize, now: Time) {
        self.batch_dir = dir;
        self.batch_end = now + if dir == READ { self.p.read_batch_expire } else { self.p.write_batch_expire };
    }
}

impl HostScheduler for Anticipatory {
    fn name(&self) -> &'static str {
        "as"
    }

    fn enqueue(&mut self, id: ReqId, req: &HostRequestView, now: Time) {
        let dir = dir_of(req.op);
        let expire = if dir == READ { self.p.read_expire } else { self.p.write_expire };
        self.store.add(id, req, now + expire, 0, false);
        self.dq[dir].insert(id, &self.store);
        self.stream_of.insert(id, req.stream);
    }

    fn dispatch(&mut self, now: Time) -> Option<Dispatched> {
        for dir in [READ, WRITE] {
            if let Some(e) = self.expired(dir, now) {
                self.antic = None;
                self.start_batch(dir, now);
                return Some(self.take(e));
            }
        }
        if let Some((stream, until)) = self.antic {
            // Any request of the anticipated stream ends the wait (as-iosched.c
            // as_can_break_anticipation: the process "has queued IO"); a read is taken below.
            let stream_has_write = self.dq[WRITE].sorted.iter().any(|(_, id)| self.stream_of.get(id) == Some(&stream));
            if now < until && !stream_has_write {
                // The anticipated read: the queued read of that stream nearest after the head position.
                let want = self.dq[READ].sorted.range((self.pos[READ], 0)..).chain(self.dq[READ].sorted.iter()).map(|&(_, id)| id).find(|id| self.stream_of.get(id) == Some(&stream));
                return match want {
                    Some(id) => {
                        self.antic = None;
                        Some(self.take(id))
                    }
                    None => None, // keep the device idle
                };
            }
            self.antic = None;
        }
        let other = 1 - self.batch_dir;
        if self.dq[self.batch_dir].is_empty() || (now >= self.batch_end && !self.dq[other].is_empty()) {
            let dir = if !self.dq[READ].is_empty() && (self.batch_dir == WRITE || self.dq[WRITE].is_empty()) { READ } else { other };
            if self.dq[dir].is_empty() {
                return None;
            }
            self.start_batch(dir, now);
        }
        let dir = self.batch_dir;
        let id = self.dq[dir].at_or_after(self.pos[dir]).or_else(|| self.dq[dir].lowest())?;
        Some(self.take(id))
    }

    fn on_complete(&mut self, _id: ReqId, req: &HostRequestView, now: Time) {
        if dir_of(req.op) == READ && self.batch_dir == READ && self.p.antic_expire > 0 {
            self.antic = Some((req.stream, now + self.p.antic_expire));
            self.pos[READ] = req.offset + req.len;
        }
    }

    fn wakeup(&self) -> Option<Time> {
        self.antic.map(|(_, t)| t).filter(|_| self.store.held() > 0)
    }

    fn len(&self) -> usize {
        self.store.held()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Op;

    const P: AsParams = AsParams { antic_expire: 6_700_000, read_expire: 125_000_000, write_expire: 250_000_000, read_batch_expire: 500_000_000, write_batch_expire: 125_000_000 };

    fn view(stream: u32, page: u64, now: Time) -> HostRequestView {
        HostRequestView { arrival: now, op: Op::Read, offset: page * 4096, len: 4096, stream }
    }

    #[test]
    fn anticipates_the_same_streams_next_read() {
        let mut s = Anticipatory::new(P);
        s.enqueue(1, &view(0, 10, 0), 0);
        assert_eq!(s.dispatch(0).map(|d| d.id), Some(1));
        s.enqueue(2, &view(1, 50, 10), 10); // another stream's read arrives
        s.on_complete(1, &view(0, 10, 0), 100_000);
        assert_eq!(s.dispatch(100_000), None, "anticipating stream 0: stream 1 waits");
        assert_eq!(s.wakeup(), Some(100_000 + 6_700_000));
        s.enqueue(3, &view(0, 11, 200_000), 200_000);
        assert_eq!(s.dispatch(200_000).map(|d| d.id), Some(3), "stream 0's read goes at once");
        s.on_complete(3, &view(0, 11, 200_000), 300_000);
        assert_eq!(s.dispatch(300_000 + 6_700_000).map(|d| d.id), Some(2), "the window ran out");
    }

    #[test]
    fn a_write_from_the_anticipated_stream_ends_the_wait() {
        let mut s = Anticipatory::new(P);
        s.enqueue(2, &view(1, 50, 0), 0);
        s.on_complete(1, &view(0, 10, 0), 100);
        assert_eq!(s.dispatch(100), None);
        s.enqueue(3, &HostRequestView { arrival: 200, op: Op::Write, offset: 0, len: 4096, stream: 0 }, 200);
        assert!(s.dispatch(200).is_some(), "stream 0 queued a write: no more waiting");
    }

    #[test]
    fn expired_requests_end_anticipation() {
        let mut s = Anticipatory::new(P);
        s.enqueue(1, &view(1, 50, 0), 0);
        s.on_complete(9, &view(0, 10, 0), 124_000_000);
        assert_eq!(s.dispatch(124_000_000), None);
        assert_eq!(s.dispatch(125_000_000).map(|d| d.id), Some(1));
    }
}
