//! # flashsched
//!
//! A fast, deterministic, trace-driven SSD simulator for I/O scheduling research.
//!
//! A run takes a validated [`config::Settings`] (a preset, a TOML file, `--set` overrides), a
//! workload (a trace in any of the supported formats, or the synthetic generator) and returns fio-
//! shaped JSON with an `ssd` block of device internals:
//!
//! ```
//! use flashsched::{config, run, RunOptions};
//!
//! let settings = config::load(Some("tiny"), None, &[
//!     "workload.kind=synthetic".into(),
//!     "workload.synthetic.requests=2000".into(),
//! ]).unwrap();
//! let result = run(&settings, &RunOptions::default(), &mut |_| true).unwrap();
//! let p99 = &result.json["jobs"][0]["write"]["clat_ns"]["percentile"]["99.000000"];
//! assert!(p99.as_u64().unwrap() > 0);
//! ```
//!
//! Layers, each a trait with one implementation per file, chosen by name in the config:
//! workload → [`host`] scheduler → [`hil`] device queue → [`ftl`] (mapping, allocation, GC) →
//! [`tsu`] transaction scheduler → flash dies and channels ([`ctrl`]), driven in simulated time by
//! [`sim`].

/// A struct of `u64` counts with `minus`, the counts since a snapshot (the report's, taken when
/// warm-up ends): `sim::cache::CacheCounters`, `sim::mapping::MappingCounters`.
macro_rules! counters {
    ($(#[$m:meta])* $vis:vis struct $name:ident { $($(#[$fm:meta])* pub $f:ident: u64,)* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, Default)]
        $vis struct $name {
            $($(#[$fm])* pub $f: u64,)*
        }

        impl $name {
            /// The counts since snapshot `o`.
            pub fn minus(&self, o: &Self) -> Self {
                $name { $($f: self.$f - o.$f,)* }
            }
        }
    };
}

/// `Deref`/`DerefMut` to `dyn $policy` for a policy slot: an enum holding the layer's default
/// policy by value (variant `$default`, so its per-transaction calls inline) or any other policy
/// boxed (variant `Other`). The slot's own inherent methods cover the hot calls; everything else
/// reaches the policy through these. (`tsu::TsuSlot`, `hil::HilSlot`, `ftl::alloc::AllocSlot`.)
macro_rules! policy_slot_deref {
    ($slot:ident, $policy:path, $default:ident) => {
        impl std::ops::Deref for $slot {
            type Target = dyn $policy;
            fn deref(&self) -> &Self::Target {
                match self {
                    $slot::$default(p) => p,
                    $slot::Other(p) => p.as_ref(),
                }
            }
        }

        impl std::ops::DerefMut for $slot {
            fn deref_mut(&mut self) -> &mut Self::Target {
                match self {
                    $slot::$default(p) => p,
                    $slot::Other(p) => p.as_mut(),
                }
            }
        }
    };
}

pub mod cache;
pub mod config;
pub mod ctrl;
pub mod engine;
pub mod fidelity;
pub mod ftl;
pub mod hil;
pub mod host;
pub(crate) mod mem;
pub mod nand;
pub mod policies;
pub mod report;
pub mod sim;
pub mod sink;
pub mod stats;
pub mod trace;
pub mod tsu;
pub mod units;
pub mod workload;

use std::time::Instant;

pub use config::Settings;
pub use sim::{Progress, SimError};
pub use sink::{OutputError, RequestLogRow, RequestSink};

/// Any failure of a run, by layer. The CLI maps `Config`, `Trace` and `Output` to exit code 2, the
/// rest to 1.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Config(#[from] config::ConfigErrors),
    #[error("{0}")]
    Trace(#[from] trace::TraceError),
    #[error("{0}")]
    Sim(SimError),
    /// The per-request log (or the latency logs) could not be written.
    #[error("{0}")]
    Output(#[from] OutputError),
}

impl From<SimError> for Error {
    fn from(e: SimError) -> Self {
        match e {
            SimError::Trace(t) => Error::Trace(t),
            SimError::Output(o) => Error::Output(o),
            other => Error::Sim(other),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Keep one row per measured request in memory (`RunResult::request_log`); to stream the log
    /// to disk instead, give [`run_with_sink`] a sink.
    pub request_log: bool,
    /// Walk every page at the end to check the FTL invariants (slow on large drives).
    pub full_invariant_check: bool,
    /// Add fio's json+ latency `bins` to the JSON (fio's `--output-format=json+`).
    pub json_plus: bool,
}

#[derive(Debug)]
pub struct RunResult {
    /// fio-shaped JSON document.
    pub json: serde_json::Value,
    /// Flat one-row summary, in column order.
    pub summary: Vec<(String, serde_json::Value)>,
    /// Interval statistics, one JSON object per line.
    pub intervals: Vec<String>,
    /// The per-request log, with `RunOptions::request_log` (empty otherwise).
    pub request_log: Vec<RequestLogRow>,
}

/// Simulate one configuration with its configured workload.
pub fn run(s: &Settings, opts: &RunOptions, hook: &mut dyn FnMut(&Progress) -> bool) -> Result<RunResult, Error> {
    run_with_sink(s, opts, None, hook)
}

/// [`run`], handing the per-request log to `sink` as the run produces it (e.g. a
/// [`report::request_log::CsvSink`] streaming it to disk); with `opts.request_log` the rows are
/// kept in memory as well. The sink is finished (its files renamed into place) only when the run
/// succeeds; on any error it is dropped, which removes its temporary files.
pub fn run_with_sink(
    s: &Settings,
    opts: &RunOptions,
    sink: Option<Box<dyn RequestSink>>,
    hook: &mut dyn FnMut(&Progress) -> bool,
) -> Result<RunResult, Error> {
    run_with_outputs(s, opts, sink, None, hook)
}

/// A problem with key `path` found once the run is under way, reported as a configuration error
/// (exit 2 in the CLI) with where the key's value came from.
fn config_error(s: &Settings, path: &str, message: String) -> Error {
    Error::Config(config::ConfigErrors::one(config::ConfigError::new(path, s.resolved.origin(path), message)))
}

/// [`run_with_sink`], streaming the interval statistics (`stats.interval`) to the JSON Lines file
/// `intervals` as each window closes (then `RunResult::intervals` is empty): the run's memory does
/// not grow with its windows. The file appears only when the run succeeds.
pub fn run_with_outputs(
    s: &Settings,
    opts: &RunOptions,
    sink: Option<Box<dyn RequestSink>>,
    intervals: Option<&std::path::Path>,
    hook: &mut dyn FnMut(&Progress) -> bool,
) -> Result<RunResult, Error> {
    let t0 = Instant::now();
    let unix_time_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let workload = workload::build(s)?;
    let mut sinks: Vec<Box<dyn RequestSink>> = Vec::new();
    if opts.request_log {
        sinks.push(Box::new(sink::MemorySink::default()));
    }
    sinks.extend(sink);
    let interval_file = match intervals {
        Some(path) if s.stats_interval_ns > 0 => Some(sink::IntervalFile::create(path)?),
        Some(_) => {
            return Err(config_error(s, "stats.interval", "must be positive to write interval statistics to a file, e.g. stats.interval = \"10ms\"".into()))
        }
        None => None,
    };
    let sim = sim::Simulator::new(s, workload)?
        .with_request_sink(sink::combine(sinks))
        .with_interval_file(interval_file)
        .with_full_invariant_check(opts.full_invariant_check);
    let setup_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let mut outcome = match sim.run(hook) {
        Err(e @ SimError::TooManyIntervals { .. }) => return Err(config_error(s, "stats.interval", e.to_string())),
        other => other?,
    };
    if s.workload.warmup > 0 && outcome.warmup_requests >= outcome.submitted {
        // Nothing was measured: its statistics would be zeros that read as results.
        let message = format!("leaves no request measured: the workload issued {} requests", outcome.submitted);
        return Err(config_error(s, "workload.warmup", message));
    }
    let request_log = match outcome.request_sink.take() {
        Some(sink) => sink.finish()?,
        None => Vec::new(),
    };
    if let Some(f) = outcome.interval_file.take() {
        f.finish()?;
    }
    let info = report::RunInfo { unix_time_ms, setup_s, simulate_s: t1.elapsed().as_secs_f64() };
    let json = report::to_json(s, &outcome, &info, opts.json_plus);
    let summary = report::summary_row(s, &json);
    Ok(RunResult {
        json,
        summary,
        intervals: std::mem::take(&mut outcome.intervals),
        request_log,
    })
}
