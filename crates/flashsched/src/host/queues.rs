//! Shared structures of the Linux-style host schedulers: a store of queued requests, merging of
//! contiguous requests (back merges via a hash of end offsets, front merges via a hash of start
//! offsets, as the block layer's elevator hash does), and per-direction sort trees and FIFOs with
//! deadlines.
//!
//! Merging is keyed on the operation, not the direction: the block layer merges a request only
//! into one of the same op (`blk_rq_merge_ok` / `req_op(rq) == req_op(next)`), never a write into a
//! discard, and never a flush or an empty request at all (`rq_mergeable`).

use std::collections::{BTreeSet, VecDeque};

use rustc_hash::FxHashMap as HashMap;

use super::{dir_of, Dispatched, HostRequestView};
use crate::engine::Time;
use crate::sim::txn::ReqId;
use crate::trace::Op;

/// One queued (possibly merged) request.
#[derive(Debug, Clone)]
pub struct Queued {
    pub dir: usize,
    /// Merge class (see [`merge_class`]); `None`: this request takes no merges.
    class: Option<u8>,
    pub offset: u64,
    pub len: u64,
    /// Dispatch deadline: arrival of the first request + expire time of its direction.
    pub deadline: Time,
    pub merged: Vec<ReqId>,
    /// Unique per queued request: request ids are reused after completion, so FIFO entries are
    /// matched on (id, seq) to tell a live entry from one left behind by an earlier request.
    pub seq: u64,
}

/// What `Store::add` did with a new request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    /// Queued on its own.
    New,
    /// Appended to the end of a queued request (back merge); the sort key did not change.
    BackMerged(ReqId),
    /// Put in front of a queued request (front merge): its start offset changed from the value given.
    FrontMerged(ReqId, u64),
}

#[derive(Debug, Default)]
pub struct Store {
    pub reqs: HashMap<ReqId, Queued>,
    by_end: HashMap<(u8, u64), ReqId>,
    by_start: HashMap<(u8, u64), ReqId>,
    held: usize,
    next_seq: u64,
}

impl Store {
    /// Queue a request, merging it into a contiguous one of the same operation when the result
    /// stays within `max_merge` bytes (0: never merge).
    pub fn add(&mut self, id: ReqId, r: &HostRequestView, deadline: Time, max_merge: u64, front_merges: bool) -> Added {
        let dir = dir_of(r.op);
        let class = merge_class(r);
        self.held += 1;
        if let (Some(c), true) = (class, max_merge > 0) {
            if let Some(&host) = self.by_end.get(&(c, r.offset)) {
                let q = self.reqs.get_mut(&host).expect("hashed request is queued");
                if q.len + r.len <= max_merge {
                    self.by_end.remove(&(c, q.offset + q.len));
                    q.len += r.len;
                    q.merged.push(id);
                    self.by_end.insert((c, q.offset + q.len), host);
                    return Added::BackMerged(host);
                }
            }
            if front_merges {
                if let Some(&host) = self.by_start.get(&(c, r.offset + r.len)) {
                    let q = self.reqs.get_mut(&host).expect("hashed request is queued");
                    if q.len + r.len <= max_merge {
                        let old = q.offset;
                        self.by_start.remove(&(c, old));
                        q.offset = r.offset;
                        q.len += r.len;
                        q.merged.push(id);
                        self.by_start.insert((c, q.offset), host);
                        return Added::FrontMerged(host, old);
                    }
                }
            }
        }
        if let Some(c) = class {
            self.by_end.insert((c, r.offset + r.len), id);
            self.by_start.insert((c, r.offset), id);
        }
        self.next_seq += 1;
        self.reqs.insert(id, Queued { dir, class, offset: r.offset, len: r.len, deadline, merged: Vec::new(), seq: self.next_seq });
        Added::New
    }

    /// Take a request out for dispatch.
    pub fn take(&mut self, id: ReqId) -> Dispatched {
        let q = self.reqs.remove(&id).expect("dispatching a queued request");
        if let Some(c) = q.class {
            if self.by_end.get(&(c, q.offset + q.len)) == Some(&id) {
                self.by_end.remove(&(c, q.offset + q.len));
            }
            if self.by_start.get(&(c, q.offset)) == Some(&id) {
                self.by_start.remove(&(c, q.offset));
            }
        }
        self.held -= 1 + q.merged.len();
        Dispatched { id, offset: q.offset, len: q.len, merged: q.merged }
    }

    pub fn held(&self) -> usize {
        self.held
    }
    pub fn get(&self, id: ReqId) -> Option<&Queued> {
        self.reqs.get(&id)
    }
}

/// Which requests may merge with which: reads with reads, writes with writes, trims with trims;
/// flushes and zero-length requests with nothing (they carry no data range to extend).
fn merge_class(r: &HostRequestView) -> Option<u8> {
    if r.len == 0 {
        return None;
    }
    match r.op {
        Op::Read => Some(0),
        Op::Write => Some(1),
        Op::Trim => Some(2),
        Op::Flush => None,
    }
}

/// A direction's sort tree (by start offset) and FIFO (by arrival, carrying deadlines). FIFO
/// entries of requests already dispatched are skipped lazily.
#[derive(Debug, Default)]
pub struct DirQueue {
    pub sorted: BTreeSet<(u64, ReqId)>,
    pub fifo: VecDeque<(ReqId, u64)>,
}

impl DirQueue {
    /// Queue a request the store has just added (its `seq` identifies this FIFO entry).
    pub fn insert(&mut self, id: ReqId, store: &Store) {
        let q = store.get(id).expect("added to the store first");
        self.sorted.insert((q.offset, id));
        self.fifo.push_back((id, q.seq));
    }
    /// Queue in address order only, for schedulers that keep their own arrival order.
    pub fn insert_sorted(&mut self, id: ReqId, offset: u64) {
        self.sorted.insert((offset, id));
    }
    pub fn reposition(&mut self, id: ReqId, old: u64, new: u64) {
        self.sorted.remove(&(old, id));
        self.sorted.insert((new, id));
    }
    pub fn remove(&mut self, id: ReqId, offset: u64) {
        self.sorted.remove(&(offset, id));
    }
    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }
    /// The oldest request still queued.
    pub fn fifo_head(&mut self, store: &Store) -> Option<ReqId> {
        while let Some(&(id, seq)) = self.fifo.front() {
            if store.get(id).is_some_and(|q| q.seq == seq) {
                return Some(id);
            }
            self.fifo.pop_front();
        }
        None
    }
    /// The first request at or after `pos` in address order.
    pub fn at_or_after(&self, pos: u64) -> Option<ReqId> {
        self.sorted.range((pos, 0)..).next().map(|&(_, id)| id)
    }
    pub fn lowest(&self) -> Option<ReqId> {
        self.sorted.iter().next().map(|&(_, id)| id)
    }
}

/// Deadline's choice of direction for a new batch: reads, unless writes are waiting and reads
/// have already won `writes_starved` times in a row while they waited (`starved` counts those
/// wins; a read batch dispatched with no write queued does not count, as in Linux
/// `deadline_dispatch_requests` and `__dd_dispatch_request`).
pub fn choose_direction(dq: &[DirQueue; 2], starved: &mut u32, writes_starved: u32) -> Option<usize> {
    let reads = !dq[0].is_empty();
    let writes = !dq[1].is_empty();
    if reads {
        if writes {
            let s = *starved;
            *starved += 1;
            if s >= writes_starved {
                *starved = 0;
                return Some(1);
            }
        }
        Some(0)
    } else if writes {
        *starved = 0;
        Some(1)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(op: Op, offset: u64, len: u64) -> HostRequestView {
        HostRequestView { arrival: 0, op, offset, len, stream: 0 }
    }

    #[test]
    fn fifo_ignores_entries_of_a_reused_id() {
        let mut s = Store::default();
        let mut a = DirQueue::default();
        let mut b = DirQueue::default();
        s.add(7, &view(Op::Read, 0, 4096), 100, 0, false);
        a.insert(7, &s);
        a.remove(7, 0);
        s.take(7);
        // id 7 comes back for a request queued elsewhere: queue a must not see it
        s.add(7, &view(Op::Read, 1 << 30, 4096), 200, 0, false);
        b.insert(7, &s);
        assert_eq!(a.fifo_head(&s), None);
        assert_eq!(b.fifo_head(&s), Some(7));
    }

    #[test]
    fn back_and_front_merges_within_the_limit() {
        let mut s = Store::default();
        assert_eq!(s.add(1, &view(Op::Write, 8192, 4096), 0, 16384, true), Added::New);
        assert_eq!(s.add(2, &view(Op::Write, 12288, 4096), 0, 16384, true), Added::BackMerged(1));
        assert_eq!(s.add(3, &view(Op::Write, 4096, 4096), 0, 16384, true), Added::FrontMerged(1, 8192));
        assert_eq!(s.add(4, &view(Op::Write, 16384, 4096), 0, 16384, true), Added::BackMerged(1));
        // the 16 KiB limit is reached: the next contiguous write stays separate
        assert_eq!(s.add(5, &view(Op::Write, 20480, 4096), 0, 16384, true), Added::New);
        // a read never merges with a write
        assert_eq!(s.add(6, &view(Op::Read, 24576, 4096), 0, 16384, true), Added::New);
        let d = s.take(1);
        assert_eq!((d.offset, d.len, d.merged), (4096, 16384, vec![2, 3, 4]));
        assert_eq!(s.held(), 2);
    }

    #[test]
    fn different_operations_never_merge() {
        // The block layer merges only requests of the same op: a write next to a queued trim, a
        // trim next to a queued write, or anything next to a flush stays a request of its own.
        let mut s = Store::default();
        assert_eq!(s.add(1, &view(Op::Trim, 0, 8192), 0, 1 << 20, true), Added::New);
        assert_eq!(s.add(2, &view(Op::Write, 8192, 4096), 0, 1 << 20, true), Added::New, "write behind a trim");
        assert_eq!(s.add(3, &view(Op::Trim, 12288, 4096), 0, 1 << 20, true), Added::New, "trim behind a write");
        assert_eq!(s.add(4, &view(Op::Flush, 0, 0), 0, 1 << 20, true), Added::New);
        assert_eq!(s.add(5, &view(Op::Write, 0, 4096), 0, 1 << 20, true), Added::New, "write at a flush's offset");
        assert_eq!(s.add(6, &view(Op::Flush, 4096, 0), 0, 1 << 20, true), Added::New, "flush behind a write");
        // trims still merge with trims, writes with writes
        assert_eq!(s.add(7, &view(Op::Trim, 16384, 4096), 0, 1 << 20, true), Added::BackMerged(3));
        assert_eq!(s.add(8, &view(Op::Write, 4096, 4096), 0, 1 << 20, true), Added::BackMerged(5));
        assert_eq!(s.held(), 8);
        let d = s.take(1);
        assert_eq!((d.offset, d.len, d.merged), (0, 8192, vec![]));
    }
}
