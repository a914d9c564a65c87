//! Slacker (paper 003, ASPLOS 2017): slack-aware reordering of each chip's FR-FCFS queues.
//!
//! Every host sub-request (page transaction) entering its chip's read or write queue gets an
//! estimated completion time from the on-line estimator ([`super::slack`]); once all the
//! sub-requests of its request are queued, each one's slack is the latest estimated completion
//! among them minus its own (eq. 8). Three mechanisms use it, each selectable:
//!
//! - **Rbyp** (read bypassing, §4.1): an incoming host read moves ahead of the queued reads of its
//!   unit, starting from the tail, while the entry it would pass has slack of at least the read's
//!   service time; each entry passed loses that much slack. Entries of other dies of the chip are
//!   passed freely when dies interleave: the new read does not delay them.
//! - **Wbyp** (write bypassing): the same in the write queue with the write's service time.
//! - **WP** (slack-aware write pausing, §4.2): a host read arriving for a die that is programming a
//!   host write whose slack covers a read's service time (and the resume overhead) pauses the
//!   program at its next safe point (`device.suspend.safe_point = "ispp"`: the end of the ISPP
//!   iteration under way); the die then serves queued host reads while the program's slack lasts,
//!   each read taking its service time from it, and resumes.
//!
//! Slack never goes negative: an entry is passed or paused only while its slack covers the delay.
//! "Slack of at least the service time" (not "more than"): in Figure 6(a) RA1's slack of 2 cycles
//! lets both RB2 and RC2 (one cycle each) pass it.
//!
//! Below the reordering it is FR-FCFS with conditional queue size ([`super::FrFcfs`], the paper's
//! baseline), which picks what an idle die runs next.
//!
//! Names (`tsu.scheduler`): `slacker` (Rbyp + Wbyp + WP), `rbyp`, `wbyp`, `wp`, `rbyp+wp`, and
//! `frfcfs+est` (FR-FCFS with the estimator running and nothing reordered: the baseline's
//! estimation error and estimated slack).

use serde_json::json;

use super::slack::{Ahead, Estimator};
use super::{FrFcfs, TransactionScheduler};
use crate::config::Settings;
use crate::engine::Time;
use crate::nand::latency::NandOpKind;
use crate::nand::Layout;
use crate::sim::txn::{ReqId, Txn, TxnId, TxnKind};
use crate::stats::as_f64;

pub use crate::config::mechanisms::Mechanisms;

mod records;

use records::{Counts, Sub, Track, Tracks, USED_RBYP, USED_WBYP, USED_WP};

pub struct Slacker {
    mech: Mechanisms,
    base: FrFcfs,
    est: Estimator,
    /// The resume overhead a pause adds to the paused program (device.suspend.resume).
    resume_ns: u64,
    subs: Vec<Sub>,
    tracks: Tracks,
    /// Emptied `Track::live` vectors, reused.
    spare: Vec<Vec<TxnId>>,
    /// Per unit: host reads and host writes queued (the queue terms of eq. 3).
    host_q: Vec<[u32; 2]>,
    /// Per die: the program command paused for reads (WP), and whether its resume overhead has
    /// been taken from its slack yet.
    paused: Vec<(Vec<TxnId>, bool)>,
    n: Counts,
}

impl Slacker {
    pub fn new(s: &Settings, layout: Layout, base: FrFcfs, mech: Mechanisms) -> Self {
        let est = Estimator::new(s, layout);
        // With the chip as the unit, the bypass walk passes entries of all its dies in the
        // chip's order: one queue a chip.
        let base = if est.unit_is_die() { base } else { base.per_chip() };
        Slacker {
            mech,
            base,
            est,
            resume_ns: s.resolved.ns("device.suspend.resume"),
            subs: Vec::new(),
            tracks: Tracks::default(),
            spare: Vec::new(),
            paused: vec![(Vec::new(), false); layout.dies() as usize],
            host_q: vec![[0, 0]; layout.dies() as usize],
            n: Counts::default(),
        }
    }

    #[inline]
    fn sub(&mut self, t: TxnId) -> &mut Sub {
        let i = t as usize;
        if i >= self.subs.len() {
            self.subs.resize(i + 1, Sub::default());
        }
        &mut self.subs[i]
    }

    /// Transaction `t` left its queue (to run on `die`): one host read or write fewer queued on
    /// the unit, if it is one (its record says; GC records are not host).
    #[inline]
    fn left(&mut self, die: u32, t: TxnId) {
        if let Some(s) = self.subs.get(t as usize).filter(|s| s.host) {
            self.host_q[self.est.unit(die) as usize][usize::from(s.write)] -= 1;
        }
    }

    #[inline]
    fn slack(&self, t: TxnId) -> u64 {
        self.subs.get(t as usize).map_or(0, |s| s.slack)
    }

    /// Queue host transaction `id` for `die`: move it ahead of entries with enough slack if its
    /// mechanism is on, then estimate its completion from where it stands.
    fn enqueue_host(&mut self, id: TxnId, txn: &Txn) {
        let die = txn.die;
        let unit = self.est.unit(die);
        let read = txn.kind.is_read();
        let bypass = if read { self.mech.rbyp } else { self.mech.wbyp };
        let svc = self.est.lat.service(txn.kind);
        // Reset this id's record first: `slack()` of the entries passed must not see a stale one.
        *self.sub(id) = Sub::host(txn);
        let qi = self.base.queue_of(die);
        let q = if read { &mut self.base.reads[qi] } else { &mut self.base.writes[qi] };
        let mut pos = q.len();
        let mut passed = 0u64;
        if bypass {
            // From the tail: pass entries of other units freely, and entries of this unit while
            // their slack covers this one's service time.
            let mut i = q.len();
            while i > 0 {
                let (t, d) = q[i - 1];
                if self.est.unit(d) != unit {
                    i -= 1;
                    continue;
                }
                let s = self.subs.get(t as usize).map_or(0, |s| s.slack);
                if s < svc {
                    break;
                }
                self.subs[t as usize].slack = s - svc;
                passed += 1;
                i -= 1;
                pos = i;
            }
        }
        q.insert(pos, (id, die));
        self.base.added(die, !read, 1);
        // The host transactions ahead of it on its unit (queued GC work is eq. 5's expectation):
        // all of the unit's queued ones but those it passed (host ones: GC entries have no slack,
        // so the walk stops at them). No walk of the queue.
        let [reads_q, writes_q] = self.host_q[unit as usize];
        let behind = passed as u32;
        let ahead = if read { Ahead { reads: reads_q - behind, writes: 0 } } else { Ahead { reads: reads_q, writes: writes_q - behind } };
        self.host_q[unit as usize][usize::from(!read)] += 1;
        #[cfg(debug_assertions)]
        {
            // The counts against a walk of the queues (debug builds: every test checks them).
            let subs = &self.subs;
            let same = |&(t, d): &(TxnId, u32)| self.est.unit(d) == unit && t != id && subs.get(t as usize).is_some_and(|s| s.host);
            // Writes held aside are ahead of every write of their unit (nothing passes them).
            let aside = self.base.aside_of(die, !self.est.unit_is_die());
            let walk = if read {
                Ahead { reads: self.base.reads[qi].iter().take(pos).filter(|e| same(e)).count() as u32, writes: 0 }
            } else {
                Ahead {
                    reads: self.base.reads[qi].iter().filter(|e| same(e)).count() as u32,
                    writes: self.base.writes[qi].iter().take(pos).filter(|e| same(e)).count() as u32 + aside,
                }
            };
            debug_assert_eq!((ahead.reads, ahead.writes), (walk.reads, walk.writes), "host counts of unit {unit} drifted");
        }
        let track = self.estimate(id, txn, ahead);
        if passed > 0 {
            if read {
                track.used |= USED_RBYP;
                self.n.read_bypasses += 1;
                self.n.reads_passed += passed;
            } else {
                track.used |= USED_WBYP;
                self.n.write_bypasses += 1;
                self.n.writes_passed += passed;
            }
        }
    }

    /// Host transaction `id`, with `ahead` on its unit: its estimated completion (eq. 1), in its
    /// record and its request's track, which it returns.
    #[inline(always)]
    fn estimate(&mut self, id: TxnId, txn: &Txn, ahead: Ahead) -> &mut Track {
        let now = txn.enqueued;
        let est_done = now + self.est.response(txn.die, txn.kind, ahead, now);
        self.subs[id as usize].est_done = est_done;
        let spare = &mut self.spare;
        let track = self.tracks.get_or_insert_with(txn.req, || Track { live: spare.pop().unwrap_or_default(), ..Default::default() });
        track.live.push(id);
        track.est_max = track.est_max.max(est_done);
        track
    }

    /// The request's last sub-request is done: count what it used and forget it.
    fn retire(&mut self, req: ReqId) {
        if let Some(mut t) = self.tracks.remove(req) {
            self.n.requests += 1;
            if t.done > t.est_max {
                self.n.late += 1;
                self.n.late_ns += t.done - t.est_max;
            }
            self.n.used_rbyp += u64::from(t.used & USED_RBYP != 0);
            self.n.used_wbyp += u64::from(t.used & USED_WBYP != 0);
            self.n.used_wp += u64::from(t.used & USED_WP != 0);
            t.live.clear();
            self.spare.push(t.live);
        }
    }

    /// `op_started` for a multi-plane command (`group` not empty), out of line.
    #[inline(never)]
    fn command_started(&mut self, die: u32, lead: &Txn, group: &[TxnId], txns: &[Txn], now: Time) {
        let moves = u32::from(is_move(lead)) + group.iter().filter(|&&t| is_move(&txns[t as usize])).count() as u32;
        self.est.started(die, lead.kind, 1 + group.len() as u32, moves, now);
        // A multi-plane read served during a pause: each page joined moves over the channel too,
        // which the paused program waits for as well.
        if lead.kind == TxnKind::HostRead && !self.paused[die as usize].0.is_empty() {
            let extra = group.len() as u64 * self.est.lat.xfer;
            for &w in &self.paused[die as usize].0 {
                let s = &mut self.subs[w as usize].slack;
                *s = s.saturating_sub(extra);
            }
            self.n.pause_reads += group.len() as u64;
            for &r in group {
                if let Some(t) = self.tracks.get_mut(txns[r as usize].req) {
                    t.used |= USED_WP;
                }
            }
        }
    }
}

/// A GC page move's program (Cntr_Move), not an idle-time re-program.
#[inline]
fn is_move(t: &Txn) -> bool {
    t.kind == TxnKind::GcWrite && !t.is_reprogram()
}

impl TransactionScheduler for Slacker {
    fn name(&self) -> &'static str {
        match (self.mech.rbyp, self.mech.wbyp, self.mech.wp) {
            (true, true, true) => "slacker",
            (true, false, false) => "rbyp",
            (false, true, false) => "wbyp",
            (false, false, true) => "wp",
            (true, false, true) => "rbyp+wp",
            (false, false, false) => "frfcfs+est",
            _ => "slacker-custom",
        }
    }
    fn enqueue(&mut self, id: TxnId, txn: &Txn) {
        self.est.queued(txn.die);
        if matches!(txn.kind, TxnKind::HostRead | TxnKind::HostWrite) {
            self.enqueue_host(id, txn);
        } else {
            *self.sub(id) = Sub::default();
            self.base.enqueue(id, txn);
        }
    }
    fn takes_at_once(&mut self, id: TxnId, txn: &Txn) -> bool {
        // Nothing queued for the unit, counting writes held aside (its host counts are then 0):
        // a bypass walk would pass nothing, and nothing is ahead of it in the estimate. With
        // the chip as the unit, its other dies' entries would be walked past: those queue.
        let die = txn.die;
        let empty = if self.est.unit_is_die() { self.base.queued_for_die(die) == 0 } else { self.base.queued_on_chip(self.base.layout.chip_of_die(die)) == 0 };
        if !empty {
            return false;
        }
        // What `enqueue` records; `next` would take it at once and `left` undo its host count.
        self.est.queued(die);
        if matches!(txn.kind, TxnKind::HostRead | TxnKind::HostWrite) {
            debug_assert_eq!(self.host_q[self.est.unit(die) as usize], [0, 0], "host counts of an empty unit");
            *self.sub(id) = Sub::host(txn);
            self.estimate(id, txn, Ahead { reads: 0, writes: 0 });
        } else {
            *self.sub(id) = Sub::default();
        }
        true
    }
    fn enqueue_front(&mut self, id: TxnId, txn: &Txn) {
        // A host write back from waiting for GC: the wait has used its estimate up, so nothing may
        // pass it on the strength of the slack it had.
        if let Some(s) = self.subs.get_mut(id as usize) {
            s.slack = 0;
        }
        if txn.kind == TxnKind::HostWrite {
            self.host_q[self.est.unit(txn.die) as usize][1] += 1;
        }
        self.base.enqueue_front(id, txn);
    }
    fn next(&mut self, die: u32, txns: &[Txn]) -> Option<TxnId> {
        let t = self.base.next(die, txns)?;
        self.left(die, t);
        Some(t)
    }
    fn next_read(&mut self, die: u32, txns: &[Txn]) -> Option<TxnId> {
        if !self.mech.wp {
            let t = self.base.next_read(die, txns)?;
            self.left(die, t);
            return Some(t);
        }
        // A paused program: serve the oldest queued host read of the die while the program's
        // slack covers it.
        let need_resume = !self.paused[die as usize].1;
        let need = self.est.lat.read + if need_resume { self.resume_ns } else { 0 };
        let covered = {
            let (run, _) = &self.paused[die as usize];
            !run.is_empty() && run.iter().all(|&w| self.slack(w) >= need)
        };
        let qi = self.base.queue_of(die);
        let pick = if covered {
            self.base.reads[qi].iter().position(|&(t, d)| d == die && txns[t as usize].kind == TxnKind::HostRead)
        } else {
            None
        };
        let Some(i) = pick else {
            // Nothing to serve within the slack: the program resumes (`pause_over` follows).
            return None;
        };
        let (r, _) = self.base.reads[qi].remove(i).expect("picked");
        self.base.removed(die, false, 1);
        self.left(die, r);
        let (run, resumed) = &mut self.paused[die as usize];
        *resumed = true;
        for &w in run.iter() {
            self.subs[w as usize].slack -= need;
        }
        self.n.pause_reads += 1;
        if let Some(t) = self.tracks.get_mut(txns[r as usize].req) {
            t.used |= USED_WP;
        }
        Some(r)
    }
    fn take_companions(&mut self, die: u32, class: NandOpKind, max: usize, fits: &mut dyn FnMut(TxnId) -> bool, out: &mut Vec<TxnId>) {
        let before = out.len();
        self.base.take_companions(die, class, max, fits, out);
        for i in before..out.len() {
            self.left(die, out[i]);
        }
    }
    fn queued_on_chip(&self, chip: u32) -> usize {
        self.base.queued_on_chip(chip)
    }
    fn counts_per_die(&self) -> bool {
        self.base.counts_per_die()
    }
    fn queued_for_die(&self, die: u32) -> usize {
        self.base.queued_for_die(die)
    }
    fn len(&self) -> usize {
        self.base.len()
    }
    fn holds_aside(&self) -> bool {
        // Write bypassing walks the write queue of the unit from its tail and stops at the first
        // entry without slack: with the unit the die, the writes held aside (no slack) are
        // where the walk would reach the front of the die's writes anyway; with the unit the chip
        // they sit among other dies' writes, at a place the counts do not keep.
        !self.mech.wbyp || self.est.unit_is_die()
    }
    fn aside_needs_whole_requests(&self) -> bool {
        // Write bypassing walks past queued writes with slack; write pausing pauses running
        // writes with slack. A write that stalled before its request was wholly queued gets its
        // slack (eq. 8) when the last transaction is queued (read-modify-write: once its read is
        // done), maybe while it is kept aside, where its queued copy could have been passed.
        self.mech.wbyp || self.mech.wp
    }
    fn hold_aside(&mut self, die: u32, n: u32) {
        self.base.hold_aside(die, n);
        self.host_q[self.est.unit(die) as usize][1] += n;
    }
    fn drop_aside(&mut self, die: u32, n: u32) -> u32 {
        // Each write `next` takes leaves the unit's host count (`left`); the rest are put back.
        self.host_q[self.est.unit(die) as usize][1] -= n;
        self.base.drop_aside(die, n)
    }

    fn observes(&self) -> bool {
        true
    }
    fn request_queued(&mut self, req: ReqId, _now: Time) {
        let Some(t) = self.tracks.get_mut(req) else { return };
        t.all_queued = true;
        // Eq. 8 for the sub-requests still waiting or running.
        for &s in &t.live {
            let sub = &mut self.subs[s as usize];
            sub.slack = t.est_max - sub.est_done;
            self.n.slack_n += 1;
            let slack = as_f64(sub.slack);
            self.n.slack_sum += slack;
            self.n.slack_sq += slack * slack;
        }
        if t.live.is_empty() {
            self.retire(req);
        }
    }
    fn op_started(&mut self, die: u32, lead: &Txn, group: &[TxnId], txns: &[Txn], now: Time) {
        if group.is_empty() {
            // One transaction (no multi-plane command): the usual case, kept small.
            self.est.started(die, lead.kind, 1, u32::from(is_move(lead)), now);
            return;
        }
        self.command_started(die, lead, group, txns, now);
    }
    fn host_txn_done(&mut self, t: TxnId, txn: &Txn, now: Time) {
        let s = &self.subs[t as usize];
        let e = if txn.kind.is_read() { &mut self.n.read_err } else { &mut self.n.write_err };
        e.add(s.queued, s.est_done, now);
        let Some(tr) = self.tracks.get_mut(txn.req) else { return };
        tr.done = tr.done.max(now);
        if let Some(i) = tr.live.iter().position(|&x| x == t) {
            tr.live.swap_remove(i);
        }
        if tr.live.is_empty() && tr.all_queued {
            self.retire(txn.req);
        }
    }
    fn channel_stalled(&mut self, ch: u32) {
        self.est.channel_stalled(ch);
    }
    fn pauses_programs(&self) -> bool {
        self.mech.wp
    }
    fn may_pause(&mut self, die: u32, running: &[TxnId], reader: Option<TxnId>, txns: &[Txn]) -> bool {
        if !self.mech.wp || running.is_empty() {
            return false;
        }
        let need = self.est.lat.read + self.resume_ns;
        // The slack test first: it is cheap, and most programs starting have too little.
        if !running.iter().all(|&w| txns[w as usize].kind == TxnKind::HostWrite && self.slack(w) >= need) {
            return false;
        }
        if reader.is_none() {
            // At a pause point with no new arrival: only if a host read is waiting for the die.
            let qi = self.base.queue_of(die);
            if !self.base.reads[qi].iter().any(|&(t, d)| d == die && txns[t as usize].kind == TxnKind::HostRead) {
                return false;
            }
        }
        let p = &mut self.paused[die as usize];
        if p.0.as_slice() != running {
            p.0.clear();
            p.0.extend_from_slice(running);
            p.1 = false;
            self.n.pauses += 1;
        }
        true
    }
    fn pause_over(&mut self, die: u32) {
        let p = &mut self.paused[die as usize];
        p.0.clear();
        p.1 = false;
    }
    fn begin_measurement(&mut self) {
        self.n = Counts::default();
        self.base.begin_measurement();
    }
    fn report(&self) -> Option<serde_json::Value> {
        let n = &self.n;
        let share = |x: u64| if n.requests == 0 { 0.0 } else { x as f64 / n.requests as f64 };
        let slack_mean = if n.slack_n == 0 { 0.0 } else { n.slack_sum / n.slack_n as f64 };
        let slack_sd = if n.slack_n < 2 { 0.0 } else { ((n.slack_sq - n.slack_sum * slack_mean) / (n.slack_n - 1) as f64).max(0.0).sqrt() };
        let both = n.read_err.merged(&n.write_err);
        Some(json!({
            "scheduler": self.name(),
            "rbyp": self.mech.rbyp,
            "wbyp": self.mech.wbyp,
            "wp": self.mech.wp,
            "requests": n.requests,
            "requests_rbyp_share": share(n.used_rbyp),
            "requests_wbyp_share": share(n.used_wbyp),
            "requests_wp_share": share(n.used_wp),
            "read_bypasses": n.read_bypasses,
            "reads_passed": n.reads_passed,
            "write_bypasses": n.write_bypasses,
            "writes_passed": n.writes_passed,
            "pauses": n.pauses,
            "pause_reads": n.pause_reads,
            "write_drain_picks": self.base.drain_picks(),
            "requests_late": n.late,
            "late_ns_total": n.late_ns,
            "estimated_slack": {"sub_requests": n.slack_n, "mean_ns": slack_mean, "sd_ns": slack_sd},
            "estimate": {"read": n.read_err.json(), "write": n.write_err.json(), "all": both.json()},
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tsu::tiny_settings;

    fn slacker(name: &str, sets: &[&str]) -> (Slacker, u64, u64) {
        let s = tiny_settings(sets);
        let layout = Layout::new(&s.geometry);
        let base = FrFcfs::new(layout, 75, 1 << 20);
        let sl = Slacker::new(&s, layout, base, Mechanisms::named(name));
        let (r, w) = (sl.est.lat.read, sl.est.lat.write);
        (sl, r, w)
    }

    /// Host transactions as the slab would hold them: (kind, request, die, queued at).
    fn slab(spec: &[(TxnKind, ReqId, u32, Time)]) -> Vec<Txn> {
        spec.iter()
            .map(|&(k, req, die, at)| {
                let mut t = Txn::new(k, req, 0, 0, 0, die, 4096, at);
                t.enqueued = at;
                t
            })
            .collect()
    }

    fn order(s: &mut Slacker, die: u32, txns: &[Txn]) -> Vec<TxnId> {
        std::iter::from_fn(|| s.next(die, txns)).collect()
    }

    proptest::proptest! {
        /// With the die as its unit, Slacker on FR-FCFS's queues per die does what it does on
        /// one queue per chip (kept for the chip as unit): the same transactions taken in the
        /// same order, the same slack left to each, the same pauses and counts, through random
        /// sequences of host and GC transactions queued, requests completed in the queue,
        /// dies taking work, reads served during pauses and multi-plane commands, on chips of
        /// two and four dies.
        #[test]
        fn slacker_on_queues_per_die_does_what_it_does_on_one_queue_per_chip(
                dies_per_chip in proptest::sample::select(vec![2u32, 4]),
                name in proptest::sample::select(vec!["slacker", "rbyp", "wbyp", "rbyp+wp", "frfcfs+est"]),
                ops in proptest::collection::vec((0u8..9, 0u32..64, 0u8..4, 0u32..6), 1..250)) {
            let dpc = format!("device.geometry.dies_per_chip={dies_per_chip}");
            let st = tiny_settings(&[&dpc, "device.geometry.blocks_per_plane=32", "device.suspend.program=true", "device.suspend.resume=0ns"]);
            let layout = Layout::new(&st.geometry);
            let mech = Mechanisms::named(name);
            let mut per_die = Slacker::new(&st, layout, FrFcfs::new(layout, 75, 8), mech);
            let mut per_chip = Slacker::new(&st, layout, FrFcfs::new(layout, 75, 8).per_chip(), mech);
            proptest::prop_assert!(per_die.est.unit_is_die());
            let kinds = [TxnKind::HostRead, TxnKind::HostWrite, TxnKind::GcRead, TxnKind::GcWrite];
            // Transaction i is made by step i (those not queued are never asked about).
            let txns: Vec<Txn> = ops.iter().enumerate().map(|(i, &(_, d, k, req))| {
                let mut t = Txn::new(kinds[k as usize], req, 0, 0, 0, d % layout.dies(), 4096, i as Time * 1000);
                t.enqueued = i as Time * 1000;
                t
            }).collect();
            let mut queued = vec![false; txns.len()];
            for (i, &(op, d, k, req)) in ops.iter().enumerate() {
                let die = d % layout.dies();
                let step = |s: &mut Slacker| -> Vec<u64> {
                    match op {
                        0..=2 => { s.enqueue(i as TxnId, &txns[i]); vec![] }
                        3 => { s.request_queued(req, i as Time * 1000); vec![] }
                        4 => s.next(die, &txns).map(u64::from).into_iter().collect(),
                        5 => s.next_read(die, &txns).map(u64::from).into_iter().collect(),
                        6 => {
                            let (mut out, mut asked) = (Vec::new(), Vec::new());
                            let class = if k % 2 == 0 { NandOpKind::Read } else { NandOpKind::Program };
                            s.take_companions(die, class, 2, &mut |c| { asked.push(c); c % 3 != 0 }, &mut out);
                            out.iter().chain(&asked).map(|&c| u64::from(c)).collect()
                        }
                        7 => {
                            // A program of the die's oldest queued host write pauses for reads?
                            let w = (0..i).rev().find(|&j| queued[j] && txns[j].die == die && txns[j].kind == TxnKind::HostWrite);
                            match w {
                                Some(w) => vec![u64::from(s.may_pause(die, &[w as TxnId], None, &txns))],
                                None => vec![],
                            }
                        }
                        _ => { s.pause_over(die); vec![] }
                    }
                };
                let (a, b) = (step(&mut per_die), step(&mut per_chip));
                proptest::prop_assert_eq!(&a, &b, "op {} at step {}", op, i);
                if op <= 2 {
                    queued[i] = true;
                }
                for t in 0..=i as TxnId {
                    proptest::prop_assert_eq!(per_die.slack(t), per_chip.slack(t), "slack of {} at step {}", t, i);
                }
                for dd in 0..layout.dies() {
                    proptest::prop_assert_eq!(per_die.queued_for_die(dd), per_chip.queued_for_die(dd));
                }
                for c in 0..layout.chips() {
                    proptest::prop_assert_eq!(per_die.queued_on_chip(c), per_chip.queued_on_chip(c));
                }
                proptest::prop_assert_eq!(format!("{:?}", per_die.n), format!("{:?}", per_chip.n));
            }
        }
    }

    #[test]
    fn a_read_passes_entries_whose_slack_covers_it_and_they_lose_that_much() {
        // Die 0 (chip 0); request 1: sub-requests 3 (die 0) and 4 (die 2, behind 3 reads of
        // request 9 there): sub-request 3 gets the slack of 3 reads. Requests 2, 3 and 4 (one read
        // each on die 0) pass it in turn, each taking one read of its slack; request 5 cannot.
        let (mut s, rd, _) = slacker("rbyp", &["device.geometry.chips_per_channel=4"]);
        let r = TxnKind::HostRead;
        let txns = slab(&[(r, 9, 2, 0), (r, 9, 2, 0), (r, 9, 2, 0), (r, 1, 0, 0), (r, 1, 2, 0), (r, 2, 0, 0), (r, 3, 0, 0), (r, 4, 0, 0), (r, 5, 0, 0)]);
        for t in 0..3 {
            s.enqueue(t, &txns[t as usize]);
        }
        s.request_queued(9, 0);
        s.enqueue(3, &txns[3]);
        s.enqueue(4, &txns[4]);
        s.request_queued(1, 0);
        assert_eq!(s.slack(3), 3 * rd, "eq. 8: (3 ahead + own) - own");
        assert_eq!(s.slack(4), 0);
        for t in 5..9 {
            s.enqueue(t, &txns[t as usize]);
            s.request_queued(txns[t as usize].req, 0);
            if t == 6 {
                assert_eq!(s.slack(3), rd);
            }
        }
        assert_eq!(s.slack(3), 0, "slack never goes below zero");
        assert_eq!(order(&mut s, 0, &txns), vec![5, 6, 7, 3, 8], "5, 6, 7 passed 3; 8 found no slack");
        assert_eq!(s.n.read_bypasses, 3);
        assert_eq!(s.n.reads_passed, 3);
    }

    #[test]
    fn no_pass_without_enough_slack_and_none_without_the_mechanism() {
        let r = TxnKind::HostRead;
        let txns = slab(&[(r, 1, 0, 0), (r, 2, 0, 0), (r, 3, 0, 0)]);
        // Plenty of slack, but write bypassing leaves reads alone.
        let (mut s, rd, _) = slacker("wbyp", &[]);
        s.enqueue(0, &txns[0]);
        s.subs[0].slack = 5 * rd;
        s.enqueue(1, &txns[1]);
        assert_eq!(order(&mut s, 0, &txns), vec![0, 1]);
        assert_eq!(s.n.read_bypasses, 0);
        // Read bypassing: one read's worth of slack less 1 ns is not enough.
        let (mut s, rd, _) = slacker("rbyp", &[]);
        s.enqueue(0, &txns[0]);
        s.subs[0].slack = rd - 1;
        s.enqueue(1, &txns[1]);
        assert_eq!(order(&mut s, 0, &txns), vec![0, 1]);
        s.enqueue(0, &txns[0]);
        s.subs[0].slack = rd;
        s.enqueue(2, &txns[2]);
        assert_eq!(order(&mut s, 0, &txns), vec![2, 0], "exactly one read of slack is enough");
    }

    #[test]
    fn other_dies_entries_are_passed_freely_and_keep_their_slack() {
        // Interleaving, 2 dies per chip: the chip's read queue holds X (die 1, slack of 2 reads)
        // then A (die 0, no slack). A new read C for die 1 passes A freely (it does not delay
        // a die-0 read) and then X (taking a read of its slack).
        let (mut s, rd, _) = slacker("rbyp", &["device.geometry.dies_per_chip=2"]);
        let r = TxnKind::HostRead;
        let txns = slab(&[(r, 1, 1, 0), (r, 2, 0, 0), (r, 3, 1, 0)]);
        s.enqueue(0, &txns[0]);
        s.subs[0].slack = 2 * rd;
        s.enqueue(1, &txns[1]);
        s.enqueue(2, &txns[2]);
        // Each die's queue: C then X for die 1, A for die 0.
        assert_eq!(s.base.reads[1].iter().map(|e| e.0).collect::<Vec<_>>(), vec![2, 0]);
        assert_eq!(s.base.reads[0].iter().map(|e| e.0).collect::<Vec<_>>(), vec![1]);
        assert_eq!((s.slack(0), s.slack(1)), (rd, 0));
        assert_eq!(s.n.reads_passed, 1, "only the same die's entry counts as passed");
        // Without interleaving the chip is the unit: A passes X too (X's slack pays for both),
        // and C then stops at A.
        let (mut s, rd, _) = slacker("rbyp", &["device.geometry.dies_per_chip=2", "device.advanced.interleave=false"]);
        s.enqueue(0, &txns[0]);
        s.subs[0].slack = 2 * rd;
        s.enqueue(1, &txns[1]);
        s.enqueue(2, &txns[2]);
        // One queue for the chip: A, C, X.
        assert_eq!(s.base.reads[0].iter().map(|e| e.0).collect::<Vec<_>>(), vec![1, 2, 0]);
        assert_eq!(s.slack(0), 0);
    }

    #[test]
    fn write_pausing_serves_reads_while_the_programs_slack_lasts() {
        let (mut s, rd, _) = slacker("wp", &["device.suspend.resume=0ns"]);
        let (w, r) = (TxnKind::HostWrite, TxnKind::HostRead);
        let txns = slab(&[(w, 1, 0, 0), (r, 2, 0, 0), (r, 3, 0, 0), (r, 4, 0, 0)]);
        s.enqueue(0, &txns[0]);
        assert_eq!(s.next(0, &txns), Some(0));
        s.subs[0].slack = 2 * rd;
        for t in 1..4 {
            s.enqueue(t, &txns[t as usize]);
        }
        assert!(s.may_pause(0, &[0], Some(1), &txns));
        assert_eq!(s.next_read(0, &txns), Some(1));
        assert_eq!(s.next_read(0, &txns), Some(2));
        assert_eq!(s.next_read(0, &txns), None, "the slack is used up: resume");
        s.pause_over(0);
        assert_eq!(s.slack(0), 0);
        assert!(!s.may_pause(0, &[0], Some(3), &txns), "no slack left: no new pause");
        assert_eq!(s.n.pauses, 1);
        // With slack again, a pause point with a read waiting pauses; one with none does not.
        s.subs[0].slack = 2 * rd;
        assert!(s.may_pause(0, &[0], None, &txns), "read 3 waits");
        assert_eq!(s.n.pauses, 2, "a new pause after the last one ended");
        assert_eq!(s.next_read(0, &txns), Some(3));
        s.pause_over(0);
        assert!(!s.may_pause(0, &[0], None, &txns), "no read waits");
        let (mut g, _, _) = slacker("rbyp", &[]);
        g.enqueue(0, &txns[0]);
        g.subs[0].slack = 10 * rd;
        assert!(!g.may_pause(0, &[0], Some(1), &txns), "only with WP");
        assert!(!g.pauses_programs() && s.pauses_programs());
    }
}
