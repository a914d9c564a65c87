//! Host writes stalled for want of a free page, and their return to the chips' queues when GC
//! erases a block of their plane.
//!
//! Each erase puts every write stalled in its plane back at the head of its die's queue, in the
//! order they stalled; the die then takes them one by one, and once one finds no page the rest
//! find none either, at the same instant, and stall again. On an overloaded drive (an open-loop
//! trace faster than GC) tens of thousands of writes wait for a plane, and re-queueing all of them
//! at each of its erases made such runs quadratic: 600 million retried starts for 100,000
//! requests (docs/performance.md, "Overloaded drives: what is and is not retried").
//!
//! `LazyRequeue` gives the same run without most of the retries that cannot succeed. An erase re-queues
//! only as many of the plane's stalled writes as can take a page now plus one (an upper bound on
//! the host's room, so at least one of them stalls again unless all were re-queued), and keeps
//! the rest aside. When the last re-queued write of the plane (`LazyRequeue::last`, known by
//! identity) has been tried and one of them stalled, the rest go back to the plane's stalled list behind those that stalled again, and
//! `write_stalls` counts them, as the retries would have. This is exact only where nothing else
//! can free a page of the plane or see how many writes the die's queue holds while the re-queued
//! writes are tried (anything may take pages then: the room only shrinks, and the bound holds):
//! multi-die commands only as below (multi-plane ones are fine: a re-queued write that joins
//! another write's command is tried there, and a kept-aside one could not join, its plane
//! having no page), one
//! write stream for host writes unless under FCFS (below), greedy GC, and a transaction
//! scheduler that is either FCFS in the
//! simulator's own slot without suspension (whose queue is a FIFO per die and whose other users
//! only ask whether it is empty: the conflict flag, the device queues' view, WR; the dynamic
//! allocator, which weighs dies by how many transactions they have queued, is told of the
//! kept-aside writes, `unheld_aside`) or one that counts the kept-aside writes (below). Other
//! runs re-queue every stalled write, as before
//! (`LazyRequeue::new`). The one place the run takes another path under FCFS: GC
//! started by the last stall finds the die's queue without the kept-aside writes and starts its
//! first read at once (`Simulator::take_at_once`) where it used to queue it behind them and
//! start it after their retries, at the same instant; the two paths are the same run
//! (`sim::tests::an_idle_die_skips_the_queue_with_the_same_results`).
//!
//! Stalled writes that relocate (`cross_plane`: dynamic allocation and read balance-oriented
//! wear leveling let pages leave their address's plane, and a write that stalls where GC has
//! nothing to collect moves to a plane that can take it, `relocate_write`). With a collection
//! under way (or one the stall is about to start, `gc_will_collect`) each kept-aside write would
//! stall and stay, as the last re-queued one did; with none each would try to move, and they all
//! go back to the head of the queue, where they are tried one by one as before. Under FCFS that
//! is decided at the last re-queued write's stall, before GC is asked (GC's first read may start
//! the die again at once); under the schedulers that hold them, at the die's next choice as
//! always. Meanwhile, writes of other planes may move into the plane and an erase elsewhere may
//! return a stuck plane's stalled writes to the queue (`requeue_stuck`): both are tried before
//! the last re-queued write, which is why it is known by identity and not by a count. A write
//! that goes to the head of a die's queue while a scheduler holds kept-aside writes there (the
//! die went busy at once: the last re-queued write moved to another of its planes and started)
//! goes in front of them, which are put back for real first (`disarm`). And a kept-aside write
//! is not stalled yet where the allocator and GC look (`has_stalled`, `unheld_aside`).
//!
//! Write grouping (two streams of host writes, each with its own open block), under FCFS and
//! the schedulers that hold kept-aside writes (FR-FCFS, O3, Slacker), without relocation, and
//! with multi-plane commands under FCFS only: a write of one stream may find a page where the
//! last re-queued write, of the other, found none, and the last re-queued write may itself take
//! a page. The room bound counts both streams' open blocks (`Ftl::host_room_bound_streams`),
//! and resolving the kept-aside writes is what their tries would have done (`resolve_now`): those
//! before the first whose stream can take a page stall, and from that one on they are
//! re-queued as an erase re-queues, as many as can take a page plus one, the rest kept aside
//! behind them again (`requeue_rest`). That needs no bound to be exact, only to be quick. Under
//! the schedulers that hold them it is the same at the die's next choice, among the writes the
//! scheduler says it would take (`resolve_aside_now`). Slacker's counts follow: the writes
//! `drop_aside` forgets leave its host-write count as their tries would have, those re-queued
//! enter it again with no slack (`enqueue_front`), as at an erase, and the rest are held.
//! (With relocation its plane's GC would have to be asked first.) With multi-plane commands a
//! write of another plane of the die can lead a command from ahead of a plane's re-queued
//! writes (its own were re-queued after them), and its scan of the queue for companions can
//! reach the kept-aside writes: when it passes the plane's last re-queued write without taking a
//! write of the plane, the first kept-aside write whose stream's next page lines up joins, as
//! it would have from the queue (`join_aside`); and when it takes the last re-queued write
//! from the middle of the queue, the kept-aside writes are re-queued where it was, not at the
//! head (`reinsert`, several planes' in one command).
//!
//! Chip-level multi-die commands (`device.advanced.multi_die`, as under `compat = "mqsim"`),
//! under FCFS and O3, without relocation or write grouping. The chip, not the die, chooses: it
//! compares what each of its dies would run next (`sim::chip`), and when the last re-queued
//! write of a plane has stalled, the kept-aside writes are what their die would run next (held
//! by the scheduler, FCFS included, as the reordering schedulers hold them, and counted in its
//! queues). The chip's leader selection offers the first of them for their die
//! (`aside_offer`); when it is picked, it would have stalled at once and the selection looked
//! again, picking the next, and so on while their keys stay below the best offer of the chip's
//! other dies. When the latest time any of the plane's stalled writes was queued is below that
//! offer's (or the offer is an erase, or there is none), they all stall at once
//! (`stall_aside_leads`); otherwise, or when the plane has no collection under way (the first
//! stall would ask GC, whose first read may start the chip at once), they go back to the queue
//! for real. Nothing else can reach them meanwhile: a die's erases come after its writes, and
//! a kept-aside write never joins another die's command or a multi-plane one (its plane has no
//! page). Every multi-die run of the randomized campaigns resolved them at once, the chip's
//! other dies offering an erase, a younger write or nothing; the other two paths are argued,
//! and the put-back one tested by forcing it.
//!
//! Static wear leveling and the idle-time task take part. A wear-leveling collection is GC's
//! (one a plane at a time, its moves in the plane's default stream, its erase through the die's
//! queue), started after any erase instead of a stall; an idle turn needs its chip with nothing
//! queued (kept-aside writes count as queued under the schedulers that hold them, and under FCFS
//! they are resolved at the stall itself), and its re-program only takes a page.
//!
//! Schedulers that reorder (FR-FCFS, and Slacker on it) see the writes in their queues: the
//! write queue's length decides whether a chip drains its writes, and Slacker counts the host
//! writes ahead of a new one in its estimate. Those that can (`TransactionScheduler::holds_aside`)
//! count the kept-aside writes without holding them (`hold_aside`), so that every decision sees
//! the queue it would have seen. When the last re-queued write has stalled, the kept-aside ones
//! are at the head of their die's writes, and the die's next choice (`Simulator::start_die_now`)
//! is where they would have been taken, one after the other, each failing at once: the scheduler
//! says how many its next choices would take (`drop_aside`: FR-FCFS takes writes while its
//! write queue is past alpha% full, and while no read waits for the die), those stall again and
//! count in `write_stalls`, and the rest, if any, go back to the head of the queue for real,
//! where they would have stayed. That also holds with program and erase suspension and write
//! pausing (a die with an operation suspended takes only reads, so the writes wait for its next
//! choice of a write either way); not with Slacker's write bypassing when the unit is the chip
//! (`device.advanced.interleave = false`), whose walk would stop at the kept-aside writes in
//! the middle of other dies' writes. Slacker's write bypassing and write pausing also need the
//! kept-aside writes to have no slack: a re-queued write has none, but a write that stalled
//! before its request was wholly queued gets its slack when the request's last transaction is
//! queued (with read-modify-write, once that write's read is done), and kept aside then, it could
//! not be passed as its queued copy would have been. Under them an erase keeps writes aside only
//! if none of its plane's stalled writes belonged to a partly queued request when it stalled
//! (`LazyRequeue::partial`), and otherwise re-queues all.

use super::txn::{ReqId, TxnId};
use super::Simulator;
use crate::nand::NONE;

#[derive(Debug, Default)]
pub(super) struct LazyRequeue {
    pub(super) on: bool,
    /// The transaction scheduler counts the kept-aside writes (`holds_aside`): they are
    /// resolved at their die's next choice, not when the last re-queued write stalls.
    held: bool,
    /// Writes are kept aside only if none of the plane's stalled writes belonged to a request
    /// partly queued when it stalled (`aside_needs_whole_requests`).
    whole: bool,
    /// Per plane, with `whole`: its stalled writes whose request had transactions not yet
    /// queued when they stalled (a request never goes back from wholly queued to partly).
    partial: Vec<u32>,
    /// Per die: the plane whose kept-aside writes are now at the head of the die's writes,
    /// waiting for its next choice (`NONE`: none).
    armed: Vec<u32>,
    /// Dies with a plane in `armed` (the chip's leader selection looks for kept-aside writes
    /// only while there are any).
    armed_dies: u32,
    /// Per plane with writes kept aside: the last of its re-queued writes (`NONE`: none). The
    /// kept-aside writes come right behind it; when it has been tried, they are resolved. (An
    /// identity, not a count: under dynamic allocation other writes of the plane, relocated into
    /// it or returned from a stuck plane, are tried before it too.)
    last: Vec<TxnId>,
    /// Planes whose `last` is set. Every host write that takes a page asks whether it was its
    /// plane's last re-queued write; with none set (the usual case) the answer needs no look at
    /// `last`, a per-plane array whose line is rarely in the cache.
    pending: u32,
    cross_plane: bool,
    /// Write grouping: host writes of a plane go to two streams (open blocks), and a write of
    /// one may find a page where one of the other found none.
    streams: bool,
    /// Per plane: the stalled writes an erase kept aside, in order. They stay where they were,
    /// the last ones of the plane's stalled queue (`Simulator::stalled`): re-queued writes that
    /// stall again go in front of them, and nothing else stalls in the plane until they are
    /// resolved (its die takes its re-queued writes first), so no erase copies them.
    aside: Vec<u32>,
    /// Chip-level multi-die commands (`sim::chip`): a die's kept-aside writes, once at the head
    /// of its writes, are tried when the chip's leader selection picks the first of them
    /// (`stall_aside_leads`), not at the die's next choice.
    multi_die: bool,
    /// Per plane, with `multi_die`: the latest time any of its stalled writes was queued
    /// (`Txn::enqueued`) since its stalled queue was last empty, a bound on its kept-aside
    /// writes' (`stall_aside_leads`).
    latest: Vec<crate::engine::Time>,
    /// Tests: resolve kept-aside writes picked by a chip's leader selection by putting them
    /// back, as when a bound does not decide (`stall_aside_leads`).
    #[cfg(test)]
    pub(super) md_put_back: bool,
    /// Writes kept aside over the run: the retries saved (for tests).
    pub(super) kept_aside: u64,
    /// Kept-aside writes that went back to the queue after all (`resolve_aside`; for tests).
    pub(super) put_back: u64,
    /// Kept-aside writes that joined a multi-plane command (`join_aside`; for tests).
    pub(super) joined: u64,
    /// FCFS with write grouping and multi-plane commands: the last re-queued writes of these
    /// planes joined a command from these places in their die's queue (`Simulator::gather`), in
    /// queue order, where the writes kept aside behind them are re-queued (`requeue_rest`), not
    /// at the head.
    pub(super) reinsert: Vec<(u32, usize)>,
    /// Times `reinsert` was used (for tests).
    pub(super) reinserted: u64,
}

impl LazyRequeue {
    pub(super) fn new(sim: &Simulator, s: &crate::config::Settings) -> Self {
        let f = &sim.flash;
        let fcfs = matches!(sim.tsu, crate::tsu::TsuSlot::Fcfs(_));
        // FCFS counts writes held aside too, but without multi-die commands its kept-aside
        // writes are resolved when the last re-queued one stalls, which is quicker (below).
        let held = (!fcfs || f.adv.multi_die) && sim.tsu.holds_aside();
        // Host writes in more than one stream (write grouping, VIOS's fast blocks). With
        // multi-die commands the re-queue is shown exact for one stream only; without them, for
        // VIOS's fast blocks under every scheduler and allocation (`sim::tests`, the
        // stalled_writes_kept_aside tests), for write grouping under the narrower rule below.
        let streams = sim.wear.grouping.is_some() || sim.wear.fast_stream;
        let on = ((fcfs && !f.suspend.program && !f.suspend.erase && !f.suspend.for_reads) || held)
            && (!f.adv.multi_die || (held && !sim.cross_plane && !streams))
            && (sim.wear.grouping.is_none()
                || ((fcfs || held) && !sim.cross_plane && (fcfs || f.adv.multi_plane == crate::ctrl::command::MultiPlane::Off)))
            && s.ftl.gc_policy == "greedy"
            // Translation programs are host writes of a stream of their own, outside the rules
            // above: their stalls are re-queued as they are.
            && sim.mapping.is_none();
        if !on {
            return LazyRequeue::default();
        }
        let planes = sim.layout.planes() as usize;
        let armed = if held { vec![NONE; sim.layout.dies() as usize] } else { Vec::new() };
        let whole = held && sim.tsu.aside_needs_whole_requests();
        let partial = if whole { vec![0; planes] } else { Vec::new() };
        LazyRequeue {
            on,
            held,
            whole,
            partial,
            armed,
            armed_dies: 0,
            last: vec![NONE; planes],
            pending: 0,
            cross_plane: sim.cross_plane,
            streams,
            multi_die: f.adv.multi_die,
            latest: if f.adv.multi_die { vec![0; planes] } else { Vec::new() },
            #[cfg(test)]
            md_put_back: false,
            aside: vec![0; planes],
            kept_aside: 0,
            put_back: 0,
            joined: 0,
            reinsert: Vec::new(),
            reinserted: 0,
        }
    }
}

/// The first of the host writes of `q` at `range` whose stream `ok` accepts (its index in `q`).
/// `ok` is asked once for each of the three streams host writes use (the mapping table's
/// translation pages are host writes of their own stream), not for every write: when none can
/// take a page, as on an overloaded drive, no write is looked at.
fn first_of_streams(q: &std::collections::VecDeque<TxnId>, range: std::ops::Range<usize>, ok: impl Fn(crate::ftl::Stream) -> bool, stream: impl Fn(TxnId) -> crate::ftl::Stream) -> Option<usize> {
    use crate::ftl::{STREAM_DEFAULT, STREAM_HOT, STREAM_MAPPING};
    let (default, hot, mapping) = (ok(STREAM_DEFAULT), ok(STREAM_HOT), ok(STREAM_MAPPING));
    if !default && !hot && !mapping {
        return None;
    }
    range.into_iter().find(|&i| match stream(q[i]) {
        STREAM_DEFAULT => default,
        STREAM_HOT => hot,
        STREAM_MAPPING => mapping,
        s => unreachable!("host writes use the default, hot and mapping streams, not {s}"),
    })
}

impl LazyRequeue {
    /// Whether `die` has kept-aside writes at the head of its writes, to resolve at its next
    /// choice (`resolve_aside`). Asked at every start of an idle die; with no die armed (the
    /// usual case, and always when `held` is off) the count answers without the per-die array,
    /// as `pending` does for `last`.
    #[inline]
    pub(super) fn is_armed(&self, die: u32) -> bool {
        self.armed_dies > 0 && self.armed[die as usize] != NONE
    }

    /// Dies whose kept-aside writes are at the head of their writes (`armed`).
    #[inline]
    pub(super) fn armed_dies(&self) -> u32 {
        self.armed_dies
    }

    /// FCFS with write grouping and multi-plane commands: the planes of `die` but `except`
    /// whose kept-aside writes wait behind a re-queued write not yet tried, as bits by plane
    /// index in the die (`join_aside`).
    #[inline]
    pub(super) fn aside_planes(&self, die: u32, except: u32, layout: &crate::nand::Layout) -> u64 {
        if !self.on || self.held || !self.streams {
            return 0;
        }
        let ppd = layout.planes_per_die;
        (die * ppd..(die + 1) * ppd).filter(|&p| p != except && self.last[p as usize] != NONE).fold(0, |m, p| m | 1 << (p % ppd))
    }

    /// A multi-plane program's scan of its die's queue (`Simulator::gather`) passed `plane`'s
    /// last re-queued write without taking a write of that plane (FCFS, write grouping). Had
    /// every stalled write been re-queued, the plane's kept-aside writes would come next, and the
    /// first whose stream's next page `fits` (lines up with the command's) would join it: its
    /// index in the plane's stalled queue. (With one stream none could: the plane has no page.)
    pub(super) fn join_aside(&self, plane: u32, stalled: &std::collections::VecDeque<TxnId>, stream: impl Fn(TxnId) -> crate::ftl::Stream, fits: impl Fn(crate::ftl::Stream) -> bool) -> Option<usize> {
        let start = stalled.len() - self.aside[plane as usize] as usize;
        first_of_streams(stalled, start..stalled.len(), fits, stream)
    }

    /// `join_aside`'s write at `index` of `plane`'s stalled queue joined a command: it is no
    /// longer kept aside.
    pub(super) fn aside_joined(&mut self, plane: u32, index: usize, stalled: &mut std::collections::VecDeque<TxnId>) -> TxnId {
        let p = plane as usize;
        let w = stalled.remove(index).expect("a kept-aside write");
        self.aside[p] -= 1;
        self.joined += 1;
        if self.aside[p] == 0 {
            self.set_last(p, NONE);
        }
        w
    }

    /// The last re-queued write of `plane` not yet tried (`NONE`: none).
    #[inline]
    pub(super) fn last_requeued(&self, plane: u32) -> TxnId {
        self.last[plane as usize]
    }

    /// `plane`'s last re-queued write is `t` (`NONE`: none), `pending` following.
    #[inline]
    fn set_last(&mut self, plane: usize, t: TxnId) {
        let was = std::mem::replace(&mut self.last[plane], t) != NONE;
        self.pending = self.pending + u32::from(t != NONE) - u32::from(was);
        debug_assert_eq!(self.pending as usize, self.last.iter().filter(|&&l| l != NONE).count(), "planes with a last re-queued write");
    }

    /// Writes of `die` kept aside behind a re-queued write not yet tried, under FCFS (whose
    /// queue does not count them): had every stalled write been re-queued they would be queued
    /// for the die, and the dynamic allocator weighs a die by how many are (`AllocView`).
    pub(super) fn unheld_aside(&self, die: u32, layout: &crate::nand::Layout) -> u32 {
        if !self.on || self.held {
            return 0;
        }
        let ppd = layout.planes_per_die;
        (die * ppd..(die + 1) * ppd).filter(|&p| self.last[p as usize] != NONE).map(|p| self.aside[p as usize]).sum()
    }
}

impl Simulator {
    /// An erase in `plane` freed a block: its stalled writes go back to the head of their die's
    /// queue, in order (all of them, or as many as can take a page plus one).
    pub(super) fn requeue_stalled(&mut self, plane: u32) {
        let p = plane as usize;
        let requeued = if self.requeue.on { self.keep_aside(plane) } else { self.stalled[p].len() };
        self.requeue_range(plane, 0..requeued);
    }

    /// The stalled writes of `plane` at `range` of its stalled queue go to the head of their
    /// die's queue, the first of them first.
    fn requeue_range(&mut self, plane: u32, range: std::ops::Range<usize>) {
        let p = plane as usize;
        for i in range.clone().rev() {
            let w = self.stalled[p][i];
            self.tsu.enqueue_front(w, self.txns.get(w));
        }
        self.stalled[p].drain(range);
    }

    /// `requeue_range`, at place `at` of the die's FCFS queue instead of its head.
    fn requeue_range_at(&mut self, plane: u32, range: std::ops::Range<usize>, at: usize) {
        let p = plane as usize;
        let crate::tsu::TsuSlot::Fcfs(f) = &mut self.tsu else { unreachable!("kept-aside writes join commands under FCFS only") };
        for (k, i) in range.clone().enumerate() {
            let w = self.stalled[p][i];
            f.insert_at(at + k, w, self.txns.get(w));
        }
        self.stalled[p].drain(range);
    }

    /// Writes of `plane` kept aside now (0 without the lazy re-queue).
    fn aside_of(&self, plane: u32) -> usize {
        if self.requeue.on { self.requeue.aside[plane as usize] as usize } else { 0 }
    }

    /// With write grouping: of the first `n` of the `aside` writes kept aside at the tail of
    /// `plane`'s stalled queue, the first whose stream can take a page now.
    fn first_writable_aside(&self, plane: u32, aside: usize, n: usize) -> Option<usize> {
        let q = &self.stalled[plane as usize];
        let start = q.len() - aside;
        let found = first_of_streams(q, start..start + n, |s| self.ftl.host_may_take(plane, s), |w| self.wear.write_stream(self.txns.get(w)));
        found.map(|i| i - start)
    }

    /// The lazy re-queue of an erase in `plane`: how many of its stalled writes go back to the
    /// queue; the rest are kept aside.
    fn keep_aside(&mut self, plane: u32) -> usize {
        let p = plane as usize;
        debug_assert!(self.requeue.last[p] == NONE && self.requeue.aside[p] == 0);
        let room = self.room_bound(plane);
        let waiting = self.stalled[p].len();
        // A stalled write of a request not yet wholly queued could get its slack while kept
        // aside: with any such write in the plane, all are re-queued (and checked again as they
        // stall again).
        let requeued = if self.requeue.whole && std::mem::take(&mut self.requeue.partial[p]) > 0 { waiting } else { waiting.min(room + 1) };
        let aside = (waiting - requeued) as u32;
        if aside > 0 {
            if self.requeue.held {
                self.tsu.hold_aside(self.layout.die_of_plane(plane), aside);
            }
            self.requeue.kept_aside += u64::from(aside);
        }
        self.requeue.aside[p] = aside;
        if aside > 0 {
            let t = self.stalled[p][requeued - 1];
            self.requeue.set_last(p, t);
        }
        requeued
    }

    /// Host write `t` of `plane` (of request `req`) found no page: it waits for GC, in front of
    /// the plane's kept-aside writes if there are any (it is one of the writes re-queued before
    /// them).
    #[inline]
    pub(super) fn write_stalled(&mut self, plane: u32, t: TxnId, req: ReqId) {
        let p = plane as usize;
        self.counters.write_stalls += 1;
        if self.requeue.whole && self.reqs.items[req as usize].unqueued > 0 {
            self.requeue.partial[p] += 1;
        }
        let at = self.stalled[p].len() - self.aside_of(plane);
        if self.requeue.multi_die {
            let e = self.txns.get(t).enqueued;
            let l = &mut self.requeue.latest[p];
            *l = if self.stalled[p].is_empty() { e } else { (*l).max(e) };
        }
        self.stalled[p].insert(at, t);
        self.host_write_tried(plane, t, true);
    }

    /// Host write `t` of `plane` was tried (`stalled`: it found no page). The last re-queued write
    /// of the plane tried, after one stalled: the writes kept aside stall behind them.
    #[inline]
    pub(super) fn host_write_tried(&mut self, plane: u32, t: TxnId, stalled: bool) {
        let p = plane as usize;
        // `pending` is 0 whenever the lazy re-queue is off.
        if self.requeue.pending == 0 || self.requeue.last[p] != t {
            return;
        }
        self.requeue.set_last(p, NONE);
        if self.requeue.held {
            return self.aside_at_head(plane, stalled);
        }
        if stalled && self.requeue.cross_plane && !self.gc_will_collect(plane) {
            // Each would move to another plane (`relocate_write`): they go back to the head of
            // the queue, to be tried one by one, before the write that just stalled moves.
            let aside = std::mem::take(&mut self.requeue.aside[p]);
            self.requeue.put_back += u64::from(aside);
            return self.put_back_aside(plane, aside);
        }
        self.resolve_now(plane, stalled);
    }

    /// Under `cross_plane`, whether `plane` has a collection under way or the stall about to ask
    /// GC (`maybe_gc`) starts one: then no write that stalls in it moves. Known before GC is
    /// asked, because GC's first read may start the die again at once (`to_tsu`), and the
    /// kept-aside writes must be resolved by then, as their tries would have been.
    fn gc_will_collect(&mut self, plane: u32) -> bool {
        self.ftl.planes[plane as usize].gc_victim != NONE || (self.ftl.needs_gc(plane) && self.gc.select(&self.ftl, plane).is_some())
    }

    /// An upper bound on how many host writes `plane` can take now.
    fn room_bound(&self, plane: u32) -> usize {
        if self.requeue.streams { self.ftl.host_room_bound_streams(plane) as usize } else { self.ftl.host_room_bound(plane) as usize }
    }

    /// FCFS: the last re-queued write of `plane` was tried (`stalled`: it found no page), and its
    /// die now tries the kept-aside writes, at once if it is free. With one stream of host
    /// writes, the room bound means that a write kept aside implies the last re-queued one
    /// stalled; the kept-aside ones, already where they stall, behind it, stall too. With write
    /// grouping, a kept-aside write of the other stream may find a page: the ones before the
    /// first that can stall, and from that one on they are what the erase's re-queue was, a run
    /// of writes at the head of the queue, the first of which takes a page (`requeue_rest`).
    fn resolve_now(&mut self, plane: u32, stalled: bool) {
        let p = plane as usize;
        let aside = std::mem::take(&mut self.requeue.aside[p]) as usize;
        if aside == 0 {
            return;
        }
        let failing = if !stalled {
            // Cannot happen with one stream while the room is bounded; the writes are next.
            debug_assert!(self.requeue.streams, "plane {plane}: writes kept aside but every re-queued one took a page");
            0
        } else if !self.requeue.streams || !(self.ftl.host_may_take(plane, crate::ftl::STREAM_DEFAULT) || self.ftl.host_may_take(plane, crate::ftl::STREAM_HOT) || self.ftl.host_may_take(plane, crate::ftl::STREAM_MAPPING)) {
            aside
        } else {
            self.first_writable_aside(plane, aside, aside).unwrap_or(aside)
        };
        self.counters.write_stalls += failing as u64;
        if failing < aside {
            self.requeue_rest(plane, aside - failing);
        }
    }

    /// The last `rest` writes of `plane`'s stalled queue are next at the head of its die's
    /// queue: as an erase does, re-queue as many as can take a page plus one, and keep the rest
    /// aside behind them.
    fn requeue_rest(&mut self, plane: u32, rest: usize) {
        let p = plane as usize;
        let requeued = rest.min(self.room_bound(plane) + 1);
        let start = self.stalled[p].len() - rest;
        self.requeue.put_back += requeued as u64;
        let aside = rest - requeued;
        if aside > 0 {
            let t = self.stalled[p][start + requeued - 1];
            self.requeue.set_last(p, t);
        }
        self.requeue.aside[p] = aside as u32;
        match self.requeue.reinsert.iter().position(|&(q, _)| q == plane) {
            Some(i) => {
                let (_, at) = self.requeue.reinsert.remove(i);
                self.requeue.reinserted += 1;
                // Places at or after this one, in the same die's queue, move on by as many.
                for r in &mut self.requeue.reinsert {
                    if r.1 >= at {
                        r.1 += requeued;
                    }
                }
                self.requeue_range_at(plane, start..start + requeued, at)
            }
            None => self.requeue_range(plane, start..start + requeued),
        }
        if self.requeue.held && aside > 0 {
            // Right behind the writes just put back at the head, as at an erase.
            self.tsu.hold_aside(self.layout.die_of_plane(plane), aside as u32);
        }
    }

    /// An erase returns every stalled write of `plane`, a plane where GC could reclaim
    /// nothing, to the head of its die's queue (`stuck`). Writes kept aside are not stalled
    /// yet: those a scheduler holds at the head of the die's writes go back to the queue first
    /// (`disarm`); the others are still behind the plane's last re-queued write, not yet tried,
    /// and stay there.
    pub(super) fn requeue_stuck(&mut self, plane: u32) {
        self.disarm(self.layout.die_of_plane(plane));
        let aside = self.aside_of(plane);
        debug_assert!(aside == 0 || self.requeue.last[plane as usize] != NONE);
        let n = self.stalled[plane as usize].len() - aside;
        self.requeue_range(plane, 0..n);
    }

    /// Writes are about to go to the head of `die`'s queue while a scheduler holds kept-aside
    /// writes there, waiting for the die's next choice (the die went busy at once: the last
    /// re-queued write moved to another of its planes and started). The kept-aside writes go back
    /// to the queue for real first, so that the new ones are in front of them, as they would have
    /// been.
    pub(super) fn disarm(&mut self, die: u32) {
        if !self.requeue.held || self.requeue.armed[die as usize] == NONE {
            return;
        }
        let (plane, aside, _) = self.unarm(die);
        self.requeue.put_back += u64::from(aside);
        self.put_back_aside(plane, aside);
    }

    /// `die`'s kept-aside writes leave the head of its writes: its plane is no longer armed and
    /// its scheduler forgets them (`drop_aside`). Returns the plane, how many there were, and
    /// how many of them the scheduler's next choices would take.
    fn unarm(&mut self, die: u32) -> (u32, u32, u32) {
        let plane = std::mem::replace(&mut self.requeue.armed[die as usize], NONE);
        self.requeue.armed_dies -= 1;
        let aside = std::mem::take(&mut self.requeue.aside[plane as usize]);
        let taken = self.tsu.drop_aside(die, aside);
        (plane, aside, taken)
    }

    /// Whether `plane` has writes waiting for GC. Kept-aside writes do not count: they would
    /// still be queued behind the plane's last re-queued write, not stalled, had every stalled
    /// write been re-queued.
    pub(super) fn has_stalled(&self, plane: u32) -> bool {
        self.stalled[plane as usize].len() > self.aside_of(plane)
    }

    /// The last `n` stalled writes of `plane` (kept aside) go back to the head of its die's
    /// queue, in order.
    fn put_back_aside(&mut self, plane: u32, n: u32) {
        for _ in 0..n {
            let w = self.stalled[plane as usize].pop_back().expect("kept-aside writes are in the stalled queue");
            self.tsu.enqueue_front(w, self.txns.get(w));
        }
    }

    /// The last re-queued write of `plane` was tried, under a scheduler that holds the
    /// kept-aside writes: they are at the head of their die's writes, to be resolved at the die's
    /// next choice (`resolve_aside`).
    #[cold]
    fn aside_at_head(&mut self, plane: u32, stalled: bool) {
        if self.requeue.aside[plane as usize] == 0 {
            return;
        }
        let die = self.layout.die_of_plane(plane);
        if stalled {
            debug_assert!(self.requeue.armed[die as usize] == NONE, "die {die}: two planes' kept-aside writes at the head of its queue");
            self.requeue.armed[die as usize] = plane;
            self.requeue.armed_dies += 1;
        } else {
            // As in `resolve_now`: with one stream, cannot happen while the room is bounded;
            // with write grouping the kept-aside writes are next, the die being busy now.
            debug_assert!(self.requeue.streams, "plane {plane}: writes kept aside but every re-queued one took a page");
            let aside = std::mem::take(&mut self.requeue.aside[plane as usize]);
            self.tsu.drop_aside(die, aside);
            self.requeue_rest(plane, aside as usize);
        }
    }

    /// With multi-die commands: the kept-aside write `die` offers its chip's next command, if
    /// its scheduler would take one next (`TransactionScheduler::aside_next`).
    #[inline]
    pub(super) fn aside_offer(&self, die: u32) -> Option<TxnId> {
        let plane = self.requeue.armed[die as usize];
        if plane == NONE || !self.tsu.aside_next(die) {
            return None;
        }
        let q = &self.stalled[plane as usize];
        Some(q[q.len() - self.requeue.aside[plane as usize] as usize])
    }

    /// With multi-die commands: the chip's leader selection picked the first kept-aside write
    /// of `die` (`aside_offer`), and `other` is the best offer of the chip's other dies. Had
    /// the writes been queued, the first would have been started, found no page and stalled,
    /// changing nothing another die offers (GC of its plane is under way, and asked again it only
    /// notes the plane's free blocks); the selection would then have looked again, picked the
    /// next, and so on while their keys stay below `other`'s. When every one of them was queued
    /// before `other` (the plane's `latest` says so), or `other` is an erase or nothing, they all
    /// stall now, in order. Otherwise, or when their plane has no collection under way (the
    /// first stall may start one, whose first read may start the chip at once), they go back to
    /// the queue for real and are tried as queued ones are.
    #[cold]
    #[inline(never)]
    pub(super) fn stall_aside_leads(&mut self, die: u32, other: Option<super::chip::Offer>) {
        debug_assert!(other.is_none_or(|o| o.0 >= 1), "die {die}: a kept-aside write picked over a read");
        let p = self.requeue.armed[die as usize] as usize;
        let all = match other {
            None => true,
            Some((rank, _, enqueued, ..)) => rank > 1 || self.requeue.latest[p] < enqueued,
        };
        #[cfg(test)]
        let all = all && !self.requeue.md_put_back;
        if !all || self.ftl.planes[p].gc_victim == NONE {
            return self.disarm(die);
        }
        let (plane, aside, _) = self.unarm(die);
        self.counters.write_stalls += u64::from(aside);
        // What each stall asked of GC: the collection is under way, so only the plane's free
        // blocks are noted.
        self.maybe_gc(plane);
    }

    /// `die` is about to choose its next transaction: kept-aside writes at the head of its
    /// writes go first. Those its scheduler would take, one after the other, stall again at
    /// once (no page has been freed since their plane's last re-queued write found none, and a
    /// stall changes nothing else the scheduler sees); the rest go back to the head of its queue.
    #[inline]
    pub(super) fn resolve_aside(&mut self, die: u32) {
        if self.requeue.is_armed(die) {
            self.resolve_aside_now(die);
        }
    }

    #[cold]
    #[inline(never)]
    fn resolve_aside_now(&mut self, die: u32) {
        let (plane, aside, taken) = self.unarm(die);
        // Under `cross_plane`, a taken write that stalls where GC collects nothing moves to
        // another plane: then they all go back to the queue, to be tried one by one.
        let taken = if self.requeue.cross_plane && self.ftl.planes[plane as usize].gc_victim == NONE { 0 } else { taken };
        if self.requeue.streams && taken > 0 {
            // With write grouping one of those it takes may find a page: the ones before it
            // stall, and from it on they are re-queued as an erase re-queues them.
            if let Some(i) = self.first_writable_aside(plane, aside as usize, taken as usize) {
                self.counters.write_stalls += i as u64;
                return self.requeue_rest(plane, aside as usize - i);
            }
        }
        self.counters.write_stalls += u64::from(taken);
        self.requeue.put_back += u64::from(aside - taken);
        self.put_back_aside(plane, aside - taken);
    }
}
