//! Transaction schedulers: each chip's queue of flash transactions, and the choice of what an idle
//! die runs next. One policy per file.

mod fcfs;

pub use fcfs::Fcfs;

use crate::nand::Layout;
use crate::sim::txn::{Txn, TxnId};

pub trait TransactionScheduler: Send {
    fn name(&self) -> &'static str;
    fn enqueue(&mut self, id: TxnId, txn: &Txn);
    /// Put a transaction back at the head of its queue (a host write that had to wait for GC).
    fn enqueue_front(&mut self, id: TxnId, txn: &Txn);
    /// The transaction `die` should run next; `None` leaves it idle.
    fn next(&mut self, die: u32, txns: &[Txn]) -> Option<TxnId>;
    /// Transactions queued (not running) on a chip.
    fn queued_on_chip(&self, chip: u32) -> usize;
    fn len(&self) -> usize;
}

pub fn build(name: &str, layout: Layout) -> Box<dyn TransactionScheduler> {
    match name {
        "fcfs" => Box::new(Fcfs::new(layout)),
        other => unreachable!("transaction scheduler {other} passed validation"),
    }
}
