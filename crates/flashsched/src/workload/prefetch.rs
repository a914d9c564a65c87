//! Trace decoding on a thread of its own: [`Prefetched`] runs a [`Replay`] on a helper thread
//! that decodes ahead (decompression, parsing, up to `DEPTH` batches of `BATCH` records) while
//! the simulation consumes, so decoding leaves the simulation's critical path (it is about 9% of
//! the instructions of bench8x8, docs/performance.md).
//!
//! What the simulation sees is unchanged, record for record: the same requests in the same order,
//! a decoding error at the same record (with its file and line), and the same `workload` block,
//! whose counts (`records_read`, `out_of_order`) are those of the records the simulation took,
//! not of those decoded ahead. Dropping it stops the thread (its next send fails).

use std::sync::mpsc::{sync_channel, Receiver};
use std::thread::JoinHandle;

use serde_json::Value;

use super::{HostRequest, Replay, Workload};
use crate::trace::TraceError;

/// Records per message, and messages in flight.
const BATCH: usize = 1024;
const DEPTH: usize = 8;

/// How many records ahead of the one taken the simulation asks for (`Prefetched::next_request`).
const PREFETCH_AHEAD: usize = 8;

/// Hint both cache lines an item may span.
#[inline(always)]
fn prefetch_item(item: &Item) {
    let first = item as *const Item as *const u8;
    crate::mem::prefetch_addr(first);
    crate::mem::prefetch_addr(first.wrapping_add(std::mem::size_of::<Item>() - 1));
}

/// One decoded record and the reader's count of out-of-order records after it.
type Item = Result<(HostRequest, u64), TraceError>;

struct Batch {
    items: Vec<Item>,
    /// The reader's progress (0..1) and its description after the batch (its header comments are
    /// read with the first records).
    progress: f64,
    describe: Value,
}

pub struct Prefetched {
    rx: Receiver<Batch>,
    current: std::vec::IntoIter<Item>,
    /// The `workload` block as the reader last described itself.
    template: Value,
    taken: u64,
    out_of_order: u64,
    progress: f64,
    done: bool,
    _thread: JoinHandle<()>,
}

impl Prefetched {
    pub fn new(mut inner: Replay) -> Self {
        let template = inner.describe();
        let (tx, rx) = sync_channel::<Batch>(DEPTH);
        let thread = std::thread::Builder::new()
            .name("flashsched-decode".into())
            .spawn(move || loop {
                let mut items = Vec::with_capacity(BATCH);
                let mut end = false;
                while items.len() < BATCH {
                    match inner.next_request() {
                        Ok(Some(r)) => items.push(Ok((r, inner.out_of_order()))),
                        Ok(None) => {
                            end = true;
                            break;
                        }
                        Err(e) => {
                            items.push(Err(e));
                            end = true;
                            break;
                        }
                    }
                }
                if tx.send(Batch { items, progress: inner.progress(), describe: inner.describe() }).is_err() || end {
                    return;
                }
            })
            .expect("spawn the trace-decoding thread");
        Prefetched { rx, current: Vec::new().into_iter(), template, taken: 0, out_of_order: 0, progress: 0.0, done: false, _thread: thread }
    }
}

impl Workload for Prefetched {
    fn next_request(&mut self) -> Result<Option<HostRequest>, TraceError> {
        loop {
            if let Some(item) = self.current.next() {
                // The batch was written by the decoding thread, on the other core: each record's
                // cache line must come over from that core's cache, and waiting for it was most of
                // this function's time (docs/performance.md). Ask for a record a few ahead now.
                // (`current` is past the record taken: `PREFETCH_AHEAD - 1` of it is the record
                // `PREFETCH_AHEAD` ahead; a new batch prefetches its first `PREFETCH_AHEAD`.)
                if let Some(ahead) = self.current.as_slice().get(PREFETCH_AHEAD - 1) {
                    prefetch_item(ahead);
                }
                let (r, ooo) = item?;
                self.taken += 1;
                self.out_of_order = ooo;
                return Ok(Some(r));
            }
            if self.done {
                return Ok(None);
            }
            match self.rx.recv() {
                Ok(b) => {
                    self.progress = b.progress;
                    self.template = b.describe;
                    self.done = b.items.len() < BATCH;
                    for item in b.items.iter().take(PREFETCH_AHEAD) {
                        prefetch_item(item);
                    }
                    self.current = b.items.into_iter();
                }
                // The thread ended after its last batch.
                Err(_) => self.done = true,
            }
        }
    }

    fn progress(&self) -> f64 {
        self.progress
    }

    fn describe(&self) -> Value {
        let mut d = self.template.clone();
        d["records_read"] = self.taken.into();
        d["out_of_order"] = self.out_of_order.into();
        d
    }
}
