//! The transaction-scheduler slot as the simulator holds it: the default policy (`fcfs`) by value,
//! so that the calls made for every transaction (enqueue, next, the queue counts) are inlined
//! instead of going through a virtual call; any other policy behind the trait. Every other
//! method reaches the policy through `Deref` to `dyn TransactionScheduler`.
//!
//! Why: the policy slots were a measured share of the simulator's per-transaction cost when the
//! policy does not use them (docs/performance.md, issue 13). Behaviour is the policy's either way.

use super::{Fcfs, TransactionScheduler};
use crate::sim::txn::{Txn, TxnId};

pub enum TsuSlot {
    Fcfs(Fcfs),
    Other(Box<dyn TransactionScheduler>),
}

impl TsuSlot {
    #[inline]
    pub fn enqueue(&mut self, id: TxnId, txn: &Txn) {
        match self {
            TsuSlot::Fcfs(f) => f.enqueue(id, txn),
            TsuSlot::Other(p) => p.enqueue(id, txn),
        }
    }
    #[inline]
    pub fn next(&mut self, die: u32, txns: &[Txn]) -> Option<TxnId> {
        match self {
            TsuSlot::Fcfs(f) => f.next(die, txns),
            TsuSlot::Other(p) => p.next(die, txns),
        }
    }
    #[inline]
    pub fn queued_on_chip(&self, chip: u32) -> usize {
        match self {
            TsuSlot::Fcfs(f) => f.queued_on_chip(chip),
            TsuSlot::Other(p) => p.queued_on_chip(chip),
        }
    }
    #[inline]
    pub fn queued_for_die(&self, die: u32) -> usize {
        match self {
            TsuSlot::Fcfs(f) => f.queued_for_die(die),
            TsuSlot::Other(p) => p.queued_for_die(die),
        }
    }
    #[inline]
    pub fn len(&self) -> usize {
        match self {
            TsuSlot::Fcfs(f) => f.len(),
            TsuSlot::Other(p) => p.len(),
        }
    }
}

policy_slot_deref!(TsuSlot, TransactionScheduler, Fcfs);
