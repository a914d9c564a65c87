//! Slacker's on-line response-time estimator (paper 003 §5.1, equations 1-8), kept by the
//! controller from counters it updates as it serves transactions.
//!
//! For a sub-request (a page transaction of a host request) entering its queue at `now`:
//!
//! - queue term (eq. 3-4): reads ahead of it times `Latency_RD`, and for a write also every queued
//!   read plus the writes ahead of it times `Latency_WR`, each scaled by
//!   `(1 - Pr_AdC) + Pr_AdC / N` where `Pr_AdC = Cntr_ARD / Cntr_RD` (`Cntr_AWR / Cntr_WR`): the
//!   unit's multi-plane read (write) commands over the reads (writes) it served, as the paper
//!   counts them (`Cntr_ARD` "increments ... when it commits N ... requests by an advanced
//!   command"), and `N` the mean number of operations in one. `tsu.slacker.adc =
//!   "operations"` takes instead the share of operations served in such commands (an ablation);
//! - GC term (eq. 5): `Pr_GC x (T_Move + Latency_Erase)` with `Pr_GC = Cntr_ER / (Cntr_RD +
//!   Cntr_WR)` and `T_Move = Cntr_Move / Cntr_ER x (Latency_RD + Latency_WR)`;
//! - interference (eq. 6): `Cntr_Ready / Cntr_Total x T_Xfer` of the unit's channel;
//! - residual (eq. 7): the nominal latency of the unit's running operation minus the time it has
//!   run, never below 0;
//! - its own service time, `Latency_RD` or `Latency_WR` (eq. 1); a read's also counts its ECC
//!   decode, which is part of its response but does not hold the die.
//!
//! The slack of each sub-request of a request is the largest estimate among them minus its own
//! (eq. 8); the estimates are absolute completion times here, so sub-requests that reach their
//! queues at different instants compare correctly.
//!
//! Unit: the paper's chip is SSDSim's serial unit, which runs one operation at a time and gains
//! parallelism only through advanced commands. Here, with `device.advanced.interleave` on, the dies
//! of a chip run independently, so the unit the counters and queue terms refer to is the die;
//! with interleaving off it is the chip, as in the paper [INFER: the adaptation].
//!
//! Latencies: `Latency_RD` = command + tR + one page out over the channel; `Latency_WR` = command
//! + one page in + tPROG; `Latency_Erase` = command + tBERS; `T_Xfer` = one page over the channel
//! (the device's nominal timing; per-page variation and program modes are not seen by the
//! estimator, as a controller would not see them). A host write's own time runs to its
//! acknowledgement: with `device.write_ack = "data_in"` (SSDSim's) that is command + one page in,
//! its program coming after; what it holds the unit for, and what writes ahead of it cost, is
//! still `Latency_WR`.

use crate::config::Settings;
use crate::engine::Time;
use crate::nand::latency::NandOpKind;
use crate::nand::{Divisor, Layout};
use crate::sim::txn::TxnKind;
use crate::stats::as_f64;

/// The nominal latencies the estimator uses (ns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Latencies {
    pub read: u64,
    pub write: u64,
    pub erase: u64,
    pub xfer: u64,
    /// A host read's ECC decode after its data is out.
    pub decode: u64,
    /// A host write's own time up to its acknowledgement: `write`, or without tPROG when writes
    /// are acknowledged at the end of their data-in.
    pub write_own: u64,
}

impl Latencies {
    pub fn new(s: &Settings) -> Self {
        let t = &s.timing;
        let xfer = crate::ctrl::BusTiming::new(t).transfer_ns(s.geometry.page_size as u64);
        Latencies {
            read: t.command_ns[NandOpKind::Read as usize] + t.read_ns + t.read_ready_ns + xfer,
            write: t.command_ns[NandOpKind::Program as usize] + xfer + t.program_ns,
            erase: t.command_ns[NandOpKind::Erase as usize] + t.erase_ns,
            xfer,
            decode: t.ecc_ns,
            write_own: t.command_ns[NandOpKind::Program as usize]
                + xfer
                + if s.resolved.str("device.write_ack") == "data_in" { 0 } else { t.program_ns },
        }
    }

    /// The die time of one transaction of this kind (`Latency_RD`, `Latency_WR`, erase).
    #[inline]
    pub fn service(&self, kind: TxnKind) -> u64 {
        match kind {
            TxnKind::HostRead | TxnKind::GcRead => self.read,
            TxnKind::HostWrite | TxnKind::GcWrite => self.write,
            TxnKind::Erase => self.erase,
        }
    }
}

/// The counters of one unit (paper §5.3: "for each chip, eight up/down counters ..., a flag and
/// two registers").
#[derive(Debug, Clone, Copy, Default)]
struct UnitCounters {
    /// Cntr_RD, Cntr_WR: reads and programs served (host and GC).
    rd: u64,
    wr: u64,
    /// Reads and programs served inside multi-plane commands, and those commands.
    ard_ops: u64,
    ard_cmds: u64,
    awr_ops: u64,
    awr_cmds: u64,
    /// Cntr_Move, Cntr_ER: GC page moves and erases.
    moves: u64,
    erases: u64,
    /// The running operation's nominal end (Flag_RD/WR and T_Start folded together).
    busy_until: Time,
}

/// What a sub-request entering its queue sees ahead of it on its unit.
#[derive(Debug, Clone, Copy)]
pub struct Ahead {
    /// Reads ahead of a read; every queued read for a write.
    pub reads: u32,
    /// Writes (programs, erases) ahead of a write; 0 for a read.
    pub writes: u32,
}

/// The estimator's state: per-unit and per-channel counters.
#[derive(Debug, Clone)]
pub struct Estimator {
    pub lat: Latencies,
    units: Vec<UnitCounters>,
    /// Cntr_Ready, Cntr_Total per channel.
    ready: Vec<u64>,
    total: Vec<u64>,
    /// Dies per unit (1 with interleaving, dies per chip without), as a divisor; the layout gives
    /// a die's channel. Neither runs a `div`: both are asked on every queued host transaction.
    per_unit: Divisor,
    layout: Layout,
    /// `tsu.slacker.adc = "operations"`.
    adc_by_ops: bool,
}

/// `x.round() as u64` for a finite `x >= 0` (round half away from zero), without the call to
/// libm's `round` that the baseline x86-64 target makes: below 2^52 the fraction `x - trunc(x)`
/// is exact; from there on `x` is an integer.
#[inline]
fn round_u64(x: f64) -> u64 {
    debug_assert!(x >= 0.0);
    if x < (1u64 << 52) as f64 {
        let t = x as u64;
        if x - t as f64 >= 0.5 { t + 1 } else { t }
    } else {
        x as u64
    }
}

/// `(1 - p) + p / n` of eq. 4, from the served and multi-plane counters: `p` the advanced
/// commands over the operations served (the paper's counters), or with `by_ops` the operations
/// served in them over all; `n` the mean operations in one.
#[inline]
fn adc_factor(served: u64, adv_ops: u64, adv_cmds: u64, by_ops: bool) -> f64 {
    if served == 0 || adv_cmds == 0 {
        return 1.0;
    }
    let p = as_f64(if by_ops { adv_ops } else { adv_cmds }) / as_f64(served);
    let n = as_f64(adv_ops) / as_f64(adv_cmds);
    (1.0 - p) + p / n
}

impl Estimator {
    pub fn new(s: &Settings, layout: Layout) -> Self {
        let interleave = s.resolved.bool("device.advanced.interleave");
        let dies_per_unit = if interleave { 1 } else { layout.dies_per_chip };
        Estimator {
            lat: Latencies::new(s),
            units: vec![UnitCounters::default(); (layout.dies() / dies_per_unit) as usize],
            ready: vec![0; layout.channels as usize],
            total: vec![0; layout.channels as usize],
            per_unit: Divisor::new(dies_per_unit),
            layout,
            adc_by_ops: s.resolved.str("tsu.slacker.adc") == "operations",
        }
    }

    /// The serial unit of `die`.
    #[inline]
    pub fn unit(&self, die: u32) -> u32 {
        self.per_unit.div(die)
    }

    /// Whether the unit is the die (`device.advanced.interleave`), not the chip.
    pub fn unit_is_die(&self) -> bool {
        self.per_unit.get() == 1
    }

    #[inline]
    fn channel(&self, die: u32) -> usize {
        self.layout.channel_of_die(die) as usize
    }

    /// A transaction for `die` entered its queue (Cntr_Total of its channel).
    #[inline]
    pub fn queued(&mut self, die: u32) {
        let ch = self.channel(die);
        self.total[ch] += 1;
    }

    /// A die of channel `ch` found the bus busy (Cntr_Ready).
    #[inline]
    pub fn channel_stalled(&mut self, ch: u32) {
        self.ready[ch as usize] += 1;
    }

    /// `die` began an operation of `kind` at `now`, serving `ops` transactions in one command
    /// (more than one: a multi-plane command), `moves` of them GC page moves.
    pub fn started(&mut self, die: u32, kind: TxnKind, ops: u32, moves: u32, now: Time) {
        let lat = self.lat;
        let u = self.unit(die) as usize;
        let c = &mut self.units[u];
        let ops = ops as u64;
        match kind {
            TxnKind::HostRead | TxnKind::GcRead => {
                c.rd += ops;
                if ops > 1 {
                    c.ard_ops += ops;
                    c.ard_cmds += 1;
                }
            }
            TxnKind::HostWrite | TxnKind::GcWrite => {
                c.wr += ops;
                if ops > 1 {
                    c.awr_ops += ops;
                    c.awr_cmds += 1;
                }
                c.moves += moves as u64;
            }
            TxnKind::Erase => c.erases += ops,
        }
        c.busy_until = c.busy_until.max(now + lat.service(kind));
    }

    /// Estimated response time (ns from `now`) of a sub-request of `kind` for `die` with `ahead`
    /// in front of it on its unit (equations 1-7).
    #[inline(always)]
    pub fn response(&self, die: u32, kind: TxnKind, ahead: Ahead, now: Time) -> u64 {
        let lat = &self.lat;
        let c = &self.units[self.unit(die) as usize];
        // Eq. 3 and 4. With nothing ahead (the usual case: the sub-request takes an idle die at
        // once) the term is 0 whatever the factors, which are finite and positive.
        let queue = if ahead.reads == 0 && ahead.writes == 0 {
            0.0
        } else {
            let rd_queue = f64::from(ahead.reads) * as_f64(lat.read) * adc_factor(c.rd, c.ard_ops, c.ard_cmds, self.adc_by_ops);
            if kind.is_read() {
                rd_queue
            } else {
                rd_queue + f64::from(ahead.writes) * as_f64(lat.write) * adc_factor(c.wr, c.awr_ops, c.awr_cmds, self.adc_by_ops)
            }
        };
        // Eq. 5.
        let served = c.rd + c.wr;
        let gc = if c.erases == 0 || served == 0 {
            0.0
        } else {
            let t_move = as_f64(c.moves) / as_f64(c.erases) * as_f64(lat.read + lat.write);
            as_f64(c.erases) / as_f64(served) * (t_move + as_f64(lat.erase))
        };
        // Eq. 6.
        let ch = self.channel(die);
        let interference = if self.total[ch] == 0 { 0.0 } else { as_f64(self.ready[ch]) / as_f64(self.total[ch]) * as_f64(lat.xfer) };
        // Eq. 7.
        let residual = c.busy_until.saturating_sub(now);
        let own = match kind {
            TxnKind::HostRead => lat.read + lat.decode,
            TxnKind::HostWrite => lat.write_own,
            _ => lat.service(kind),
        };
        round_u64(queue + gc + interference) + residual + own
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Options, Settings};

    fn settings(sets: &[&str]) -> Settings {
        let mut o = Options::from_preset("slacker2017").unwrap();
        for s in sets {
            o.set(s).unwrap();
        }
        Settings::from_options(&o).unwrap()
    }

    #[test]
    fn rounding_and_conversion_agree_with_the_library() {
        use rand::{Rng, SeedableRng};
        let below_half = 0.5 - f64::EPSILON / 4.0;
        let two52 = (1u64 << 52) as f64;
        let mut xs = vec![0.0, below_half, 0.5, 1.5, 2.5, 1.0 - f64::EPSILON / 2.0, two52 - 0.5, two52 - 1.5, two52, two52 + 2.0, 1e18, 1.8e19];
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        for _ in 0..100_000 {
            xs.push(rng.random_range(0.0..1e7));
            xs.push(rng.random_range(0u32..10_000) as f64 + 0.5);
        }
        for x in xs {
            assert_eq!(round_u64(x), x.round() as u64, "x = {x:e}");
        }
        for x in [0u64, 1, 12_345, (1 << 53) + 1, (1 << 62) + 3, (1 << 63) - 1] {
            assert_eq!(as_f64(x).to_bits(), (x as f64).to_bits(), "x = {x}");
        }
    }

    #[test]
    fn latencies_from_the_slacker_drive() {
        // 8 KiB over an 8-bit 333 MT/s bus: ceil(8192 / 333e6 s) = 24,601 ns; no command cycles.
        let l = Latencies::new(&settings(&[]));
        assert_eq!(l.xfer, 24_601);
        assert_eq!(l.read, 75_000 + 24_601);
        assert_eq!(l.write, 24_601 + 1_300_000);
        assert_eq!(l.erase, 3_800_000);
        assert_eq!(l.write_own, l.write);
        // Writes acknowledged when their data is in (SSDSim): a write's own time ends there; the
        // unit stays busy for its program.
        let data_in = Latencies::new(&settings(&["device.write_ack=\"data_in\""]));
        assert_eq!((data_in.write_own, data_in.write), (24_601, 24_601 + 1_300_000));
        let s = settings(&["device.write_ack=\"data_in\""]);
        let e = Estimator::new(&s, Layout::new(&s.geometry));
        assert_eq!(e.response(0, TxnKind::HostWrite, Ahead { reads: 0, writes: 2 }, 0), 2 * data_in.write + 24_601);
    }

    #[test]
    fn equations_by_hand() {
        let s = settings(&[]);
        let layout = Layout::new(&s.geometry);
        let mut e = Estimator::new(&s, layout);
        let l = e.lat;
        // An idle die with nothing counted: its own service time only (a read also decodes).
        let r0 = e.response(0, TxnKind::HostRead, Ahead { reads: 0, writes: 0 }, 0);
        assert_eq!(r0, l.read + l.decode);
        // Two reads ahead: eq. 3.
        let r2 = e.response(0, TxnKind::HostRead, Ahead { reads: 2, writes: 0 }, 0);
        assert_eq!(r2, 3 * l.read + l.decode);
        // A write with one read and one write ahead.
        assert_eq!(e.response(0, TxnKind::HostWrite, Ahead { reads: 1, writes: 1 }, 0), l.read + 2 * l.write);
        // Eq. 4: 4 reads served, 2 of them in one 2-plane command: Pr_AdC = Cntr_ARD / Cntr_RD =
        // 1/4, N = 2: factor 3/4 + 1/8 = 0.875 (by operations, 2/4 of them: 0.75).
        let mut ops = Estimator::new(&settings(&["tsu.slacker.adc=\"operations\""]), layout);
        for est in [&mut e, &mut ops] {
            est.started(0, TxnKind::HostRead, 2, 0, 0);
            est.started(0, TxnKind::HostRead, 1, 0, 0);
            est.started(0, TxnKind::HostRead, 1, 0, 0);
        }
        // Eq. 7: the last read started at 0 runs until l.read; at l.read / 2 half of it is left.
        let now = l.read / 2;
        let got = e.response(0, TxnKind::HostRead, Ahead { reads: 4, writes: 0 }, now);
        assert_eq!(got, (4.0 * l.read as f64 * 0.875).round() as u64 + (l.read - now) + l.read + l.decode);
        let got = ops.response(0, TxnKind::HostRead, Ahead { reads: 4, writes: 0 }, now);
        assert_eq!(got, (4.0 * l.read as f64 * 0.75).round() as u64 + (l.read - now) + l.read + l.decode);
        // Eq. 5: one erase after 4 reads and 4 programs, 2 of them GC moves:
        // Pr_GC = 1/8, T_Move = 2/1 x (RD + WR).
        let mut g = Estimator::new(&s, layout);
        g.started(1, TxnKind::HostRead, 1, 0, 0);
        g.started(1, TxnKind::HostRead, 1, 0, 0);
        g.started(1, TxnKind::HostRead, 1, 0, 0);
        g.started(1, TxnKind::HostRead, 1, 0, 0);
        g.started(1, TxnKind::HostWrite, 1, 0, 0);
        g.started(1, TxnKind::HostWrite, 1, 0, 0);
        g.started(1, TxnKind::GcWrite, 1, 1, 0);
        g.started(1, TxnKind::GcWrite, 1, 1, 0);
        g.started(1, TxnKind::Erase, 1, 0, 0);
        let far = 1_000_000_000; // long after every operation: no residual
        let want_gc = 1.0 / 8.0 * (2.0 * (l.read + l.write) as f64 + l.erase as f64);
        assert_eq!(g.response(1, TxnKind::HostWrite, Ahead { reads: 0, writes: 0 }, far), want_gc.round() as u64 + l.write);
        // Eq. 6: 1 stall in 4 transactions queued on the channel: a quarter of a page transfer.
        let mut i = Estimator::new(&s, layout);
        for _ in 0..4 {
            i.queued(2);
        }
        i.channel_stalled(0);
        assert_eq!(i.response(2, TxnKind::HostWrite, Ahead { reads: 0, writes: 0 }, 0), (l.xfer as f64 / 4.0).round() as u64 + l.write);
    }

    #[test]
    fn the_unit_is_the_chip_without_interleaving() {
        let s = settings(&["device.advanced.interleave=false"]);
        let e = Estimator::new(&s, Layout::new(&s.geometry));
        assert_eq!((e.unit(0), e.unit(3), e.unit(4)), (0, 0, 1));
        let s = settings(&[]);
        let e = Estimator::new(&s, Layout::new(&s.geometry));
        assert_eq!((e.unit(0), e.unit(3), e.unit(4)), (0, 3, 4));
    }
}
