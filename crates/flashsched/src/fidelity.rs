//! Request-by-request comparison with another simulator's answers (docs/fidelity.md).
//!
//! `../shared/anchors/mqsim/*.req.csv` holds MQSim's completion time of every request of a trace
//! (`arrival_ns,enqueue_ns,complete_ns,op,start_lba,sectors`). [`compare`] pairs them with a
//! flashsched run's request log and reports how closely the latencies agree. Requests are paired
//! by arrival (relative to each run's first arrival: flashsched starts a trace at time 0), then
//! offset, then direction, so the order each simulator completes them in does not matter.

use std::io::BufRead;

use crate::sink::RequestLogRow;
use crate::trace::Op;

/// One request as the other simulator answered it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnchorRow {
    pub arrival_ns: u64,
    pub complete_ns: u64,
    pub read: bool,
    pub offset: u64,
}

/// How two runs of the same trace agree.
#[derive(Debug, Clone, PartialEq)]
pub struct Agreement {
    pub requests: usize,
    /// Requests whose latencies differ by at most `tolerance_ns`.
    pub within: usize,
    pub tolerance_ns: u64,
    /// Mean latency of reads and of writes, ours and theirs (ns; 0 without such requests).
    pub read_mean: (f64, f64),
    pub write_mean: (f64, f64),
    pub reads: usize,
    pub writes: usize,
    /// Largest difference, ours minus theirs (ns), by magnitude.
    pub max_diff_ns: i64,
}

impl Agreement {
    pub fn within_fraction(&self) -> f64 {
        if self.requests == 0 { 1.0 } else { self.within as f64 / self.requests as f64 }
    }
    /// Relative difference of the means, ours / theirs - 1 (0 without such requests).
    pub fn read_mean_diff(&self) -> f64 {
        rel(self.read_mean)
    }
    pub fn write_mean_diff(&self) -> f64 {
        rel(self.write_mean)
    }
}

fn rel((ours, theirs): (f64, f64)) -> f64 {
    if theirs == 0.0 { 0.0 } else { ours / theirs - 1.0 }
}

/// Read MQSim's per-request CSV (decompressed as traces are: `.gz`, `.zst`). Errors name the
/// file and line.
pub fn read_mqsim_csv(path: &std::path::Path) -> Result<Vec<AnchorRow>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let reader = crate::trace::decompressed(file, &path.display().to_string()).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut rows = Vec::new();
    for (i, line) in reader.lines().enumerate() {
        let line = line.map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))?;
        if i == 0 || line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        let bad = || format!("{}:{}: expected arrival_ns,enqueue_ns,complete_ns,op,start_lba,sectors, got {line:?}", path.display(), i + 1);
        if f.len() != 6 {
            return Err(bad());
        }
        let num = |s: &str| s.trim().parse::<u64>().map_err(|_| bad());
        let read = match f[3].trim() {
            "R" => true,
            "W" => false,
            _ => return Err(bad()),
        };
        rows.push(AnchorRow { arrival_ns: num(f[0])?, complete_ns: num(f[2])?, read, offset: num(f[4])? * 512 });
    }
    Ok(rows)
}

/// Pair `ours` (a request log) with `theirs` and measure the agreement. Fails if the two do not
/// hold the same requests.
pub fn compare(ours: &[RequestLogRow], theirs: &[AnchorRow], tolerance_ns: u64) -> Result<Agreement, String> {
    if ours.len() != theirs.len() {
        return Err(format!("{} requests in our log, {} in theirs", ours.len(), theirs.len()));
    }
    let base_a = ours.iter().map(|r| r.arrival_ns).min().unwrap_or(0);
    let base_b = theirs.iter().map(|r| r.arrival_ns).min().unwrap_or(0);
    let mut a: Vec<(u64, u64, bool, u64)> =
        ours.iter().map(|r| (r.arrival_ns - base_a, r.offset, r.op == Op::Read, r.complete_ns - r.arrival_ns)).collect();
    let mut b: Vec<(u64, u64, bool, u64)> =
        theirs.iter().map(|r| (r.arrival_ns - base_b, r.offset, r.read, r.complete_ns - r.arrival_ns)).collect();
    a.sort_unstable();
    b.sort_unstable();
    let mut g = Agreement { requests: a.len(), within: 0, tolerance_ns, read_mean: (0.0, 0.0), write_mean: (0.0, 0.0), reads: 0, writes: 0, max_diff_ns: 0 };
    let (mut rs, mut ws) = ((0u128, 0u128), (0u128, 0u128));
    for (x, y) in a.iter().zip(&b) {
        if (x.0, x.1, x.2) != (y.0, y.1, y.2) {
            return Err(format!("request at {} ns, offset {}: no counterpart (theirs: {} ns, offset {})", x.0, x.1, y.0, y.1));
        }
        let d = x.3 as i64 - y.3 as i64;
        if d.unsigned_abs() <= tolerance_ns {
            g.within += 1;
        }
        if d.abs() > g.max_diff_ns.abs() {
            g.max_diff_ns = d;
        }
        let s = if x.2 {
            g.reads += 1;
            &mut rs
        } else {
            g.writes += 1;
            &mut ws
        };
        s.0 += x.3 as u128;
        s.1 += y.3 as u128;
    }
    let mean = |s: (u128, u128), n: usize| if n == 0 { (0.0, 0.0) } else { (s.0 as f64 / n as f64, s.1 as f64 / n as f64) };
    g.read_mean = mean(rs, g.reads);
    g.write_mean = mean(ws, g.writes);
    Ok(g)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Breakdown;

    fn ours(arrival: u64, lat: u64, op: Op, offset: u64) -> RequestLogRow {
        RequestLogRow { arrival_ns: arrival, dispatch_ns: arrival, complete_ns: arrival + lat, op, offset, len: 4096, stages: Breakdown::default() }
    }

    #[test]
    fn pairs_by_arrival_and_offset_whatever_the_completion_order() {
        let a = [ours(0, 1000, Op::Write, 0), ours(10, 500, Op::Read, 4096), ours(10, 3000, Op::Read, 0)];
        let b = [
            AnchorRow { arrival_ns: 1_000_010, complete_ns: 1_000_010 + 500, read: true, offset: 4096 },
            AnchorRow { arrival_ns: 1_000_000, complete_ns: 1_000_000 + 1000, read: false, offset: 0 },
            AnchorRow { arrival_ns: 1_000_010, complete_ns: 1_000_010 + 5000, read: true, offset: 0 },
        ];
        let g = compare(&a, &b, 1000).unwrap();
        assert_eq!((g.requests, g.within, g.reads, g.writes, g.max_diff_ns), (3, 2, 2, 1, -2000));
        assert_eq!(g.read_mean, (1750.0, 2750.0));
        assert!(compare(&a[..2], &b, 1000).is_err(), "a missing request is an error");
        let mut c = b;
        c[0].offset = 8192;
        assert!(compare(&a, &c, 1000).unwrap_err().contains("no counterpart"));
    }
}
