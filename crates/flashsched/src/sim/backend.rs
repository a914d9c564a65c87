//! The flash side of the simulator: dies taking transactions from their queues, the channel
//! bus, array operations and the end of each operation (program/erase suspension: `suspension`).

use super::event::Ev;
use super::txn::{Placement, Txn, TxnId, TxnKind};
use super::{Simulator, Unit};
use crate::ctrl::{AfterArray, Grant, MultiPlane, Phase, Step, StepEnd};
use crate::engine::Time;
use crate::ftl::idle::ReadSeen;
use crate::ftl::speed::WriteView;
use crate::ftl::Writer;
use crate::nand::latency::{NandOpKind, ProgramMode};
use crate::nand::{Lpn, Ppn, NONE};

impl Simulator {
    /// Start transactions on `die` from its chip queue while it is idle and work is queued (only
    /// reads, within the budget, while it holds a suspended program or erase; then the resume).
    pub(super) fn try_start_die(&mut self, die: u32) {
        if self.batching {
            // Transactions are still arriving at this instant: start the die once they all have,
            // so that it can pack them into multi-plane commands.
            if !self.pending_dies.contains(&die) {
                self.pending_dies.push(die);
            }
            return;
        }
        self.start_unit(die);
    }

    /// Start queued work on `die`, or on its chip when the chip is the unit that takes commands
    /// (`device.advanced.multi_die`, `sim::chip`).
    #[inline]
    fn start_unit(&mut self, die: u32) {
        if self.unit == Unit::Die {
            return self.start_die_now(die);
        }
        self.start_other_unit(die);
    }

    /// `start_unit` when the die is not the unit (out of line: the die's own start stays small).
    #[inline(never)]
    fn start_other_unit(&mut self, die: u32) {
        match self.unit {
            Unit::Die => self.start_die_now(die),
            Unit::Chip => self.start_chip(self.layout.chip_of_die(die)),
            // Only the channel's turn starts commands (`turns`).
            Unit::Turns => self.turns_wake(self.layout.channel_of_die(die)),
        }
    }

    /// `end_batch` for the dies of chips other than `chip`: they start now, with the batch still
    /// open for `chip`'s, which start at `end_batch`.
    fn start_pending_off_chip(&mut self, chip: u32) {
        let mut dies = std::mem::take(&mut self.pending_dies);
        let (other, own): (Vec<u32>, Vec<u32>) = dies.iter().partition(|&&d| self.layout.chip_of_die(d) != chip);
        if !other.is_empty() {
            self.batching = false;
            for &d in &other {
                self.start_unit(d);
            }
            self.batching = true;
        }
        dies.clear();
        dies.extend(own);
        // Dies the starts above queued again keep their place after the chip's own.
        dies.append(&mut self.pending_dies);
        self.pending_dies = dies;
    }

    /// End a batch (`batching`): start the dies that were asked to start during it, in order.
    pub(super) fn end_batch(&mut self) {
        self.batching = false;
        let dies = std::mem::take(&mut self.pending_dies);
        for &d in &dies {
            self.start_unit(d);
        }
        self.pending_dies = dies;
        self.pending_dies.clear();
    }

    /// Start what `die` should run now (its loop: `start_die_loop`). Asked after every
    /// transaction started at once and whenever a die ends an operation, and most often with
    /// nothing to do (the die busy, or, under FCFS, idle with nothing queued for it, nothing
    /// suspended and no kept-aside writes to resolve): that is answered here, inline; under FIFO
    /// the loop's frame was 2% of the run's instructions.
    #[inline(always)]
    pub(super) fn start_die_now(&mut self, die: u32) {
        let d = &self.flash.dies[die as usize];
        if !d.is_idle() {
            return;
        }
        // With nothing queued (or held aside) for the die, `next` has nothing to give and, by the
        // trait's contract, changes nothing: the loop is not entered. Asked when the scheduler's
        // count is a count (`tsu_counts`; FCFS's in line, any other's through its box: one call
        // instead of the loop and a `next` that finds nothing). Debug builds ask `next` anyway.
        if self.tsu_counts && !d.is_occupied() && self.tsu.queued_for_die(die) == 0 && !self.requeue.is_armed(die) {
            #[cfg(debug_assertions)]
            {
                let t = self.tsu.next(die, &self.txns.items);
                debug_assert_eq!(t, None, "die {die}: nothing queued for it, yet `next` gave a transaction");
            }
            return;
        }
        self.start_die_loop(die);
    }

    #[inline(never)]
    fn start_die_loop(&mut self, die: u32) {
        if self.bus_ruled {
            // The channel decides what its dies start (`arbiter`, `turns`); a die that is busy or
            // has nothing queued (answered above) gives it nothing new to start.
            let ch = self.layout.channel_of_die(die);
            return if self.turns.on { self.turns_wake(ch) } else { self.serve_channel_later(ch) };
        }
        self.start_die_loop_now(die);
    }

    /// `start_die_loop` itself: start transactions while the die may.
    pub(super) fn start_die_loop_now(&mut self, die: u32) {
        while self.flash.dies[die as usize].is_idle() && self.flash.may_start(die) && self.flash.free_by(die, self.now) {
            if let Some(more) = self.flash.dies[die as usize].may_serve_read(&self.flash.suspend, self.now) {
                self.serve_suspended(die, more);
                continue;
            }
            self.resolve_aside(die);
            let Some(t) = self.tsu.next(die, &self.txns.items) else { return };
            // The transaction the die will take after this one has waited in its queue, and on
            // a busy drive (deep queues, GC) its record is long out of cache: fetched now, it has
            // arrived when this one ends. (FCFS can tell which it is; the others say `None`.)
            if let Some(n) = self.tsu.peek(die, &self.txns.items) {
                crate::mem::prefetch(self.txns.get(n));
            }
            self.start_txn(die, t);
        }
    }

    /// Start `t` on `die`; it may turn out to need no flash work (a dropped GC move) or to wait
    /// for GC (a host write with no free page), leaving the die idle.
    pub(super) fn start_txn(&mut self, die: u32, t: TxnId) {
        let now = self.now;
        let txn = *self.txns.get(t);
        // A read goes to the plane holding its page (speed-aware placement once moved read-
        // modify-write reads with their request's writes).
        debug_assert!(!matches!(txn.kind, TxnKind::HostRead | TxnKind::GcRead) || txn.ppn == NONE || self.layout.plane_of(txn.ppn) == txn.plane, "a read of ppn {} sent to plane {}", txn.ppn, txn.plane);
        let phase = match txn.kind {
            TxnKind::HostRead => {
                // The program-speed policy keeps the kind of the last read (RR/WR's read-conflict tag).
                if self.speed_fixed.is_none() || self.idle_task.is_some() {
                    self.read_starts(die, t, now > txn.enqueued);
                }
                Phase::ReadCmd
            }
            TxnKind::GcRead => {
                self.gc_move_starting(txn.plane);
                if !self.ftl.still_current(txn.lpn, txn.ppn) {
                    self.move_dropped(&txn);
                    self.txns.remove(t);
                    self.die_may_idle(die);
                    return;
                }
                Phase::ReadCmd
            }
            TxnKind::HostWrite => match self.ftl.allocate_in(txn.plane, Writer::Host, self.wear.write_stream(&txn)) {
                Some(ppn) => {
                    self.host_write_tried(txn.plane, t, false);
                    self.place_write(t, txn.lpn, ppn);
                    Phase::WriteIn
                }
                None => {
                    self.die_may_idle(die);
                    self.write_stalled(txn.plane, t, txn.req);
                    self.maybe_gc(txn.plane);
                    if self.cross_plane && self.ftl.planes[txn.plane as usize].gc_victim == NONE {
                        // GC cannot free anything in this plane (dynamic allocation, or wear
                        // leveling's migrations from other planes, filled it with valid data):
                        // the write goes to another plane instead of waiting forever.
                        self.relocate_write(die, t);
                    }
                    return;
                }
            },
            TxnKind::GcWrite => {
                if !self.ftl.still_current(txn.lpn, txn.ppn) {
                    self.move_dropped(&txn);
                    self.txns.remove(t);
                    self.die_may_idle(die);
                    return;
                }
                let ppn = if txn.is_reprogram() {
                    // An idle-time re-program takes a page as a host write does, never GC's reserve.
                    match self.ftl.allocate(txn.plane, Writer::Host) {
                        Some(p) => p,
                        None => {
                            self.counters.reprograms_dropped += 1;
                            self.txns.remove(t);
                            self.die_may_idle(die);
                            return;
                        }
                    }
                } else {
                    // The host leaves a block's worth of pages per plane (Ftl::allocate), and a
                    // victim has fewer valid pages than that, so GC always finds a page; a
                    // migration's block set has room for half of two victims.
                    self.ftl.allocate_in(txn.plane, Writer::Gc, self.wear.write_stream(&txn)).expect("GC always finds a page in its reserve")
                };
                self.place_write(t, txn.lpn, ppn);
                Phase::WriteIn
            }
            TxnKind::Erase => Phase::EraseCmd,
        };
        // (Saturating, for safety: SSDSim's admission cap sets the clock back, `sim::admission`,
        // though a die busy when work was queued stays busy through the time walked again.)
        self.txns.get_mut(t).die_wait = now.saturating_sub(txn.enqueued);
        self.flash.begin(die, t, phase, now);
        let joined = if self.flash.adv.multi_plane != MultiPlane::Off { self.gather(die, t) } else { 0 };
        self.flash.commands.count(txn.kind.op(), 1 + joined);
        if self.tsu_observes {
            self.tsu.op_started(die, &txn, self.flash.dies[die as usize].group(), &self.txns.items, now);
            // Write pausing for host reads queued before the program started (FR-FCFS chose it
            // over them to drain its write queue): marked before its data-in is scheduled, the
            // pause comes once the array program starts.
            if txn.kind == TxnKind::HostWrite && self.write_pause_wanted(die, None) {
                let f = &mut self.flash;
                f.dies[die as usize].read_queued(&f.suspend, &self.txns.items, now);
            }
        }
        // The planes of the command's other host writes, taken before the bus request: a program
        // paused as soon as it starts (write pausing) moves its group aside.
        let mut joined_writes = if joined > 0 { std::mem::take(&mut self.pick_scratch) } else { Vec::new() };
        if joined > 0 {
            for &m in self.flash.dies[die as usize].group() {
                let m = self.txns.get(m);
                if m.kind == TxnKind::HostWrite {
                    joined_writes.push(m.plane);
                }
            }
        }
        if self.flash.skips_bus(phase) {
            // A zero-length command needs no bus time: go straight to the array.
            self.start_array(die);
        } else {
            self.request_channel(die);
        }
        // A page taken by a host write or an idle-time re-program may start GC (once the die has
        // begun the write, so that GC's transactions queue behind it).
        if txn.kind == TxnKind::HostWrite || (txn.kind == TxnKind::GcWrite && txn.is_reprogram()) {
            self.maybe_gc(txn.plane);
        }
        if joined > 0 {
            for &plane in &joined_writes {
                self.maybe_gc(plane);
            }
            joined_writes.clear();
            self.pick_scratch = joined_writes;
        }
        while let Some(p) = self.gc_recheck.pop() {
            self.maybe_gc(p);
        }
    }

    /// Multi-plane packing: `die` just began `lead`; take queued transactions of the same class
    /// for its other planes whose pages line up with the lead's (`ctrl::command`), start them
    /// with it, and return how many joined. Writes are checked against the page their plane
    /// would allocate next; stale GC moves are left for the queue to drop.
    fn gather(&mut self, die: u32, lead: TxnId) -> u32 {
        let l = *self.txns.get(lead);
        let ppd = self.layout.planes_per_die;
        if ppd < 2 || l.ppn == NONE {
            // One plane, or a read of a never-written page: nothing to line up with.
            return 0;
        }
        let class = l.kind.op();
        // No write of any other plane of the die could line up: the scan of its queue below
        // would take nothing (on an overloaded drive the queue holds thousands of writes).
        // Debug builds scan all the same, to check that it takes nothing.
        let none_pairs = class == NandOpKind::Program && !self.some_plane_pairs(die, &l);
        if none_pairs && !cfg!(debug_assertions) {
            return 0;
        }
        let mut planes = 1u64 << (l.plane % ppd);
        let mut picked = std::mem::take(&mut self.pick_scratch);
        // Planes whose kept-aside writes a program's scan may reach (`LazyRequeue::join_aside`),
        // and those that join: (place among the picked, plane, index among its stalled writes).
        let asides = if class == NandOpKind::Program { self.requeue.aside_planes(die, l.plane, &self.layout) } else { 0 };
        let mut joining: Vec<(usize, u32, usize)> = Vec::new();
        debug_assert!(self.requeue.reinsert.is_empty(), "re-queue places left from an earlier command");
        let mut reinsert = std::mem::take(&mut self.requeue.reinsert);
        {
            let (txns, ftl, adv, layout, wear, requeue, stalled) = (&self.txns.items, &self.ftl, self.flash.adv, self.layout, &self.wear, &self.requeue, &self.stalled);
            // Entries asked about and taken (FCFS asks every one, in order: the place of an entry
            // taken is `asked - removed` when asked), and entries placed in the command.
            let (mut asked, mut removed, mut taken) = (0, 0, 0);
            let mut fits = |c: TxnId| {
                let at = asked - removed;
                asked += 1;
                let x = &txns[c as usize];
                let bit = 1u64 << (x.plane % ppd);
                if planes & bit != 0 || x.kind.op() != class || x.is_reprogram() {
                    return false;
                }
                let page = match x.kind {
                    TxnKind::HostRead | TxnKind::Erase => Some(x.ppn).filter(|&p| p != NONE),
                    TxnKind::GcRead => Some(x.ppn).filter(|_| ftl.still_current(x.lpn, x.ppn)),
                    TxnKind::HostWrite => ftl.peek_in(x.plane, Writer::Host, wear.write_stream(x)),
                    TxnKind::GcWrite => ftl.peek_in(x.plane, Writer::Gc, wear.write_stream(x)).filter(|_| ftl.still_current(x.lpn, x.ppn)),
                };
                let ok = page.is_some_and(|p| adv.plane_pair_ok(&layout, class, l.ppn, p));
                let last = asides & bit != 0 && requeue.last_requeued(x.plane) == c;
                if ok {
                    if last {
                        // The plane's last re-queued write joins from the middle of the queue:
                        // its kept-aside writes, right behind it, stay there.
                        reinsert.push((x.plane, at));
                    }
                    planes |= bit;
                    removed += 1;
                    taken += 1;
                } else if last {
                    // Passed the plane's last re-queued write: its kept-aside writes are next.
                    let stream = |w: TxnId| wear.write_stream(&txns[w as usize]);
                    let fits = |s| ftl.peek_in(x.plane, Writer::Host, s).is_some_and(|p| adv.plane_pair_ok(&layout, class, l.ppn, p));
                    if let Some(i) = requeue.join_aside(x.plane, &stalled[x.plane as usize], stream, fits) {
                        planes |= bit;
                        joining.push((taken, x.plane, i));
                        taken += 1;
                    }
                }
                ok
            };
            self.tsu.take_companions(die, class, ppd as usize - 1, &mut fits, &mut picked);
        }
        for &(at, plane, i) in &joining {
            let w = self.requeue.aside_joined(plane, i, &mut self.stalled[plane as usize]);
            picked.insert(at, w);
        }
        // The planes whose last re-queued write joined from the middle of the queue: their
        // kept-aside writes go back there now, before anything of the command is placed (a
        // program's speed may ask whether the chip has work queued, and they would be queued;
        // and a command started from within the loop below must not see these places).
        self.requeue.reinsert = reinsert;
        while let Some(&(plane, _)) = self.requeue.reinsert.first() {
            let last = self.requeue.last_requeued(plane);
            self.host_write_tried(plane, last, false);
            if self.requeue.reinsert.first().is_some_and(|&(q, _)| q == plane) {
                debug_assert!(false, "plane {plane}: its kept-aside writes were not re-queued");
                self.requeue.reinsert.remove(0);
            }
        }
        debug_assert!(!none_pairs || picked.is_empty(), "die {die}: a write joined a command no plane could pair with");
        let mut joined = 0;
        for &c in &picked {
            let x = *self.txns.get(c);
            if x.kind == TxnKind::GcWrite && !self.ftl.still_current(x.lpn, x.ppn) {
                // A host write of the same page placed just before made this move stale.
                self.move_dropped(&x);
                self.txns.remove(c);
                continue;
            }
            let who = match x.kind {
                TxnKind::HostWrite => Some(Writer::Host),
                TxnKind::GcWrite => Some(Writer::Gc),
                _ => None,
            };
            if let Some(who) = who {
                let ppn = self.ftl.allocate_in(x.plane, who, self.wear.write_stream(&x)).expect("the page was peeked free");
                if who == Writer::Host {
                    // Possibly one of its plane's re-queued writes (`stall`): tried, and it took a page.
                    self.host_write_tried(x.plane, c, false);
                }
                self.place_write(c, x.lpn, ppn);
            }
            self.flash.dies[die as usize].join(c);
            joined += 1;
        }
        picked.clear();
        self.pick_scratch = picked;
        joined
    }

    /// Whether a write of another plane of `die` than program `l`'s could join its multi-plane
    /// command: the page that plane would program next lines up with `l`'s, for a host write or
    /// GC move of the default stream, a host write of the hot stream under write grouping, or a
    /// wear-leveling migration or move of wear leveling's own stream. With `same_page` commands
    /// only the page's offset in its block counts, which the open block says (`Ftl::next_offset`),
    /// whether or not the writer may take it; with `same_block_page` the block too
    /// (`Ftl::peek_in`). (A superset of what `gather`
    /// accepts, which asks only of each queued write's own writer and stream; debug builds check
    /// it.)
    fn some_plane_pairs(&self, die: u32, l: &Txn) -> bool {
        use crate::ftl::{STREAM_DEFAULT, STREAM_HOT, STREAM_MAPPING, STREAM_MIGRATION, STREAM_WEAR};
        let ppd = self.layout.planes_per_die;
        let adv = self.flash.adv;
        let same_page = adv.multi_plane == MultiPlane::SamePage;
        let offset = l.ppn % self.layout.pages_per_block;
        let pairs = |q: u32, s| {
            if same_page {
                self.ftl.next_offset(q, s) == offset
            } else {
                self.ftl.peek_in(q, Writer::Gc, s).is_some_and(|p| adv.plane_pair_ok(&self.layout, NandOpKind::Program, l.ppn, p))
            }
        };
        let (hot, migrations) = (self.wear.grouping.is_some() || self.wear.fast_stream, self.wear.leveler.is_some());
        let own_stream = self.wear.collect_place == Placement::WearLevel;
        (die * ppd..(die + 1) * ppd)
            .filter(|&q| q != l.plane)
            .any(|q| {
                pairs(q, STREAM_DEFAULT)
                    || (hot && pairs(q, STREAM_HOT))
                    || (migrations && (pairs(q, STREAM_MIGRATION) || (own_stream && pairs(q, STREAM_WEAR))))
                    || (self.mapping.is_some() && pairs(q, STREAM_MAPPING))
            })
    }

    /// The write `t` got page `ppn`: map `lpn` to it and fix the mode the page is programmed in:
    /// `device.program_mode` for host writes, the block's own for GC moves (no policy chooses
    /// per write yet). A copyback GC move whose pages differ in parity (`ctrl::command`) sends
    /// the data out to the controller and back in: two page transfers on the program.
    fn place_write(&mut self, t: TxnId, lpn: Lpn, ppn: Ppn) {
        // A host write at the drive's one program speed, pages staying in their planes and no
        // speed-aware placement: the page mapped, the transaction told its page and mode. The
        // rest out of line (`place_write_other`), whose registers made every program a frame.
        if !self.cross_plane && !self.hil_places {
            if let (TxnKind::HostWrite, Some(mode)) = (self.txns.get(t).kind, self.speed_fixed) {
                self.ftl.program(lpn, ppn);
                let w = self.txns.get_mut(t);
                w.ppn = ppn;
                w.mode = mode;
                return;
            }
        }
        self.place_write_other(t, lpn, ppn);
    }

    /// `place_write` for a GC move or re-program, under a program-speed policy, cross-plane
    /// pages or speed-aware placement.
    #[inline(never)]
    fn place_write_other(&mut self, t: TxnId, lpn: Lpn, ppn: Ppn) {
        if self.txns.get(t).kind == TxnKind::GcWrite {
            self.count_wear_move(t, ppn);
        }
        let old = if self.cross_plane { self.program_across_planes(lpn, ppn) } else { self.ftl.program(lpn, ppn) };
        let (kind, die) = {
            let x = self.txns.get(t);
            (x.kind, x.die)
        };
        if self.hil_places {
            self.page_programmed(kind, old, ppn);
        }
        let mode = match (kind, self.speed_fixed) {
            (TxnKind::HostWrite, Some(m)) => m,
            (TxnKind::HostWrite, None) => {
                let chip = self.layout.chip_of_die(die);
                self.program_speed.write_mode(WriteView { chip, waiting: self.tsu.queued_on_chip(chip), waiting_device: self.tsu.len() })
            }
            // GC moves program at the block's own step; re-programs came with their mode.
            _ => self.txns.get(t).mode,
        };
        let w = self.txns.get_mut(t);
        let src = w.ppn;
        w.ppn = ppn;
        w.mode = mode;
        // A wear-leveling migration to another chip came out over the channel: never copyback.
        if w.kind == TxnKind::GcWrite && self.copyback && mode == ProgramMode::Native && w.place != Placement::Pinned {
            if self.flash.adv.copyback_ok(src, ppn) {
                self.counters.copyback_moves += 1;
            } else {
                w.bytes = 2 * self.page_size as u32;
                self.counters.copyback_fallbacks += 1;
            }
        }
    }

    /// Ask for the die's channel. The bus is granted first-come, first-served; a busy channel
    /// schedules one `ChannelFree` event to hand itself to the next waiting die.
    pub(super) fn request_channel(&mut self, die: u32) {
        let ch = self.layout.channel_of_die(die);
        let t = self.flash.dies[die as usize].txn();
        // The leading transaction of a multi-plane command keeps its stages for all of them.
        self.txns.get_mut(t).chan_asked = self.now;
        if self.bus_ruled {
            return self.ruled_command(ch, die);
        }
        match self.flash.channels[ch as usize].request(die, self.now) {
            Grant::Now => return self.start_transfer(ch, die),
            Grant::Queued => {}
            Grant::QueuedRelease(at) => self.events.push(at, Ev::ChannelFree(ch)),
        }
        if self.tsu_observes {
            self.tsu.channel_stalled(ch);
        }
    }

    /// `request_channel` when the channel decides (`bus_ruled`). Out of line: the default path
    /// only tests the flag.
    #[inline(never)]
    fn ruled_command(&mut self, ch: u32, die: u32) {
        if self.turns.on {
            return self.turns_command(ch, die);
        }
        // The arbiter started this command because the bus is free (`arbiter`).
        debug_assert!(self.flash.channels[ch as usize].is_free(self.now), "channel {ch}: a command started on a busy bus");
        self.start_transfer(ch, die);
        self.arm_channel_free(ch);
    }

    /// Put the die's transfer on the bus and schedule what follows it (`ctrl::Die::transfer_step`).
    pub(super) fn start_transfer(&mut self, ch: u32, die: u32) {
        let st = self.flash.start_transfer(ch, die, &mut self.txns.items, &self.ftl, self.now);
        if self.ack_at_data_in && self.flash.dies[die as usize].programming() {
            self.acknowledge_at_data_in_end(die, self.now + st.dur);
        }
        self.push_step(die, st);
    }

    /// `device.write_ack = "data_in"`: the program's data-in just started and ends at `end`; its
    /// host writes are acknowledged then. Named one by one now: a suspension decided meanwhile
    /// moves the command's group aside. (Out of line: the default path only tests the flag.)
    #[inline(never)]
    fn acknowledge_at_data_in_end(&mut self, die: u32, end: Time) {
        let lead_id = self.flash.dies[die as usize].txn();
        let lead = *self.txns.get(lead_id);
        if lead.kind == TxnKind::HostWrite {
            self.events.push(end, Ev::DataInDone(lead_id));
        }
        for i in 0..self.flash.dies[die as usize].group().len() {
            let m = self.flash.dies[die as usize].group()[i];
            let x = self.txns.get_mut(m);
            if x.kind == TxnKind::HostWrite {
                // The command's stages so far are the leader's (finish_command sets them again,
                // identically, when the program ends).
                x.die_wait = lead.die_wait + lead.enqueued - x.enqueued;
                (x.chan_wait, x.bus) = (lead.chan_wait, lead.bus);
                self.events.push(end, Ev::DataInDone(m));
            }
        }
    }

    /// The channel's current transfer is over and dies are waiting: the oldest gets the bus.
    pub(super) fn on_channel_free(&mut self, ch: u32) {
        if self.bus_ruled {
            return if self.turns.on { self.turns_channel_free(ch) } else { self.arbiter_channel_free(ch) };
        }
        if let Some(next) = self.flash.channels[ch as usize].release() {
            self.start_transfer(ch, next);
            if let Some(at) = self.flash.channels[ch as usize].rearm() {
                self.events.push(at, Ev::ChannelFree(ch));
            }
        }
    }

    /// Start the die's array operation without the bus (zero-length commands).
    pub(super) fn start_array(&mut self, die: u32) {
        let st = self.flash.start_array(die, &mut self.txns.items, &self.ftl, self.now);
        self.push_step(die, st);
    }

    /// Schedule the end of a step the die started, then the suspension a read queued during it
    /// asked for (in this order: equal-time events run in push order).
    #[inline(always)]
    fn push_step(&mut self, die: u32, st: Step) {
        let ev = match st.end {
            StepEnd::ArrayDone => Ev::DieDone(die, st.epoch),
            StepEnd::ReadOutDone => Ev::ReadOutDone(die),
        };
        self.events.push(st.at, ev);
        if let Some(from) = st.suspend_from {
            self.suspend_from(die, from);
        }
    }

    /// The die's array operation ended: send a read's data out, or finish the operation.
    #[inline(always)]
    pub(super) fn on_die_done(&mut self, die: u32) {
        match self.flash.dies[die as usize].array_done(die, &self.txns.items) {
            AfterArray::Finish => self.finish_op(die),
            AfterArray::ReadOut if self.bus_ruled => {
                if self.turns.on {
                    self.turns_data_out(die)
                } else {
                    self.wait_for_data_out(die)
                }
            }
            AfterArray::ReadOut => self.request_channel(die),
        }
    }

    /// The die's operation is over: free the die, account its transactions (all of a
    /// multi-plane command's), start what comes next.
    pub(super) fn finish_op(&mut self, die: u32) {
        let t = self.flash.dies[die as usize].txn();
        let grouped = !self.flash.dies[die as usize].group().is_empty();
        if grouped || !self.flash.adv.interleave {
            return self.finish_command(die, t, *self.txns.get(t));
        }
        self.flash.release(die, self.txns.get(t).kind, self.now);
        self.die_may_idle(die);
        self.finish_txn(die, t);
        self.try_start_die(die);
        self.drain_hil();
        if self.idle_task.is_some() {
            self.maybe_idle(self.layout.chip_of_die(die));
        }
    }

    /// `finish_op` for a multi-plane command or a chip without interleaving: finish every
    /// transaction of the command before any die starts again (so that GC writes the command's
    /// reads queue can be packed together, and the chip goes to its other dies first).
    #[inline(never)]
    fn finish_command(&mut self, die: u32, t: TxnId, lead: Txn) {
        let mut group = std::mem::take(&mut self.finish_scratch);
        self.flash.dies[die as usize].take_group(&mut group);
        self.flash.release(die, lead.kind, self.now);
        self.die_may_idle(die);
        let batch = !self.batching;
        self.batching = true;
        // GC time by cause splits the command's time evenly over its operations.
        self.wear.command_ops = 1 + group.len() as u64;
        self.finish_txn(die, t);
        for &m in &group {
            // The command's stages are the leader's; the wait for the die is each one's own
            // (they started together, so it differs by their arrival).
            let x = self.txns.get_mut(m);
            x.die_wait = lead.die_wait + lead.enqueued - x.enqueued;
            (x.chan_wait, x.bus, x.array) = (lead.chan_wait, lead.bus, lead.array);
            self.finish_txn(die, m);
        }
        self.wear.command_ops = 1;
        group.clear();
        self.finish_scratch = group;
        if batch {
            // Work the command's completions released for other chips starts first (MQSim: the
            // PHY's serviced signal reaches the FTL, which submits and schedules it, before the
            // freed chip is served again); the freed chip's own dies follow its rules below.
            let chip = self.layout.chip_of_die(die);
            if self.turns.on {
                // (MQSim: the freed unit is still busy while the FTL schedules that work.)
                self.turns.finishing = if self.flash.adv.interleave { die } else { chip };
                self.start_pending_off_chip(chip);
                self.turns.finishing = NONE;
            } else {
                self.start_pending_off_chip(chip);
            }
            self.batching = false;
            if self.turns.on {
                // The channel's turn, from its pointer, if it is free (MQSim's channel-idle signal).
                self.turns_wake(self.layout.channel_of_die(die));
            } else if self.flash.adv.interleave {
                self.start_die_now(die);
            } else if self.flash.adv.multi_die {
                self.start_chip(self.layout.chip_of_die(die));
            } else {
                self.chip_freed(die);
            }
            self.end_batch();
        }
        self.drain_hil();
        if self.idle_task.is_some() {
            self.maybe_idle(self.layout.chip_of_die(die));
        }
    }

    /// Account one finished transaction of the die's command.
    #[inline(always)]
    pub(super) fn finish_txn(&mut self, die: u32, t: TxnId) {
        let now = self.now;
        let txn = *self.txns.get(t);
        match txn.kind {
            TxnKind::HostRead => {
                self.counters.nand_pages_read += 1;
                self.wear_saw_read(txn.ppn);
                if self.idle_task.is_some() && txn.ppn != NONE {
                    let conflicted = self.read_conflicted(t, txn.die_wait);
                    if let Some(task) = self.idle_task.as_mut() {
                        let chip = self.layout.chip_of_die(die);
                        let origin = self.reqs.items[txn.req as usize].seq;
                        task.on_read(ReadSeen { chip, lpn: txn.lpn, ppn: txn.ppn, level: txn.level, conflicted, origin });
                    }
                }
                let ecc = self.flash.decode_ns(&txn);
                if ecc > 0 {
                    let end = self.flash.decoders.decode(self.layout.channel_of_die(die), now, ecc);
                    // The ECC stage of the request's breakdown: waiting for a decoder plus decoding.
                    self.txns.get_mut(t).ecc = (end - now).min(u32::MAX as u64) as u32;
                    self.events.push(end, Ev::EccDone(t));
                } else {
                    self.complete_host(t, &txn);
                }
            }
            TxnKind::HostWrite => {
                self.counters.nand_pages_written += 1;
                if self.hil_places {
                    let i = match txn.place {
                        Placement::Fastest => 1,
                        Placement::Slowest => 2,
                        _ => 0,
                    };
                    self.counters.placed_programs[i] += 1;
                    self.counters.placed_program_ns[i] += txn.array;
                }
                if self.wear.grouping.is_some() || self.wear.fast_stream {
                    // A grouped stream's block closes once its last page is programmed: the
                    // stream may not write again soon, and GC must be able to take the block.
                    self.ftl.close_if_full(txn.plane, self.layout.block_of(txn.ppn));
                }
                if self.ack_at_data_in && self.acked.get_mut(t as usize).is_some_and(std::mem::take) {
                    // Acknowledged when its data-in ended (`ack_write`).
                    self.txns.remove(t);
                } else {
                    self.complete_host(t, &txn);
                }
            }
            TxnKind::GcRead => {
                self.counters.nand_pages_read += 1;
                self.txns.remove(t);
                if !txn.is_reprogram() {
                    self.gc_time(&txn, txn.plane);
                } else if !self.reprogram_read_done(die) {
                    return;
                }
                // A re-program's data goes through the controller (to be programmed in another
                // mode), and so does a migration to another chip.
                let bytes = if self.copyback && !txn.is_reprogram() && txn.place != Placement::Pinned { 0 } else { self.page_size as u32 };
                let (plane, die) = if txn.place == Placement::Pinned { self.migration_destination(&txn) } else { (txn.plane, txn.die) };
                let mut w = Txn::new(TxnKind::GcWrite, NONE, txn.lpn, txn.ppn, plane, die, bytes, now);
                w.mode = txn.mode;
                w.place = txn.place;
                let w = self.txns.insert(w);
                self.to_tsu(w);
            }
            TxnKind::GcWrite => {
                self.counters.nand_pages_written += 1;
                self.txns.remove(t);
                if txn.is_reprogram() {
                    self.reprogram_done(die);
                } else {
                    let victim_plane = if txn.place == Placement::Pinned { self.migration_over(&txn) } else { txn.plane };
                    if txn.place == Placement::WearLevel {
                        // Wear leveling's block closes once its last page is programmed, as a
                        // grouped stream's does: the next collection may be far off.
                        self.ftl.close_if_full(txn.plane, self.layout.block_of(txn.ppn));
                    }
                    self.gc_time(&txn, victim_plane);
                    self.gc_move_finished(victim_plane, true);
                }
            }
            TxnKind::Erase => {
                self.txns.remove(t);
                let block = self.layout.block_of(txn.ppn);
                self.ftl.erase(block);
                if self.wear.fast_stream {
                    // The erase detected its speed again (`nand::reliable`): the fast stream's
                    // ranking follows.
                    let step = self.flash.latency.detected_step(block).unwrap_or(0);
                    self.ftl.speed_key_changed(block, step);
                }
                self.gc_time(&txn, txn.plane);
                if self.erase_limit > 0 && self.first_failure.is_none() && self.ftl.erase_count(block) >= self.erase_limit {
                    self.first_failure = Some(now);
                }
                // Writes that waited for this block go back to the head of their queue, in order.
                self.requeue_stalled(txn.plane);
                // Writes stuck in full planes may find room elsewhere now (`relocate_write`).
                for p in std::mem::take(&mut self.stuck) {
                    self.requeue_stuck(p);
                    let d = self.layout.die_of_plane(p);
                    if d != die {
                        self.try_start_die(d);
                    }
                }
                self.maybe_gc(txn.plane);
                self.wear_after_erase(txn.plane, block);
            }
        }
    }
}
