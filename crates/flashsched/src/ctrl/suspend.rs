//! Program/erase suspension (Wu & He, FAST 2012; spec §11): a host read arriving for a die busy
//! with a long program or erase suspends it at the next safe point, runs, and the operation
//! resumes with its remaining time plus an overhead. A read arriving while the program's data
//! is still crossing the channel (or the erase's command) suspends it as soon as its array
//! operation starts.
//!
//! These are the die's side of it; the simulator counts suspensions and schedules the
//! `SuspendDone` and `DieDone` events from what they return.

use super::die::{Die, Phase};
use crate::config::Settings;
use crate::engine::Time;
use crate::nand::NONE;
use crate::sim::txn::{Txn, TxnId};

/// A program or erase put aside while its die serves reads.
#[derive(Debug, Clone, Copy)]
pub struct Suspended {
    txn: TxnId,
    phase: Phase,
    /// Array time still to run after resuming.
    remaining: u64,
    /// When the die became free for other work (the safe point).
    since: Time,
    /// Reads started on the die during this suspension.
    reads: u32,
}

/// The NAND's program/erase suspension capability and its use for host reads (resolved config).
#[derive(Debug, Clone, Copy)]
pub struct SuspendConfig {
    pub program: bool,
    pub erase: bool,
    pub for_reads: bool,
    pub latency: u64,
    /// Programs pause at ISPP iteration boundaries instead of `latency` after the command.
    pub ispp: bool,
    pub resume: u64,
    pub min_remaining: u64,
    pub max_per_op: u32,
    /// Reads a suspended die serves before it resumes.
    pub max_reads: u32,
    /// No read starts on a suspended die later than this after its safe point.
    pub window: u64,
}

impl SuspendConfig {
    /// Keys `device.suspend.*` and `tsu.suspend_for_reads`.
    pub fn new(s: &Settings) -> Self {
        SuspendConfig {
            program: s.resolved.bool("device.suspend.program"),
            erase: s.resolved.bool("device.suspend.erase"),
            for_reads: s.resolved.bool("tsu.suspend_for_reads"),
            latency: s.resolved.ns("device.suspend.latency"),
            ispp: s.resolved.str("device.suspend.safe_point") == "ispp",
            resume: s.resolved.ns("device.suspend.resume"),
            min_remaining: s.resolved.ns("device.suspend.min_remaining"),
            max_per_op: s.resolved.int("device.suspend.max_per_op") as u32,
            max_reads: s.resolved.int("device.suspend.max_reads") as u32,
            window: s.resolved.ns("device.suspend.window"),
        }
    }
}

/// Which operation was suspended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Suspension {
    Program,
    Erase,
}

/// A suspension was decided: the die reaches its safe point at `safe_point` (a `SuspendDone`
/// event with `epoch`).
#[derive(Debug, Clone, Copy)]
pub struct SuspendAt {
    pub safe_point: Time,
    pub epoch: u32,
    pub of: Suspension,
}

impl Die {
    /// A host read was queued for this busy die at `now`. Returns the time to suspend from if
    /// the die runs an array program or erase now; if its data-in or command is still waiting for
    /// the bus, the suspension is remembered for when the array operation starts.
    #[inline]
    pub fn read_queued(&mut self, sc: &SuspendConfig, txns: &[Txn], now: Time) -> Option<Time> {
        match self.phase {
            Phase::WriteIn if sc.program => self.suspend_wanted = true,
            Phase::EraseCmd if sc.erase => self.suspend_wanted = true,
            Phase::Program | Phase::Erase => {
                let array_start = self.array_end.saturating_sub(txns[self.txn as usize].array);
                return Some(array_start.max(now));
            }
            _ => {}
        }
        None
    }

    /// Suspend the die's program or erase at the first safe point after `from` (at or after the
    /// start of its array operation), if the device allows it and enough of it is left.
    #[inline]
    pub fn suspend_from(&mut self, sc: &SuspendConfig, from: Time) -> Option<SuspendAt> {
        self.suspend_wanted = false;
        let allowed = match self.phase {
            Phase::Program => sc.program,
            Phase::Erase => sc.erase,
            _ => false,
        };
        if !allowed || self.suspended.is_some() || self.suspensions >= sc.max_per_op {
            return None;
        }
        let iter_ns = self.prog_ns / self.prog_iters.max(1) as u64;
        let safe_point = if sc.ispp && self.phase == Phase::Program && iter_ns > 0 {
            // The end of the iteration under way at `from` (iterations run back to back from
            // iter_origin; a program never pauses before its first iteration is done).
            let done = from.saturating_sub(self.iter_origin) / iter_ns;
            self.iter_origin + (done + 1) * iter_ns
        } else {
            from + sc.latency
        };
        if self.array_end <= safe_point || self.array_end - safe_point < sc.min_remaining {
            return None;
        }
        let remaining = self.array_end - safe_point;
        self.epoch += 1;
        self.suspensions += 1;
        let of = if self.phase == Phase::Program { Suspension::Program } else { Suspension::Erase };
        self.suspended = Some(Box::new(Suspended { txn: self.txn, phase: self.phase, remaining, since: safe_point, reads: 0 }));
        // A multi-plane program or erase is suspended whole; reads served meanwhile form their
        // own commands.
        std::mem::swap(&mut self.group, &mut self.suspended_group);
        self.phase = Phase::Suspending;
        Some(SuspendAt { safe_point, epoch: self.epoch, of })
    }

    /// The die reached its safe point at `now`: it is free for reads until it resumes.
    #[inline]
    pub fn at_safe_point(&mut self, now: Time) {
        self.busy_ns += now - self.op_start;
        self.phase = Phase::Idle;
        self.txn = NONE;
    }

    /// `None` if no operation is suspended; otherwise whether the idle die may start another read
    /// at `now`. A suspended program or erase holds the page buffer: only reads may run, and only
    /// while the suspension's read budget and window last, so the operation it put aside is
    /// delayed by a bounded amount.
    #[inline]
    pub fn may_serve_read(&self, sc: &SuspendConfig, now: Time) -> Option<bool> {
        self.suspended.as_deref().map(|s| s.reads < sc.max_reads && now <= s.since + sc.window)
    }

    /// `n` reads (one command) started during the suspension.
    #[inline]
    pub fn count_suspended_reads(&mut self, n: u32) {
        self.suspended.as_mut().expect("suspended").reads += n;
    }

    /// The suspended operation's transaction, if one is suspended.
    #[inline]
    pub fn suspended_op(&self) -> Option<TxnId> {
        self.suspended.as_ref().map(|s| s.txn)
    }

    /// The suspended operation's transaction.
    #[inline]
    pub fn suspended_txn(&self) -> TxnId {
        self.suspended.as_ref().expect("resuming a suspended operation").txn
    }

    /// No read left for the die: resume its suspended program or erase (`txn`) at `now`. Returns
    /// when it ends and the epoch of its `DieDone` event. Time set aside counts as waiting for the
    /// die; the resume overhead as array time, so the stages still add up to the latency.
    #[inline]
    pub fn resume(&mut self, sc: &SuspendConfig, txn: &mut Txn, now: Time) -> (Time, u32) {
        let s = self.suspended.take().expect("resuming a suspended operation");
        debug_assert!(self.group.is_empty());
        std::mem::swap(&mut self.group, &mut self.suspended_group);
        self.txn = s.txn;
        self.phase = s.phase;
        self.op_start = now;
        self.epoch += 1;
        self.array_end = now + sc.resume + s.remaining;
        // The remaining iterations run after the resume overhead.
        self.iter_origin = now + sc.resume;
        txn.die_wait += now - s.since;
        txn.array += sc.resume;
        (self.array_end, self.epoch)
    }
}
