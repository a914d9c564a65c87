//! Speed-aware placement of host writes inside their chip (VIOS §3.3, Fig. 4): a write the device
//! queue marked `Fastest` goes to the fastest block of its chip that can take it, one marked
//! `Slowest` to the slowest.
//!
//! VIOS keeps every block of a chip that has free pages in one speed-ordered tree (§3.1). With
//! `hil.vios.blocks = "separate"` (the default) fast writes have blocks of their own, apart from
//! the ordinary writes' (the FTL's hot stream, `Wear::fast_stream`): each plane offers a `Fastest`
//! write its open fast block or, when that has no page left, its fastest free block among all of
//! them (`OpenRule::Fastest`, which the FTL then opens), so the write goes to the fastest block
//! with free pages of the chip; ordinary writes keep their own open block [INFER: the tree's
//! blocks read as the chip's open and free blocks, one open fast block per plane]. With
//! `"shared"` (and whenever a write-grouping policy owns the streams) each plane writes one block
//! at a time for every write, and offers its open block or, when it has to open one, the fastest
//! (to a `Fastest` write) or slowest (to a `Slowest` one) of its next `OPEN_WINDOW` free blocks,
//! and opens that block. A `Slowest` write always takes the ordinary stream's offer. Ties keep the
//! plane the allocator chose, then the lowest plane. Each plane's offers, and each chip's fastest
//! and slowest planes, are cached until the FTL reports that a frontier changed
//! (`PlaneState::frontier_gen`). Without process variation, or with an explicit
//! `device.program_mode` (every block then programs alike), nothing moves.
//!
//! Every write moved to another plane stays there until overwritten, so on a full drive the
//! fastest planes would fill with valid pages GC cannot reclaim and stall the run. So a plane's
//! fill is its valid pages plus the host writes queued for it, and a plane whose fill has reached
//! the limit (`FillLimit::limit`: its share of the logical space plus `hil.vios.overfill` of its
//! spare pages, capped to leave GC its reserve) takes only writes of pages whose current copy it
//! holds, which add no valid page [INFER: the paper's drive is never full]. A write placed by
//! speed that its chosen plane does not take goes to the fastest (slowest) plane of its chip that
//! takes it and offers a page, else to the one that takes it with the lowest fill; a write left in
//! place (`hil.vios.unconflicted = "static"`, or its own plane has no page to offer now) whose
//! plane does not take it goes to the plane that takes it with the lowest fill; when no plane
//! takes it (a page with no copy in the chip: never written, trimmed, or moved away by wear
//! leveling), to the plane with the lowest fill. When
//! every page stays in its chip (static allocation without wear-leveling migrations) the plane
//! holding a page's copy always takes its write, so no plane passes the limit through placement
//! but for writes of pages with no copy, made while every plane of the chip was at it.
//! Relocated stalled writes and wear-leveling migrations (which cross planes and chips) do not
//! look at the limit.

use super::txn::{Placement, TxnId, TxnKind};
use super::Simulator;
use crate::ftl::Writer;
use crate::nand::NONE;

/// A plane that must open a block picks among the first this many of its free blocks in the
/// FTL's order (oldest erased first) [INFER: VIOS's tree orders all of them; a bounded window keeps
/// opening a block cheap on a fresh drive, where every block of a plane is free, and keeps the
/// slowest blocks from never being used].
const OPEN_WINDOW: usize = 64;

/// Per chip: the planes whose frontier blocks program fastest and slowest, and their steps
/// (`NONE` when no plane of the chip can take a host write), for the FTL generation `gen`.
#[derive(Debug, Clone, Copy)]
struct ChipExtremes {
    gen: u32,
    fastest: (u32, u16),
    slowest: (u32, u16),
}

impl ChipExtremes {
    const STALE: ChipExtremes = ChipExtremes { gen: u32::MAX, fastest: (NONE, 0), slowest: (NONE, 0) };
}

/// What speed-aware placement keeps between writes: caches, each allocated on first use and valid
/// while the FTL generation it records is current, and the planes' fill (`FillLimit`).
#[derive(Debug, Default)]
pub(super) struct SpeedCache {
    /// Per plane: the frontier generation seen and the steps the plane offers a fast and a slow
    /// write (0: none).
    frontier: Vec<(u32, u16, u16)>,
    /// Per plane: the free-set generation seen and the fastest and slowest steps among the free
    /// blocks it would open next (0: not computed).
    free_range: Vec<(u32, u16, u16)>,
    /// Per plane: the free-set generation and direction (fastest?) its next block was last
    /// picked for.
    promoted: Vec<(u32, bool)>,
    /// Per chip: its fastest and slowest frontiers.
    chip_extremes: Vec<ChipExtremes>,
    /// The planes' valid pages against the fill limit (runs that place writes only).
    fill: FillLimit,
}

/// How full each plane is, against the limit beyond which it takes no write moved to it
/// (`hil.vios.overfill`). Kept only in runs that place writes, so that no other run pays for it.
#[derive(Debug, Default)]
struct FillLimit {
    /// A plane whose valid and queued pages reach this takes no write but those of pages whose
    /// current copy it holds: its share of the logical pages plus `hil.vios.overfill` of the rest
    /// of its pages, and never more than leaves GC its floor of free blocks and the block the
    /// host leaves it (`Ftl::allocate`).
    limit: u32,
    /// Per plane: its valid pages, followed as pages are programmed (`page_programmed`) and
    /// trimmed (`page_trimmed`).
    valid: Vec<u32>,
    /// Per plane: host writes sent to it that have not taken their page yet. They count as pages
    /// the plane will hold: on an overloaded drive thousands wait for a plane, and counting only
    /// programmed pages let a plane pass the limit by that many. (Those that will replace a copy
    /// already in the plane add nothing; counting them too errs on the side of room, stays right
    /// when two writes of a page overlap, and spares a look-up of every write's old copy, a
    /// cache miss that cost the heaviest benchmark 4%.)
    queued: Vec<u32>,
}

impl SpeedCache {
    /// For a run whose device queue places writes (`Simulator::hil_places`), on the drive as
    /// preconditioning left it.
    pub(super) fn new(s: &crate::config::Settings, ftl: &crate::ftl::Ftl) -> Self {
        let layout = &ftl.layout;
        let ppb = layout.pages_per_block as u64;
        let pages = layout.blocks_per_plane as u64 * ppb;
        let share = (s.logical_pages() / layout.planes() as u64).min(pages);
        let overfill = s.resolved.float("hil.vios.overfill");
        let gc_room = pages.saturating_sub((ftl.gc_floor as u64 + 1) * ppb);
        let limit = (share + ((pages - share) as f64 * overfill).floor() as u64).min(gc_room);
        let fill = FillLimit {
            limit: limit.min(u32::MAX as u64) as u32,
            // A drive nothing was written to is all zeros, without a walk of its block table
            // (16 MB on the reference drive, whose pages would all be touched for it).
            valid: if ftl.mapped_pages() == 0 { vec![0; layout.planes() as usize] } else { (0..layout.planes()).map(|p| ftl.plane_valid_pages(p)).collect() },
            queued: vec![0; layout.planes() as usize],
        };
        SpeedCache { fill, ..Default::default() }
    }
}

impl Simulator {
    /// Move the host write `t` to the plane of its chip its placement asks for, and have that
    /// plane open its fastest (slowest) free block if it needs a new one.
    #[inline(never)]
    pub(super) fn place_by_speed(&mut self, t: TxnId) {
        // Only called when the device queue places writes, blocks differ and host writes program
        // at their block's own speed (`Simulator::hil_places`), for a write placed by speed or
        // one whose own plane is at the fill limit.
        let x = *self.txns.get(t);
        let chip = self.layout.chip_of_die(x.die);
        // The plane speed alone picks: `None` for a write left in place (unplaced, or its plane
        // has no page to offer now, so it waits there for GC).
        let by_speed = match x.place {
            Placement::Static => None,
            _ => self.offers(x.plane).map(|own| {
                let fast = x.place == Placement::Fastest;
                let own = if fast { own.0 } else { own.1 };
                let e = self.chip_extremes(chip);
                let (p, s) = if fast { e.fastest } else { e.slowest };
                // The first plane at the extreme step, unless the allocator's plane is at it already.
                if p != NONE && better(x.place, s, own) { p } else { x.plane }
            }),
        };
        let chosen = by_speed.unwrap_or(x.plane);
        let plane = if self.below_limit(chosen) {
            if by_speed.is_none() {
                return;
            }
            chosen
        } else {
            // Only now is the old copy's plane needed (a look-up that misses the cache).
            let old = self.old_plane(x.lpn);
            if self.takes(chosen, old) {
                chosen
            } else {
                self.counters.writes_at_fill_limit += 1;
                let below = if by_speed.is_some() { self.best_taking(chip, x.place, x.plane, old) } else { None };
                // No plane takes it only for a page with no copy in the chip (never written,
                // trimmed, or moved to another chip by wear leveling): the fullest plane must not
                // get it either.
                below.unwrap_or_else(|| self.roomiest(chip, old))
            }
        };
        if by_speed.is_none() && plane == x.plane {
            return;
        }
        #[cfg(debug_assertions)]
        {
            let old = self.old_plane(x.lpn);
            debug_assert!(self.takes(plane, old) || !self.planes_of_chip(chip).any(|p| self.takes(p, old)), "a write sent to plane {plane} at the fill limit while another plane of chip {chip} takes it");
        }
        let fast = x.place == Placement::Fastest;
        if plane != x.plane {
            let w = self.txns.get_mut(t);
            w.plane = plane;
            w.die = self.layout.die_of_plane(plane);
            self.counters.writes_placed_elsewhere += 1;
        }
        // An unplaced write opens blocks in the FTL's order, and a fast one with a stream of its
        // own the fastest free block (`OpenRule::Fastest`).
        let own_stream = fast && self.wear.fast_stream;
        if x.place != Placement::Static && !own_stream && self.ftl.needs_open(plane) {
            // Skip the scan when this plane's next block was already picked for this kind of
            // write and its free blocks have not changed since.
            let mark = (self.ftl.planes[plane as usize].free_gen, fast);
            if self.speed.promoted.is_empty() {
                self.speed.promoted = vec![(u32::MAX, false); self.layout.planes() as usize];
            }
            if self.speed.promoted[plane as usize] != mark {
                let step = |b: u32| self.flash.latency.detected_step(b).unwrap_or(0);
                let free = self.ftl.free_list(plane);
                let window = free.iter().copied().take(OPEN_WINDOW);
                let pick = if fast { window.max_by_key(|&b| (step(b), std::cmp::Reverse(b))) } else { window.min_by_key(|&b| (step(b), b)) };
                if let Some(b) = pick.filter(|&b| Some(&b) != free.front()) {
                    self.ftl.open_next(plane, b);
                }
                self.speed.promoted[plane as usize] = mark;
            }
        }
    }

    /// The host write `t`'s plane cannot take it under the fill limit (`place_by_speed` must
    /// see it even when the device queue left it in place).
    #[inline]
    pub(super) fn at_fill_limit(&self, t: TxnId) -> bool {
        let x = self.txns.get(t);
        !self.below_limit(x.plane) && !self.takes(x.plane, self.old_plane(x.lpn))
    }

    /// The plane holding `lpn`'s current copy (`NONE`: unmapped).
    #[inline]
    fn old_plane(&self, lpn: crate::nand::Lpn) -> u32 {
        self.ftl.lookup(lpn).map_or(NONE, |p| self.layout.plane_of(p))
    }

    /// Valid pages of `plane` with the host writes queued for it.
    #[inline]
    fn fill(&self, plane: u32) -> u32 {
        self.speed.fill.valid[plane as usize] + self.speed.fill.queued[plane as usize]
    }

    /// `plane`'s fill is below the limit: it takes any write.
    #[inline]
    fn below_limit(&self, plane: u32) -> bool {
        self.fill(plane) < self.speed.fill.limit
    }

    /// `plane` may take a write whose page's current copy is in `old`: the write adds no valid
    /// page to the plane that holds that copy, and any other plane must be below the limit.
    #[inline]
    fn takes(&self, plane: u32, old: u32) -> bool {
        plane == old || self.below_limit(plane)
    }

    /// The device queue released the host write `t` to its plane's chip (after placement).
    #[inline]
    pub(super) fn host_write_queued(&mut self, t: TxnId) {
        self.speed.fill.queued[self.txns.get(t).plane as usize] += 1;
    }

    /// A write took page `ppn`, replacing the copy at `old` (`Simulator::place_write`): the
    /// planes' valid pages follow, and a host write leaves its plane's queue.
    #[inline]
    pub(super) fn page_programmed(&mut self, kind: TxnKind, old: Option<crate::nand::Ppn>, ppn: crate::nand::Ppn) {
        let plane = self.layout.plane_of(ppn);
        if kind == TxnKind::HostWrite {
            self.speed.fill.queued[plane as usize] -= 1;
        }
        if let Some(o) = old {
            self.speed.fill.valid[self.layout.plane_of(o) as usize] -= 1;
        }
        self.speed.fill.valid[plane as usize] += 1;
    }

    /// A page was trimmed, its copy at `old` (`None`: it was not mapped) now invalid.
    pub(super) fn page_trimmed(&mut self, old: Option<crate::nand::Ppn>) {
        if let Some(o) = old {
            self.speed.fill.valid[self.layout.plane_of(o) as usize] -= 1;
        }
    }

    /// A stalled host write moves from plane `from` to `to` (`relocate_write`).
    pub(super) fn placed_write_moves(&mut self, from: u32, to: u32) {
        self.speed.fill.queued[from as usize] -= 1;
        self.speed.fill.queued[to as usize] += 1;
    }

    /// The placement's counts match the FTL's blocks and no host write is left queued (debug
    /// builds, end of run).
    #[cfg(debug_assertions)]
    pub(super) fn check_placement_counts(&self) {
        if self.hil_places {
            for p in 0..self.layout.planes() {
                assert_eq!(self.speed.fill.valid[p as usize], self.ftl.plane_valid_pages(p), "plane {p}'s valid pages, as placement counts them");
            }
            assert!(self.speed.fill.queued.iter().all(|&q| q == 0), "host writes counted as queued at the end");
        }
    }

    /// The planes of `chip`.
    fn planes_of_chip(&self, chip: u32) -> std::ops::Range<u32> {
        let per_chip = self.layout.dies_per_chip * self.layout.planes_per_die;
        chip * per_chip..(chip + 1) * per_chip
    }

    /// The plane of `chip` that takes the write (`takes`) that `place` picks, as
    /// `place_by_speed` does among all planes: `own` if it takes it unless a plane beats it, else
    /// the first extreme. `None`: no plane that takes it has a page to offer.
    fn best_taking(&mut self, chip: u32, place: Placement, own: u32, old: u32) -> Option<u32> {
        let fast = place == Placement::Fastest;
        let step = |o: (u16, u16)| if fast { o.0 } else { o.1 };
        let mut best = if self.takes(own, old) { self.offers(own).map(|o| (own, step(o))) } else { None };
        for p in self.planes_of_chip(chip) {
            if !self.takes(p, old) {
                continue;
            }
            if let Some(s) = self.offers(p).map(step) {
                if best.map_or(true, |(_, b)| better(place, s, b)) {
                    best = Some((p, s));
                }
            }
        }
        best.map(|(p, _)| p)
    }

    /// The plane of `chip` with the fewest valid and queued pages among those that take the write
    /// (the first of equals), or among all when none does: where a write goes whose plane cannot
    /// take it when no plane that can offers a page by speed (or the device queue left the write
    /// in place). A plane with no free page now still takes it: the write waits there for GC,
    /// which the limit leaves pages to reclaim.
    fn roomiest(&self, chip: u32, old: u32) -> u32 {
        self.planes_of_chip(chip).min_by_key(|&p| (!self.takes(p, old), self.fill(p), p)).expect("a chip has planes")
    }

    /// The first plane of `chip` with the fastest offer, and the first with the slowest, cached
    /// until a frontier of the chip moves. (The cached answer inline, the work out of line
    /// (`chip_extremes_now`): asked for every host write placed by speed, and the registers the
    /// work needs made the cached answer's frame cost more than its test.)
    #[inline]
    fn chip_extremes(&mut self, chip: u32) -> ChipExtremes {
        if let Some(&e) = self.speed.chip_extremes.get(chip as usize) {
            if e.gen == self.ftl.chip_frontier_gen(chip) && !cfg!(debug_assertions) {
                return e;
            }
        }
        self.chip_extremes_now(chip)
    }

    /// `chip_extremes`, with the cache made on first use and refreshed when stale.
    #[inline(never)]
    fn chip_extremes_now(&mut self, chip: u32) -> ChipExtremes {
        if self.speed.chip_extremes.is_empty() {
            self.speed.chip_extremes = vec![ChipExtremes::STALE; self.layout.chips() as usize];
        }
        let gen = self.ftl.chip_frontier_gen(chip);
        if self.speed.chip_extremes[chip as usize].gen == gen {
            let e = self.speed.chip_extremes[chip as usize];
            #[cfg(debug_assertions)]
            {
                self.speed.chip_extremes[chip as usize].gen = u32::MAX;
                let fresh = self.chip_extremes(chip);
                debug_assert!(fresh.fastest == e.fastest && fresh.slowest == e.slowest, "stale extremes for chip {chip}");
            }
            return e;
        }
        let mut e = ChipExtremes { gen, fastest: (NONE, 0), slowest: (NONE, 0) };
        for p in self.planes_of_chip(chip) {
            // A step of 0: the plane has no page for that kind of write (with fast blocks of
            // their own, one stream may have room where the other has none).
            if let Some((f, s)) = self.offers(p) {
                if f != 0 && (e.fastest.0 == NONE || f > e.fastest.1) {
                    e.fastest = (p, f);
                }
                if s != 0 && (e.slowest.0 == NONE || s < e.slowest.1) {
                    e.slowest = (p, s);
                }
            }
        }
        self.speed.chip_extremes[chip as usize] = e;
        e
    }

    /// The detected steps `plane` offers a `Fastest` and a `Slowest` host write: its open block's
    /// for both, or, when it must open a block, its fastest and slowest free blocks'. `None`: no
    /// page for a host write, or no variation. Cached per plane until its frontier moves. (The
    /// cached answer inline, the work out of line, `offers_now`, as for `chip_extremes`.)
    #[inline]
    fn offers(&mut self, plane: u32) -> Option<(u16, u16)> {
        if let Some(&(seen, f, s)) = self.speed.frontier.get(plane as usize) {
            if seen == self.ftl.planes[plane as usize].frontier_gen && !cfg!(debug_assertions) {
                return (f != 0 || s != 0).then_some((f, s));
            }
        }
        self.offers_now(plane)
    }

    /// `offers`, with the cache made on first use and refreshed when stale.
    #[inline(never)]
    fn offers_now(&mut self, plane: u32) -> Option<(u16, u16)> {
        if self.speed.frontier.is_empty() {
            self.speed.frontier = vec![(u32::MAX, 0, 0); self.layout.planes() as usize];
        }
        let gen = self.ftl.planes[plane as usize].frontier_gen;
        let (seen, f, s) = self.speed.frontier[plane as usize];
        if seen == gen {
            #[cfg(debug_assertions)]
            debug_assert_eq!(self.compute_offers(plane).unwrap_or((0, 0)), (f, s), "stale offers for plane {plane}");
            return (f != 0 || s != 0).then_some((f, s));
        }
        let o = self.compute_offers(plane);
        let (f, s) = o.unwrap_or((0, 0));
        self.speed.frontier[plane as usize] = (self.ftl.planes[plane as usize].frontier_gen, f, s);
        o
    }

    fn compute_offers(&mut self, plane: u32) -> Option<(u16, u16)> {
        if !self.wear.fast_stream {
            return self.ordinary_offers(plane);
        }
        // Fast writes have blocks of their own: the fast stream's open block, or the fastest
        // free block of the plane, which it opens next (`OpenRule::Fastest`). 0: none.
        let lat = &self.flash.latency;
        let fast = self.ftl.peek_in(plane, Writer::Host, crate::ftl::STREAM_HOT).and_then(|p| lat.detected_step(self.layout.block_of(p))).unwrap_or(0);
        let slow = self.ordinary_offers(plane).map_or(0, |o| o.1);
        (fast != 0 || slow != 0).then_some((fast, slow))
    }

    /// `compute_offers` for the ordinary (default) stream: its open block's step for both kinds,
    /// or, when it must open a block, the fastest and slowest of its next `OPEN_WINDOW` free blocks.
    fn ordinary_offers(&mut self, plane: u32) -> Option<(u16, u16)> {
        let ppn = self.ftl.peek_allocation(plane, Writer::Host)?;
        let lat = &self.flash.latency;
        if !self.ftl.needs_open(plane) {
            let s = lat.detected_step(self.layout.block_of(ppn))?;
            return Some((s, s));
        }
        // The free blocks' fastest and slowest steps change only with the set of free blocks.
        if self.speed.free_range.is_empty() {
            self.speed.free_range = vec![(u32::MAX, 0, 0); self.layout.planes() as usize];
        }
        let gen = self.ftl.planes[plane as usize].free_gen;
        let (seen, f, w) = self.speed.free_range[plane as usize];
        if seen == gen && f != 0 {
            return Some((f, w));
        }
        let mut range: Option<(u16, u16)> = None;
        for &b in self.ftl.free_list(plane).iter().take(OPEN_WINDOW) {
            let s = lat.detected_step(b)?;
            range = Some(range.map_or((s, s), |(f, w)| (f.max(s), w.min(s))));
        }
        let (f, w) = range.unwrap_or((0, 0));
        self.speed.free_range[plane as usize] = (gen, f, w);
        range
    }
}

/// A candidate at step `s` beats the best so far at `cur` for `place`: strictly larger
/// (`Fastest`) or smaller (`Slowest`), so that ties keep the earlier choice.
#[inline]
fn better(place: Placement, s: u16, cur: u16) -> bool {
    match place {
        Placement::Fastest => s > cur,
        Placement::Slowest => s < cur,
        Placement::Static | Placement::Pinned | Placement::WearLevel | Placement::Mapping => false,
    }
}

/// The plane `place` picks: `own` (the allocator's plane and its step) unless a candidate beats
/// it; the first such extreme wins (what `place_by_speed` does, over a list).
#[cfg(test)]
fn choose(place: Placement, own: (u32, u16), candidates: impl Iterator<Item = (u32, Option<u16>)>) -> u32 {
    let mut best = own;
    for (p, s) in candidates {
        if let Some(s) = s.filter(|&s| better(place, s, best.1)) {
            best = (p, s);
        }
    }
    best.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `tiny` with four-die chips (eight planes a chip), filled, worn to 12,000 P/E and
    /// overwritten under VIOS with process variation: the fastest planes of each chip draw the
    /// conflicting writes.
    /// `unbounded`: no fill limit at all (what placement did before it had one).
    fn full_worn_drive(sets: &[&str], unbounded: bool) -> Result<super::super::RunOutcome, super::super::SimError> {
        let base = [
            "device.geometry.dies_per_chip=4",
            "device.variation.enabled=true",
            "hil.scheduler=vios",
            "ftl.precondition.pe_cycles=12000",
            "ftl.precondition.fill=1.0",
            "ftl.precondition.overwrites=0.5",
            "ftl.gc.threshold=0.02",
            "workload.kind=synthetic",
            "workload.synthetic.requests=6000",
            "workload.synthetic.interarrival=2ms",
        ];
        let all: Vec<String> = base.iter().chain(sets).map(|s| s.to_string()).collect();
        let s = crate::config::load(Some("tiny"), None, &all).expect("config");
        let mut sim = Simulator::new(&s, crate::workload::build(&s).expect("workload")).expect("simulator");
        if unbounded {
            sim.speed.fill.limit = u32::MAX;
        }
        sim.run(&mut |_| true)
    }

    #[test]
    fn the_fill_limit_keeps_a_full_worn_drive_under_vios_from_stalling() {
        // Without a bound the fastest planes fill with valid pages and GC can reclaim nothing:
        // the set-up shows the difference.
        match full_worn_drive(&[], true) {
            Err(super::super::SimError::Stalled { why, .. }) => assert!(why.contains("no block GC can reclaim"), "{why}"),
            other => panic!("expected a stall without the fill limit, got {:?}", other.map(|o| o.counters)),
        }
        // tiny: 32 planes of 1,024 pages, 28,672 logical pages: a share of 896 a plane; a GC
        // floor of 2 blocks of 16 pages, and the host's reserve block: at most 976 pages.
        let (share, pages, gc_room) = (896u32, 1024u32, 976u32);
        for (overfill, unconflicted) in [(1.0, "slowest"), (0.5, "slowest"), (0.5, "static"), (0.0, "slowest")] {
            let o = full_worn_drive(&[&format!("hil.vios.overfill={overfill}"), &format!("hil.vios.unconflicted=\"{unconflicted}\"")], false)
                .unwrap_or_else(|e| panic!("overfill {overfill}, {unconflicted}: {e}"));
            let what = format!("overfill {overfill}, {unconflicted}: {:?}", o.plane_valid_end);
            assert_eq!(o.completed, 6000, "{what}");
            assert_eq!(o.invariants_ok, Ok(()), "{what}");
            assert!(o.counters.writes_at_fill_limit > 1000, "{what}: {} at the limit", o.counters.writes_at_fill_limit);
            // Every page stays in its chip (static allocation), where the plane of its current
            // copy always takes it: no plane ever needs to pass the limit.
            let limit = (share + ((pages - share) as f64 * overfill) as u32).min(gc_room);
            assert!(o.plane_valid_end.1 <= limit, "{what}: limit {limit}");
            if overfill > 0.0 {
                assert!(o.counters.writes_placed_elsewhere > 1000, "{what}: {} moved", o.counters.writes_placed_elsewhere);
            } else {
                // A full drive has no room beyond the shares: nothing moves.
                assert_eq!(o.counters.writes_placed_elsewhere, 0, "{what}");
                assert_eq!(o.plane_valid_end, (share, share), "{what}");
            }
        }
    }

    /// The fill counts follow every path that programs or moves a page while placement is on:
    /// `check_placement_counts` (debug builds, end of run) compares them with the FTL's blocks and
    /// finds no host write still counted as queued.
    #[test]
    fn fill_counts_stay_exact_with_every_policy_slot() {
        use super::super::RunOutcome;
        // Each case, and what shows that its path was taken.
        type Taken = fn(&RunOutcome) -> u64;
        let cases: &[(&[&str], Taken)] = &[
            // Slacker's reordering and write pausing, program suspension, WR's program speeds
            // and RR's idle-time re-programs (GC reads and writes of their own).
            (
                &["tsu.scheduler=\"slacker\"", "device.suspend.program=true", "ftl.program_speed=\"wr\"", "ftl.idle_task=\"rr\"", "device.ldpc.enabled=true"],
                |o| o.counters.reprograms,
            ),
            // Multi-plane programs: companion pages allocated in `gather`.
            (&["device.advanced.multi_plane=\"same_page\""], |o| o.counters.commands.multi_plane[1]),
            // Read-modify-write of part-page writes.
            (&["ftl.partial_writes=\"read_modify_write\"", "workload.synthetic.align=1024", "workload.synthetic.size_min=1024"], |o| o.counters.rmw_reads),
            // Dynamic allocation: pages cross planes (`program_across_planes`).
            (&["ftl.allocation.scheme=\"dynamic\""], |o| o.counters.writes_placed_elsewhere),
            // Read balance-oriented wear leveling: migrations to other chips.
            (&["ftl.write_grouping=\"pattern\"", "ftl.wear_leveling=\"rbwl\"", "ftl.rbwl.threshold=1"], |o| o.counters.wl_pages_split),
            // FR-FCFS at the chips, and VIOS issuing sub-request by sub-request.
            (&["tsu.scheduler=\"frfcfs\"", "hil.vios.dispatch=\"sub_requests\""], |o| o.counters.writes_placed_elsewhere),
        ];
        for (sets, taken) in cases {
            let mut all = vec!["hil.vios.overfill=0.5", "ftl.precondition.fill=0.9", "workload.synthetic.requests=3000"];
            all.extend_from_slice(sets);
            let o = full_worn_drive(&all, false).unwrap_or_else(|e| panic!("{sets:?}: {e}"));
            assert_eq!(o.completed, 3000, "{sets:?}");
            assert_eq!(o.invariants_ok, Ok(()), "{sets:?}");
            assert!(o.counters.writes_placed_elsewhere > 100, "{sets:?}: {} moved", o.counters.writes_placed_elsewhere);
            assert!(taken(&o) > 0, "{sets:?}: the path under test was not taken");
        }
    }

    #[test]
    fn extremes_win_and_ties_keep_the_allocators_plane() {
        let c = || [(0, Some(300)), (1, Some(500)), (2, None), (3, Some(500)), (4, Some(200))].into_iter();
        assert_eq!(choose(Placement::Fastest, (0, 300), c()), 1);
        assert_eq!(choose(Placement::Slowest, (0, 300), c()), 4);
        assert_eq!(choose(Placement::Fastest, (3, 500), c()), 3, "a tie keeps the allocator's plane");
        assert_eq!(choose(Placement::Static, (0, 300), c()), 0);
    }

    #[test]
    fn figure_4_three_conflicting_writes_average_340_us_against_370_in_order() {
        // VIOS Fig. 4: one chip, three blocks with one free page each, programming in 150 (F),
        // 180 (M) and 210 us (S); three write sub-requests arrive together and are served one
        // after another. VIOS marks the first two Fastest (NR > 1 when issued) and the last
        // Slowest (see hil::vios tests); "in order" takes the blocks as they come: M, S, F.
        let us = |step_mv: u16| 63_000 / step_mv as u64; // program time, us, at step_mv: 210 us at 0.30 V
        let mut free: Vec<(u32, u16)> = vec![(0, 350), (1, 300), (2, 420)]; // M, S, F
        assert_eq!(free.iter().map(|&(_, s)| us(s)).collect::<Vec<_>>(), vec![180, 210, 150]);
        let mut t = 0;
        let mut total = 0;
        for place in [Placement::Fastest, Placement::Fastest, Placement::Slowest] {
            let own = free[0];
            let p = choose(place, own, free.iter().map(|&(p, s)| (p, Some(s))));
            let i = free.iter().position(|&(q, _)| q == p).unwrap();
            t += us(free.remove(i).1);
            total += t;
        }
        assert_eq!(total / 3, 340);
        let in_order: u64 = [180, 180 + 210, 180 + 210 + 150].iter().sum();
        assert_eq!(in_order / 3, 370);
    }
}
