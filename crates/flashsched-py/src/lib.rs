//! PyO3 bindings for flashsched: the only place that knows about Python. Long calls release the
//! GIL and poll for Ctrl-C, which stops the run cleanly and raises KeyboardInterrupt.

use std::path::Path;
use std::time::{Duration, Instant};

use flashsched::config::{self, ConfigErrors, Options, Settings};
use flashsched::report::request_log::{self as reqlog, CsvSink, LatLogSink};
use flashsched::trace::{self, TraceReader};
use flashsched::{Error, OutputError, RequestSink, RunOptions};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

create_exception!(_core, FlashschedError, PyException, "Base class of flashsched's errors.");
create_exception!(_core, ConfigError, FlashschedError, "The configuration is invalid; `.errors` lists every problem.");
create_exception!(_core, TraceError, FlashschedError, "A trace file is malformed; the message names file and line.");
create_exception!(_core, SimulationError, FlashschedError, "The simulation itself failed.");

fn config_err(py: Python<'_>, e: ConfigErrors) -> PyErr {
    let err = ConfigError::new_err(e.to_string());
    let list: Vec<(String, String, String)> = e.0.iter().map(|x| (x.path.clone(), x.origin.clone(), x.message.clone())).collect();
    let _ = err.value(py).setattr("errors", list);
    err
}

fn trace_err(py: Python<'_>, e: trace::TraceError) -> PyErr {
    let err = TraceError::new_err(e.to_string());
    let v = err.value(py);
    let _ = v.setattr("file", e.file.clone());
    let _ = v.setattr("line", e.line);
    err
}

/// Build options from sources applied in order: ("preset", name), ("file", path),
/// ("toml", text, origin), ("json", text, origin); then `--set` assignments.
fn build_options(py: Python<'_>, sources: Vec<(String, String, String)>, sets: Vec<String>) -> PyResult<Options> {
    let mut o = Options::new();
    let mut errors = ConfigErrors::default();
    for (kind, payload, origin) in sources {
        let r = match kind.as_str() {
            "preset" => Options::from_preset(&payload).map(|p| {
                for (k, v) in p.entries {
                    o.entries.insert(k, v);
                }
            }),
            "file" => match std::fs::read_to_string(&payload) {
                Ok(text) => o.merge_toml_str(&text, &payload, 0),
                Err(e) => Err(ConfigErrors::one(config::ConfigError::new("", &payload, format!("cannot read: {e}")))),
            },
            "toml" => o.merge_toml_str(&payload, &origin, 0),
            "json" => o.merge_json_str(&payload, &origin),
            other => Err(ConfigErrors::one(config::ConfigError::new("", "", format!("unknown config source kind {other}")))),
        };
        if let Err(e) = r {
            errors.0.extend(e.0);
        }
    }
    for s in sets {
        if let Err(e) = o.set(&s) {
            errors.0.extend(e.0);
        }
    }
    if !errors.is_empty() {
        // Every problem at once: what the rest of the configuration has wrong too.
        if let Err(more) = Settings::from_options(&o) {
            errors.0.extend(more.0);
        }
        return Err(config_err(py, errors));
    }
    Ok(o)
}

fn settings(py: Python<'_>, sources: Vec<(String, String, String)>, sets: Vec<String>) -> PyResult<Settings> {
    let o = build_options(py, sources, sets)?;
    Settings::from_options(&o).map_err(|e| config_err(py, e))
}

/// Resolve a configuration; returns (TOML text with units, {path: (plain value, origin)}).
#[pyfunction]
#[pyo3(signature = (sources, sets))]
fn resolve_config(py: Python<'_>, sources: Vec<(String, String, String)>, sets: Vec<String>) -> PyResult<(String, Py<PyDict>)> {
    let s = settings(py, sources, sets)?;
    let d = PyDict::new(py);
    for (k, (v, origin)) in &s.resolved.values {
        d.set_item(*k, (v.to_plain(), origin.as_str()))?;
    }
    Ok((s.resolved.to_toml(), d.unbind()))
}

fn output_err(e: OutputError) -> PyErr {
    pyo3::exceptions::PyOSError::new_err(e.to_string())
}

/// The sinks that stream the per-request log to disk during the run: CSV at `csv_path`, fio
/// latency logs at `lat_log`. Opened before the run, so that an unwritable path fails at once.
fn file_sinks(csv_path: Option<&str>, lat_log: Option<&str>) -> Result<Option<Box<dyn RequestSink>>, OutputError> {
    let mut sinks: Vec<Box<dyn RequestSink>> = Vec::new();
    if let Some(p) = csv_path {
        sinks.push(Box::new(CsvSink::create(Path::new(p))?));
    }
    if let Some(prefix) = lat_log {
        sinks.push(Box::new(LatLogSink::create(prefix)?));
    }
    Ok(reqlog::combine(sinks))
}

/// Run a simulation. Returns (json text, summary [(column, json value text)], interval lines,
/// request-log columns or None). `request_log` returns the per-request log's columns;
/// `request_log_csv` streams it to that CSV file during the run instead (memory does not grow with
/// the run). `json_plus` adds fio's latency `bins`; `lat_log` is a prefix for fio-style latency
/// logs (PREFIX_lat.1.log, PREFIX_clat.1.log, PREFIX_slat.1.log), also streamed during the run.
/// `intervals_file` streams the interval statistics (`stats.interval`) to that JSON Lines file as
/// each window closes (the returned interval lines are then empty).
/// Files appear only when the run succeeds (OSError naming the file if they cannot be written).
#[pyfunction]
#[pyo3(signature = (sources, sets, request_log=false, full_invariant_check=false, progress=None, json_plus=false, lat_log=None, request_log_csv=None, intervals_file=None))]
#[allow(clippy::too_many_arguments)]
fn simulate(
    py: Python<'_>,
    sources: Vec<(String, String, String)>,
    sets: Vec<String>,
    request_log: bool,
    full_invariant_check: bool,
    progress: Option<PyObject>,
    json_plus: bool,
    lat_log: Option<String>,
    request_log_csv: Option<String>,
    intervals_file: Option<String>,
) -> PyResult<(String, Vec<(String, String)>, Vec<String>, Option<Py<PyDict>>)> {
    let s = settings(py, sources, sets)?;
    let opts = RunOptions { request_log, full_invariant_check, json_plus };
    let sink = file_sinks(request_log_csv.as_deref(), lat_log.as_deref()).map_err(output_err)?;
    let mut interrupted = false;
    let mut callback_error: Option<PyErr> = None;
    let result = py.allow_threads(|| {
        let mut last = Instant::now();
        let mut hook = |p: &flashsched::Progress| -> bool {
            if last.elapsed() < Duration::from_millis(100) && p.fraction < 1.0 {
                return true;
            }
            last = Instant::now();
            Python::with_gil(|py| {
                if py.check_signals().is_err() {
                    interrupted = true;
                    return false;
                }
                if let Some(cb) = &progress {
                    if let Err(e) = cb.call1(py, (p.fraction, p.sim_time_ns, p.requests_done, p.events)) {
                        callback_error = Some(e);
                        return false;
                    }
                }
                true
            })
        };
        flashsched::run_with_outputs(&s, &opts, sink, intervals_file.as_deref().map(Path::new), &mut hook)
    });
    if interrupted {
        return Err(PyKeyboardInterrupt::new_err("simulation interrupted"));
    }
    if let Some(e) = callback_error {
        return Err(e);
    }
    let r = match result {
        Ok(r) => r,
        Err(Error::Config(e)) => return Err(config_err(py, e)),
        Err(Error::Trace(e)) => return Err(trace_err(py, e)),
        Err(Error::Sim(e)) => return Err(SimulationError::new_err(e.to_string())),
        Err(Error::Output(e)) => return Err(output_err(e)),
    };
    let summary = r.summary.iter().map(|(k, v)| (k.clone(), v.to_string())).collect();
    let log = if request_log {
        let d = PyDict::new(py);
        let rows = &r.request_log;
        macro_rules! col {
            ($name:expr, $f:expr) => {
                d.set_item($name, PyList::new(py, rows.iter().map($f))?)?;
            };
        }
        col!("arrival_ns", |x: &flashsched::RequestLogRow| x.arrival_ns);
        col!("dispatch_ns", |x: &flashsched::RequestLogRow| x.dispatch_ns);
        col!("complete_ns", |x: &flashsched::RequestLogRow| x.complete_ns);
        col!("op", |x: &flashsched::RequestLogRow| x.op.name());
        col!("offset", |x: &flashsched::RequestLogRow| x.offset);
        col!("len", |x: &flashsched::RequestLogRow| x.len);
        col!("lat_ns", |x: &flashsched::RequestLogRow| x.complete_ns - x.arrival_ns);
        col!("host_queue_ns", |x: &flashsched::RequestLogRow| x.stages.host_queue);
        col!("device_queue_ns", |x: &flashsched::RequestLogRow| x.stages.device_queue);
        col!("die_wait_ns", |x: &flashsched::RequestLogRow| x.stages.die_wait);
        col!("channel_wait_ns", |x: &flashsched::RequestLogRow| x.stages.channel_wait);
        col!("bus_ns", |x: &flashsched::RequestLogRow| x.stages.bus);
        col!("array_ns", |x: &flashsched::RequestLogRow| x.stages.array);
        col!("ecc_ns", |x: &flashsched::RequestLogRow| x.stages.ecc);
        col!("cache_ns", |x: &flashsched::RequestLogRow| x.stages.cache);
        col!("mapping_ns", |x: &flashsched::RequestLogRow| x.stages.mapping);
        Some(d.unbind())
    } else {
        None
    };
    Ok((r.json.to_string(), summary, r.intervals, log))
}

/// Summarise a trace file; returns JSON text.
#[pyfunction]
#[pyo3(signature = (path, format="auto", device=None, blkparse_action="Q"))]
fn trace_stats(py: Python<'_>, path: String, format: &str, device: Option<u64>, blkparse_action: &str) -> PyResult<String> {
    let fmt = config::settings::TraceFormat::parse(format).ok_or_else(|| {
        config_err(py, ConfigErrors::one(config::ConfigError::new("--format", "", format!("unknown format \"{format}\" (one of: {})", config::keys::TRACE_FORMATS.join(", ")))))
    })?;
    let action = blkparse_action.chars().next().unwrap_or('Q');
    let r = py.allow_threads(|| {
        let mut reader = TraceReader::open(Path::new(&path), fmt, device, action)?;
        trace::stats::trace_stats(&mut reader)
    });
    r.map(|v| v.to_string()).map_err(|e| trace_err(py, e))
}

/// Write the configured workload as an MQSim ASCII trace (`time_ns device lsa sectors type`),
/// atomically (missing parent directories are created), with `header` as leading `#` comment
/// lines. Returns the number of requests. Raises ConfigError, TraceError (the workload), or OSError naming `path`; on any error nothing is
/// left at `path` or beside it.
#[pyfunction]
#[pyo3(signature = (sources, sets, path, header))]
fn write_trace(py: Python<'_>, sources: Vec<(String, String, String)>, sets: Vec<String>, path: String, header: Vec<String>) -> PyResult<u64> {
    use std::io::Write;
    enum Fail {
        Trace(trace::TraceError),
        Io(String),
    }
    let s = settings(py, sources, sets)?;
    let r: Result<u64, Fail> = py.allow_threads(|| {
        let target = Path::new(&path);
        let cannot = |e: &dyn std::fmt::Display| Fail::Io(format!("cannot write {}: {e}", target.display()));
        if target.is_dir() {
            return Err(cannot(&"it is a directory"));
        }
        let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let tmp = dir.join(format!(".{}.tmp{}", target.file_name().and_then(|n| n.to_str()).unwrap_or("trace"), std::process::id()));
        let write = || -> Result<u64, Fail> {
            let mut w = flashsched::workload::build(&s).map_err(Fail::Trace)?;
            // Like every other output: missing parent directories are created.
            std::fs::create_dir_all(dir).map_err(|e| cannot(&e))?;
            let f = std::fs::File::create(&tmp).map_err(|e| cannot(&e))?;
            let mut out = std::io::BufWriter::new(f);
            for h in &header {
                writeln!(out, "# {h}").map_err(|e| cannot(&e))?;
            }
            let mut n = 0u64;
            while let Some(r) = w.next_request().map_err(Fail::Trace)? {
                let kind = match r.op {
                    flashsched::trace::Op::Read => 1,
                    _ => 0,
                };
                writeln!(out, "{} 0 {} {} {}", r.arrival, r.offset / 512, r.len.div_ceil(512), kind).map_err(|e| cannot(&e))?;
                n += 1;
            }
            out.into_inner().map_err(|e| cannot(&e.into_error()))?;
            std::fs::rename(&tmp, target).map_err(|e| cannot(&e))?;
            Ok(n)
        };
        write().inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    });
    r.map_err(|e| match e {
        Fail::Trace(e) => trace_err(py, e),
        Fail::Io(m) => pyo3::exceptions::PyOSError::new_err(m),
    })
}

#[pyfunction]
fn json_schema() -> String {
    serde_json::to_string_pretty(&config::schema::json_schema()).unwrap() + "\n"
}

#[pyfunction]
fn config_reference() -> String {
    config::schema::reference_markdown()
}

#[pyfunction]
fn policies_reference() -> String {
    flashsched::policies::reference_markdown()
}

/// Every policy: (layer, key, name, summary, source, params).
#[pyfunction]
fn policies() -> Vec<(&'static str, &'static str, &'static str, &'static str, &'static str, Vec<&'static str>)> {
    flashsched::policies::POLICIES.iter().map(|p| (p.layer, p.key, p.name, p.summary, p.source, p.params.to_vec())).collect()
}

#[pyfunction]
fn preset_names() -> Vec<&'static str> {
    config::presets::NAMES.to_vec()
}

#[pyfunction]
fn preset_text(name: &str) -> Option<&'static str> {
    config::presets::get(name)
}

/// All config keys: (path, type, default, doc).
#[pyfunction]
fn config_keys() -> Vec<(&'static str, &'static str, &'static str, &'static str)> {
    config::keys::KEYS.iter().map(|k| (k.path, k.kind.type_name(), k.default, k.doc)).collect()
}

/// The JSON keys that depend on the wall clock (left out when comparing runs).
#[pyfunction]
fn wall_clock_keys() -> Vec<&'static str> {
    flashsched::report::WALL_CLOCK_KEYS.to_vec()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", flashsched::report::VERSION)?;
    m.add("FlashschedError", py.get_type::<FlashschedError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("TraceError", py.get_type::<TraceError>())?;
    m.add("SimulationError", py.get_type::<SimulationError>())?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_config, m)?)?;
    m.add_function(wrap_pyfunction!(trace_stats, m)?)?;
    m.add_function(wrap_pyfunction!(json_schema, m)?)?;
    m.add_function(wrap_pyfunction!(write_trace, m)?)?;
    m.add_function(wrap_pyfunction!(config_reference, m)?)?;
    m.add_function(wrap_pyfunction!(preset_names, m)?)?;
    m.add_function(wrap_pyfunction!(policies_reference, m)?)?;
    m.add_function(wrap_pyfunction!(policies, m)?)?;
    m.add_function(wrap_pyfunction!(preset_text, m)?)?;
    m.add_function(wrap_pyfunction!(config_keys, m)?)?;
    m.add_function(wrap_pyfunction!(wall_clock_keys, m)?)?;
    Ok(())
}
