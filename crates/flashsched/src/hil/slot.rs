//! The device-queue slot as the simulator holds it: the default policy (`fifo`) by value, so that
//! the push and pop made for every transaction are inlined and the pop needs no view of the
//! device (FIFO never looks at it; building the view cost more than the pop itself); any other
//! policy behind the trait, reached through `Deref` for everything else.

use super::{DeviceQueue, DeviceView, Fifo};
use crate::sim::txn::{ReqId, Txn, TxnId};

pub enum HilSlot {
    Fifo(Fifo),
    Other(Box<dyn DeviceQueue>),
}

impl HilSlot {
    #[inline]
    pub fn push(&mut self, id: TxnId, txn: &Txn) {
        match self {
            HilSlot::Fifo(f) => f.push(id, txn),
            HilSlot::Other(p) => p.push(id, txn),
        }
    }

    /// The next transaction to release. `view` builds the device view the policy may look at;
    /// FIFO does not, and it is not built then.
    #[inline]
    pub fn pop_with<'v>(&mut self, txns: &mut [Txn], view: impl FnOnce() -> DeviceView<'v>) -> Option<TxnId> {
        match self {
            HilSlot::Fifo(f) => f.take(),
            HilSlot::Other(p) => p.pop(txns, &view()),
        }
    }

    #[inline]
    pub fn on_request_done(&mut self, req: ReqId) {
        if let HilSlot::Other(p) = self {
            p.on_request_done(req);
        }
    }
}

policy_slot_deref!(HilSlot, DeviceQueue, Fifo);
