//! SSDSim's channel arbitration (`device.channel.arbitration = "ssdsim"`): the idle channel, not
//! the die, decides what goes on the bus next.
//!
//! SSDSim v2.1 (flash.c `process`) visits every channel at every event; an idle channel starts at
//! most one bus operation, the first of
//! 1. a read command, for the oldest waiting host read (the channel's read queue, in the order the
//!    reads were queued) whose chip is idle (`services_2_r_wait`);
//! 2. a data-out, for the lowest-numbered die whose read data is ready
//!    (`services_2_r_data_trans`);
//! 3. a write (or any other queued work) for an idle chip: with `tsu.write_order = "die_number"`
//!    the lowest-numbered chip's, die 0 first (`services_2_write`, static branch); with `turns`,
//!    the channel's dies in turn after the last one that started a write.
//!
//! So reads go before writes across the whole channel, a read command before a data-out that was
//! ready earlier, and a write never holds its chip while it waits for the bus: a chip is claimed
//! only when its command goes on the bus (with the default `fifo` arbitration a die claims its
//! chip when it takes a transaction and then queues for the bus).
//!
//! SSDSim decides once every state change of an instant is in (its chips and channels are idle
//! when their predicted time has come); here a channel is served by a `ServeChannel` event pushed
//! at the current time, which runs after every event already queued for that time.
//!
//! Requires the chip as the unit that takes commands, no multi-plane or multi-die commands, no
//! suspension and the `o3` scheduler (checked with the configuration): SSDSim with advanced
//! commands off, whose chip queues put reads first.

use std::collections::VecDeque;

use super::event::Ev;
use crate::engine::Time;
use crate::nand::{Lpn, Ppn};
use super::txn::TxnId;
use super::Simulator;

/// The arbiter's state, per channel.
#[derive(Debug, Default)]
pub(super) struct Arbiter {
    /// `device.channel.arbitration = "ssdsim"`.
    pub on: bool,
    /// `tsu.write_order = "die_number"`: step 3 tries the channel's dies by number.
    by_number: bool,
    /// When a `ServeChannel` event is queued for the channel (`Time::MAX`: none).
    queued: Vec<Time>,
    /// Dies whose read data is ready (since then) and waits for the channel's data-out.
    outs: Vec<Vec<(u32, Time)>>,
    /// Host reads queued and not started, in the order they were queued (SSDSim's channel read
    /// queue; a request's pages in address order).
    reads: Vec<VecDeque<TxnId>>,
    /// Host reads in all channels' read orders (so that step 3 skips its scan when nothing else
    /// is queued anywhere).
    reads_total: usize,
    /// The die that last started a write (`turns`).
    last_write: Vec<u32>,
    /// `device.read_queue_hits`: the pages (logical page, physical page) of the host reads
    /// queued on each channel and not yet sending their data out.
    hits: bool,
    pages: Vec<Vec<(Lpn, Ppn)>>,
}

impl Arbiter {
    pub fn new(s: &crate::config::Settings, channels: u32) -> Self {
        let on = s.resolved.str("device.channel.arbitration") == "ssdsim";
        if !on {
            return Arbiter::default();
        }
        let n = channels as usize;
        Arbiter {
            on,
            by_number: s.resolved.str("tsu.write_order") == "die_number",
            queued: vec![Time::MAX; n],
            outs: vec![Vec::new(); n],
            reads: vec![VecDeque::new(); n],
            reads_total: 0,
            last_write: vec![u32::MAX; n],
            hits: s.resolved.bool("device.read_queue_hits"),
            pages: vec![Vec::new(); n],
        }
    }
}

impl Simulator {
    /// A host read `t` was queued for `die`: it joins its channel's read order.
    pub(super) fn arbiter_read_queued(&mut self, t: TxnId, die: u32) {
        let ch = self.layout.channel_of_die(die);
        self.arbiter.reads[ch as usize].push_back(t);
        self.arbiter.reads_total += 1;
        if self.arbiter.hits {
            let x = self.txns.get(t);
            self.arbiter.pages[ch as usize].push((x.lpn, x.ppn));
        }
    }

    /// `device.read_queue_hits`: whether a host read of `lpn` at `ppn` (`NONE`: never written,
    /// read where static allocation puts it) on `die` finds a read of the same page queued on
    /// its channel.
    #[inline]
    pub(super) fn read_queue_hit(&self, die: u32, lpn: Lpn, ppn: Ppn) -> bool {
        self.arbiter.hits && self.arbiter.pages[self.layout.channel_of_die(die) as usize].contains(&(lpn, ppn))
    }

    /// Something that channel `ch` may act on changed at this instant: serve it once the
    /// instant's other events have run.
    #[inline]
    pub(super) fn serve_channel_later(&mut self, ch: u32) {
        if !self.flash.channels[ch as usize].is_free(self.now) {
            // A `ChannelFree` event is due when the transfer ends (`arm_channel_free`; after the
            // clock was set back, a `ServeChannel` at that time, `admission`): served then.
            return;
        }
        let q = &mut self.arbiter.queued[ch as usize];
        if *q != self.now {
            *q = self.now;
            self.events.push(self.now, Ev::ServeChannel(ch));
        }
    }

    /// A transfer just started on channel `ch`: serve it again when it ends.
    #[inline]
    pub(super) fn arm_channel_free(&mut self, ch: u32) {
        self.events.push(self.flash.channels[ch as usize].busy_until(), Ev::ChannelFree(ch));
    }

    /// The bus transfer of channel `ch` ended: serve it after the instant's other events.
    pub(super) fn arbiter_channel_free(&mut self, ch: u32) {
        self.serve_channel_later(ch);
    }

    /// Read data of `die` is ready: it waits for its channel, which sends it out when the
    /// arbiter says (step 2).
    pub(super) fn wait_for_data_out(&mut self, die: u32) {
        let ch = self.layout.channel_of_die(die);
        let t = self.flash.dies[die as usize].txn();
        self.txns.get_mut(t).chan_asked = self.now;
        self.arbiter.outs[ch as usize].push((die, self.now));
        self.serve_channel_later(ch);
    }

    /// Channel `ch`'s turn: while the bus is free, start the first of a read command, a
    /// data-out, a write; then come back when the bus frees.
    pub(super) fn serve_channel(&mut self, ch: u32) {
        let q = &mut self.arbiter.queued[ch as usize];
        if *q <= self.now {
            *q = Time::MAX;
        }
        // Each start puts a transfer on the bus and arms its end (`arm_channel_free`); only a
        // zero-length command leaves the bus free for another start.
        while self.flash.channels[ch as usize].is_free(self.now) {
            if !(self.start_read_command(ch) || self.start_data_out(ch) || self.start_write(ch)) {
                break;
            }
        }
    }

    /// Serve now the channels whose turn is queued for now (before the clock is set back).
    pub(super) fn serve_due_channels(&mut self) {
        if !self.arbiter.on {
            return;
        }
        for ch in 0..self.layout.channels {
            if self.arbiter.queued[ch as usize] == self.now {
                self.serve_channel(ch);
            }
        }
    }

    /// Whether `chip` may take a command now: none of its dies runs or holds an operation, and
    /// (when the clock may be set back, `admission`) none ended one after now.
    #[inline]
    fn chip_takes_command(&self, chip: u32) -> bool {
        !self.flash.chip_busy(chip) && self.flash.free_by(chip * self.layout.dies_per_chip, self.now)
    }

    /// The times at or before `until` and after now when channel `ch` or one of its chips
    /// becomes free, or read data of one of its dies becomes ready: SSDSim's events, which it
    /// visits again after setting its clock back (`admission`).
    pub(super) fn channel_times(&self, ch: u32, until: Time, out: &mut Vec<Time>) {
        let now = self.now;
        let mut add = |t: Time| {
            if t > now && t <= until {
                out.push(t);
            }
        };
        add(self.flash.channels[ch as usize].busy_until());
        let per_channel = self.layout.chips_per_channel * self.layout.dies_per_chip;
        for die in ch * per_channel..(ch + 1) * per_channel {
            add(self.flash.free_time(die));
        }
        if self.arbiter.on {
            for &(_, ready) in &self.arbiter.outs[ch as usize] {
                add(ready);
            }
        }
    }

    /// Step 1: the oldest waiting host read whose chip is idle starts its command.
    fn start_read_command(&mut self, ch: u32) -> bool {
        let q = &self.arbiter.reads[ch as usize];
        let Some(i) = q.iter().position(|&t| self.chip_takes_command(self.layout.chip_of_die(self.txns.get(t).die))) else { return false };
        let t = self.arbiter.reads[ch as usize].remove(i).expect("found above");
        self.arbiter.reads_total -= 1;
        let die = self.txns.get(t).die;
        // The die's scheduler (o3) keeps its host reads in the same order: its next is `t`.
        debug_assert_eq!(self.tsu.peek(die, &self.txns.items), Some(t), "die {die}: the channel's oldest read is not its scheduler's next");
        self.start_one(die)
    }

    /// Step 2: the lowest-numbered die whose read data is ready sends it out.
    fn start_data_out(&mut self, ch: u32) -> bool {
        // SSDSim's chips are ready by their predicted time: data that is ready later (the clock
        // was set back, `admission`) waits.
        let now = self.now;
        let outs = &mut self.arbiter.outs[ch as usize];
        let Some((i, _)) = outs.iter().enumerate().filter(|(_, &(_, ready))| ready <= now).min_by_key(|(_, &(d, _))| d) else { return false };
        let (die, _) = outs.swap_remove(i);
        if self.arbiter.hits {
            // The read leaves SSDSim's read queue when its data-out starts (find_read_sub_request).
            let x = self.txns.get(self.flash.dies[die as usize].txn());
            let pages = &mut self.arbiter.pages[ch as usize];
            if let Some(j) = pages.iter().position(|&p| p == (x.lpn, x.ppn)) {
                pages.swap_remove(j);
            }
        }
        self.start_transfer(ch, die);
        self.arm_channel_free(ch);
        true
    }

    /// Step 3: a write (or GC work) on an idle chip, by die number or in turn.
    fn start_write(&mut self, ch: u32) -> bool {
        if self.tsu.len() <= self.arbiter.reads_total {
            // Nothing but the host reads of the channels' read orders is queued anywhere.
            return false;
        }
        let per_channel = self.layout.chips_per_channel * self.layout.dies_per_chip;
        let first = ch * per_channel;
        let from = match self.arbiter.last_write[ch as usize] {
            last if !self.arbiter.by_number && last != u32::MAX => last - first + 1,
            _ => 0,
        };
        for i in 0..per_channel {
            let die = first + (from + i) % per_channel;
            if !self.chip_takes_command(self.layout.chip_of_die(die)) || (self.tsu.queued_for_die(die) == 0 && !self.requeue.is_armed(die)) {
                continue;
            }
            if self.start_one(die) {
                self.arbiter.last_write[ch as usize] = die;
                return true;
            }
        }
        false
    }

    /// Start `die`'s next transaction (trying the following ones when one needs no flash work or
    /// must wait for GC); whether one started.
    fn start_one(&mut self, die: u32) -> bool {
        self.start_die_loop_now(die);
        !self.flash.dies[die as usize].is_idle()
    }
}
