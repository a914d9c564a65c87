//! Statistics gathered during a run: latency distributions per direction and per stage, device
//! counters, and optional per-window time series.

pub mod interval;

use hdrhistogram::Histogram;
use serde_json::{json, Map, Value};

/// fio's default `percentile_list` (options.c).
pub const FIO_PERCENTILES: [f64; 17] =
    [1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99];

/// A distribution of nanosecond values: exact count, min, max, mean and standard deviation (from
/// integer sums, so they are reproducible bit for bit), percentiles from an HDR histogram with 3
/// significant digits (0.1% error; fio's own bins have about 0.8%).
#[derive(Debug, Clone)]
pub struct Dist {
    /// u32 counts: half the memory of u64, and a bucket would need 4 billion samples to saturate.
    /// Made on the first sample it must hold (a nonzero one, or zeros at `settle`): each is 135 KB
    /// of counts, written whole when made, and many stages of many directions never get one.
    hist: Option<Histogram<u32>>,
    pub n: u64,
    sum: u128,
    sumsq: u128,
    pub min: u64,
    pub max: u64,
    /// Zeros recorded but not yet added to `hist` (`settle`): many stages are 0 for most
    /// requests (no host queueing, no ECC stage, no channel wait), and counting them is cheaper
    /// than recording each; the histogram is the same once they are added.
    zeros: u64,
}

impl Default for Dist {
    fn default() -> Self {
        Dist { hist: None, n: 0, sum: 0, sumsq: 0, min: 0, max: 0, zeros: 0 }
    }
}

fn new_histogram() -> Histogram<u32> {
    Histogram::new_with_bounds(1, 1 << 42, 3).expect("valid bounds")
}

/// A count or a time in ns as a float: the same value as `x as f64` for anything below 2^63, by
/// the signed conversion (one instruction; the baseline x86-64 target has no unsigned one, and
/// `as f64` is a branchy sequence). Slacker's estimator converts a dozen counters on every queued
/// host transaction, and the completion of every page transaction converts its latency.
#[inline]
pub fn as_f64(x: u64) -> f64 {
    debug_assert!(x < 1 << 63);
    x as i64 as f64
}

impl Dist {
    #[inline]
    pub fn record(&mut self, v: u64) {
        if v == 0 {
            self.zeros += 1;
            self.min = 0;
            self.n += 1;
            return;
        }
        self.hist.get_or_insert_with(new_histogram).saturating_record(v);
        if self.n == 0 || v < self.min {
            self.min = v;
        }
        if v > self.max {
            self.max = v;
        }
        self.n += 1;
        self.sum += v as u128;
        self.sumsq += v as u128 * v as u128;
    }
    /// Add the zeros counted by `record` to the histogram; the percentiles and bins need it first
    /// (the simulator settles its statistics when the run ends).
    pub fn settle(&mut self) {
        while self.zeros > 0 {
            let n = self.zeros.min(u32::MAX as u64);
            // Counts saturate either way, so adding them at once is recording them one by one.
            self.hist.get_or_insert_with(new_histogram).saturating_record_n(0, n as u32);
            self.zeros -= n;
        }
    }

    /// The histogram, once `settle` added the zeros; `None` when no sample was ever recorded.
    fn settled(&self) -> Option<&Histogram<u32>> {
        assert_eq!(self.zeros, 0, "latency distribution read before Dist::settle");
        self.hist.as_ref()
    }

    pub fn mean(&self) -> f64 {
        if self.n == 0 { 0.0 } else { self.sum as f64 / self.n as f64 }
    }
    /// Sample standard deviation (divided by n - 1), as fio reports it (`stat.c` keeps Welford's
    /// running sum S and prints sqrt(S / (samples - 1))). Computed from exact integer sums:
    /// (n * sumsq - sum^2) / (n * (n - 1)).
    pub fn stddev(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        let n = self.n as u128;
        let var = match n.checked_mul(self.sumsq).zip(self.sum.checked_mul(self.sum)).and_then(|(a, b)| a.checked_sub(b)) {
            Some(num) => num as f64 / (n * (n - 1)) as f64,
            // beyond u128 (not reachable with nanosecond latencies): fall back to floating point
            None => {
                let (nf, sum) = (self.n as f64, self.sum as f64);
                ((self.sumsq as f64 - sum * sum / nf) / (nf - 1.0)).max(0.0)
            }
        };
        var.sqrt()
    }
    pub fn percentile(&self, p: f64) -> u64 {
        self.settled().map_or(0, |h| h.value_at_percentile(p))
    }
    pub fn sum(&self) -> u128 {
        self.sum
    }

    /// The distribution of both samples together (reads and writes: the papers' "response time
    /// of all requests").
    pub fn combined(&self, other: &Dist) -> Dist {
        self.settled();
        let mut d = self.clone();
        if let Some(o) = other.settled() {
            d.hist.get_or_insert_with(new_histogram).add(o).expect("same bounds");
        }
        d.min = match (self.n, other.n) {
            (0, _) => other.min,
            (_, 0) => self.min,
            _ => self.min.min(other.min),
        };
        d.max = self.max.max(other.max);
        d.n += other.n;
        d.sum += other.sum;
        d.sumsq += other.sumsq;
        d
    }

    /// Counts in fio's bins, as (bin value in ns, count) in ascending order, empty bins left out;
    /// the counts add up to `n`. Derived from the HDR histogram with no per-sample cost: with 3
    /// significant digits each HDR bucket is a power-of-two-aligned range of width at most
    /// 2^(msb-10), so it lies inside a single fio bin (width 2^(msb-6), or 1 below 128).
    pub fn fio_bins(&self) -> Vec<(u64, u64)> {
        let mut counts: Vec<(usize, u64)> = Vec::new();
        for step in self.settled().into_iter().flat_map(|h| h.iter_recorded()) {
            let idx = fio_plat_idx(step.value_iterated_to());
            let c = step.count_since_last_iteration();
            match counts.last_mut() {
                Some((last, n)) if *last == idx => *n += c,
                _ => counts.push((idx, c)),
            }
        }
        counts.into_iter().map(|(idx, c)| (fio_plat_val(idx), c)).collect()
    }

    /// fio's json+ `bins` object: `{"<bin value in ns>": count, ...}`, ascending.
    pub fn fio_bins_json(&self) -> Value {
        Value::Object(self.fio_bins().into_iter().map(|(v, c)| (v.to_string(), json!(c))).collect())
    }

    /// fio's latency object: `{min, max, mean, stddev, N, percentile: {"1.000000": v, ...}}`.
    pub fn to_fio_json(&self) -> Value {
        let mut pct = Map::new();
        for p in FIO_PERCENTILES {
            pct.insert(format!("{p:.6}"), json!(self.percentile(p)));
        }
        json!({
            "min": self.min,
            "max": self.max,
            "mean": round3(self.mean()),
            "stddev": round3(self.stddev()),
            "N": self.n,
            "percentile": Value::Object(pct),
        })
    }
}

/// fio's latency histogram (`stat.h`): values are binned log-linearly, `FIO_IO_U_PLAT_VAL` bins per
/// power of two, `FIO_IO_U_PLAT_NR` bins in all; `--output-format=json+` prints them as `bins`.
pub const FIO_PLAT_BITS: u32 = 6;
pub const FIO_PLAT_VAL: u64 = 1 << FIO_PLAT_BITS;
pub const FIO_PLAT_GROUP_NR: usize = 29;
pub const FIO_PLAT_NR: usize = FIO_PLAT_GROUP_NR * FIO_PLAT_VAL as usize;

/// The fio bin of a latency in ns: fio's `plat_val_to_idx` (stat.c). Values below 128 have a bin
/// each; above, every power of two is split into 64 equal bins; from 2^34 ns on, the last bin.
#[inline]
pub fn fio_plat_idx(v: u64) -> usize {
    let msb = if v == 0 { 0 } else { 63 - v.leading_zeros() };
    if msb <= FIO_PLAT_BITS {
        return v as usize;
    }
    let error_bits = msb - FIO_PLAT_BITS;
    let base = ((error_bits + 1) << FIO_PLAT_BITS) as usize;
    let offset = ((FIO_PLAT_VAL - 1) & (v >> error_bits)) as usize;
    (base + offset).min(FIO_PLAT_NR - 1)
}

/// The value fio reports for a bin (the `bins` key, and its percentiles): fio's `plat_idx_to_val`,
/// the middle of the bin's range (`base + (k + 0.5) * 2^error_bits`, exact in integers).
pub fn fio_plat_val(idx: usize) -> u64 {
    assert!(idx < FIO_PLAT_NR, "fio bin {idx} out of range");
    if idx < (FIO_PLAT_VAL as usize) << 1 {
        return idx as u64;
    }
    let error_bits = (idx >> FIO_PLAT_BITS) as u32 - 1;
    let base = 1u64 << (error_bits + FIO_PLAT_BITS);
    let k = (idx as u64) % FIO_PLAT_VAL;
    base + (k << error_bits) + (1 << (error_bits - 1))
}

/// Round to 3 decimals so JSON floats are short and stable.
pub fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The stages a request's time is split into. For a multi-page request the device stages are
/// those of its last-completing part (its critical path: a flash transaction, or a DRAM transfer
/// of the data cache), so for every request
/// `host_queue + device_queue + die_wait + channel_wait + bus + array + ecc + cache + mapping = lat`
/// exactly.
pub const STAGES: [&str; 9] = ["host_queue", "device_queue", "die_wait", "channel_wait", "bus", "array", "ecc", "cache", "mapping"];

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Breakdown {
    pub host_queue: u64,
    pub device_queue: u64,
    pub die_wait: u64,
    pub channel_wait: u64,
    pub bus: u64,
    pub array: u64,
    pub ecc: u64,
    /// In the data cache: from reaching the device to the end of its DRAM transfer (waiting for
    /// room under `cache.writeback_limit`, for the DRAM channel, and the transfer).
    pub cache: u64,
    /// Waiting for the mapping entry: the read of its translation page (`ftl.mapping_cache`).
    pub mapping: u64,
}

impl Breakdown {
    pub fn values(&self) -> [u64; 9] {
        [self.host_queue, self.device_queue, self.die_wait, self.channel_wait, self.bus, self.array, self.ecc, self.cache, self.mapping]
    }
}

/// Statistics of one direction (read, write or trim).
#[derive(Debug, Clone, Default)]
pub struct DirStats {
    pub ios: u64,
    pub bytes: u64,
    /// Submission latency: arrival to dispatch into the device (time in the host scheduler).
    pub slat: Dist,
    /// Completion latency: dispatch into the device to completion.
    pub clat: Dist,
    /// Total latency: arrival to completion (the "response time" of the papers).
    pub lat: Dist,
    pub stages: [Dist; 9],
    /// Intra-request slack of the sub-requests (Slacker §3.1).
    pub slack: SlackSums,
}

/// Intra-request slack (Slacker §3.1): for each page transaction of a request, the request's
/// completion minus the transaction's (0 for the last one). Sums over sub-requests, ns.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SlackSums {
    pub sub_requests: u64,
    sum: f64,
    sq: f64,
}

impl SlackSums {
    /// A request completed at `done` (ns from any origin) whose `n` sub-requests completed at
    /// times summing to `sum` with squares summing to `sq` (same origin).
    pub fn record(&mut self, n: u32, done: f64, sum: f64, sq: f64) {
        let n_f = n as f64;
        self.sub_requests += n as u64;
        // sum of (done - x) and of (done - x)^2 over the request's sub-requests.
        self.sum += n_f * done - sum;
        self.sq += n_f * done * done - 2.0 * done * sum + sq;
    }
    pub fn mean_ns(&self) -> f64 {
        if self.sub_requests == 0 { 0.0 } else { self.sum / self.sub_requests as f64 }
    }
    /// Sample standard deviation over sub-requests.
    pub fn sd_ns(&self) -> f64 {
        if self.sub_requests < 2 {
            return 0.0;
        }
        let m = self.mean_ns();
        ((self.sq - self.sum * m) / (self.sub_requests - 1) as f64).max(0.0).sqrt()
    }
}

impl DirStats {
    /// `Dist::settle` for each of its distributions.
    pub fn settle(&mut self) {
        for d in [&mut self.slat, &mut self.clat, &mut self.lat].into_iter().chain(self.stages.iter_mut()) {
            d.settle();
        }
    }

    pub fn record(&mut self, bytes: u64, arrival: u64, dispatch: u64, complete: u64, b: &Breakdown) {
        self.ios += 1;
        self.bytes += bytes;
        self.slat.record(dispatch - arrival);
        self.clat.record(complete - dispatch);
        self.lat.record(complete - arrival);
        for (d, v) in self.stages.iter_mut().zip(b.values()) {
            d.record(v);
        }
    }
}

/// Device counters; a snapshot is taken when warm-up ends and the report shows the difference.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DeviceCounters {
    pub host_pages_read: u64,
    pub host_pages_written: u64,
    pub host_reads_unmapped: u64,
    /// Host reads served from a read of the same page queued on their channel
    /// (`device.read_queue_hits`).
    pub read_queue_hits: u64,
    /// Reads of an old page before a partial-page overwrite (`ftl.partial_writes`).
    pub rmw_reads: u64,
    pub nand_pages_read: u64,
    pub nand_pages_written: u64,
    pub gc_invocations: u64,
    pub gc_pages_moved: u64,
    pub gc_moves_dropped: u64,
    pub erases: u64,
    pub trimmed_pages: u64,
    pub write_stalls: u64,
    /// Measured requests with at least one transaction that waited for a busy die.
    pub read_conflicts: u64,
    pub write_conflicts: u64,
    /// Programs and erases suspended to serve reads.
    pub suspensions: u64,
    pub program_suspensions: u64,
    pub erase_suspensions: u64,
    /// Flash commands issued, by class, with their multi-plane share.
    pub commands: crate::ctrl::CommandCounts,
    /// GC moves done by copyback (inside the die), and those that could not be (page parity) and
    /// went through the controller.
    pub copyback_moves: u64,
    pub copyback_fallbacks: u64,
    /// Host writes that speed-aware placement (VIOS) sent to another plane of their chip.
    pub writes_placed_elsewhere: u64,
    /// Host writes under speed-aware placement that the plane chosen for them could not take
    /// under the fill limit (`hil.vios.overfill`, `sim::placement`): they went to another plane
    /// of their chip, or stayed when none was better.
    pub writes_at_fill_limit: u64,
    /// Host page programs by the block the device queue asked for (`Placement`: the
    /// allocator's, fastest, slowest), and their array time (ns): what speed-aware placement
    /// gained.
    pub placed_programs: [u64; 3],
    pub placed_program_ns: [u64; 3],
    /// Host writes moved off a plane that dynamic allocation had filled with valid data.
    pub writes_relocated: u64,
    /// Idle-time re-programs (RR) done, and those dropped (the page moved or no free page).
    pub reprograms: u64,
    pub reprograms_dropped: u64,
    /// Re-programs whose program host work pre-empted (put back for a later turn), requests with
    /// a re-programmed page, and host transactions that met a running re-program at their die
    /// with their summed wait until it ended or was suspended (ns).
    pub reprograms_preempted: u64,
    pub reprogrammed_requests: u64,
    pub reprogram_host_waits: u64,
    pub reprogram_host_wait_ns: u64,
    /// Collections wear leveling asked for, and the valid pages they had to move.
    pub wl_collections: u64,
    pub wl_pages: u64,
    /// Of those, the collections split across chips (read balance-oriented WL) and the pages
    /// they planned to move there.
    pub wl_split_collections: u64,
    pub wl_pages_split: u64,
    /// Pages wear leveling's own collections programmed into its stream of most-erased blocks,
    /// and those that went to GC's stream (it could not open a block there, or `gc` was asked).
    pub wl_pages_worn: u64,
    pub wl_pages_gc_stream: u64,
    /// Flash time (bus + array, ns) of GC reads, programs and erases: routine GC's and wear
    /// leveling's.
    pub gc_flash_ns: u64,
    pub wl_flash_ns: u64,
}

impl DeviceCounters {
    pub fn minus(&self, o: &DeviceCounters) -> DeviceCounters {
        DeviceCounters {
            host_pages_read: self.host_pages_read - o.host_pages_read,
            host_pages_written: self.host_pages_written - o.host_pages_written,
            host_reads_unmapped: self.host_reads_unmapped - o.host_reads_unmapped,
            read_queue_hits: self.read_queue_hits - o.read_queue_hits,
            rmw_reads: self.rmw_reads - o.rmw_reads,
            nand_pages_read: self.nand_pages_read - o.nand_pages_read,
            nand_pages_written: self.nand_pages_written - o.nand_pages_written,
            gc_invocations: self.gc_invocations - o.gc_invocations,
            gc_pages_moved: self.gc_pages_moved - o.gc_pages_moved,
            gc_moves_dropped: self.gc_moves_dropped - o.gc_moves_dropped,
            erases: self.erases - o.erases,
            trimmed_pages: self.trimmed_pages - o.trimmed_pages,
            write_stalls: self.write_stalls - o.write_stalls,
            read_conflicts: self.read_conflicts - o.read_conflicts,
            write_conflicts: self.write_conflicts - o.write_conflicts,
            suspensions: self.suspensions - o.suspensions,
            program_suspensions: self.program_suspensions - o.program_suspensions,
            erase_suspensions: self.erase_suspensions - o.erase_suspensions,
            commands: self.commands.minus(&o.commands),
            copyback_moves: self.copyback_moves - o.copyback_moves,
            copyback_fallbacks: self.copyback_fallbacks - o.copyback_fallbacks,
            writes_placed_elsewhere: self.writes_placed_elsewhere - o.writes_placed_elsewhere,
            writes_at_fill_limit: self.writes_at_fill_limit - o.writes_at_fill_limit,
            placed_programs: std::array::from_fn(|i| self.placed_programs[i] - o.placed_programs[i]),
            placed_program_ns: std::array::from_fn(|i| self.placed_program_ns[i] - o.placed_program_ns[i]),
            writes_relocated: self.writes_relocated - o.writes_relocated,
            reprograms: self.reprograms - o.reprograms,
            reprograms_dropped: self.reprograms_dropped - o.reprograms_dropped,
            reprograms_preempted: self.reprograms_preempted - o.reprograms_preempted,
            reprogrammed_requests: self.reprogrammed_requests - o.reprogrammed_requests,
            reprogram_host_waits: self.reprogram_host_waits - o.reprogram_host_waits,
            reprogram_host_wait_ns: self.reprogram_host_wait_ns - o.reprogram_host_wait_ns,
            wl_collections: self.wl_collections - o.wl_collections,
            wl_pages: self.wl_pages - o.wl_pages,
            wl_split_collections: self.wl_split_collections - o.wl_split_collections,
            wl_pages_split: self.wl_pages_split - o.wl_pages_split,
            wl_pages_worn: self.wl_pages_worn - o.wl_pages_worn,
            wl_pages_gc_stream: self.wl_pages_gc_stream - o.wl_pages_gc_stream,
            gc_flash_ns: self.gc_flash_ns - o.gc_flash_ns,
            wl_flash_ns: self.wl_flash_ns - o.wl_flash_ns,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dist_moments_and_fio_keys() {
        let mut d = Dist::default();
        for v in [100, 200, 300, 400] {
            d.record(v);
        }
        assert_eq!((d.min, d.max, d.n), (100, 400, 4));
        assert_eq!(d.mean(), 250.0);
        // sample standard deviation, as fio: sqrt(50000 / 3)
        assert!((d.stddev() - 129.099).abs() < 1e-3);
        let j = d.to_fio_json();
        assert!(j["percentile"].get("99.000000").is_some());
        assert!(j["percentile"].get("99.990000").is_some());
        assert_eq!(j["percentile"]["50.000000"], json!(200));
    }

    #[test]
    fn distributions_without_a_histogram_read_as_empty_or_zero() {
        // No sample: no histogram is made, and everything reads 0.
        let mut empty = Dist::default();
        empty.settle();
        assert!(empty.hist.is_none());
        assert_eq!((empty.percentile(50.0), empty.percentile(99.99)), (0, 0));
        assert!(empty.fio_bins().is_empty());
        // Zeros only: the histogram is made when they are settled.
        let mut zeros = Dist::default();
        for _ in 0..3 {
            zeros.record(0);
        }
        assert!(zeros.hist.is_none(), "zeros are counted, not recorded");
        zeros.settle();
        assert_eq!((zeros.percentile(50.0), zeros.percentile(100.0), zeros.n), (0, 0, 3));
        assert_eq!(zeros.fio_bins(), vec![(0, 3)]);
        // Combined with a side that has no samples (a read-only or write-only run), either way round.
        let mut some = Dist::default();
        for v in [100, 200, 300] {
            some.record(v);
        }
        some.settle();
        for c in [some.combined(&empty), empty.combined(&some)] {
            assert_eq!((c.n, c.min, c.max, c.percentile(50.0)), (3, 100, 300, some.percentile(50.0)));
            assert_eq!(c.fio_bins(), some.fio_bins());
        }
        let both = some.combined(&zeros);
        assert_eq!((both.n, both.min, both.max, both.percentile(40.0)), (6, 0, 300, 0));
    }

    #[test]
    fn fio_bins_match_fio_stat_c() {
        assert_eq!(FIO_PLAT_NR, 1856);
        // Below 128 every value has its own bin, keyed by itself.
        for v in 0..128u64 {
            assert_eq!(fio_plat_idx(v), v as usize);
            assert_eq!(fio_plat_val(v as usize), v);
        }
        // Worked by hand from plat_val_to_idx / plat_idx_to_val:
        // 128: msb 7, error_bits 1, base 2 << 6 = 128, offset (128 >> 1) & 63 = 0; value 128 + 0.5 * 2.
        let cases: [(u64, usize, u64); 12] = [
            (128, 128, 129),
            (129, 128, 129),
            (130, 129, 131),
            (255, 191, 255),
            (256, 192, 258),
            (300, 203, 302),   // fio 3.33 printed bin "302" for a 300 ns latency
            (1000, 317, 1004),
            (7872, 507, 7904), // fio 3.33: clat max 7872, bin "7904"
            (1_000_000, 954, 1_003_520),
            ((1 << 34) - 1, 1855, 17_112_760_320),
            (1 << 34, 1855, 17_112_760_320), // saturates in the last bin (fio_jsonplus_clat2csv's maximum)
            (u64::MAX, 1855, 17_112_760_320),
        ];
        for (v, idx, val) in cases {
            assert_eq!(fio_plat_idx(v), idx, "index of {v}");
            assert_eq!(fio_plat_val(idx), val, "value of bin {idx}");
        }
        // Every bin's value falls in the bin, and bins are monotone.
        for idx in 0..FIO_PLAT_NR {
            assert_eq!(fio_plat_idx(fio_plat_val(idx)), idx);
            if idx > 0 {
                assert!(fio_plat_val(idx) > fio_plat_val(idx - 1));
            }
        }
    }

    #[test]
    fn fio_bins_of_a_dist_count_every_sample() {
        let mut d = Dist::default();
        for v in [0, 5, 5, 127, 128, 129, 7872, 7873, 1_000_000, 1 << 40] {
            d.record(v);
        }
        d.settle();
        let bins = d.fio_bins();
        assert_eq!(
            bins,
            vec![(0, 1), (5, 2), (127, 1), (129, 2), (7904, 2), (1_003_520, 1), (17_112_760_320, 1)]
        );
        assert_eq!(bins.iter().map(|b| b.1).sum::<u64>(), d.n);
        let j = d.fio_bins_json();
        assert_eq!(j["7904"], json!(2));
        assert_eq!(j.as_object().unwrap().keys().next().unwrap(), "0");
        assert!(Dist::default().fio_bins().is_empty());
        // Zeros count only once settled; reading before that is refused, not wrong.
        let mut z = Dist::default();
        z.record(0);
        z.record(5);
        assert!(std::panic::catch_unwind(|| z.percentile(50.0)).is_err());
        z.settle();
        assert_eq!(z.fio_bins(), vec![(0, 1), (5, 1)]);
        assert_eq!((z.n, z.min, z.max, z.percentile(50.0)), (2, 0, 5, 0));
    }

    proptest::proptest! {
        /// The bins derived from the HDR histogram equal binning every sample directly.
        #[test]
        fn fio_bins_equal_direct_binning(values in proptest::collection::vec(
            proptest::prop_oneof![0u64..4096, 0u64..10_000_000, 0u64..(1u64 << 45)], 1..400)) {
            let mut d = Dist::default();
            let mut direct = vec![0u64; FIO_PLAT_NR];
            for &v in &values {
                d.record(v);
                direct[fio_plat_idx(v)] += 1;
            }
            let expect: Vec<(u64, u64)> =
                direct.iter().enumerate().filter(|(_, &c)| c > 0).map(|(i, &c)| (fio_plat_val(i), c)).collect();
            d.settle();
            proptest::prop_assert_eq!(d.fio_bins(), expect);
        }
    }
}
