//! The per-request log as the run produces it. The simulator hands a [`RequestSink`] one row per
//! measured request when it completes; the sink keeps it ([`MemorySink`], for `Result.requests`)
//! or streams it to disk ([`CsvSink`] for `--request-log`, [`LatLogSink`] for fio's
//! `--write-lat-log`), so that a long run's log costs disk, not memory. Files are written under a
//! temporary name beside their target and renamed into place when the run succeeds; a failed,
//! cancelled or panicking run drops its sinks, which removes the temporary files.

use std::collections::VecDeque;
use std::io;
use std::path::{Path, PathBuf};

pub use crate::sink::{combine, MemorySink, OutputError, RequestLogRow, RequestSink, Tee};
use crate::sink::AtomicFile;
use crate::trace::Op;

/// Column names of the per-request log, in order.
pub const REQUEST_LOG_COLUMNS: [&str; 16] = [
    "arrival_ns", "dispatch_ns", "complete_ns", "op", "offset", "len", "lat_ns",
    "host_queue_ns", "device_queue_ns", "die_wait_ns", "channel_wait_ns", "bus_ns", "array_ns", "ecc_ns", "cache_ns", "mapping_ns",
];

/// fio's latency logs (`write_lat_log=PREFIX`): total, completion and submission latency, in the
/// order of [`lat_log_paths`].
pub const LAT_LOG_KINDS: [&str; 3] = ["lat", "clat", "slat"];

/// Write buffers: large enough that the system calls cost nothing beside the formatting (the
/// CSV log of the reference run is 18 MB), small enough not to show in the run's memory.
const CSV_BUFFER: usize = 1 << 20;
const LAT_LOG_BUFFER: usize = 1 << 18;


/// One line of a log. The log is mostly integers and formatting them is most of its cost
/// (`write!` costs several times this): `itoa` formats them, and the line is copied once, whole,
/// into the file's buffer.
struct Line {
    buf: Vec<u8>,
    digits: itoa::Buffer,
}

impl Line {
    fn new() -> Self {
        Line { buf: Vec::with_capacity(320), digits: itoa::Buffer::new() }
    }

    fn clear(&mut self) {
        self.buf.clear();
    }

    fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    #[inline]
    fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    #[inline]
    fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(self.digits.format(v).as_bytes());
    }
}

/// The header line of the CSV log.
pub fn csv_header() -> String {
    REQUEST_LOG_COLUMNS.join(",") + "\n"
}

/// One CSV line of the log, as pandas' `to_csv` wrote it before the log was streamed: plain
/// integers, the operation's name unquoted.
fn csv_row(line: &mut Line, r: &RequestLogRow) {
    let s = &r.stages;
    line.clear();
    for v in [r.arrival_ns, r.dispatch_ns, r.complete_ns] {
        line.u64(v);
        line.bytes(b",");
    }
    line.bytes(r.op.name().as_bytes());
    for v in [r.offset, r.len, r.complete_ns - r.arrival_ns, s.host_queue, s.device_queue, s.die_wait, s.channel_wait, s.bus, s.array, s.ecc, s.cache, s.mapping] {
        line.bytes(b",");
        line.u64(v);
    }
    line.bytes(b"\n");
}

/// The per-request log as CSV (`--request-log FILE.csv`), streamed to disk.
pub struct CsvSink {
    file: AtomicFile,
    line: Line,
}

impl CsvSink {
    /// Opens the temporary file and writes the header; `path` itself appears at
    /// [`RequestSink::finish`].
    pub fn create(path: &Path) -> Result<Self, OutputError> {
        let mut file = AtomicFile::create(path, CSV_BUFFER)?;
        file.write(csv_header().as_bytes());
        Ok(CsvSink { file, line: Line::new() })
    }
}

impl RequestSink for CsvSink {
    #[inline]
    fn completed(&mut self, row: &RequestLogRow) {
        csv_row(&mut self.line, row);
        self.file.write(self.line.as_bytes());
    }

    fn check(&mut self) -> Result<(), OutputError> {
        self.file.check()
    }

    fn finish(mut self: Box<Self>) -> Result<Vec<RequestLogRow>, OutputError> {
        self.file.commit()?;
        Ok(Vec::new())
    }
}

/// The files `--write-lat-log PREFIX` writes, named as fio names them for its first job:
/// `PREFIX_lat.1.log`, `PREFIX_clat.1.log`, `PREFIX_slat.1.log`.
pub fn lat_log_paths(prefix: &str) -> [PathBuf; 3] {
    LAT_LOG_KINDS.map(|kind| PathBuf::from(format!("{prefix}_{kind}.1.log")))
}

/// fio's data direction: 0 read, 1 write, 2 trim; flushes have no latency log line.
fn fio_ddir(op: Op) -> Option<u8> {
    match op {
        Op::Read => Some(0),
        Op::Write => Some(1),
        Op::Trim => Some(2),
        Op::Flush => None,
    }
}

/// One line of a fio log with `log_offset=1`, as fio 3.x writes it: `time (ms), value (ns), data
/// direction, block size (bytes), offset (bytes), command priority` (always 0 here).
fn lat_log_line(line: &mut Line, time_ns: u64, value_ns: u64, ddir: u8, r: &RequestLogRow) {
    line.clear();
    for (i, v) in [time_ns / 1_000_000, value_ns, ddir as u64, r.len, r.offset].into_iter().enumerate() {
        if i > 0 {
            line.bytes(b", ");
        }
        line.u64(v);
    }
    line.bytes(b", 0\n");
}

/// Requests dispatched in the same ns, and how many of them have not completed yet.
struct DispatchGroup {
    dispatch_ns: u64,
    pending: u32,
    rows: Vec<RequestLogRow>,
}

/// The submission log is in dispatch order but rows come in completion order: a row waits here
/// until every request dispatched before it has completed. Requests dispatched in the same ns
/// keep their completion order, so the log is what a stable sort of all rows by dispatch time
/// gives (what it was before the log was streamed), with memory bounded by the requests in
/// flight.
#[derive(Default)]
struct DispatchOrder {
    groups: VecDeque<DispatchGroup>,
    /// Emptied row lists, reused.
    spare: Vec<Vec<RequestLogRow>>,
}

impl DispatchOrder {
    /// Dispatch times are the simulator's clock: they do not decrease, except when SSDSim's
    /// admission cap sets the clock back (`host.queue_length`, `sim::admission`); such a
    /// dispatch goes in its place among the groups still held.
    fn dispatched(&mut self, dispatch_ns: u64) {
        match self.groups.back_mut() {
            Some(g) if g.dispatch_ns == dispatch_ns => g.pending += 1,
            Some(g) if g.dispatch_ns > dispatch_ns => self.dispatched_earlier(dispatch_ns),
            _ => {
                let rows = self.spare.pop().unwrap_or_default();
                self.groups.push_back(DispatchGroup { dispatch_ns, pending: 1, rows });
            }
        }
    }

    /// A dispatch earlier than the last one (the clock was set back).
    #[cold]
    fn dispatched_earlier(&mut self, dispatch_ns: u64) {
        let i = self.groups.partition_point(|g| g.dispatch_ns < dispatch_ns);
        match self.groups.get_mut(i) {
            Some(g) if g.dispatch_ns == dispatch_ns => g.pending += 1,
            _ => {
                let rows = self.spare.pop().unwrap_or_default();
                self.groups.insert(i, DispatchGroup { dispatch_ns, pending: 1, rows });
            }
        }
    }

    /// False when the row's dispatch was never announced (the caller writes it at once).
    fn completed(&mut self, row: &RequestLogRow) -> bool {
        let i = self.groups.partition_point(|g| g.dispatch_ns < row.dispatch_ns);
        match self.groups.get_mut(i) {
            Some(g) if g.dispatch_ns == row.dispatch_ns && g.pending > 0 => {
                g.pending -= 1;
                g.rows.push(*row);
                true
            }
            _ => false,
        }
    }

    /// Hands `emit` the rows no earlier dispatch can precede any more; with `all`, every row
    /// (the run is over).
    fn drain(&mut self, all: bool, mut emit: impl FnMut(&RequestLogRow)) {
        while self.groups.front().is_some_and(|g| all || g.pending == 0) {
            let Some(mut g) = self.groups.pop_front() else { break };
            g.rows.iter().for_each(&mut emit);
            g.rows.clear();
            self.spare.push(g.rows);
        }
    }
}

/// fio-style latency logs (`--write-lat-log PREFIX`), streamed to disk: the `lat` and `clat`
/// lines at each completion, the `slat` lines in dispatch order (see [`DispatchOrder`]). The
/// three files are renamed into place together: on any error none of them is left behind.
pub struct LatLogSink {
    /// In [`LAT_LOG_KINDS`] order.
    files: [AtomicFile; 3],
    slat: DispatchOrder,
    line: Line,
}

impl LatLogSink {
    pub fn create(prefix: &str) -> Result<Self, OutputError> {
        if prefix.is_empty() {
            return Err(OutputError::EmptyPrefix);
        }
        let [lat, clat, slat] = lat_log_paths(prefix);
        // An error drops the files already opened, which removes them.
        let files = [
            AtomicFile::create(&lat, LAT_LOG_BUFFER)?,
            AtomicFile::create(&clat, LAT_LOG_BUFFER)?,
            AtomicFile::create(&slat, LAT_LOG_BUFFER)?,
        ];
        Ok(LatLogSink { files, slat: DispatchOrder::default(), line: Line::new() })
    }

    fn write_slat(file: &mut AtomicFile, line: &mut Line, r: &RequestLogRow) {
        if let Some(d) = fio_ddir(r.op) {
            lat_log_line(line, r.dispatch_ns, r.dispatch_ns - r.arrival_ns, d, r);
            file.write(line.as_bytes());
        }
    }

    fn drain_slat(&mut self, all: bool) {
        let (file, line) = (&mut self.files[2], &mut self.line);
        self.slat.drain(all, |r| Self::write_slat(file, line, r));
    }
}

impl RequestSink for LatLogSink {
    fn dispatched(&mut self, op: Op, dispatch_ns: u64) {
        if fio_ddir(op).is_some() {
            self.slat.dispatched(dispatch_ns);
        }
    }

    fn completed(&mut self, r: &RequestLogRow) {
        let Some(d) = fio_ddir(r.op) else { return };
        lat_log_line(&mut self.line, r.complete_ns, r.complete_ns - r.arrival_ns, d, r);
        self.files[0].write(self.line.as_bytes());
        lat_log_line(&mut self.line, r.complete_ns, r.complete_ns - r.dispatch_ns, d, r);
        self.files[1].write(self.line.as_bytes());
        if self.slat.completed(r) {
            self.drain_slat(false);
        } else {
            Self::write_slat(&mut self.files[2], &mut self.line, r);
        }
    }

    fn check(&mut self) -> Result<(), OutputError> {
        self.files.iter_mut().try_for_each(AtomicFile::check)
    }

    fn finish(mut self: Box<Self>) -> Result<Vec<RequestLogRow>, OutputError> {
        self.drain_slat(true);
        self.files.iter_mut().try_for_each(AtomicFile::flush)?;
        for k in 0..self.files.len() {
            if let Err(e) = self.files[k].rename() {
                // All three or none: take back the logs already renamed into place.
                for done in &self.files[..k] {
                    let _ = std::fs::remove_file(&done.path);
                }
                return Err(e);
            }
        }
        Ok(Vec::new())
    }
}

/// Write fio-style latency logs of the measured reads, writes and trims from rows kept in memory
/// (in completion order): `PREFIX_lat.1.log` and `PREFIX_clat.1.log` one line per request at its
/// completion time (completion order), `PREFIX_slat.1.log` one line per request at its dispatch
/// time (dispatch order), as fio logs submission latency when it submits. Time is simulated ms
/// since the start of the simulation (truncated, as fio does), values are ns. The files appear
/// together, and on any error none of the three is left behind. Returns the paths written. A run
/// streams the same logs with a [`LatLogSink`] instead.
pub fn write_lat_logs(prefix: &str, rows: &[RequestLogRow]) -> io::Result<[PathBuf; 3]> {
    let mut sink = Box::new(LatLogSink::create(prefix)?);
    // Dispatch order for the submission log (stable: ties keep completion order).
    let mut by_dispatch: Vec<&RequestLogRow> = rows.iter().collect();
    by_dispatch.sort_by_key(|r| r.dispatch_ns);
    for r in by_dispatch {
        sink.dispatched(r.op, r.dispatch_ns);
    }
    for r in rows {
        sink.completed(r);
    }
    sink.finish()?;
    Ok(lat_log_paths(prefix))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Breakdown;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("flashsched-reqlog-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    #[test]
    fn integers_in_decimal() {
        for v in [0, 7, 10, 99, 100, 101, 999, 1000, 9999, 10_000, 10_001, 12345, 1_000_000, u32::MAX as u64, u64::MAX] {
            let mut line = Line::new();
            line.u64(v);
            line.bytes(b" ");
            line.u64(v);
            assert_eq!(String::from_utf8(line.as_bytes().to_vec()).unwrap(), format!("{v} {v}"));
        }
    }

    #[test]
    fn csv_row_as_pandas_wrote_it() {
        let stages = Breakdown { host_queue: 1, device_queue: 2, die_wait: 3, channel_wait: 4, bus: 5, array: 6, ecc: 0, cache: 0, mapping: 0 };
        let r = RequestLogRow { arrival_ns: 10, dispatch_ns: 11, complete_ns: 31, op: Op::Trim, offset: 1 << 40, len: 4096, stages };
        let mut line = Line::new();
        csv_row(&mut line, &r);
        assert_eq!(String::from_utf8(line.as_bytes().to_vec()).unwrap(), "10,11,31,trim,1099511627776,4096,21,1,2,3,4,5,6,0,0,0\n");
        // The longest line fits.
        let big = RequestLogRow { arrival_ns: 0, dispatch_ns: u64::MAX, complete_ns: u64::MAX, op: Op::Write, offset: u64::MAX, len: u64::MAX, stages: Breakdown { host_queue: u64::MAX, device_queue: u64::MAX, die_wait: u64::MAX, channel_wait: u64::MAX, bus: u64::MAX, array: u64::MAX, ecc: u64::MAX, cache: u64::MAX, mapping: u64::MAX } };
        csv_row(&mut line, &big);
        assert_eq!(line.as_bytes().len(), 14 * 20 + 1 + 5 + 16);
    }

    #[test]
    fn slat_in_dispatch_order_ties_in_completion_order() {
        let row = |d: u64, c: u64| RequestLogRow { arrival_ns: 0, dispatch_ns: d, complete_ns: c, op: Op::Read, offset: c, len: 4096, stages: Breakdown::default() };
        let mut order = DispatchOrder::default();
        let mut out = Vec::new();
        for d in [5, 5, 5, 8, 9] {
            order.dispatched(d);
        }
        for r in [row(8, 20), row(5, 21), row(9, 22), row(5, 23)] {
            assert!(order.completed(&r));
            order.drain(false, |r| out.push(r.offset));
        }
        assert!(out.is_empty(), "a request dispatched at 5 is still in flight: {out:?}");
        assert!(order.completed(&row(5, 24)));
        order.drain(false, |r| out.push(r.offset));
        assert_eq!(out, [21, 23, 24, 20, 22]);
        assert!(!order.completed(&row(3, 25)), "never dispatched");
        assert!(order.groups.is_empty());
    }

    #[test]
    fn a_dispatch_earlier_than_the_last_goes_in_its_place() {
        // SSDSim's admission cap sets the clock back: dispatches at 10, 30, then 20 and 10.
        let row = |d: u64, c: u64| RequestLogRow { arrival_ns: 0, dispatch_ns: d, complete_ns: c, op: Op::Read, offset: c, len: 4096, stages: Breakdown::default() };
        let mut order = DispatchOrder::default();
        let mut out = Vec::new();
        for d in [10, 30, 20, 10] {
            order.dispatched(d);
        }
        assert_eq!(order.groups.iter().map(|g| (g.dispatch_ns, g.pending)).collect::<Vec<_>>(), [(10, 2), (20, 1), (30, 1)]);
        for r in [row(30, 40), row(20, 41), row(10, 42), row(10, 43)] {
            assert!(order.completed(&r), "{r:?}");
            order.drain(false, |r| out.push(r.offset));
        }
        assert_eq!(out, [42, 43, 41, 40]);
        assert!(order.groups.is_empty());
    }

    #[test]
    fn dropped_unfinished_leaves_nothing() {
        let dir = scratch("drop");
        let row = RequestLogRow { arrival_ns: 0, dispatch_ns: 0, complete_ns: 1, op: Op::Write, offset: 0, len: 512, stages: Breakdown::default() };
        let mut csv = CsvSink::create(&dir.join("a").join("req.csv")).unwrap();
        let mut lat = LatLogSink::create(dir.join("lat").to_str().unwrap()).unwrap();
        lat.dispatched(row.op, 0);
        for _ in 0..100_000 {
            csv.completed(&row); // more than the buffer: part of it reached the temporary file
            lat.completed(&row);
        }
        assert_eq!(names(&dir.join("a")).len(), 1, "the temporary file");
        drop(csv);
        drop(lat);
        assert!(names(&dir.join("a")).is_empty());
        assert_eq!(names(&dir), ["a"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_directory_in_the_way_fails_before_the_run() {
        let dir = scratch("isdir");
        std::fs::create_dir_all(dir.join("req.csv")).unwrap();
        let e = CsvSink::create(&dir.join("req.csv")).err().unwrap();
        assert_eq!(e.to_string(), format!("cannot write {}: it is a directory", dir.join("req.csv").display()));
        assert_eq!(names(&dir), ["req.csv"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn row(arrival: u64, dispatch: u64, complete: u64, op: Op, offset: u64, len: u64) -> RequestLogRow {
        RequestLogRow { arrival_ns: arrival, dispatch_ns: dispatch, complete_ns: complete, op, offset, len, stages: Breakdown::default() }
    }

    #[test]
    fn lat_logs_in_fio_format() {
        let dir = scratch("latlog-ok");
        // In completion order, as the simulator logs them; the second was dispatched first.
        let rows = [
            row(1_000_000, 3_500_000, 4_200_000, Op::Read, 8192, 4096),
            row(2_000_000, 2_000_000, 5_999_999, Op::Write, 0, 16384),
            row(6_000_000, 6_000_000, 6_000_000, Op::Flush, 0, 0),
            row(7_000_000, 7_250_000, 9_000_001, Op::Trim, 1 << 20, 65536),
        ];
        let prefix = dir.join("sub").join("run");
        let paths = write_lat_logs(prefix.to_str().unwrap(), &rows).unwrap();
        let read = |i: usize| std::fs::read_to_string(&paths[i]).unwrap();
        assert!(paths[0].ends_with("sub/run_lat.1.log") && paths[2].ends_with("sub/run_slat.1.log"));
        assert_eq!(read(0), "4, 3200000, 0, 4096, 8192, 0\n5, 3999999, 1, 16384, 0, 0\n9, 2000001, 2, 65536, 1048576, 0\n");
        assert_eq!(read(1), "4, 700000, 0, 4096, 8192, 0\n5, 3999999, 1, 16384, 0, 0\n9, 1750001, 2, 65536, 1048576, 0\n");
        // Submission latency is logged at dispatch, in dispatch order.
        assert_eq!(read(2), "2, 0, 1, 16384, 0, 0\n3, 2500000, 0, 4096, 8192, 0\n7, 250000, 2, 65536, 1048576, 0\n");
        let names: Vec<String> = std::fs::read_dir(dir.join("sub")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        assert_eq!(names.len(), 3, "no temporary file left: {names:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn lat_log_errors_leave_nothing_behind() {
        let dir = scratch("latlog-err");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("plain");
        std::fs::write(&file, "x").unwrap();
        let rows = [row(0, 0, 10, Op::Read, 0, 4096)];
        // A prefix under a regular file: its directory cannot be created.
        let e = write_lat_logs(file.join("run").to_str().unwrap(), &rows).unwrap_err();
        assert!(e.to_string().contains("plain"), "{e}");
        // The target of the second log is a directory: the first log is not left half-done either.
        std::fs::create_dir(dir.join("run_clat.1.log")).unwrap();
        let e = write_lat_logs(dir.join("run").to_str().unwrap(), &rows).unwrap_err();
        assert!(e.to_string().contains("run_clat.1.log"), "{e}");
        let mut names: Vec<String> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        assert_eq!(names, ["plain", "run_clat.1.log"]);
        assert_eq!(write_lat_logs("", &rows).unwrap_err().kind(), std::io::ErrorKind::InvalidInput);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
