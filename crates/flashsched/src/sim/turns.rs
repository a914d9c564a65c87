//! MQSim's channel arbitration (`device.channel.arbitration = "mqsim"`): a channel that has just
//! finished a transfer serves, in order,
//! 1. the next die of the command under way (a chip's die-interleaved command sends each die's
//!    command and data back to back: `OngoingDieCMDTransfers`);
//! 2. read data waiting to go out, first come first served within each class: translation reads',
//!    then host reads', then GC's (`WaitingMappingRead_TX`, `WaitingReadTX`, `WaitingGCRead_TX`);
//! 3. and only then the channel's chips (dies, when each die takes its own commands), offered the
//!    channel in turn from a per-channel pointer: each idle one with queued work starts its next
//!    command, and the turn stops at the first that put a transfer on the bus
//!    (`TSU_OutofOrder::Schedule`, `handle_channel_idle_signal`, `Round_robin_turn_of_channel`).
//!
//! A chip never starts a command while its channel is busy: work queued then, or a chip freed
//! then, waits for the channel's turn. Work queued while the channel is free gets a turn at once,
//! from the pointer (MQSim's TSU runs the same loop after every batch of transactions it is given).
//! Read data that becomes ready on a free channel goes out at once.
//!
//! With the default `fifo` arbitration the bus goes to dies in the order they asked for it, and a
//! chip starts its command as soon as it is free (`ctrl::Channel`).

use std::collections::VecDeque;

use super::event::Ev;
use super::Simulator;
use crate::nand::NONE;

/// The arbitration's state, per channel.
#[derive(Debug, Default)]
pub(super) struct Turns {
    /// `device.channel.arbitration = "mqsim"`.
    pub on: bool,
    /// Each die takes its own commands (`device.advanced.interleave`): the channel's turns go to
    /// its dies, not its chips.
    dies: bool,
    /// The unit (chip, or die) of the channel offered it next, counted within the channel.
    next: Vec<u32>,
    /// Dies of the command under way waiting to send their command (and data in).
    commands: Vec<VecDeque<u32>>,
    /// Dies whose read data waits to go out: translation reads', host reads', GC reads'.
    outs: Vec<[VecDeque<u32>; 3]>,
    /// A `ChannelFree` event is due at the end of the channel's current transfer.
    ending: Vec<bool>,
    /// Dies waiting in `commands` and `outs` (a transfer each).
    waiting: Vec<u32>,
    /// The unit whose command just ended, while the work its completions release is started:
    /// not offered its channel then (MQSim: its chip is still busy when the FTL schedules that
    /// work). `NONE` otherwise.
    pub finishing: u32,
}

impl Turns {
    pub fn new(s: &crate::config::Settings, channels: u32) -> Self {
        if s.resolved.str("device.channel.arbitration") != "mqsim" {
            return Turns { finishing: NONE, ..Turns::default() };
        }
        let n = channels as usize;
        Turns {
            on: true,
            dies: s.resolved.bool("device.advanced.interleave"),
            next: vec![0; n],
            commands: vec![VecDeque::new(); n],
            outs: vec![Default::default(); n],
            ending: vec![false; n],
            waiting: vec![0; n],
            finishing: NONE,
        }
    }
}

impl Simulator {
    /// Whether channel `ch` is free and nothing waits for it: its turn may be given now.
    #[inline]
    pub(super) fn turns_idle(&self, ch: u32) -> bool {
        let c = ch as usize;
        !self.turns.ending[c] && self.turns.waiting[c] == 0 && self.flash.channels[c].is_free(self.now)
    }

    /// Work was queued for `ch`'s dies or one of its units was freed: the channel's turn, if it
    /// is free (else its next `ChannelFree` gives it).
    pub(super) fn turns_wake(&mut self, ch: u32) {
        if self.turns_idle(ch) {
            self.turns_offer(ch);
        }
    }

    /// The channel's units in turn from its pointer, each idle one starting its next command,
    /// until one puts a transfer on the bus.
    fn turns_offer(&mut self, ch: u32) {
        if self.tsu.queued_on_channel(ch) == Some(0) {
            // Nothing to start: a whole turn would start nothing and bring the pointer back to
            // where it is.
            return;
        }
        let c = ch as usize;
        let per = if self.turns.dies { self.layout.chips_per_channel * self.layout.dies_per_chip } else { self.layout.chips_per_channel };
        for _ in 0..per {
            if !self.turns_idle(ch) {
                break;
            }
            let k = self.turns.next[c];
            self.turns.next[c] = if k + 1 == per { 0 } else { k + 1 };
            let unit = ch * per + k;
            if unit == self.turns.finishing {
                continue;
            }
            // (Most turns find the unit busy or with nothing queued: asked here, cheaply.)
            if self.turns.dies {
                if self.flash.dies[unit as usize].is_idle() && (self.tsu.queued_for_die(unit) > 0 || self.requeue.is_armed(unit)) {
                    self.start_die_loop_now(unit);
                }
            } else if !self.flash.chip_busy(unit) && (self.tsu.queued_on_chip(unit) > 0 || self.requeue.armed_dies() > 0) {
                self.start_chip(unit);
            }
        }
    }

    /// A die's command (and data in) asks for the bus: it goes now on a free channel (the first
    /// of a command, which its channel's turn started), or waits behind the command's other dies.
    pub(super) fn turns_command(&mut self, ch: u32, die: u32) {
        if self.turns_idle(ch) {
            self.turns_transfer(ch, die);
        } else {
            self.turns.commands[ch as usize].push_back(die);
            self.turns.waiting[ch as usize] += 1;
            if self.tsu_observes {
                self.tsu.channel_stalled(ch);
            }
        }
    }

    /// Read data of `die` is ready: out now on a free channel, else it waits in its class; each
    /// page of a multi-plane read is a transfer of its own, the ones that cannot go now queued
    /// behind those already waiting (`BusTiming::page_outs`).
    pub(super) fn turns_data_out(&mut self, die: u32) {
        let ch = self.layout.channel_of_die(die);
        let t = self.flash.dies[die as usize].txn();
        self.txns.get_mut(t).chan_asked = self.now;
        let mut pages = 1 + self.flash.dies[die as usize].group().len();
        if self.turns_idle(ch) {
            self.turns_transfer(ch, die);
            pages -= 1;
        }
        if pages == 0 {
            return;
        }
        let x = self.txns.get(t);
        let class = if x.is_translation_read() {
            0
        } else if x.kind == super::txn::TxnKind::HostRead {
            1
        } else {
            2
        };
        for _ in 0..pages {
            self.turns.outs[ch as usize][class].push_back(die);
        }
        self.turns.waiting[ch as usize] += pages as u32;
    }

    /// Put `die`'s transfer on the bus; the channel is served again when it ends (after the die's
    /// own step ends: equal-time events run in push order).
    fn turns_transfer(&mut self, ch: u32, die: u32) {
        self.start_transfer(ch, die);
        self.turns.ending[ch as usize] = true;
        self.events.push(self.flash.channels[ch as usize].busy_until(), Ev::ChannelFree(ch));
    }

    /// One page of `die`'s multi-plane read is out and others remain (`BusTiming::page_outs`):
    /// its operation is done now, as MQSim services each transaction when its own data is out;
    /// the command's next operation leads it, with the command's stages so far.
    pub(super) fn page_out_done(&mut self, die: u32) {
        let done = self.flash.dies[die as usize].promote_next();
        let lead = *self.txns.get(done);
        let next = self.flash.dies[die as usize].txn();
        let x = self.txns.get_mut(next);
        x.die_wait = lead.die_wait + lead.enqueued - x.enqueued;
        (x.chan_wait, x.bus, x.array, x.chan_asked) = (lead.chan_wait, lead.bus, lead.array, lead.chan_asked);
        // What its completion releases starts together, as after a command (`finish_command`).
        let batch = !self.batching;
        self.batching = true;
        self.finish_txn(die, done);
        if batch {
            self.end_batch();
        }
        self.drain_hil();
    }

    /// Channel `ch`'s transfer ended: the command's next die, else waiting read data, else the
    /// channel's turn.
    pub(super) fn turns_channel_free(&mut self, ch: u32) {
        let c = ch as usize;
        self.turns.ending[c] = false;
        if self.turns.waiting[c] > 0 {
            self.turns.waiting[c] -= 1;
            if let Some(die) = self.turns.commands[c].pop_front() {
                return self.turns_transfer(ch, die);
            }
            for class in 0..3 {
                if let Some(die) = self.turns.outs[c][class].pop_front() {
                    return self.turns_transfer(ch, die);
                }
            }
            unreachable!("channel {ch}: a die counted as waiting is in no queue");
        }
        self.turns_offer(ch);
    }
}
