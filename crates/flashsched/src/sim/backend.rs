//! The flash side of the simulator: dies taking transactions from their queues, the channel
//! bus, array operations, program/erase suspension, and the end of each operation.

use super::event::Ev;
use super::txn::{Txn, TxnId, TxnKind};
use super::{Phase, Simulator, Suspended};
use crate::engine::Time;
use crate::ftl::Writer;
use crate::nand::NONE;

impl Simulator {
    pub(super) fn try_start_die(&mut self, die: u32) {
        while self.dies[die as usize].phase == Phase::Idle {
            if let Some(s) = self.dies[die as usize].suspended {
                // A suspended program or erase holds the page buffer: only reads may run, and only
                // while the suspension's read budget and window last, so the operation it put
                // aside is delayed by a bounded amount.
                let more = s.reads < self.suspend.max_reads && self.now <= s.since + self.suspend.window;
                match if more { self.tsu.next_read(die, &self.txns.items) } else { None } {
                    Some(t) => {
                        self.dies[die as usize].suspended.as_mut().expect("suspended").reads += 1;
                        self.start_txn(die, t)
                    }
                    None => self.resume(die),
                }
                continue;
            }
            let Some(t) = self.tsu.next(die, &self.txns.items) else { return };
            self.start_txn(die, t);
        }
    }

    /// Program/erase suspension (Wu & He, FAST 2012; spec §11): a host read arriving for a die busy
    /// with a long program or erase suspends it at the next safe point, runs, and the operation
    /// resumes with its remaining time plus an overhead. A read arriving while the program's data
    /// is still crossing the channel (or the erase's command) suspends it as soon as its array
    /// operation starts.
    pub(super) fn maybe_suspend_for(&mut self, die: u32, reader: TxnId) {
        if self.txns.get(reader).kind != TxnKind::HostRead {
            return;
        }
        let sc = self.suspend;
        let d = &mut self.dies[die as usize];
        match d.phase {
            Phase::WriteIn if sc.program => d.suspend_wanted = true,
            Phase::EraseCmd if sc.erase => d.suspend_wanted = true,
            Phase::Program | Phase::Erase => {
                let array_start = d.array_end.saturating_sub(self.txns.get(d.txn).array);
                self.suspend_from(die, array_start.max(self.now));
            }
            _ => {}
        }
    }

    /// Suspend the die's program or erase at the first safe point after `from` (at or after the
    /// start of its array operation), if the device allows it and enough of it is left.
    pub(super) fn suspend_from(&mut self, die: u32, from: Time) {
        let sc = self.suspend;
        let d = &mut self.dies[die as usize];
        d.suspend_wanted = false;
        let allowed = match d.phase {
            Phase::Program => sc.program,
            Phase::Erase => sc.erase,
            _ => false,
        };
        if !allowed || d.suspended.is_some() || d.suspensions >= sc.max_per_op {
            return;
        }
        let safe_point = from + sc.latency;
        if d.array_end <= safe_point || d.array_end - safe_point < sc.min_remaining {
            return;
        }
        let remaining = d.array_end - safe_point;
        d.epoch += 1;
        d.suspensions += 1;
        if d.phase == Phase::Program {
            self.counters.program_suspensions += 1;
        } else {
            self.counters.erase_suspensions += 1;
        }
        d.suspended = Some(Suspended { txn: d.txn, phase: d.phase, remaining, since: safe_point, reads: 0 });
        d.phase = Phase::Suspending;
        self.counters.suspensions += 1;
        let epoch = d.epoch;
        self.events.push(safe_point, Ev::SuspendDone(die, epoch));
    }

    /// The die reached its safe point: it is free for reads until it resumes.
    pub(super) fn on_suspended(&mut self, die: u32) {
        let now = self.now;
        let d = &mut self.dies[die as usize];
        d.busy_ns += now - d.op_start;
        d.phase = Phase::Idle;
        d.txn = NONE;
        self.try_start_die(die);
    }

    /// No read left for the die: resume its suspended program or erase.
    pub(super) fn resume(&mut self, die: u32) {
        let now = self.now;
        let resume = self.suspend.resume;
        let d = &mut self.dies[die as usize];
        let s = d.suspended.take().expect("resuming a suspended operation");
        d.txn = s.txn;
        d.phase = s.phase;
        d.op_start = now;
        d.epoch += 1;
        d.array_end = now + resume + s.remaining;
        let (end, epoch) = (d.array_end, d.epoch);
        let txn = self.txns.get_mut(s.txn);
        // Time set aside counts as waiting for the die; the resume overhead as array time, so the
        // stages still add up to the latency.
        txn.die_wait += now - s.since;
        txn.array += resume;
        self.events.push(end, Ev::DieDone(die, epoch));
    }

    /// Start `t` on `die`; it may turn out to need no flash work (a dropped GC move) or to wait
    /// for GC (a host write with no free page), leaving the die idle.
    pub(super) fn start_txn(&mut self, die: u32, t: TxnId) {
        let now = self.now;
        let txn = *self.txns.get(t);
        let phase = match txn.kind {
            TxnKind::HostRead => Phase::ReadCmd,
            TxnKind::GcRead => {
                if !self.ftl.still_current(txn.lpn, txn.ppn) {
                    self.gc_move_finished(txn.plane, false);
                    self.txns.remove(t);
                    return;
                }
                Phase::ReadCmd
            }
            TxnKind::HostWrite => match self.ftl.allocate(txn.plane, Writer::Host) {
                Some(ppn) => {
                    self.ftl.program(txn.lpn, ppn);
                    self.txns.get_mut(t).ppn = ppn;
                    Phase::WriteIn
                }
                None => {
                    self.counters.write_stalls += 1;
                    self.stalled[txn.plane as usize].push(t);
                    self.maybe_gc(txn.plane);
                    return;
                }
            },
            TxnKind::GcWrite => {
                if !self.ftl.still_current(txn.lpn, txn.ppn) {
                    self.gc_move_finished(txn.plane, false);
                    self.txns.remove(t);
                    return;
                }
                // The host leaves a block's worth of pages per plane (Ftl::allocate), and a victim
                // has fewer valid pages than that, so GC always finds a page.
                let ppn = self.ftl.allocate(txn.plane, Writer::Gc).expect("GC always finds a page in its reserve");
                self.ftl.program(txn.lpn, ppn);
                self.txns.get_mut(t).ppn = ppn;
                Phase::WriteIn
            }
            TxnKind::Erase => Phase::EraseCmd,
        };
        self.txns.get_mut(t).die_wait = now - txn.enqueued;
        let d = &mut self.dies[die as usize];
        d.txn = t;
        d.phase = phase;
        d.op_start = now;
        if self.timing.command_ns == 0 && matches!(phase, Phase::ReadCmd | Phase::EraseCmd) {
            // A zero-length command needs no bus time: go straight to the array.
            self.start_array(die);
        } else {
            self.request_channel(die);
        }
        if txn.kind == TxnKind::HostWrite {
            self.maybe_gc(txn.plane);
        }
    }

    /// Ask for the die's channel. The bus is granted first-come, first-served; a busy channel
    /// schedules one `ChannelFree` event to hand itself to the next waiting die.
    pub(super) fn request_channel(&mut self, die: u32) {
        let ch = self.layout.channel_of_die(die);
        let t = self.dies[die as usize].txn;
        self.txns.get_mut(t).chan_asked = self.now;
        let c = &mut self.channels[ch as usize];
        if self.now >= c.busy_until && c.waiting.is_empty() {
            self.start_transfer(ch, die);
        } else {
            c.waiting.push_back(die);
            if !c.release_pending {
                c.release_pending = true;
                let at = c.busy_until.max(self.now);
                self.events.push(at, Ev::ChannelFree(ch));
            }
        }
    }

    /// Put the die's transfer on the bus and schedule what follows it. Array operations that
    /// follow a transfer directly (program after data-in, read/erase after their command) are
    /// scheduled from here, so a transfer costs no event of its own unless another die is waiting
    /// for the bus.
    pub(super) fn start_transfer(&mut self, ch: u32, die: u32) {
        let now = self.now;
        let d = &mut self.dies[die as usize];
        let txn = self.txns.get_mut(d.txn);
        let tm = &self.timing;
        txn.chan_wait += now - txn.chan_asked;
        let (dur, next) = match d.phase {
            Phase::ReadCmd => {
                d.phase = Phase::ReadArray;
                txn.array += tm.read_ns;
                (tm.command_ns, Ev::DieDone(die, d.epoch))
            }
            Phase::EraseCmd => {
                d.phase = Phase::Erase;
                txn.array += tm.erase_ns;
                (tm.command_ns, Ev::DieDone(die, d.epoch))
            }
            Phase::WriteIn => {
                d.phase = Phase::Program;
                txn.array += tm.program_ns;
                (tm.command_ns + tm.transfer_ns(txn.bytes as u64), Ev::DieDone(die, d.epoch))
            }
            Phase::ReadOut => (tm.transfer_ns(txn.bytes as u64), Ev::ReadOutDone(die)),
            p => unreachable!("die {die} asked for the channel in phase {p:?}"),
        };
        txn.bus += dur;
        let array = match next {
            Ev::DieDone(..) => txn.array,
            _ => 0,
        };
        d.array_end = now + dur + array;
        let c = &mut self.channels[ch as usize];
        c.busy_until = now + dur;
        c.busy_ns += dur;
        self.events.push(now + dur + array, next);
        if self.dies[die as usize].suspend_wanted {
            // A read queued during the data-in or command: suspend once the array op starts.
            self.suspend_from(die, now + dur);
        }
    }

    /// The channel's current transfer is over and dies are waiting: the oldest gets the bus.
    pub(super) fn on_channel_free(&mut self, ch: u32) {
        let c = &mut self.channels[ch as usize];
        c.release_pending = false;
        if let Some(next) = c.waiting.pop_front() {
            self.start_transfer(ch, next);
            let c = &mut self.channels[ch as usize];
            if !c.waiting.is_empty() {
                c.release_pending = true;
                let at = c.busy_until;
                self.events.push(at, Ev::ChannelFree(ch));
            }
        }
    }

    /// Start the die's array operation without the bus (zero-length commands).
    pub(super) fn start_array(&mut self, die: u32) {
        let now = self.now;
        let d = &mut self.dies[die as usize];
        let txn = self.txns.get_mut(d.txn);
        let dur = match d.phase {
            Phase::ReadCmd => {
                d.phase = Phase::ReadArray;
                self.timing.read_ns
            }
            Phase::EraseCmd => {
                d.phase = Phase::Erase;
                self.timing.erase_ns
            }
            p => unreachable!("die {die} starts an array operation in phase {p:?}"),
        };
        txn.array += dur;
        d.array_end = now + dur;
        self.events.push(now + dur, Ev::DieDone(die, d.epoch));
        if self.dies[die as usize].suspend_wanted {
            self.suspend_from(die, now);
        }
    }

    pub(super) fn on_die_done(&mut self, die: u32) {
        match self.dies[die as usize].phase {
            Phase::ReadArray => {
                let t = self.dies[die as usize].txn;
                if self.txns.get(t).bytes == 0 {
                    self.finish_op(die); // copyback read: the data stays in the die
                } else {
                    self.dies[die as usize].phase = Phase::ReadOut;
                    self.request_channel(die);
                }
            }
            Phase::Program | Phase::Erase => self.finish_op(die),
            p => unreachable!("die {die} finished an array operation in phase {p:?}"),
        }
    }

    /// The die's operation is over: free the die, account the transaction, start the next one.
    pub(super) fn finish_op(&mut self, die: u32) {
        let now = self.now;
        let d = &mut self.dies[die as usize];
        let t = d.txn;
        d.busy_ns += now - d.op_start;
        d.txn = NONE;
        d.phase = Phase::Idle;
        if matches!(self.txns.get(t).kind, TxnKind::HostWrite | TxnKind::GcWrite | TxnKind::Erase) {
            d.suspensions = 0;
            d.suspend_wanted = false;
        }
        let txn = *self.txns.get(t);
        match txn.kind {
            TxnKind::HostRead => {
                self.counters.nand_pages_read += 1;
                if self.timing.ecc_ns > 0 {
                    self.events.push(now + self.timing.ecc_ns, Ev::EccDone(t));
                } else {
                    self.complete_host_txn(t);
                }
            }
            TxnKind::HostWrite => {
                self.counters.nand_pages_written += 1;
                self.complete_host_txn(t);
            }
            TxnKind::GcRead => {
                self.counters.nand_pages_read += 1;
                self.txns.remove(t);
                let bytes = if self.copyback { 0 } else { self.page_size as u32 };
                let w = self.txns.insert(Txn::new(TxnKind::GcWrite, NONE, txn.lpn, txn.ppn, txn.plane, txn.die, bytes, now));
                self.to_tsu(w);
            }
            TxnKind::GcWrite => {
                self.counters.nand_pages_written += 1;
                self.txns.remove(t);
                self.gc_move_finished(txn.plane, true);
            }
            TxnKind::Erase => {
                self.txns.remove(t);
                self.ftl.erase(self.layout.block_of(txn.ppn));
                // Writes that waited for this block go back to the head of their queue, in order.
                let waiting = std::mem::take(&mut self.stalled[txn.plane as usize]);
                for w in waiting.into_iter().rev() {
                    self.tsu.enqueue_front(w, self.txns.get(w));
                }
                self.maybe_gc(txn.plane);
            }
        }
        self.try_start_die(die);
        self.drain_hil();
    }
}
