//! `fifo`: transactions reach the chip queues in the order their requests were split; nothing is
//! held back. No parameters.

use std::collections::VecDeque;

use super::DeviceQueue;
use crate::sim::txn::{Txn, TxnId};

#[derive(Default)]
pub struct Fifo {
    queue: VecDeque<TxnId>,
}

impl Fifo {
    /// The oldest transaction (the policy's whole decision).
    #[inline]
    pub fn take(&mut self) -> Option<TxnId> {
        self.queue.pop_front()
    }
}

impl DeviceQueue for Fifo {
    fn name(&self) -> &'static str {
        "fifo"
    }
    #[inline]
    fn push(&mut self, id: TxnId, _txn: &Txn) {
        self.queue.push_back(id);
    }
    fn pop(&mut self, _txns: &mut [Txn], _device: &super::DeviceView) -> Option<TxnId> {
        self.take()
    }
    fn len(&self) -> usize {
        self.queue.len()
    }
}
