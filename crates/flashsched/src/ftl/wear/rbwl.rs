//! `rbwl`: read balance-oriented wear leveling (Li, Xu, Peng and Liao, 2019; paper 004 §III-C,
//! Algorithm 1).
//!
//! The trigger is SWL's with one BET bit per block: `ecnt` counts erases and `fcnt` blocks erased
//! since the table's reset; while `ecnt / fcnt > T` (`ftl.rbwl.threshold`, 10) the scan pointer
//! `findex` moves to the next block not erased in the interval (lines 3-11; when every block has
//! been erased the table resets, lines 4-8). That target is classified from the Page Read Table,
//! one bit per page set when the page is read and cleared when its block is erased (line 13):
//! frequently read (1) when at least `ftl.rbwl.frequent_share` of its valid pages have been read,
//! less read (0) when at most `ftl.rbwl.less_share` have, other (2) between [INFER: the paper
//! does not give the test].
//!
//! A frequently or less read target is split (lines 14-34): it is paired with a block set on its
//! channel that a target of the other kind made (`type + blockset.type == 1`). With none, a new one is
//! made and waits for its partner: two free blocks on two different chips of the channel other
//! than the target's (in a channel of two chips, its two chips [INFER]), the most erased free
//! blocks ("a block having a relative large erasure count") of the next chips of the channel in
//! round-robin order. The target's valid pages go half and half to the set's two blocks (read
//! pages first, then unread ones, alternating), so that once both targets are in, each block holds
//! half of the frequently read data and half of the less read data, and hot read data sits on two
//! chips. The target is then erased. Other targets are collected as GC would (line 36), their moves
//! in wear leveling's own stream of most erased blocks (`ftl::STREAM_WEAR`). Moves stay in the channel (the
//! paper's footnote 2), but cross chips: they go over the channel, never by copyback.
//!
//! Block sets wait as Algorithm 1's list lets them: once the first target's moves are done, the
//! set's two blocks are parked (`Ftl::park_migration_block`: partly written, no GC victims, out of
//! the migration stream) until a target of the other kind on the channel takes the set, so that
//! several sets can wait on one plane. The list is unbounded in the paper; here a plane holds at
//! most `ftl.rbwl.set_blocks` blocks for waiting sets, so that they cannot starve GC [INFER].
//!
//! Adaptations [INFER], as in `swl`: a target that holds no data (free, or a write frontier) gets
//! its bit without an erase; one whose plane is collecting waits for the next erase. A block set
//! is made only from planes that keep a free block after giving one (taking it may start GC
//! there, as any allocation may), are not writing another set's block, and hold fewer than
//! `set_blocks` blocks for sets; a set is taken only when its blocks can become their planes'
//! migration blocks again. When no set can be made, the target is collected as GC would.

use serde_json::{json, Value};

use super::bet::Bet;
use super::{collectable, WearLeveler, WlAction};
use crate::ftl::{BlockState, Ftl, OpenRule};
use crate::nand::{Layout, Ppn};

/// A pair of pinned blocks (`blocks`, one in each plane of `planes`) waiting for a target of the
/// other kind.
#[derive(Debug, Clone, Copy, PartialEq)]
struct BlockSet {
    kind: u8,
    channel: u32,
    planes: [u32; 2],
    blocks: [u32; 2],
}

pub struct Rbwl {
    layout: Layout,
    bet: Bet,
    prt: Vec<u64>,
    threshold: u64,
    frequent_share: f64,
    less_share: f64,
    f_index: u32,
    sets: Vec<BlockSet>,
    /// Per channel, the chip (index within the channel) a new block set starts looking at.
    next_chip: Vec<u32>,
    /// Free blocks a plane must keep after giving one to a block set (GC's last block).
    keep: u32,
    /// Most blocks of a plane held by block sets (`ftl.rbwl.set_blocks`).
    set_blocks: u32,
    /// Targets by kind: less read, frequently read, other.
    targets: [u64; 3],
    /// Targets split, by kind: less read, frequently read.
    split: [u64; 2],
    sets_made: u64,
    sets_paired: u64,
    no_room: u64,
}

const OTHER: u8 = 2;

impl Rbwl {
    /// `set_blocks`: most blocks of a plane that block sets may hold (`ftl.rbwl.set_blocks`).
    pub fn new(layout: Layout, threshold: u32, frequent_share: f64, less_share: f64, set_blocks: u32) -> Self {
        let blocks = layout.blocks();
        Rbwl {
            layout,
            bet: Bet::new(blocks),
            prt: vec![0; layout.pages().div_ceil(64) as usize],
            threshold: threshold.max(1) as u64,
            frequent_share,
            less_share,
            f_index: 0,
            sets: Vec::new(),
            next_chip: vec![0; layout.channels as usize],
            keep: 1,
            set_blocks: set_blocks.max(1),
            targets: [0; 3],
            split: [0; 2],
            sets_made: 0,
            sets_paired: 0,
            no_room: 0,
        }
    }


    /// `block(findex, rfcnt)`: 0 less read, 1 frequently read, 2 other.
    fn kind(&self, ftl: &Ftl, block: u32) -> u8 {
        let valid = ftl.valid_pages(block);
        if valid.is_empty() {
            return OTHER;
        }
        let read = valid.iter().filter(|&&(p, _)| self.page_read(p)).count() as f64;
        let share = read / valid.len() as f64;
        if share >= self.frequent_share {
            1
        } else if share <= self.less_share {
            0
        } else {
            OTHER
        }
    }

    /// Whether a block set may use `c` for a target on `chip`: any other chip, and the target's
    /// own only in a channel of two chips (where two chips other than it do not exist) [INFER].
    fn usable_chip(&self, c: u32, chip: u32) -> bool {
        c != chip || self.layout.chips_per_channel < 3
    }

    /// A new block set for a target on `chip`: the most erased free blocks of two other chips of
    /// its channel, next in round-robin order.
    fn new_set(&mut self, ftl: &mut Ftl, chip: u32, kind: u8) -> Option<BlockSet> {
        let l = self.layout;
        let channel = l.channel_of_chip(chip);
        let cpc = l.chips_per_channel;
        let per_chip = l.dies_per_chip * l.planes_per_die;
        // For each candidate chip, its plane with the most free blocks that can give one.
        let mut picked: Vec<u32> = Vec::with_capacity(2);
        for k in 0..cpc {
            let c = channel * cpc + (self.next_chip[channel as usize] + k) % cpc;
            if !self.usable_chip(c, chip) {
                continue;
            }
            let plane = (c * per_chip..(c + 1) * per_chip)
                .filter(|&p| {
                    ftl.migration_block(p).is_none()
                        && ftl.parked_blocks(p) < self.set_blocks
                        && ftl.free_blocks(p) > self.keep
                        && ftl.may_pin(p)
                })
                .max_by_key(|&p| (ftl.free_blocks(p), std::cmp::Reverse(p)));
            if let Some(p) = plane {
                picked.push(p);
                if picked.len() == 2 {
                    self.next_chip[channel as usize] = (c - channel * cpc + 1) % cpc;
                    break;
                }
            }
        }
        if picked.len() < 2 {
            return None;
        }
        let mut blocks = [0; 2];
        for (b, &p) in blocks.iter_mut().zip(&picked) {
            *b = ftl.pin_migration_block(p, OpenRule::MostWorn, self.keep).expect("the plane was checked");
        }
        self.sets_made += 1;
        Some(BlockSet { kind, channel, planes: [picked[0], picked[1]], blocks })
    }
}

impl WearLeveler for Rbwl {
    fn name(&self) -> &'static str {
        "rbwl"
    }

    fn on_erase(&mut self, block: u32) {
        self.bet.erased(block, block);
        // The block's pages are unread again.
        let ppb = self.layout.pages_per_block as u64;
        let first = block as u64 * ppb;
        for p in first..first + ppb {
            self.prt[(p / 64) as usize] &= !(1 << (p % 64));
        }
    }

    fn wants_reads(&self) -> bool {
        true
    }

    fn on_read(&mut self, ppn: Ppn) {
        self.prt[(ppn / 64) as usize] |= 1 << (ppn % 64);
    }

    fn page_read(&self, ppn: Ppn) -> bool {
        self.prt[(ppn / 64) as usize] & (1 << (ppn % 64)) != 0
    }

    fn next(&mut self, ftl: &mut Ftl) -> Option<WlAction> {
        // `ecnt / fcnt > T` (strictly, as Algorithm 1 line 3).
        while self.bet.uneven(self.threshold, true) {
            if self.bet.full() {
                self.bet.reset();
                self.f_index = 0;
                return None;
            }
            self.f_index = self.bet.next_clear(self.f_index);
            let b = self.f_index;
            if !collectable(ftl, b) {
                if matches!(ftl.block_state(b), BlockState::Full | BlockState::Victim) {
                    return None;
                }
                self.bet.set(b);
                continue;
            }
            let kind = self.kind(ftl, b);
            self.targets[kind as usize] += 1;
            self.bet.collecting(b);
            if kind == OTHER {
                return Some(WlAction::Collect(b));
            }
            let chip = self.layout.chip_of_die(self.layout.die_of_plane(self.layout.plane_of_block(b)));
            let channel = self.layout.channel_of_chip(chip);
            // Any waiting set of the other kind on the channel (Algorithm 1 matches by kind only).
            // A set away from the target's chip first, so that its data leaves the chip.
            let per_chip = self.layout.dies_per_chip * self.layout.planes_per_die;
            // A set whose blocks can be their planes' migration blocks again: each plane's stream
            // holds it still (its first moves under way) or nothing.
            let takeable = |s: &BlockSet| s.planes.iter().zip(&s.blocks).all(|(&p, &b)| ftl.migration_block(p).is_none_or(|m| m == b));
            let matches = |s: &&BlockSet| s.channel == channel && s.kind + kind == 1 && takeable(s);
            let away = |s: &&BlockSet| s.planes.iter().all(|&p| p / per_chip != chip);
            let partner = self
                .sets
                .iter()
                .position(|s| matches(&s) && away(&s))
                .or_else(|| self.sets.iter().position(|s| matches(&s)));
            if let Some(i) = partner {
                let s = self.sets.remove(i);
                for (&p, &b) in s.planes.iter().zip(&s.blocks) {
                    let back = ftl.unpark_migration_block(p, b);
                    debug_assert!(back, "block {b} of a takeable set did not return to plane {p}'s migration stream");
                }
                self.sets_paired += 1;
                self.split[kind as usize] += 1;
                return Some(WlAction::Split { block: b, to: s.planes, close: true });
            }
            match self.new_set(ftl, chip, kind) {
                Some(s) => {
                    self.sets.push(s);
                    self.split[kind as usize] += 1;
                    return Some(WlAction::Split { block: b, to: s.planes, close: false });
                }
                None => {
                    self.no_room += 1;
                    return Some(WlAction::Collect(b));
                }
            }
        }
        None
    }

    fn memory_bytes(&self) -> usize {
        self.bet.bytes() + self.prt.len() * 8
    }

    fn report(&self) -> Value {
        json!({
            "bet_bytes": self.layout.blocks().div_ceil(8),
            "prt_bytes": self.layout.pages().div_ceil(8),
            "targets_less_read": self.targets[0],
            "targets_frequently_read": self.targets[1],
            "targets_other": self.targets[2],
            "split_less_read": self.split[0],
            "split_frequently_read": self.split[1],
            "block_sets_made": self.sets_made,
            "block_sets_paired": self.sets_paired,
            "block_sets_waiting": self.sets.len(),
            "set_blocks_per_plane": self.set_blocks,
            "no_room_for_a_block_set": self.no_room,
        })
    }
}
