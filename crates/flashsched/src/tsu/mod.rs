//! Transaction schedulers: each chip's queue of flash transactions, and the choice of what an idle
//! die runs next. One policy per file.

mod fcfs;
mod frfcfs;
mod o3;
pub mod slack;
mod slacker;
mod slot;

pub use fcfs::Fcfs;
pub use frfcfs::FrFcfs;
pub use o3::O3;
pub use slacker::{Mechanisms, Slacker};
pub use slot::TsuSlot;

use std::collections::VecDeque;

use crate::engine::Time;
use crate::nand::latency::NandOpKind;
use crate::nand::Layout;
use crate::sim::txn::{ReqId, Txn, TxnId};

pub trait TransactionScheduler: Send {
    fn name(&self) -> &'static str;
    fn enqueue(&mut self, id: TxnId, txn: &Txn);
    /// Put a transaction back at the head of its queue (a host write that had to wait for GC).
    fn enqueue_front(&mut self, id: TxnId, txn: &Txn);
    /// The transaction `die` should run next; `None` leaves it idle. With nothing queued or held
    /// aside for `die` (`queued_for_die(die) == 0`) it returns `None` and changes nothing: the
    /// simulator does not ask then (debug builds ask anyway and check).
    fn next(&mut self, die: u32, txns: &[Txn]) -> Option<TxnId>;
    /// Transaction `id` was just released for `txn.die`, which is idle and may start it now
    /// (nothing suspended, no batch gathered, the die the unit that takes commands). If
    /// `enqueue(id)` then `next(die)` would return `id`, record what that pair would leave
    /// behind and return true: the simulator starts `id` without the round trip through the
    /// queue. False (the default) records nothing, and the simulator queues it as usual.
    ///
    /// Why: on a drive that is not saturated most transactions find their die idle with
    /// nothing queued for it (bench8x8: nearly all of them), and the queue's push, pop and the
    /// die's start loop were a tenth of the reordering schedulers' cost there.
    fn takes_at_once(&mut self, _id: TxnId, _txn: &Txn) -> bool {
        false
    }
    /// What `next(die)` would return now, without taking it; `None` if this scheduler cannot
    /// tell ahead (chip-level multi-die commands, `device.advanced.multi_die`, need it).
    fn peek(&self, _die: u32, _txns: &[Txn]) -> Option<TxnId> {
        None
    }
    /// Whether `peek` is implemented.
    fn can_peek(&self) -> bool {
        false
    }
    /// The next read for `die` (host or GC), used while it has a program or erase suspended.
    fn next_read(&mut self, die: u32, txns: &[Txn]) -> Option<TxnId>;
    /// Multi-plane packing: remove from `die`'s queued transactions, in this scheduler's order of
    /// preference, up to `max` that `fits` accepts (it is asked in that order and sees each
    /// transaction once), appending them to `out`. `fits` accepts only transactions of `class`
    /// (`TxnKind::op`): a scheduler need not show it the queues that hold none (on an overloaded
    /// drive a die's writes run to thousands, and a read's command would look at each).
    fn take_companions(&mut self, die: u32, class: NandOpKind, max: usize, fits: &mut dyn FnMut(TxnId) -> bool, out: &mut Vec<TxnId>);
    /// Transactions queued (not running) on a chip.
    fn queued_on_chip(&self, chip: u32) -> usize;
    /// Transactions queued (not running) for a die.
    fn queued_for_die(&self, die: u32) -> usize;
    /// Transactions queued (not running) for the dies of a channel, if this scheduler counts them
    /// (`None`: it does not; MQSim's channel turns, `sim::turns`, then look at each chip).
    fn queued_on_channel(&self, _channel: u32) -> Option<usize> {
        None
    }
    /// Whether `queued_for_die` is a count, not a search of a queue shared with other dies: the
    /// simulator then asks it before every start of an idle die and every program's pause
    /// point, to skip `next` and `may_pause` (with one queue a chip on an overloaded drive the
    /// search would cost more than what it skips).
    fn counts_per_die(&self) -> bool {
        true
    }
    fn len(&self) -> usize;

    // Stalled writes kept aside (`sim::stall`): host writes an erase would have put back at the
    // head of a die's queue only to see them fail again at once. A scheduler that says it can
    // (`holds_aside`) counts them as queued without holding them, so that every decision it
    // makes is the one it would make with them in its queue.

    /// Whether this scheduler can count writes it does not hold (`hold_aside`, `drop_aside`)
    /// and give their fate exactly.
    fn holds_aside(&self) -> bool {
        false
    }
    /// `n` host writes of `die` are queued, in the scheduler's eyes, right behind the writes
    /// just put back at the head of the die's queue (`enqueue_front`), and nothing this scheduler
    /// may put between them (they have no slack, and nothing passes them; see
    /// `aside_needs_whole_requests`).
    fn hold_aside(&mut self, _die: u32, _n: u32) {
        unreachable!("{} does not hold writes aside", self.name());
    }
    /// Whether writes may be held aside only while no request has some transactions queued and
    /// others not yet: a scheduler that gives a request's transactions their slack when its last
    /// one is queued, and reads the slack of queued or running writes (a write kept aside would
    /// get its slack where its queued copy would have been passed or paused).
    fn aside_needs_whole_requests(&self) -> bool {
        false
    }
    /// The `n` writes held aside for `die` are now at the head of its write order (all written
    /// before them are taken), and every write of them `next(die)` takes will fail at once
    /// without changing anything this scheduler sees but its counts. Forget all `n`; return how
    /// many of them, in order, consecutive calls of `next(die)` would take now. (With multi-die
    /// commands the simulator resolves them itself and reads no answer: `sim::stall`.)
    fn drop_aside(&mut self, _die: u32, _n: u32) -> u32 {
        unreachable!("{} does not hold writes aside", self.name());
    }
    /// Whether `next(die)` would take the first write held aside for `die` now: the writes
    /// held aside are at the head of its write order and nothing it ranks before writes is
    /// queued. Chip-level multi-die commands (`sim::chip`) compare what each die would run next,
    /// and a held write is that for its die only while this is true. Only schedulers that can
    /// `peek` need answer it.
    fn aside_next(&self, _die: u32) -> bool {
        false
    }

    // What a scheduler that estimates response times (Slacker) observes of the device. The
    // simulator calls these only when `observes()` is true, so the others pay nothing.

    /// Whether the simulator should call the hooks below.
    fn observes(&self) -> bool {
        false
    }
    /// Every transaction of host request `req` is queued (the last just was, at `now`).
    fn request_queued(&mut self, _req: ReqId, _now: Time) {}
    /// `die` began a command at `now`: `lead`, and the transactions of `group` with it (a
    /// multi-plane command; `txns` is the slab).
    fn op_started(&mut self, _die: u32, _lead: &Txn, _group: &[TxnId], _txns: &[Txn], _now: Time) {}
    /// Host transaction `t` completed at `now` (a read after its ECC decode).
    fn host_txn_done(&mut self, _t: TxnId, _txn: &Txn, _now: Time) {}
    /// A die of channel `ch` asked for the bus and found it busy.
    fn channel_stalled(&mut self, _ch: u32) {}
    /// Whether the scheduler pauses programs for reads (write pausing): the simulator asks
    /// `may_pause` only then.
    fn pauses_programs(&self) -> bool {
        false
    }
    /// Write pausing: `die` is programming `running` (a command's transactions) and host read
    /// `reader` was just queued for it, or (`None`) the program just started or resumed. True:
    /// pause the program at its next safe point to serve queued host reads. With `None` and
    /// nothing queued for `die` it returns false and changes nothing: the simulator does not ask
    /// then (debug builds ask anyway and check).
    fn may_pause(&mut self, _die: u32, _running: &[TxnId], _reader: Option<TxnId>, _txns: &[Txn]) -> bool {
        false
    }
    /// The program `die` had paused resumed (whatever ended the pause).
    fn pause_over(&mut self, _die: u32) {}
    /// Measurement starts now: forget what was counted during warm-up.
    fn begin_measurement(&mut self) {}
    /// What the scheduler measured, for `ssd.tsu` in the report (`None`: nothing).
    fn report(&self) -> Option<serde_json::Value> {
        None
    }
}

pub fn build(s: &crate::config::Settings, layout: Layout) -> TsuSlot {
    if s.tsu_scheduler == "fcfs" {
        return TsuSlot::Fcfs(Fcfs::new(layout));
    }
    TsuSlot::Other(build_boxed(s, layout))
}

fn build_boxed(s: &crate::config::Settings, layout: Layout) -> Box<dyn TransactionScheduler> {
    let r = &s.resolved;
    match s.tsu_scheduler.as_str() {
        "fcfs" => Box::new(Fcfs::new(layout)),
        "o3" => Box::new(O3::new(layout)),
        "frfcfs" => Box::new(FrFcfs::new(layout, r.int("tsu.frfcfs.alpha") as u32, r.int("tsu.frfcfs.write_queue") as u32)),
        name @ ("slacker" | "rbyp" | "wbyp" | "wp" | "rbyp+wp" | "frfcfs+est") => {
            let base = FrFcfs::new(layout, r.int("tsu.frfcfs.alpha") as u32, r.int("tsu.frfcfs.write_queue") as u32);
            Box::new(Slacker::new(s, layout, base, Mechanisms::named(name)))
        }
        other => unreachable!("transaction scheduler {other} passed validation"),
    }
}

/// Move the entries of `q` that belong to the die (`id` gives their transaction) and that `fits`
/// accepts to `out`, oldest first, while `room` lasts. Returns how many were moved.
fn take_matching<T: Copy>(q: &mut VecDeque<T>, id: impl Fn(T) -> Option<TxnId>, room: &mut usize, fits: &mut dyn FnMut(TxnId) -> bool, out: &mut Vec<TxnId>) -> usize {
    let mut taken = 0;
    let mut i = 0;
    while i < q.len() && *room > 0 {
        match id(q[i]) {
            Some(t) if fits(t) => {
                q.remove(i);
                out.push(t);
                *room -= 1;
                taken += 1;
            }
            _ => i += 1,
        }
    }
    taken
}

/// The `tiny` preset with `sets` (`key=value`), for the schedulers' tests.
#[cfg(test)]
pub(crate) fn tiny_settings(sets: &[&str]) -> crate::config::Settings {
    let mut o = crate::config::Options::from_preset("tiny").unwrap();
    for s in sets {
        o.set(s).unwrap();
    }
    crate::config::Settings::from_options(&o).unwrap()
}

/// The `tiny` preset's layout (2 channels of 2 chips of 1 die), for the schedulers' tests.
#[cfg(test)]
pub(crate) fn tiny_layout() -> Layout {
    Layout::new(&tiny_settings(&[]).geometry)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Time;
    use crate::sim::txn::TxnKind;

    proptest::proptest! {
        /// `takes_at_once` is the round trip it stands for: a scheduler that takes a transaction
        /// arriving at an idle die at once whenever it says it may (as the simulator does) picks
        /// the same transactions, keeps the same counts and reports the same measurements
        /// (Slacker's estimates, slack and errors) as one that queues every transaction and
        /// lets the die take its next one, through random host and GC transactions, completions,
        /// whole requests queued, channel stalls, and transactions queued for an idle die
        /// without starting it (as while a multi-plane batch gathers, or while the die's chip is
        /// busy), which an arrival for that die must then queue behind; for every scheduler,
        /// with one and two dies a chip, interleaved or not, and a small write queue so that
        /// FR-FCFS's drain rule often puts writes first.
        #[test]
        fn taking_at_once_is_queueing_then_taking(
                name in proptest::sample::select(vec!["fcfs", "o3", "frfcfs", "slacker", "rbyp", "wbyp", "wp", "rbyp+wp", "frfcfs+est"]),
                dies_per_chip in proptest::sample::select(vec![1u32, 2]),
                interleave in proptest::bool::ANY,
                ops in proptest::collection::vec((0u8..7, 0u32..64, 0u8..4, 0u32..6), 1..300)) {
            let (sched, dpc, il) = (format!("tsu.scheduler={name}"), format!("device.geometry.dies_per_chip={dies_per_chip}"), format!("device.advanced.interleave={interleave}"));
            let st = tiny_settings(&[&sched, &dpc, &il, "device.geometry.blocks_per_plane=32", "device.suspend.program=true", "tsu.frfcfs.write_queue=2"]);
            let layout = Layout::new(&st.geometry);
            // `at_once` skips the queue when it may; `queued` never does.
            let (mut at_once, mut queued) = (build_boxed(&st, layout), build_boxed(&st, layout));
            let kinds = [TxnKind::HostRead, TxnKind::HostWrite, TxnKind::GcRead, TxnKind::GcWrite];
            let txns: Vec<Txn> = ops.iter().enumerate().map(|(i, &(_, d, k, req))| {
                let mut t = Txn::new(kinds[k as usize], req, 0, 0, 0, d % layout.dies(), 4096, i as Time * 1000);
                t.enqueued = i as Time * 1000;
                t
            }).collect();
            // The transaction each die runs.
            let mut running: Vec<Option<TxnId>> = vec![None; layout.dies() as usize];
            for (i, &(op, d, _, req)) in ops.iter().enumerate() {
                let die = d % layout.dies();
                let now = i as Time * 1000;
                let start = |s: &mut Box<dyn TransactionScheduler>, t: TxnId| s.op_started(die, &txns[t as usize], &[], &txns, now);
                // What the two took when the die could start: compared, then started.
                let picked = match op {
                    0..=2 => {
                        let t = i as TxnId;
                        if running[die as usize].is_some() {
                            at_once.enqueue(t, &txns[i]);
                            queued.enqueue(t, &txns[i]);
                            None
                        } else {
                            // The die is idle: the simulator asks, or queues and starts the die.
                            let a = if at_once.takes_at_once(t, &txns[i]) {
                                Some(t)
                            } else {
                                at_once.enqueue(t, &txns[i]);
                                at_once.next(die, &txns)
                            };
                            queued.enqueue(t, &txns[i]);
                            Some((a, queued.next(die, &txns)))
                        }
                    }
                    3 => {
                        at_once.request_queued(req, now);
                        queued.request_queued(req, now);
                        None
                    }
                    4 => {
                        // The die's transaction ends; it takes its next one.
                        running[die as usize].take().map(|t| {
                            if matches!(txns[t as usize].kind, TxnKind::HostRead | TxnKind::HostWrite) {
                                at_once.host_txn_done(t, &txns[t as usize], now);
                                queued.host_txn_done(t, &txns[t as usize], now);
                            }
                            (at_once.next(die, &txns), queued.next(die, &txns))
                        })
                    }
                    5 => {
                        let ch = layout.channel_of_die(die);
                        at_once.channel_stalled(ch);
                        queued.channel_stalled(ch);
                        None
                    }
                    _ => {
                        // Queued for its die, which does not start now (idle or not).
                        let t = i as TxnId;
                        at_once.enqueue(t, &txns[i]);
                        queued.enqueue(t, &txns[i]);
                        None
                    }
                };
                if let Some((a, b)) = picked {
                    proptest::prop_assert_eq!(a, b, "step {}", i);
                    if let Some(t) = a {
                        start(&mut at_once, t);
                        start(&mut queued, t);
                        running[die as usize] = Some(t);
                    }
                }
                proptest::prop_assert_eq!(at_once.len(), queued.len());
                for dd in 0..layout.dies() {
                    proptest::prop_assert_eq!(at_once.queued_for_die(dd), queued.queued_for_die(dd));
                }
                for c in 0..layout.chips() {
                    proptest::prop_assert_eq!(at_once.queued_on_chip(c), queued.queued_on_chip(c));
                }
                proptest::prop_assert_eq!(at_once.report(), queued.report(), "step {}", i);
            }
        }
    }

    /// Which schedulers take a transaction at once: every one with nothing queued for the die,
    /// none with something queued for it; Slacker with the chip as its unit (interleaving off)
    /// not while another die of the chip has something queued (its bypass walk would pass it).
    #[test]
    fn who_takes_at_once() {
        for name in ["fcfs", "o3", "frfcfs", "slacker", "wbyp", "frfcfs+est"] {
            for interleave in [true, false] {
                let (sched, il) = (format!("tsu.scheduler={name}"), format!("device.advanced.interleave={interleave}"));
                let st = tiny_settings(&[&sched, "device.geometry.dies_per_chip=2", &il, "device.suspend.program=true"]);
                let layout = Layout::new(&st.geometry);
                let mut s = build_boxed(&st, layout);
                let txn = |die: u32| Txn::new(TxnKind::HostWrite, 0, 0, 0, 0, die, 4096, 0);
                let read = |die: u32| Txn::new(TxnKind::HostRead, 0, 0, 0, 0, die, 4096, 0);
                assert!(s.takes_at_once(0, &txn(0)), "{name}: an empty scheduler");
                s.enqueue(1, &txn(0));
                assert!(!s.takes_at_once(2, &txn(0)), "{name}: a transaction queued for the die");
                assert!(!s.takes_at_once(2, &read(0)), "{name}: a write queued for the die, a read arrives");
                let chip_unit = !interleave && name != "fcfs" && name != "o3" && name != "frfcfs";
                assert_eq!(s.takes_at_once(3, &txn(1)), !chip_unit, "{name}, interleave {interleave}: the chip's other die");
                assert_eq!(s.len(), 1, "{name}: nothing queued by asking");
                // Writes held aside for a die count as queued for it.
                let mut s = build_boxed(&st, layout);
                if s.holds_aside() {
                    s.hold_aside(2, 1);
                    assert!(!s.takes_at_once(4, &read(2)), "{name}: a write held aside for the die");
                }
            }
        }
    }
}
