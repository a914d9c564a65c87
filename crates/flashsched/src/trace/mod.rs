//! Block traces: every supported format parses, line by line and in bounded memory, into the same
//! [`TraceRecord`]. Errors name the file and line (`trace.csv:1041: size "-8" is not a positive
//! integer`).

mod ascii;
mod blkparse;
mod fio;
mod msr;
mod spc;
pub mod stats;

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::config::settings::TraceFormat;
use crate::engine::MAX_TIME;

/// What a host request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    Read,
    Write,
    /// Discard: the FTL invalidates the pages; no flash operation.
    Trim,
    /// Cache flush: nothing to do without a write cache; completes at once.
    Flush,
}

impl Op {
    pub fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Trim => "trim",
            Op::Flush => "flush",
        }
    }
}

/// The default of `workload.max_request_size` (1 GiB), and the largest request `trace stats`
/// counts page by page.
pub const MAX_REQUEST_BYTES: u64 = 1 << 30;

/// One request of a trace, normalised: time relative to the first selected request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TraceRecord {
    pub time_ns: u64,
    pub op: Op,
    pub offset: u64,
    pub len: u64,
    pub device: u64,
    /// Line of the trace file it came from (1-based), for error messages further down.
    pub line: u64,
}

/// A record as a format parser sees it, with time in the file's own epoch (ns, may be huge).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RawRecord {
    pub time_ns: i128,
    pub op: Op,
    pub offset: u64,
    pub len: u64,
    pub device: u64,
}

/// A trace problem, with where it is.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct TraceError {
    pub file: String,
    /// 0 when the problem is with the file as a whole.
    pub line: u64,
    pub message: String,
}

/// A line parser for one format. `Ok(None)` means the line carries no request (a header, a comment,
/// a blkparse event of another kind) and is skipped on purpose.
pub(crate) trait LineParser: Send {
    fn parse(&mut self, line: &str) -> Result<Option<RawRecord>, String>;
}

/// Streams records from a trace file.
pub struct TraceReader {
    input: Box<dyn BufRead + Send>,
    parser: Box<dyn LineParser>,
    pub format: TraceFormat,
    file: String,
    line_no: u64,
    buf: String,
    device: Option<u64>,
    base: Option<i128>,
    last_ns: u64,
    /// Records whose timestamp went backwards; they are replayed at the previous record's time.
    pub out_of_order: u64,
    /// Leading `#` comment lines (generated traces say there what made them).
    pub header: Vec<String>,
    /// Compressed bytes consumed so far, for progress.
    consumed: Arc<AtomicU64>,
    pub file_size: u64,
}

/// `inner`, decompressed on the fly by the name's extension: `.gz` (gzip, members concatenated),
/// `.zst` or `.zstd`; any other name is read as it is. Only a zstd header can fail here.
pub fn decompressed<R: std::io::Read + Send + 'static>(inner: R, name: &str) -> std::io::Result<Box<dyn BufRead + Send>> {
    let lower = name.to_ascii_lowercase();
    Ok(if lower.ends_with(".gz") {
        Box::new(BufReader::with_capacity(1 << 16, flate2::read::MultiGzDecoder::new(BufReader::new(inner))))
    } else if lower.ends_with(".zst") || lower.ends_with(".zstd") {
        Box::new(BufReader::with_capacity(1 << 16, zstd::stream::read::Decoder::new(inner)?))
    } else {
        Box::new(BufReader::with_capacity(1 << 16, inner))
    })
}

impl TraceReader {
    /// Open a trace; `.gz` and `.zst` are decompressed on the fly. `format` may be `Auto`.
    pub fn open(path: &Path, format: TraceFormat, device: Option<u64>, blkparse_action: char) -> Result<Self, TraceError> {
        let name = path.display().to_string();
        let whole = |message: String| TraceError { file: name.clone(), line: 0, message };
        let file = File::open(path).map_err(|e| whole(format!("cannot open: {e}")))?;
        let file_size = file.metadata().map(|m| m.len()).unwrap_or(0);
        let consumed = Arc::new(AtomicU64::new(0));
        let counted = CountingReader { inner: file, count: consumed.clone() };
        let mut input = decompressed(counted, &name).map_err(|e| whole(format!("not a zstd file: {e}")))?;
        let format = match format {
            TraceFormat::Auto => {
                let head = peek_lines(&mut input, 64).map_err(|e| whole(format!("cannot read: {e}")))?;
                detect(&head).ok_or_else(|| {
                    whole("cannot tell the trace format from its first lines; pass --format (msr, spc, blkparse, disksim, mqsim, fio)".into())
                })?
            }
            f => f,
        };
        let parser: Box<dyn LineParser> = match format {
            TraceFormat::Msr => Box::new(msr::Msr::default()),
            TraceFormat::Spc => Box::new(spc::Spc),
            TraceFormat::Blkparse => Box::new(blkparse::Blkparse::new(blkparse_action)),
            TraceFormat::Disksim => Box::new(ascii::Ascii::disksim()),
            TraceFormat::Mqsim => Box::new(ascii::Ascii::mqsim()),
            TraceFormat::Fio => Box::new(fio::Fio::default()),
            TraceFormat::Auto => unreachable!(),
        };
        Ok(TraceReader {
            input,
            parser,
            format,
            file: name,
            line_no: 0,
            buf: String::with_capacity(256),
            device,
            base: None,
            last_ns: 0,
            out_of_order: 0,
            header: Vec::new(),
            consumed,
            file_size,
        })
    }

    pub fn file_name(&self) -> &str {
        &self.file
    }

    /// Fraction of the file read so far (by compressed bytes), for progress bars.
    pub fn progress(&self) -> f64 {
        if self.file_size == 0 {
            return 0.0;
        }
        (self.consumed.load(Ordering::Relaxed) as f64 / self.file_size as f64).min(1.0)
    }

    fn error(&self, message: String) -> TraceError {
        TraceError { file: self.file.clone(), line: self.line_no, message }
    }

    /// The next request, or `None` at the end of the trace.
    pub fn next_record(&mut self) -> Result<Option<TraceRecord>, TraceError> {
        loop {
            self.buf.clear();
            let n = self.input.read_line(&mut self.buf).map_err(|e| {
                let m = if e.kind() == io::ErrorKind::InvalidData { "not text (invalid UTF-8)".to_string() } else { format!("cannot read: {e}") };
                TraceError { file: self.file.clone(), line: self.line_no + 1, message: m }
            })?;
            if n == 0 {
                return Ok(None);
            }
            self.line_no += 1;
            let line = self.buf.trim();
            if line.is_empty() {
                continue;
            }
            if line.starts_with('#') && self.base.is_none() && self.header.len() < 16 {
                self.header.push(line.trim_start_matches('#').trim().to_string());
            }
            let rec = match self.parser.parse(line) {
                Ok(Some(r)) => r,
                Ok(None) => continue,
                Err(m) => return Err(self.error(m)),
            };
            // Checked here, for every format: an extent that wraps past 2^64 would make no
            // transactions downstream and silently "complete".
            if rec.offset.checked_add(rec.len).is_none() {
                return Err(self.error(format!(
                    "offset {} + length {} bytes runs past the largest byte address (2^64 - 1)",
                    rec.offset, rec.len
                )));
            }
            if let Some(d) = self.device {
                if rec.device != d {
                    continue;
                }
            }
            if rec.len == 0 && rec.op != Op::Flush {
                return Err(self.error("size 0: a request must move at least one byte".into()));
            }
            let base = *self.base.get_or_insert(rec.time_ns);
            let rel = rec.time_ns - base;
            if rel > MAX_TIME as i128 {
                return Err(self.error(format!(
                    "timestamp {} ns after the first request's is past the latest time a run can reach ({} ns, about 146 years): \
                     is the time unit right?",
                    rel, MAX_TIME
                )));
            }
            // A record earlier than the previous one, the first included, is out of order: it is
            // replayed at the previous record's time and counted.
            let mut t = rel.max(0) as u64;
            if rel < 0 || t < self.last_ns {
                self.out_of_order += 1;
                t = self.last_ns;
            }
            self.last_ns = t;
            return Ok(Some(TraceRecord { time_ns: t, op: rec.op, offset: rec.offset, len: rec.len, device: rec.device, line: self.line_no }));
        }
    }
}

struct CountingReader<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Look at the first lines without consuming them.
fn peek_lines(input: &mut Box<dyn BufRead + Send>, max: usize) -> io::Result<Vec<String>> {
    let buf = input.fill_buf()?;
    let text = String::from_utf8_lossy(buf);
    let mut lines: Vec<String> = text.lines().take(max + 1).map(|l| l.to_string()).collect();
    if lines.len() > max {
        lines.pop(); // possibly cut in the middle
    }
    Ok(lines)
}

/// Guess the format from a trace's first lines. Documented in docs/reference/traces.md.
pub fn detect(lines: &[String]) -> Option<TraceFormat> {
    let first = lines.iter().map(|l| l.trim()).find(|l| !l.is_empty() && !l.starts_with('#'))?;
    if first.starts_with("fio version") {
        return Some(TraceFormat::Fio);
    }
    let commas: Vec<&str> = first.split(',').map(str::trim).collect();
    if commas.len() == 7 && matches!(commas[3].to_ascii_lowercase().as_str(), "read" | "write") {
        return Some(TraceFormat::Msr);
    }
    if commas.len() >= 5 && matches!(commas[3].to_ascii_lowercase().as_str(), "r" | "w") {
        return Some(TraceFormat::Spc);
    }
    let ws: Vec<&str> = first.split_whitespace().collect();
    if ws.len() >= 7 && ws[0].contains(',') && ws[0].split(',').all(|p| p.parse::<u32>().is_ok()) {
        return Some(TraceFormat::Blkparse);
    }
    if ws.len() == 5 && ws.iter().all(|f| f.parse::<f64>().is_ok()) {
        // DiskSim times are float milliseconds; MQSim/SSDSim times are integer nanoseconds.
        let data: Vec<&str> = lines.iter().map(|l| l.trim()).filter(|l| !l.is_empty()).collect();
        let any_fraction = data.iter().any(|l| l.split_whitespace().next().is_some_and(|t| t.contains('.')));
        return Some(if any_fraction { TraceFormat::Disksim } else { TraceFormat::Mqsim });
    }
    None
}

// ---- small parsing helpers shared by the formats

/// Parse a non-negative decimal number exactly, scaled by 10^digits (e.g. seconds to ns with 9).
pub(crate) fn parse_scaled(s: &str, digits: u32, what: &str) -> Result<i128, String> {
    let bad = || format!("{what} \"{s}\" is not a non-negative number");
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if int.is_empty() && frac.is_empty() || s.starts_with('-') {
        return Err(bad());
    }
    if !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        // Fall back to float parsing for exponents (1.5e3).
        let f: f64 = s.parse().map_err(|_| bad())?;
        if !(f >= 0.0) || !f.is_finite() {
            return Err(bad());
        }
        return Ok((f * 10f64.powi(digits as i32)).round() as i128);
    }
    let i: i128 = if int.is_empty() { 0 } else { int.parse().map_err(|_| bad())? };
    let mut f: i128 = 0;
    for (k, b) in frac.bytes().enumerate() {
        if k as u32 >= digits {
            break;
        }
        f = f * 10 + (b - b'0') as i128;
    }
    let used = frac.len().min(digits as usize) as u32;
    f *= 10i128.pow(digits - used);
    i.checked_mul(10i128.pow(digits)).and_then(|i| i.checked_add(f)).ok_or_else(|| format!("{what} \"{s}\" is too large"))
}

pub(crate) fn parse_u64(s: &str, what: &str) -> Result<u64, String> {
    s.parse::<u64>().map_err(|_| {
        if s.starts_with('-') {
            format!("{what} \"{s}\" is negative")
        } else {
            format!("{what} \"{s}\" is not a non-negative integer")
        }
    })
}

pub(crate) fn parse_size(s: &str, what: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(0) => Err(format!("{what} \"0\" is not a positive integer")),
        Ok(v) => Ok(v),
        Err(_) => Err(format!("{what} \"{s}\" is not a positive integer")),
    }
}

pub(crate) fn expect_fields<'a>(fields: &[&'a str], n: usize, layout: &str) -> Result<(), String> {
    if fields.len() < n {
        Err(format!("expected {n} fields ({layout}), found {}: truncated line?", fields.len()))
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_decimal_is_exact() {
        assert_eq!(parse_scaled("9.378421157", 9, "t").unwrap(), 9_378_421_157);
        assert_eq!(parse_scaled("0.221", 6, "t").unwrap(), 221_000);
        assert_eq!(parse_scaled("12", 6, "t").unwrap(), 12_000_000);
        assert!(parse_scaled("-1", 6, "t").is_err());
        assert!(parse_scaled("x", 6, "t").is_err());
    }

    /// Every reader, given a line whose extent does not fit in 64 bits (after a good first line),
    /// stops at that line with the file and line number, instead of handing on a wrapped request.
    #[test]
    fn extents_past_2_pow_64_are_rejected_with_file_and_line() {
        let dir = std::env::temp_dir().join(format!("flashsched-wrap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // 2^55 - 1 sectors of 512 bytes end 512 bytes below 2^64; 2^55 sectors are past it.
        let near = (1u64 << 55) - 1;
        let past = 1u64 << 55;
        let max = u64::MAX;
        let cases: Vec<(TraceFormat, String, &str)> = vec![
            (TraceFormat::Msr, format!("0,hm,0,Read,0,4096,1\n1,hm,0,Write,{max},4096,1\n"), "runs past the largest byte address"),
            (TraceFormat::Spc, format!("0,0,4096,r,0.0\n0,{near},4096,w,0.1\n"), "runs past the largest byte address"),
            (TraceFormat::Spc, format!("0,0,4096,r,0.0\n0,{past},4096,w,0.1\n"), "is too large"),
            (
                TraceFormat::Blkparse,
                format!("8,16 0 1 0.000001 1 Q R 0 + 8 [a]\n8,16 0 2 0.000002 1 Q W {near} + 16 [a]\n"),
                "runs past the largest byte address",
            ),
            (TraceFormat::Blkparse, format!("8,16 0 1 0.000001 1 Q R 0 + 8 [a]\n8,16 0 2 0.000002 1 Q W {past} + 8 [a]\n"), "sector"),
            (TraceFormat::Blkparse, format!("8,16 0 1 0.000001 1 Q R 0 + 8 [a]\n8,16 0 2 0.000002 1 Q W 0 + {past} [a]\n"), "nblocks"),
            (TraceFormat::Disksim, format!("0.0 0 0 8 1\n0.5 0 {near} 16 0\n"), "runs past the largest byte address"),
            (TraceFormat::Mqsim, format!("0 0 0 8 1\n500 0 {near} 16 0\n"), "runs past the largest byte address"),
            (TraceFormat::Mqsim, format!("0 0 0 8 1\n500 0 {past} 16 0\n"), "block"),
            (TraceFormat::Fio, format!("fio version 2 iolog\n/dev/sdb read 0 4096\n/dev/sdb write {} 4096\n", max - 100), "runs past the largest byte address"),
            (TraceFormat::Fio, format!("fio version 3 iolog\n1 /dev/sdb trim 0 4096\n2 /dev/sdb trim 4096 {max}\n"), "runs past the largest byte address"),
        ];
        let mut failures = Vec::new();
        for (i, (format, text, message)) in cases.into_iter().enumerate() {
            let path = dir.join(format!("case{i}.{}", format.name()));
            std::fs::write(&path, &text).unwrap();
            let mut r = TraceReader::open(&path, format.clone(), None, 'Q').unwrap();
            let bad_line = text.lines().count() as u64;
            let result = loop {
                match r.next_record() {
                    Ok(Some(_)) => continue,
                    other => break other,
                }
            };
            let prefix = format!("{}:{bad_line}: ", path.display());
            match result {
                Err(e) if e.to_string().starts_with(&prefix) && e.to_string().contains(message) => {}
                other => failures.push(format!("{} case {i}: expected \"{prefix}...{message}...\", got {other:?}", format.name())),
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    fn read_all(name: &str, format: TraceFormat, text: &str) -> (Result<Vec<TraceRecord>, TraceError>, u64, String) {
        let dir = std::env::temp_dir().join(format!("flashsched-time-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let mut r = TraceReader::open(&path, format, None, 'Q').unwrap();
        let mut out = Vec::new();
        let result = loop {
            match r.next_record() {
                Ok(Some(rec)) => out.push(rec),
                Ok(None) => break Ok(out),
                Err(e) => break Err(e),
            }
        };
        std::fs::remove_dir_all(&dir).unwrap();
        (result, r.out_of_order, path.display().to_string())
    }

    /// A timestamp the simulator cannot represent is an error at its line, not a clamped value.
    #[test]
    fn timestamps_past_the_latest_time_are_an_error_at_their_line() {
        // MSR FILETIME ticks of 100 ns: the second line is 2^64 ns after the first.
        let first = 128_166_385_295_514_663u128;
        let past = first + (1u128 << 64) / 100;
        let (r, _, path) = read_all("big.csv", TraceFormat::Msr, &format!("{first},hm,0,Read,0,4096,1\n{past},hm,0,Write,0,4096,1\n"));
        let e = r.unwrap_err().to_string();
        assert!(e.starts_with(&format!("{path}:2: ")) && e.contains("past the latest time"), "{e}");
        // A digit string too long for 128 bits is refused too, not wrapped.
        let (r, _, _) = read_all("huge.csv", TraceFormat::Disksim, &format!("0.0 0 0 8 1\n{}.0 0 0 8 1\n", "9".repeat(38)));
        assert!(r.unwrap_err().to_string().contains("too large"));
    }

    /// A record earlier than the first is out of order like any record earlier than the one before.
    #[test]
    fn a_record_before_the_first_is_counted_out_of_order() {
        let (r, ooo, _) = read_all("early.trace", TraceFormat::Mqsim, "1000 0 0 8 1\n500 0 8 8 1\n2000 0 16 8 1\n");
        let times: Vec<u64> = r.unwrap().iter().map(|t| t.time_ns).collect();
        assert_eq!(times, vec![0, 0, 1000]);
        assert_eq!(ooo, 1);
    }

    #[test]
    fn detection() {
        let d = |s: &str| detect(&s.lines().map(String::from).collect::<Vec<_>>());
        assert_eq!(d("128166385295514663,hm,0,Write,9056014336,2048,2833"), Some(TraceFormat::Msr));
        assert_eq!(d("0,303567,3584,w,0.000000"), Some(TraceFormat::Spc));
        assert_eq!(d("0.000 5 174224064 16 1\n0.221 5 1 16 1"), Some(TraceFormat::Disksim));
        assert_eq!(d("11413000 0 657728 16 1"), Some(TraceFormat::Mqsim));
        assert_eq!(d("  8,16   5        2     0.000001850 18615  Q   R 1444645666 + 256 [java]"), Some(TraceFormat::Blkparse));
        assert_eq!(d("fio version 2 iolog\n"), Some(TraceFormat::Fio));
        assert_eq!(d("hello world"), None);
    }
}
