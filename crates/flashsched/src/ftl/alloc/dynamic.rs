//! `dynamic` and `channel-static`: the plane of a write is chosen when the write enters the
//! device, from the load of the dies at that moment, instead of from its logical address
//! ("DynAlloc" in the Slacker paper; Tavakkol et al., SIGMETRICS 2014; SSDSim's
//! `dynamic_allocation` 0 and 1, spec §8b). `dynamic` picks the least-loaded die of the whole
//! drive; `channel-static` keeps the channel static (lpn mod channels) and picks the least-loaded die
//! on it. Load is transactions queued for the die plus one if it is busy; ties go round-robin in
//! channel-first order. Within the die, the plane with the most free blocks takes the page (which
//! keeps planes' fill level even). Reads of pages never written, and preconditioning, use the
//! static CWDP location. No parameters.

use super::{AllocView, PageAllocator};
use crate::nand::Layout;

pub struct Dynamic {
    layout: Layout,
    channel_static: bool,
    /// Within the die: the plane with the most free blocks (false), or each die's planes in
    /// turn (true, SSDSim's plane token).
    plane_tokens: Option<Vec<u32>>,
    /// Dies in channel-first order (die 0 of channel 0, of channel 1, ...), for tie-breaking.
    order: Vec<u32>,
    next: usize,
}

impl Dynamic {
    pub fn new(layout: Layout, channel_static: bool) -> Self {
        Self::with_planes(layout, channel_static, false)
    }

    pub fn with_planes(layout: Layout, channel_static: bool, round_robin: bool) -> Self {
        let l = layout;
        let per_channel = l.chips_per_channel * l.dies_per_chip;
        let mut order = Vec::with_capacity(l.dies() as usize);
        for k in 0..per_channel {
            for ch in 0..l.channels {
                order.push(ch * per_channel + k);
            }
        }
        let plane_tokens = round_robin.then(|| vec![0; l.dies() as usize]);
        Dynamic { layout, channel_static, plane_tokens, order, next: 0 }
    }
}

impl PageAllocator for Dynamic {
    fn name(&self) -> &'static str {
        if self.channel_static { "channel-static" } else { "dynamic" }
    }

    fn plane_for_write(&mut self, lpn: u64) -> u32 {
        self.home_plane(lpn)
    }

    fn home_plane(&self, lpn: u64) -> u32 {
        self.layout.static_plane([0, 1, 2, 3], lpn)
    }

    fn relocates(&self) -> bool {
        true
    }

    fn relocation_channel(&self, lpn: u64) -> Option<u32> {
        self.channel_static.then(|| (lpn % self.layout.channels as u64) as u32)
    }

    fn plane_for_write_now(&mut self, lpn: u64, view: &AllocView) -> u32 {
        let l = &self.layout;
        let n = self.order.len();
        // The dies in `order` from `next` on, wrapping round; with a static channel only the
        // channel's (in `order` they are every `channels`-th, from the channel's number), so
        // only those are visited: walking all of them to skip the others' cost a fifth of a
        // run under `channel-static` (asked for every host write).
        let (mut pos, step, count) = if self.channel_static {
            let chs = l.channels as usize;
            let channel = (lpn % l.channels as u64) as usize;
            // The first position at or after `next` on the channel.
            let p = self.next + (channel + chs - self.next % chs) % chs;
            (if p >= n { p - n } else { p }, chs, n / chs)
        } else {
            (self.next, 1, n)
        };
        let mut best: Option<(u32, u32, usize)> = None;
        for _ in 0..count {
            let die = self.order[pos];
            debug_assert!(!self.channel_static || l.channel_of_die(die) == (lpn % l.channels as u64) as u32);
            let load = (view.die_load)(die);
            if best.is_none_or(|(b, _, _)| load < b) {
                best = Some((load, die, pos));
                if load == 0 {
                    break;
                }
            }
            pos += step;
            if pos >= n {
                pos -= n;
            }
        }
        let (_, die, at) = best.expect("the drive has dies");
        self.next = if at + 1 == n { 0 } else { at + 1 };
        let first = die * l.planes_per_die;
        if let Some(tokens) = self.plane_tokens.as_mut() {
            let t = &mut tokens[die as usize];
            let p = first + *t;
            *t = (*t + 1) % l.planes_per_die;
            return p;
        }
        (first..first + l.planes_per_die).max_by_key(|&p| ((view.plane_free)(p), std::cmp::Reverse(p))).expect("a die has planes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Options, Settings};

    fn layout() -> Layout {
        Layout::new(&Settings::from_options(&Options::from_preset("tiny").unwrap()).unwrap().geometry)
    }

    #[test]
    fn picks_the_least_loaded_die_round_robin() {
        let l = layout(); // 2 channels x 2 chips x 1 die: dies 0,1 on channel 0; 2,3 on channel 1
        let mut a = Dynamic::new(l, false);
        let loads = [3u32, 0, 2, 0];
        let view = AllocView { die_load: &|d| loads[d as usize], plane_free: &|_| 10 };
        let die = |p: u32| l.die_of_plane(p);
        assert_eq!(die(a.plane_for_write_now(0, &view)), 1);
        assert_eq!(die(a.plane_for_write_now(0, &view)), 3, "ties go round-robin");
        assert_eq!(die(a.plane_for_write_now(0, &view)), 1);
    }

    #[test]
    fn channel_static_stays_on_the_lpns_channel() {
        let l = layout();
        let mut a = Dynamic::new(l, true);
        let loads = [5u32, 4, 0, 0];
        let view = AllocView { die_load: &|d| loads[d as usize], plane_free: &|p| if p % 2 == 1 { 9 } else { 3 } };
        let p = a.plane_for_write_now(0, &view); // lpn 0: channel 0 -> die 1 (load 4 < 5)
        assert_eq!(l.die_of_plane(p), 1);
        assert_eq!(p % 2, 1, "the plane with more free blocks");
    }

    /// The die the rule picks, by its definition: the cyclic order from `next`, the channel's
    /// dies only under `channel-static`, the first of the least loaded; and the next `next`.
    fn by_definition(order: &[u32], next: usize, l: &Layout, channel: Option<u32>, load: &dyn Fn(u32) -> u32) -> (u32, usize) {
        let n = order.len();
        let cands: Vec<(usize, u32)> = (0..n).map(|k| ((next + k) % n, order[(next + k) % n])).filter(|&(_, d)| channel.is_none_or(|c| l.channel_of_die(d) == c)).collect();
        let min = cands.iter().map(|&(_, d)| load(d)).min().unwrap();
        let (at, die) = *cands.iter().find(|&&(_, d)| load(d) == min).unwrap();
        (die, (at + 1) % n)
    }

    proptest::proptest! {
        /// The walk that visits only the channel's dies, without a division a step, picks what
        /// the rule says, on drives of one to four channels, one to three chips a channel and
        /// one or two dies a chip, through random loads and logical pages.
        #[test]
        fn the_walk_picks_what_the_rule_says(channels in 1u32..5, chips in 1u32..4, dies in 1u32..3, channel_static in proptest::bool::ANY,
                steps in proptest::collection::vec((0u64..1000, proptest::collection::vec(0u32..3, 24)), 1..60)) {
            let mut g = Settings::from_options(&Options::from_preset("tiny").unwrap()).unwrap().geometry;
            (g.channels, g.chips_per_channel, g.dies_per_chip) = (channels, chips, dies);
            let l = Layout::new(&g);
            let mut a = Dynamic::new(l, channel_static);
            for (lpn, loads) in steps {
                let load = |d: u32| loads[d as usize % loads.len()];
                let view = AllocView { die_load: &load, plane_free: &|_| 1 };
                let channel = channel_static.then(|| (lpn % channels as u64) as u32);
                let want = by_definition(&a.order, a.next, &l, channel, &load);
                let p = a.plane_for_write_now(lpn, &view);
                proptest::prop_assert_eq!((l.die_of_plane(p), a.next), want);
            }
        }
    }
}
