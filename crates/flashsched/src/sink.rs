//! Where a run's streamed outputs go while the simulator runs: the per-request log (one
//! [`RequestLogRow`] per measured request, handed to a [`RequestSink`] as the request completes)
//! and the interval statistics ([`IntervalFile`], one JSON line per window). The simulator writes
//! to these; `report` provides the file formats (CSV, fio's latency logs). Files are written under
//! a temporary name beside their target ([`AtomicFile`]) and renamed into place when the run
//! succeeds; a failed, cancelled or panicking run drops them, which removes the temporary files.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::stats::Breakdown;
use crate::trace::Op;

/// One row of the per-request log (handed to a [`RequestSink`] as the request completes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RequestLogRow {
    pub arrival_ns: u64,
    pub dispatch_ns: u64,
    pub complete_ns: u64,
    pub op: Op,
    pub offset: u64,
    pub len: u64,
    pub stages: Breakdown,
}

/// A log file that could not be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("cannot write {}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error("the latency log prefix is empty")]
    EmptyPrefix,
}

impl OutputError {
    pub(crate) fn io(path: &Path, source: io::Error) -> Self {
        OutputError::Io { path: path.to_path_buf(), source }
    }
}

impl From<OutputError> for io::Error {
    fn from(e: OutputError) -> Self {
        let kind = match &e {
            OutputError::Io { source, .. } => source.kind(),
            OutputError::EmptyPrefix => io::ErrorKind::InvalidInput,
        };
        io::Error::new(kind, e.to_string())
    }
}

/// Where the per-request log goes while the simulator runs. Only measured requests are reported
/// (warm-up requests are not).
pub trait RequestSink: Send {
    /// A measured request was dispatched to the device at `dispatch_ns` (calls come in dispatch
    /// order, before the request's [`RequestSink::completed`]).
    fn dispatched(&mut self, _op: Op, _dispatch_ns: u64) {}

    /// A measured request completed (calls come in completion order).
    fn completed(&mut self, row: &RequestLogRow);

    /// The first write error so far: the simulator asks every few thousand events, and stops
    /// rather than simulate to the end for a log that cannot be written.
    fn check(&mut self) -> Result<(), OutputError> {
        Ok(())
    }

    /// The run succeeded: flush and rename the files into place. Returns the rows kept in memory
    /// (none for the sinks that write files).
    fn finish(self: Box<Self>) -> Result<Vec<RequestLogRow>, OutputError>;
}

impl std::fmt::Debug for dyn RequestSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RequestSink")
    }
}

/// The rows in memory, for `RunResult::request_log` (`Result.requests` in Python).
#[derive(Debug, Default)]
pub struct MemorySink {
    rows: Vec<RequestLogRow>,
}

impl RequestSink for MemorySink {
    fn completed(&mut self, row: &RequestLogRow) {
        self.rows.push(*row);
    }

    fn finish(self: Box<Self>) -> Result<Vec<RequestLogRow>, OutputError> {
        Ok(self.rows)
    }
}

/// Several sinks fed the same rows, finished in order.
pub struct Tee(pub Vec<Box<dyn RequestSink>>);

impl RequestSink for Tee {
    fn dispatched(&mut self, op: Op, dispatch_ns: u64) {
        for s in &mut self.0 {
            s.dispatched(op, dispatch_ns);
        }
    }

    fn completed(&mut self, row: &RequestLogRow) {
        for s in &mut self.0 {
            s.completed(row);
        }
    }

    fn check(&mut self) -> Result<(), OutputError> {
        self.0.iter_mut().try_for_each(|s| s.check())
    }

    fn finish(self: Box<Self>) -> Result<Vec<RequestLogRow>, OutputError> {
        let mut rows = Vec::new();
        for s in self.0 {
            let kept = s.finish()?;
            if rows.is_empty() {
                rows = kept;
            } else {
                rows.extend(kept);
            }
        }
        Ok(rows)
    }
}

/// One sink for all of `sinks`: none, the only one, or a [`Tee`].
pub fn combine(mut sinks: Vec<Box<dyn RequestSink>>) -> Option<Box<dyn RequestSink>> {
    match sinks.len() {
        0 => None,
        1 => sinks.pop(),
        _ => Some(Box::new(Tee(sinks))),
    }
}

/// Distinguishes the temporary files of sinks one process opens at once (threads of a sweep).
static TEMP_SEQ: AtomicU64 = AtomicU64::new(0);

/// A file written under a temporary name beside its target (so the rename cannot cross file
/// systems) and renamed into place by [`AtomicFile::commit`]. Dropped before that, it removes the
/// temporary file: no half-written output after an error or a cancelled run. Write errors are
/// kept, not returned, so that writing a row stays one call; [`AtomicFile::check`] reports them.
pub(crate) struct AtomicFile {
    pub(crate) path: PathBuf,
    tmp: PathBuf,
    out: BufWriter<File>,
    error: Option<io::Error>,
    renamed: bool,
}

impl AtomicFile {
    /// Missing parent directories are created, as for every other output.
    pub(crate) fn create(path: &Path, buffer: usize) -> Result<Self, OutputError> {
        let fail = |e: io::Error| OutputError::io(path, e);
        // Checked now, not at the rename: the run would be wasted.
        if path.is_dir() {
            return Err(fail(io::Error::new(io::ErrorKind::IsADirectory, "it is a directory")));
        }
        let name = path.file_name().ok_or_else(|| fail(io::Error::new(io::ErrorKind::InvalidInput, "not a file name")))?;
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| OutputError::io(dir, e))?;
        }
        let seq = TEMP_SEQ.fetch_add(1, Ordering::Relaxed);
        let tmp = path.with_file_name(format!(".{}.tmp{}-{seq}", name.to_string_lossy(), std::process::id()));
        let f = OpenOptions::new().write(true).create_new(true).open(&tmp).map_err(fail)?;
        Ok(AtomicFile { path: path.to_path_buf(), tmp, out: BufWriter::with_capacity(buffer, f), error: None, renamed: false })
    }

    #[inline]
    pub(crate) fn write(&mut self, bytes: &[u8]) {
        if let Err(e) = self.out.write_all(bytes) {
            self.error.get_or_insert(e);
        }
    }

    pub(crate) fn check(&mut self) -> Result<(), OutputError> {
        match self.error.take() {
            Some(e) => Err(OutputError::io(&self.path, e)),
            None => Ok(()),
        }
    }

    /// Everything written reached the temporary file.
    pub(crate) fn flush(&mut self) -> Result<(), OutputError> {
        self.check()?;
        self.out.flush().map_err(|e| OutputError::io(&self.path, e))
    }

    pub(crate) fn rename(&mut self) -> Result<(), OutputError> {
        std::fs::rename(&self.tmp, &self.path).map_err(|e| OutputError::io(&self.path, e))?;
        self.renamed = true;
        Ok(())
    }

    pub(crate) fn commit(&mut self) -> Result<(), OutputError> {
        self.flush()?;
        self.rename()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.renamed {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// The interval statistics streamed to a JSON Lines file as each window closes (`--intervals`),
/// so that a run's memory does not grow with its number of windows.
pub struct IntervalFile {
    file: AtomicFile,
    lines: u64,
}

impl IntervalFile {
    pub fn create(path: &Path) -> Result<Self, OutputError> {
        Ok(IntervalFile { file: AtomicFile::create(path, 1 << 16)?, lines: 0 })
    }

    /// One window's record (a JSON object, without its newline).
    pub fn line(&mut self, line: &str) {
        self.file.write(line.as_bytes());
        self.file.write(b"\n");
        self.lines += 1;
    }

    /// The first write error so far.
    pub fn check(&mut self) -> Result<(), OutputError> {
        self.file.check()
    }

    /// The run succeeded: flush and rename the file into place; the number of windows written.
    pub fn finish(mut self) -> Result<u64, OutputError> {
        self.file.commit()?;
        Ok(self.lines)
    }
}

impl std::fmt::Debug for IntervalFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "IntervalFile({})", self.file.path.display())
    }
}
