//! Device-queue (host interface logic) policies: the order in which page-sized transactions of the
//! requests inside the device are handed to the per-chip queues. One policy per file.

mod fifo;

pub use fifo::Fifo;

use crate::sim::txn::{Txn, TxnId};

pub trait DeviceQueue: Send {
    fn name(&self) -> &'static str;
    /// A host transaction whose physical location is known.
    fn push(&mut self, id: TxnId, txn: &Txn);
    /// The next transaction to hand to its chip's queue. Called until it returns `None`, after
    /// pushes and whenever a die finishes (so batching policies can wait for chips to drain).
    fn pop(&mut self, txns: &[Txn]) -> Option<TxnId>;
    fn len(&self) -> usize;
}

pub fn build(name: &str) -> Box<dyn DeviceQueue> {
    match name {
        "fifo" => Box::new(Fifo::default()),
        other => unreachable!("device queue {other} passed validation"),
    }
}
