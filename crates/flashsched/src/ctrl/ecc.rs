//! ECC decoding in the controller: time spent after a host read's data-out transfer, with the
//! die and the channel already free.
//!
//! An enum rather than a number so that a model whose decode time depends on the page (read
//! retries on worn blocks) can be added as a variant without changing the simulator.

use crate::config::Timing;
use crate::sim::txn::{Txn, TxnKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EccModel {
    /// Every host read page takes the same decode time (`device.timing.ecc`).
    Fixed { decode_ns: u64 },
}

impl EccModel {
    pub fn new(t: &Timing) -> Self {
        EccModel::Fixed { decode_ns: t.ecc_ns }
    }

    /// Decode time of `txn`'s page. Only host reads are decoded: GC reads are not charged.
    #[inline]
    pub fn decode_ns(&self, txn: &Txn) -> u64 {
        match *self {
            EccModel::Fixed { decode_ns } => {
                if txn.kind == TxnKind::HostRead {
                    decode_ns
                } else {
                    0
                }
            }
        }
    }
}
