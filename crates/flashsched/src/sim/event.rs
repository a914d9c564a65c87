//! The simulator's events: what can happen at a point of simulated time. Equal-time events run
//! in the order they were pushed (`engine::EventQueue`), so callers push in a fixed order.

use super::txn::{ReqId, TxnId};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ev {
    /// A request from the workload's stream arrives.
    Arrival,
    /// A closed-loop job's next request arrives (slot in `job_arrivals`).
    JobArrival(u32),
    /// A busy channel's transfer ended and dies are waiting for it.
    ChannelFree(u32),
    /// SSDSim's channel arbitration: the channel chooses its next bus operation, after the
    /// instant's other events (`arbiter`).
    ServeChannel(u32),
    /// SSDSim's admission cap: a held request may go in (`admission`).
    Admit,
    /// A die's array operation (read, program, erase) ended; ignored unless the die's epoch
    /// still matches (a suspension reschedules the end).
    DieDone(u32, u32),
    /// A die reached a safe point and suspended its program or erase.
    SuspendDone(u32, u32),
    /// A read's data-out transfer ended.
    ReadOutDone(u32),
    /// An idling host scheduler's wait ended: try to dispatch again.
    HostWakeup,
    /// The workload's own timer (`Workload::next_wakeup`, e.g. a page-cache flusher).
    WorkloadWakeup,
    /// A request's message on the host link arrived (`link`).
    LinkHop(ReqId),
    /// The data-in of a host write's program ended (`device.write_ack = "data_in"`).
    DataInDone(TxnId),
    /// A host read's ECC decoding finished.
    EccDone(TxnId),
    /// A chip went idle `device.idle.threshold` ago; ignored unless nothing reached it since (its
    /// work generation still matches).
    ChipIdle(u32, u32),
    /// A DRAM transfer of the data cache ended (its job in `cache::Cache`).
    CacheDram(u32),
}
