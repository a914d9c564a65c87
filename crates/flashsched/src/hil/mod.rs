//! Device-queue (host interface logic) policies: the order in which page-sized transactions of the
//! requests inside the device are handed to the per-chip queues. One policy per file.

mod bits;
mod fifo;
mod hier;
mod idle_watch;
mod paq;
mod piq;
mod slot;
mod vios;

pub use fifo::Fifo;
pub use paq::Paq;
pub use piq::Piq;
pub use slot::HilSlot;
pub use vios::Vios;

use crate::engine::Time;
use crate::nand::Layout;
use crate::sim::txn::{Placement, ReqId, Txn, TxnId};

/// What a device-queue policy may know of the device when it releases transactions.
#[derive(Clone, Copy)]
pub struct DeviceView<'a> {
    pub now: Time,
    /// Whether a die is running an operation or has transactions queued.
    pub die_busy: &'a dyn Fn(u32) -> bool,
    /// Transactions queued for a chip and not started (its transaction scheduler's queues).
    pub chip_queued: &'a dyn Fn(u32) -> usize,
}

impl DeviceView<'_> {
    /// Whether parallel unit `unit` (dies `unit * dies_per_unit ..`: a chip, or a die) has no die
    /// running an operation or holding queued transactions.
    #[inline]
    pub fn unit_idle(&self, unit: u32, dies_per_unit: u32) -> bool {
        (unit * dies_per_unit..(unit + 1) * dies_per_unit).all(|d| !(self.die_busy)(d))
    }
}

/// When a batching device queue (PIQ, VIOS) issues its head batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dispatch {
    /// When the flash controller can take the whole batch (issued and not completed requests plus
    /// the batch's fit the queue depth).
    QueueDepth,
    /// As `QueueDepth`, and only once every die the batch touches is idle with nothing queued,
    /// so the batch runs without waiting behind earlier work.
    IdleUnits,
    /// Request by request: each waiting request goes, oldest batch first, as soon as the dies it
    /// touches are idle with nothing queued (and the queue depth allows). VIOS only.
    IdleRequests,
    /// Sub-request by sub-request, as SSDSim scatters a request into per-chip sub-requests (and
    /// the VIOS paper, §3.3, allocates blocks per sub-request): a request's transactions for one
    /// chip go, oldest batch first and reads before writes, as soon as that chip is idle with
    /// nothing queued, whatever its other chips are doing. Requests wait in the policy's queues,
    /// where it can order them, instead of in the chips' own.
    SubRequests,
    /// Request by request into a bounded device, as the VIOS paper's simulator admits requests
    /// (SSDSim's `queue_length`): while fewer than `queue_depth` requests are in flight, the next
    /// request in the policy's order goes to the chips whole, whatever the chips are doing. The
    /// policy's queue is where requests wait for a free slot, and its order decides which fills it.
    Slots,
}

impl Dispatch {
    pub fn from_key(v: &str) -> Self {
        match v {
            "idle_units" => Dispatch::IdleUnits,
            "idle_requests" => Dispatch::IdleRequests,
            "sub_requests" => Dispatch::SubRequests,
            "slots" => Dispatch::Slots,
            _ => Dispatch::QueueDepth,
        }
    }
}

/// The request whose transactions are being pushed to a batching device queue (PIQ, VIOS; a
/// request's transactions arrive one after another): its transactions, the units they touch, and
/// its kind and arrival. The queue places it when the next request's first transaction comes, or
/// when it is asked to pop.
pub(crate) struct Collecting {
    pub txns: Vec<TxnId>,
    pub units: bits::Bits,
    pub req: ReqId,
    pub read: bool,
    pub born: Time,
}

impl Collecting {
    pub fn new(units: usize) -> Self {
        Collecting { txns: Vec::new(), units: bits::Bits::new(units), req: crate::nand::NONE, read: false, born: 0 }
    }

    /// `txn` belongs to another request than the one collected: place that one first, then `begin`.
    #[inline]
    pub fn starts(&self, txn: &Txn) -> bool {
        txn.req != self.req
    }

    pub fn begin(&mut self, txn: &Txn) {
        self.req = txn.req;
        self.read = txn.kind == crate::sim::txn::TxnKind::HostRead;
        self.born = txn.enqueued;
    }

    /// Add transaction `txn` (`id`) of the collected request, on `unit`. A request is a write if
    /// any of its transactions is one: a partial-page write may begin with an update read of the
    /// old page (`ftl.partial_writes = "update_read"`).
    #[inline]
    pub fn add(&mut self, id: TxnId, unit: u32, txn: &Txn) {
        self.txns.push(id);
        self.units.insert(unit);
        if txn.kind == crate::sim::txn::TxnKind::HostWrite {
            self.read = false;
        }
    }

    /// The collected request was placed (its transactions taken): collect the next one.
    pub fn placed(&mut self) {
        self.txns.clear();
        self.units.clear();
        self.req = crate::nand::NONE;
    }
}

pub trait DeviceQueue: Send {
    fn name(&self) -> &'static str;
    /// A host transaction whose physical location is known. A request's transactions are pushed
    /// one after another.
    fn push(&mut self, id: TxnId, txn: &Txn);
    /// A transaction of a request whose other transactions went to the chips already: a
    /// read-modify-write's write, pushed once its read is done. Policies that admit requests
    /// (PIQ, VIOS: their queue depth counts requests in flight) let it join its request instead of
    /// queueing it as a new one, which could wait for ever behind requests that cannot complete
    /// without it.
    fn push_continuation(&mut self, id: TxnId, txn: &Txn) {
        self.push(id, txn);
    }
    /// The next transaction to hand to its chip's queue. Called until it returns `None`, after
    /// pushes and whenever a die finishes (so batching policies can wait for chips to drain).
    /// A policy may set a host write's `place` (speed-aware block choice, VIOS) before returning it.
    /// With nothing held (`len() == 0`) it must return `None` and change nothing: the simulator
    /// does not ask then.
    fn pop(&mut self, txns: &mut [Txn], device: &DeviceView) -> Option<TxnId>;
    /// Transactions held (pushed and not yet popped).
    fn len(&self) -> usize;
    /// It marks host writes for speed-aware placement (`Txn::place`) in `pop`.
    fn places_writes(&self) -> bool {
        false
    }
    /// It wants to hear of dies that may have become idle (`on_die_may_idle`); asked once, when
    /// the simulator is built.
    fn watches_dies(&self) -> bool {
        false
    }
    /// Die `die` may have become idle with nothing queued: an operation ended, a suspension
    /// reached its safe point, or a transaction was dropped as it started (a write with no page,
    /// a stale GC move). A policy that keeps track of idle units (`watches_dies`) needs no other
    /// news of them.
    fn on_die_may_idle(&mut self, _die: u32) {}
    /// Every transaction of host request `req` has completed (policies that count the requests
    /// they let into the flash controller use it).
    fn on_request_done(&mut self, _req: ReqId) {}
}

pub fn build(s: &crate::config::Settings, layout: Layout) -> HilSlot {
    if s.hil_scheduler == "fifo" {
        return HilSlot::Fifo(Fifo::default());
    }
    HilSlot::Other(build_boxed(s, layout))
}

fn build_boxed(s: &crate::config::Settings, layout: Layout) -> Box<dyn DeviceQueue> {
    let r = &s.resolved;
    match s.hil_scheduler.as_str() {
        "fifo" => Box::new(Fifo::default()),
        "paq" => Box::new(Paq::new(r.ns("hil.paq.max_age"))),
        "piq" => Box::new(Piq::new(layout, r.str("hil.piq.granularity") == "die", r.ns("hil.piq.max_age"), r.int("hil.piq.queue_depth") as u32).with_dispatch(Dispatch::from_key(r.str("hil.piq.dispatch")))),
        "vios" => Box::new(
            Vios::new(layout, r.ns("hil.vios.max_age"), r.int("hil.vios.queue_depth") as u32)
                .with_dispatch(Dispatch::from_key(r.str("hil.vios.dispatch")))
                .with_unconflicted(if r.str("hil.vios.unconflicted") == "static" { Placement::Static } else { Placement::Slowest }),
        ),
        other => unreachable!("device queue {other} passed validation"),
    }
}
