//! `flashsched trace stats`: what a trace contains, before anyone simulates it. Several MQSim and
//! SSDSim issues (MQSim#46, #51, #74) came from silent unit or format mistakes; these numbers make
//! such mistakes visible.

use std::collections::HashMap;

use hdrhistogram::Histogram;
use serde_json::{json, Value};

use super::{Op, TraceError, TraceReader, MAX_REQUEST_BYTES};

/// A 4 KiB page's history, for the footprint and the re-read counts.
const WRITTEN: u8 = 1;
/// Read since it was last written (or since the start): a read now is a re-read.
const READ_SINCE_WRITE: u8 = 2;

/// Summarise a trace. The footprint counts distinct 4 KiB pages touched (memory grows with it).
///
/// Page re-reads say whether a trace has the locality that read-side policies (RR's slow
/// re-programming, read-balanced wear levelling) live on: a page read again before it is
/// rewritten profits from whatever the first read taught the device.
pub fn trace_stats(reader: &mut TraceReader) -> Result<Value, TraceError> {
    let mut counts = [0u64; 4];
    let mut bytes = [0u64; 4];
    let mut sizes = Histogram::<u64>::new_with_bounds(1, 1 << 42, 3).expect("histogram");
    let mut gaps = Histogram::<u64>::new_with_bounds(1, 1 << 42, 3).expect("histogram");
    let (mut gap_sum, mut gap_sq) = (0f64, 0f64);
    let mut pages: HashMap<u64, u8> = HashMap::new();
    let (mut page_reads, mut rereads) = (0u64, 0u64);
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    let mut last: Option<u64> = None;
    let mut first_t = None;
    let mut n = 0u64;
    let mut devices = std::collections::BTreeSet::new();
    while let Some(r) = reader.next_record()? {
        // Checked before the request's pages are counted one by one (a mistyped 1 PiB request
        // would fill memory with them).
        if r.len > MAX_REQUEST_BYTES {
            return Err(reader.error(format!(
                "a request of {} bytes is larger than the largest a run accepts by default ({} bytes, workload.max_request_size)",
                r.len, MAX_REQUEST_BYTES
            )));
        }
        n += 1;
        let i = r.op as usize;
        counts[i] += 1;
        bytes[i] += r.len;
        devices.insert(r.device);
        first_t.get_or_insert(r.time_ns);
        if let Some(p) = last {
            let g = r.time_ns - p;
            gaps.saturating_record(g);
            gap_sum += g as f64;
            gap_sq += (g as f64) * (g as f64);
        }
        last = Some(r.time_ns);
        if matches!(r.op, Op::Read | Op::Write | Op::Trim) {
            sizes.saturating_record(r.len);
            lo = lo.min(r.offset);
            hi = hi.max(r.offset + r.len);
            for p in (r.offset >> 12)..=((r.offset + r.len - 1) >> 12) {
                let state = pages.entry(p).or_insert(0);
                match r.op {
                    Op::Read => {
                        page_reads += 1;
                        rereads += u64::from(*state & READ_SINCE_WRITE != 0);
                        *state |= READ_SINCE_WRITE;
                    }
                    Op::Write => *state = WRITTEN,
                    // A trimmed page holds nothing: the next read of it learns nothing new.
                    _ => *state &= !READ_SINCE_WRITE,
                }
            }
        }
    }
    if n == 0 {
        return Err(TraceError { file: reader.file_name().to_string(), line: 0, message: "the trace holds no requests".into() });
    }
    let ng = gaps.len();
    let gap_mean = if ng > 0 { gap_sum / ng as f64 } else { 0.0 };
    let gap_sd = if ng > 1 { ((gap_sq / ng as f64) - gap_mean * gap_mean).max(0.0).sqrt() } else { 0.0 };
    let duration = last.unwrap_or(0) - first_t.unwrap_or(0);
    let q = |h: &Histogram<u64>, p: f64| if h.is_empty() { 0 } else { h.value_at_quantile(p) };
    let data = counts[0] + counts[1];
    Ok(json!({
        "file": reader.file_name(),
        "format": reader.format.name(),
        "requests": n,
        "reads": counts[Op::Read as usize],
        "writes": counts[Op::Write as usize],
        "trims": counts[Op::Trim as usize],
        "flushes": counts[Op::Flush as usize],
        "read_fraction": if data > 0 { counts[0] as f64 / data as f64 } else { 0.0 },
        "read_bytes": bytes[0],
        "write_bytes": bytes[1],
        "size_bytes": {
            "min": if sizes.is_empty() { 0 } else { sizes.min() },
            "mean": if sizes.is_empty() { 0.0 } else { sizes.mean() },
            "p50": q(&sizes, 0.5), "p90": q(&sizes, 0.9), "p99": q(&sizes, 0.99),
            "max": if sizes.is_empty() { 0 } else { sizes.max() },
        },
        "footprint_bytes": pages.len() as u64 * 4096,
        "written_footprint_bytes": pages.values().filter(|s| **s & WRITTEN != 0).count() as u64 * 4096,
        "page_reads": page_reads,
        "page_rereads": rereads,
        "reread_fraction": if page_reads > 0 { rereads as f64 / page_reads as f64 } else { 0.0 },
        "address_min": if lo == u64::MAX { 0 } else { lo },
        "address_max": hi,
        "duration_ns": duration,
        "interarrival_ns": {
            "mean": gap_mean, "stddev": gap_sd,
            "cv": if gap_mean > 0.0 { gap_sd / gap_mean } else { 0.0 },
            "p50": q(&gaps, 0.5), "p99": q(&gaps, 0.99),
            "max": if gaps.is_empty() { 0 } else { gaps.max() },
        },
        "devices": devices.into_iter().collect::<Vec<_>>(),
        "out_of_order": reader.out_of_order,
        "request_rate_per_s": if duration > 0 { n as f64 / (duration as f64 / 1e9) } else { 0.0 },
    }))
}
