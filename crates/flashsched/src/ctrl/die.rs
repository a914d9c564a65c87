//! A die's state machine and the timing of its steps.
//!
//! A die is busy from the moment it starts an operation until the operation's last step. Its
//! phases are wider than their names: `Program` is entered when the data-in transfer STARTS,
//! `ReadArray` and `Erase` when their command starts (the array operation follows the transfer
//! with no event of its own); `ReadCmd`, `WriteIn` and `EraseCmd` only mean "waiting for the
//! bus". Suspension (`super::suspend`) relies on this.
//!
//! The steps return what happens next as a [`Step`] and never schedule events themselves: the
//! simulator does, in a fixed order.

use super::channel::BusTiming;
use super::suspend::Suspended;
use crate::engine::Time;
use crate::nand::latency::{ArrayCost, LatencyModel, NandCtx, NandOp, NandOpKind};
use crate::nand::NONE;
use crate::sim::txn::{Txn, TxnId, TxnKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Idle,
    ReadCmd,
    ReadArray,
    ReadOut,
    WriteIn,
    Program,
    EraseCmd,
    Erase,
    /// Suspending a program or erase: waiting for a safe point.
    Suspending,
}

/// Field order and alignment are chosen (`repr(C)`, 64 bytes): a die is touched on every
/// operation, at every start, bus grant, array end and release, and with 128 dies or more its
/// record is rarely still in the first-level cache by its next turn. The first cache line holds
/// what every operation reads (starting a die reads `suspended` too); the second what steps write
/// and programs and suspension read; a die spans two lines instead of three. (The chip-busy test
/// of host transactions reads `Flash`'s count of occupied dies, not the dies.)
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub struct Die {
    // First cache line.
    pub(super) txn: TxnId,
    pub(super) phase: Phase,
    /// A host read arrived while the program's data-in (or the erase's command) was still on its
    /// way: suspend as soon as the array operation starts.
    pub(super) suspend_wanted: bool,
    /// Bumped whenever a scheduled end of operation is cancelled (suspension).
    pub(super) epoch: u32,
    /// Suspensions of the current program or erase so far.
    pub(super) suspensions: u32,
    pub(super) op_start: Time,
    pub(super) busy_ns: u64,
    /// A program or erase put aside while the die serves reads (boxed: rare, and a pointer keeps
    /// the record within two cache lines). In the first line: every start reads it
    /// (`may_serve_read`, `is_occupied`).
    pub(super) suspended: Option<Box<Suspended>>,
    /// The other operations of a multi-plane command led by `txn` (empty for a single-plane one).
    pub(super) group: Vec<TxnId>,
    // Second cache line.
    /// When the running array operation is due to end (written by every step, read only when
    /// suspending).
    pub(super) array_end: Time,
    /// The running program's array time and ISPP iterations (equal parts of it), and when the
    /// first of the iterations still to run started: for pausing at iteration boundaries. The
    /// iteration length is computed only when a program pauses (a division saved per program).
    pub(super) prog_ns: u64,
    pub(super) iter_origin: Time,
    pub(super) prog_iters: u32,
    /// The group of the suspended operation, while the die serves reads.
    pub(super) suspended_group: Vec<TxnId>,
}

const _: () = assert!(std::mem::size_of::<Die>() == 128 && std::mem::align_of::<Die>() == 64);

/// What ends a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepEnd {
    /// The array operation (read, program, erase) ends: a `DieDone` event with the step's epoch.
    ArrayDone,
    /// The read's data-out transfer ends: a `ReadOutDone` event (with `BusTiming::page_outs`, of
    /// the leader's page; the read is over when no other operation is left in the command).
    ReadOutDone,
}

/// A step a die started: schedule `end` at `at`, then, if `suspend_from` is set, suspend the
/// operation from then (a read queued while the step waited for the bus).
#[derive(Debug, Clone, Copy)]
pub struct Step {
    /// Bus time of the step (0 for an array operation without a transfer).
    pub dur: u64,
    pub at: Time,
    pub end: StepEnd,
    pub epoch: u32,
    pub suspend_from: Option<Time>,
}

/// What follows the end of an array operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterArray {
    /// The die now waits for the bus to send the read's data out.
    ReadOut,
    /// The operation is over (program, erase, copyback read).
    Finish,
}

impl Default for Die {
    fn default() -> Self {
        Die {
            txn: NONE,
            phase: Phase::Idle,
            op_start: 0,
            busy_ns: 0,
            epoch: 0,
            array_end: 0,
            suspended: None,
            suspensions: 0,
            suspend_wanted: false,
            prog_ns: 0,
            prog_iters: 0,
            iter_origin: 0,
            group: Vec::new(),
            suspended_group: Vec::new(),
        }
    }
}

impl Die {
    #[inline]
    pub fn is_idle(&self) -> bool {
        self.phase == Phase::Idle
    }

    /// Running a program (its data-in started).
    #[inline]
    pub fn programming(&self) -> bool {
        self.phase == Phase::Program
    }

    /// Running an operation or holding a suspended one.
    #[inline]
    pub fn is_occupied(&self) -> bool {
        self.phase != Phase::Idle || self.suspended.is_some()
    }

    /// A suspension is decided (the die is on its way to the safe point) or in place: another
    /// read cannot start one.
    #[inline]
    pub fn pause_pending(&self) -> bool {
        self.phase == Phase::Suspending || self.suspended.is_some()
    }

    /// The transaction the die is running (`NONE` when idle).
    #[inline]
    pub fn txn(&self) -> TxnId {
        self.txn
    }

    /// Events carrying another epoch are stale (a suspension moved the end of the operation).
    #[inline]
    pub fn epoch(&self) -> u32 {
        self.epoch
    }

    /// Time spent running operations so far.
    pub fn busy_ns(&self) -> u64 {
        self.busy_ns
    }

    /// Start `t` in its first phase.
    #[inline]
    pub(super) fn begin(&mut self, t: TxnId, phase: Phase, now: Time) {
        self.txn = t;
        self.phase = phase;
        self.op_start = now;
    }

    /// With one page a data-out (`BusTiming::page_outs`): the leader's page is out and others
    /// remain; the next operation of the command leads it from now on (it takes the command's
    /// stages so far, `sim::turns`). Returns the former leader, now done.
    #[inline]
    pub fn promote_next(&mut self) -> TxnId {
        let done = self.txn;
        self.txn = self.group.remove(0);
        done
    }

    /// `t` joins the running operation's command (multi-plane), before its first step.
    #[inline]
    pub fn join(&mut self, t: TxnId) {
        self.group.push(t);
    }

    /// The other operations of the running command (multi-plane).
    #[inline]
    pub fn group(&self) -> &[TxnId] {
        &self.group
    }

    /// Move the running command's other operations to `out` (empty), leaving none.
    #[inline]
    pub fn take_group(&mut self, out: &mut Vec<TxnId>) {
        debug_assert!(out.is_empty());
        std::mem::swap(&mut self.group, out);
    }

    /// The die got the bus at `now`: the transfer's duration and what follows it. Array
    /// operations that follow a transfer directly (program after data-in, read/erase after their
    /// command) end at `now + dur + array`, so a transfer costs no event of its own.
    ///
    /// A multi-plane command (`group` not empty) sends one command per operation, the data-ins
    /// of a program separated by `dbsy`, and the data-outs of a read back to back; its array time
    /// is the longest of its operations' and is charged to the leading transaction (the others
    /// take the leader's stages when they finish).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn transfer_step(&mut self, die: u32, txns: &mut [Txn], lat: &mut LatencyModel, ctx: &NandCtx, bus: &BusTiming, dbsy: u64, now: Time) -> Step {
        let lead = self.txn as usize;
        txns[lead].chan_wait += now - txns[lead].chan_asked;
        let (dur, end) = match self.phase {
            Phase::ReadCmd => {
                self.phase = Phase::ReadArray;
                self.charge(txns, NandOpKind::Read, lat, ctx);
                txns[lead].array += bus.read_ready_ns;
                let c = bus.command(NandOpKind::Read);
                (c + self.group_bus(txns, c, None), StepEnd::ArrayDone)
            }
            Phase::EraseCmd => {
                self.phase = Phase::Erase;
                self.charge(txns, NandOpKind::Erase, lat, ctx);
                let c = bus.command(NandOpKind::Erase);
                (c + self.group_bus(txns, c, None), StepEnd::ArrayDone)
            }
            Phase::WriteIn => {
                self.phase = Phase::Program;
                let c = self.charge(txns, NandOpKind::Program, lat, ctx);
                let cmd = bus.command(NandOpKind::Program);
                let dur = cmd + bus.transfer_ns(txns[lead].bytes as u64) + self.group_bus(txns, cmd + dbsy, Some(bus));
                self.prog_ns = c.array_ns;
                self.prog_iters = c.iterations;
                self.iter_origin = now + dur;
                (dur, StepEnd::ArrayDone)
            }
            Phase::ReadOut if bus.page_outs => {
                // The leader's page only; when it is out, the next operation leads.
                let dur = bus.transfer_ns(txns[lead].bytes as u64);
                if !self.group.is_empty() {
                    // The wait for the next page's turn is a channel wait of the command's.
                    txns[lead].chan_asked = now + dur;
                }
                (dur, StepEnd::ReadOutDone)
            }
            Phase::ReadOut => {
                (bus.transfer_ns(txns[lead].bytes as u64) + self.group_bus(txns, 0, Some(bus)), StepEnd::ReadOutDone)
            }
            p => unreachable!("die {die} asked for the channel in phase {p:?}"),
        };
        let txn = &mut txns[lead];
        txn.bus += dur;
        let array = match end {
            StepEnd::ArrayDone => txn.array,
            StepEnd::ReadOutDone => 0,
        };
        self.array_end = now + dur + array;
        Step { dur, at: now + dur + array, end, epoch: self.epoch, suspend_from: self.suspend_wanted.then_some(now + dur) }
    }

    /// Start the array operation at `now` without the bus (zero-length commands).
    #[inline]
    pub fn array_step(&mut self, die: u32, txns: &mut [Txn], lat: &mut LatencyModel, ctx: &NandCtx, bus: &BusTiming, now: Time) -> Step {
        let kind = match self.phase {
            Phase::ReadCmd => {
                self.phase = Phase::ReadArray;
                NandOpKind::Read
            }
            Phase::EraseCmd => {
                self.phase = Phase::Erase;
                NandOpKind::Erase
            }
            p => unreachable!("die {die} starts an array operation in phase {p:?}"),
        };
        let mut dur = self.charge(txns, kind, lat, ctx).array_ns;
        if kind == NandOpKind::Read {
            txns[self.txn as usize].array += bus.read_ready_ns;
            dur += bus.read_ready_ns;
        }
        self.array_end = now + dur;
        Step { dur: 0, at: now + dur, end: StepEnd::ArrayDone, epoch: self.epoch, suspend_from: self.suspend_wanted.then_some(now) }
    }

    /// The array operation ended. A read with data to send waits for the bus; a copyback read
    /// (no bytes: the data stays in the die; in a multi-plane read, all of them copyback), a
    /// program and an erase are over.
    #[inline(always)]
    pub fn array_done(&mut self, die: u32, txns: &[Txn]) -> AfterArray {
        match self.phase {
            Phase::ReadArray => {
                if txns[self.txn as usize].bytes == 0 && self.group.iter().all(|&m| txns[m as usize].bytes == 0) {
                    AfterArray::Finish
                } else {
                    self.phase = Phase::ReadOut;
                    AfterArray::ReadOut
                }
            }
            Phase::Program | Phase::Erase => AfterArray::Finish,
            p => unreachable!("die {die} finished an array operation in phase {p:?}"),
        }
    }

    /// The operation of kind `kind` is over at `now`: the die is idle; returns its transaction.
    /// A finished program or erase clears its suspension count.
    #[inline]
    pub(super) fn release(&mut self, kind: TxnKind, now: Time) -> TxnId {
        let t = self.txn;
        self.busy_ns += now - self.op_start;
        self.txn = NONE;
        self.phase = Phase::Idle;
        if matches!(kind, TxnKind::HostWrite | TxnKind::GcWrite | TxnKind::Erase) {
            self.suspensions = 0;
            self.suspend_wanted = false;
        }
        t
    }
}

impl Die {
    /// Charge the array operation of the running command: each of its transactions gets its own
    /// cost from the model (its bytes, LDPC level, the page's program mode); the command lasts as
    /// long as the longest, which is what the leading transaction's array stage records. Returns
    /// the longest operation's cost.
    #[inline]
    fn charge(&self, txns: &mut [Txn], kind: NandOpKind, lat: &mut LatencyModel, ctx: &NandCtx) -> ArrayCost {
        let c = charge_array(&mut txns[self.txn as usize], kind, lat, ctx);
        if self.group.is_empty() {
            return c;
        }
        self.charge_group(txns, kind, lat, ctx, c)
    }

    /// Bus time the other operations of a multi-plane command add to the leader's step:
    /// `per_op` each, plus their bytes' transfer time on `data` (0 for a single-plane command,
    /// answered in line: the compiler left the whole function out of line, and every transfer
    /// paid its frame).
    #[inline(always)]
    fn group_bus(&self, txns: &[Txn], per_op: u64, data: Option<&BusTiming>) -> u64 {
        if self.group.is_empty() {
            return 0;
        }
        self.group_bus_of_command(txns, per_op, data)
    }

    /// `group_bus` for a multi-plane command.
    #[inline(never)]
    fn group_bus_of_command(&self, txns: &[Txn], per_op: u64, data: Option<&BusTiming>) -> u64 {
        let mut ns = 0;
        for &m in &self.group {
            ns += per_op + data.map_or(0, |bus| bus.transfer_ns(txns[m as usize].bytes as u64));
        }
        ns
    }

    /// The rest of `charge` for a multi-plane command (out of line: the single-plane path is hot).
    #[inline(never)]
    fn charge_group(&self, txns: &mut [Txn], kind: NandOpKind, lat: &mut LatencyModel, ctx: &NandCtx, lead_cost: ArrayCost) -> ArrayCost {
        let mut c = lead_cost;
        for &m in &self.group {
            let mc = charge_array(&mut txns[m as usize], kind, lat, ctx);
            if mc.array_ns > c.array_ns {
                c = mc;
            }
        }
        txns[self.txn as usize].array += c.array_ns - lead_cost.array_ns;
        c
    }
}

/// Add the array time of `txn`'s operation to its stages and take the bytes the operation moves
/// over the channel from the latency model. Returns the model's cost.
#[inline]
fn charge_array(txn: &mut Txn, kind: NandOpKind, lat: &mut LatencyModel, ctx: &NandCtx) -> ArrayCost {
    let c = lat.cost(&NandOp { kind, ppn: txn.ppn, plane: txn.plane, mode: txn.mode, bytes: txn.bytes }, ctx);
    txn.array += c.array_ns;
    txn.bytes = c.bytes;
    txn.level = c.level;
    c
}
