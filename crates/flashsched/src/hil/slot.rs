//! The device-queue slot as the simulator holds it: the default policy (`fifo`) by value, so that
//! the push and pop made for every transaction are inlined and the pop needs no view of the
//! device (FIFO never looks at it; building the view cost more than the pop itself, and the
//! simulator asks for `fifo()` before it builds one); any other
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

    /// `DeviceQueue::push_continuation`.
    pub fn push_continuation(&mut self, id: TxnId, txn: &Txn) {
        match self {
            HilSlot::Fifo(f) => f.push(id, txn),
            HilSlot::Other(p) => p.push_continuation(id, txn),
        }
    }

    /// The FIFO policy, when it is the one in the slot: its next transaction is simply the
    /// oldest (`Fifo::take`), with no view of the device to build.
    #[inline]
    pub fn fifo(&mut self) -> Option<&mut Fifo> {
        match self {
            HilSlot::Fifo(f) => Some(f),
            HilSlot::Other(_) => None,
        }
    }

    /// The next transaction to release, for any policy, given its view of the device.
    #[inline]
    pub fn pop_policy(&mut self, txns: &mut [Txn], view: &DeviceView) -> Option<TxnId> {
        match self {
            HilSlot::Fifo(f) => f.take(),
            HilSlot::Other(p) => p.pop(txns, view),
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
