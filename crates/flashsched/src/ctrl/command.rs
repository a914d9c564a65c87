//! Advanced commands: which operations may share one flash command, and the count of commands by
//! kind.
//!
//! - **Multi-plane**: a die starting a read, program or erase takes queued operations of the
//!   same class for its other planes into the same command. The planes' array operations run
//!   together (the command lasts as long as the longest of them); their transfers share the bus
//!   one after the other. Which operations fit is the device's rule ([`MultiPlane`]): MQSim
//!   checks only that the pages share their page offset (`TSU_Base::issue_command_to_chip`,
//!   "Check for identical pages when running multiplane command"); SSDSim also wants the same
//!   block index (`find_level_page`: "only if block1 == block0, look for the same page").
//! - **Multi-die interleaving** ([`Advanced::interleave`]): dies of one chip run at the same time.
//!   Without it a chip runs one operation at a time.
//! - **Copyback** (with `ftl.gc.copyback`): a GC move stays inside the die. SSDSim allows it only
//!   between pages of the same parity (`old_ppn % 2 == new_ppn % 2`); [`Advanced::copyback_ok`].
//!
//! Timing of a multi-plane command of n operations (SSDSim `compute_serve_time`, spec §8c; MQSim
//! sums the planes' data-in transfers likewise):
//! - program: n × (command + data in), with tDBSY between consecutive data-ins, then one array
//!   program, the longest of the n;
//! - read: n × command, one array read (the longest), then the n pages' data out back to back;
//! - erase: n × command, one array erase (the longest).
//!
//! Each plane's operation needs its own command and address cycles, so the command time is
//! charged per operation.

use crate::config::Settings;
use crate::nand::{Layout, Ppn};
use crate::nand::latency::NandOpKind;

/// Which operations of one die may share a multi-plane command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MultiPlane {
    Off,
    /// MQSim: the same page offset in their blocks (any block for erases).
    SamePage,
    /// SSDSim: the same block index within their planes and the same page offset.
    SameBlockPage,
}

/// The device's advanced-command capabilities (keys `device.advanced.*`).
#[derive(Debug, Clone, Copy)]
pub struct Advanced {
    pub multi_plane: MultiPlane,
    pub interleave: bool,
    /// Without interleaving: an idle chip starts its dies' queued work of one class together
    /// (MQSim's die-interleaved commands; `sim::chip`).
    pub multi_die: bool,
    /// Bus idle time between the data-in transfers of a multi-plane program (ns).
    pub dbsy_ns: u64,
    pub copyback_parity: bool,
}

impl Advanced {
    pub fn new(s: &Settings) -> Self {
        let r = &s.resolved;
        Advanced {
            multi_plane: match r.str("device.advanced.multi_plane") {
                "same_page" => MultiPlane::SamePage,
                "same_block_page" => MultiPlane::SameBlockPage,
                _ => MultiPlane::Off,
            },
            interleave: r.bool("device.advanced.interleave"),
            multi_die: r.bool("device.advanced.multi_die") && !r.bool("device.advanced.interleave"),
            dbsy_ns: r.ns("device.advanced.dbsy"),
            copyback_parity: r.bool("device.advanced.copyback_parity"),
        }
    }

    /// Page `cand` (another plane of the same die) may join a multi-plane command whose first
    /// operation is on page `lead`. For erases both are the blocks' first pages.
    #[inline]
    pub fn plane_pair_ok(&self, layout: &Layout, class: NandOpKind, lead: Ppn, cand: Ppn) -> bool {
        let in_plane = |p: Ppn| p % layout.pages_per_plane;
        match (self.multi_plane, class) {
            (MultiPlane::Off, _) => false,
            (MultiPlane::SamePage, NandOpKind::Erase) => true,
            (MultiPlane::SamePage, _) => lead % layout.pages_per_block == cand % layout.pages_per_block,
            (MultiPlane::SameBlockPage, _) => in_plane(lead) == in_plane(cand),
        }
    }

    /// A GC move from `src` to `dst` may stay inside the die.
    #[inline]
    pub fn copyback_ok(&self, src: Ppn, dst: Ppn) -> bool {
        !self.copyback_parity || src % 2 == dst % 2
    }
}

/// Commands issued, by the kind of operation (index: read, program, erase; operations
/// of one kind may share a multi-plane command), and the operations
/// (pages, or blocks for erases) they carried. Slacker's estimator (paper 003 §5.1) needs the share
/// of operations served by advanced commands: `multi_plane_ops / ops`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CommandCounts {
    /// Commands issued.
    pub commands: [u64; 3],
    /// Of which multi-plane (two or more operations).
    pub multi_plane: [u64; 3],
    /// Operations carried by all commands.
    pub ops: [u64; 3],
    /// Operations carried by multi-plane commands.
    pub multi_plane_ops: [u64; 3],
}

impl CommandCounts {
    /// One command of `class` carrying `n` operations.
    #[inline]
    pub fn count(&mut self, class: NandOpKind, n: u32) {
        let i = class as usize;
        self.commands[i] += 1;
        self.ops[i] += n as u64;
        if n > 1 {
            self.multi_plane[i] += 1;
            self.multi_plane_ops[i] += n as u64;
        }
    }

    pub fn minus(&self, o: &CommandCounts) -> CommandCounts {
        let d = |a: [u64; 3], b: [u64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
        CommandCounts {
            commands: d(self.commands, o.commands),
            multi_plane: d(self.multi_plane, o.multi_plane),
            ops: d(self.ops, o.ops),
            multi_plane_ops: d(self.multi_plane_ops, o.multi_plane_ops),
        }
    }

    pub fn add(&mut self, o: &CommandCounts) {
        for i in 0..3 {
            self.commands[i] += o.commands[i];
            self.multi_plane[i] += o.multi_plane[i];
            self.ops[i] += o.ops[i];
            self.multi_plane_ops[i] += o.multi_plane_ops[i];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Options, Settings};

    fn layout() -> Layout {
        // The rules use only the sizes of blocks and planes.
        Layout::new(&Settings::from_options(&Options::from_preset("tiny").unwrap()).unwrap().geometry)
    }

    fn adv(mp: MultiPlane) -> Advanced {
        Advanced { multi_plane: mp, interleave: true, multi_die: false, dbsy_ns: 50, copyback_parity: true }
    }

    #[test]
    fn plane_pairing_rules() {
        let l = layout();
        let ppb = l.pages_per_block;
        let ppp = l.pages_per_plane;
        // plane 0 block 0 page 3 and plane 1 block 0 page 3: both rules.
        let (a, b) = (3, ppp + 3);
        // plane 1 block 1 page 3: same page offset, another block index.
        let c = ppp + ppb + 3;
        // plane 1 block 0 page 4: another page.
        let d = ppp + 4;
        let mq = adv(MultiPlane::SamePage);
        let ss = adv(MultiPlane::SameBlockPage);
        assert!(mq.plane_pair_ok(&l, NandOpKind::Program, a, b) && ss.plane_pair_ok(&l, NandOpKind::Program, a, b));
        assert!(mq.plane_pair_ok(&l, NandOpKind::Read, a, c), "MQSim: only the page offset matters");
        assert!(!ss.plane_pair_ok(&l, NandOpKind::Read, a, c), "SSDSim: the block index must match too");
        assert!(!mq.plane_pair_ok(&l, NandOpKind::Program, a, d) && !ss.plane_pair_ok(&l, NandOpKind::Program, a, d));
        // Erases: any blocks (MQSim), the same block index (SSDSim).
        assert!(mq.plane_pair_ok(&l, NandOpKind::Erase, 0, ppp + ppb));
        assert!(!ss.plane_pair_ok(&l, NandOpKind::Erase, 0, ppp + ppb));
        assert!(ss.plane_pair_ok(&l, NandOpKind::Erase, ppb, ppp + ppb));
        assert!(!adv(MultiPlane::Off).plane_pair_ok(&l, NandOpKind::Program, a, b));
    }

    #[test]
    fn copyback_parity() {
        let a = adv(MultiPlane::Off);
        assert!(a.copyback_ok(4, 10) && a.copyback_ok(5, 7));
        assert!(!a.copyback_ok(4, 7));
        assert!(Advanced { copyback_parity: false, ..a }.copyback_ok(4, 7));
    }

    #[test]
    fn counts_split_single_and_multi_plane() {
        let mut c = CommandCounts::default();
        c.count(NandOpKind::Program, 1);
        c.count(NandOpKind::Program, 3);
        c.count(NandOpKind::Read, 2);
        assert_eq!(c.commands, [1, 2, 0]);
        assert_eq!(c.multi_plane, [1, 1, 0]);
        assert_eq!(c.ops, [2, 4, 0]);
        assert_eq!(c.multi_plane_ops, [2, 3, 0]);
        // Totals add up, and a snapshot comes off (warm-up).
        let mut other = CommandCounts::default();
        other.count(NandOpKind::Erase, 2);
        let mut total = c;
        total.add(&other);
        assert_eq!((total.commands, total.ops), ([1, 2, 1], [2, 4, 2]));
        assert_eq!(total.minus(&c), other);
    }
}
