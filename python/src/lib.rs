//! `ntsim._ntsim`: the Rust half of the Python package `ntsim` (python/ntsim/__init__.py
//! is the API). Each function runs what the `ntsim` command of the same name runs, with
//! the GIL released, and reports an error as a Python `ValueError` with ntsim's one-line
//! message.
use nt_sim::net_cli::RunArgs;
use nt_sim::sweep::SweepArgs;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::path::PathBuf;

/// `ntsim run SCENARIO --out OUT [--seed S] [--engine E] [--max-cycles N] [--threads T]
/// [--set K=V ...] [--quiet]`: writes each run's outputs into OUT/<run>.
#[pyfunction]
#[pyo3(signature = (scenario, out, seed=None, engine=None, max_cycles=None, threads=None, sets=vec![], quiet=true))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    scenario: String,
    out: PathBuf,
    seed: Option<u64>,
    engine: Option<String>,
    max_cycles: Option<u64>,
    threads: Option<usize>,
    sets: Vec<String>,
    quiet: bool,
) -> PyResult<()> {
    check_engine(engine.as_deref())?;
    let a = RunArgs {
        scenario: Some(scenario),
        out,
        threads,
        engine,
        max_cycles,
        seed,
        set: sets,
        vcd: vec![],
        vcd_scope: vec![],
        vcd_cycles: None,
        wave_format: None,
        png: false,
        pcap: vec![],
        print: false,
        list: false,
        quiet,
    };
    py.allow_threads(|| on_big_stack(move || nt_sim::net_cli::main(&a)))
}

/// `ntsim sweep SCENARIO --out OUT [--vary K=V1,V2 ...] [--seeds S] [--set K=V ...]
/// [--jobs J] [--engine E] [--max-cycles N] [--quiet]`: each run into OUT/<run>-<k>, and
/// OUT/sweep.csv.
#[pyfunction]
#[pyo3(signature = (scenario, out, vary=vec![], seeds=None, sets=vec![], jobs=1, engine=None, max_cycles=None, quiet=true))]
#[allow(clippy::too_many_arguments)]
fn sweep(
    py: Python<'_>,
    scenario: String,
    out: PathBuf,
    vary: Vec<String>,
    seeds: Option<String>,
    sets: Vec<String>,
    jobs: usize,
    engine: Option<String>,
    max_cycles: Option<u64>,
    quiet: bool,
) -> PyResult<()> {
    check_engine(engine.as_deref())?;
    let a = SweepArgs {
        scenario,
        vary,
        seeds,
        set: sets,
        out,
        jobs,
        engine,
        max_cycles,
        quiet,
    };
    py.allow_threads(|| on_big_stack(move || nt_sim::sweep::main(&a)))
}

/// The names of the built-in scenarios (`ntsim run --list`).
#[pyfunction]
fn scenarios() -> Vec<String> {
    nt_sim::net_scenarios::names()
}

/// A topology given as JSON (a Python dict, `json.dumps`) as TOML text, the form
/// `ntsim run` reads.
#[pyfunction]
fn toml_of_json(json: &str) -> PyResult<String> {
    let v: toml::Table =
        serde_json::from_str(json).map_err(|e| PyValueError::new_err(format!("scenario: {e}")))?;
    toml::to_string(&v).map_err(|e| PyValueError::new_err(format!("scenario: {e}")))
}

/// Stack of the thread a command runs on, as the `ntsim` binary's: building the 16-port
/// switch on the stack overflows a Python thread's 8 MiB.
const STACK: usize = 1 << 30;

/// Runs `f` on a thread with [`STACK`] bytes of stack: its error as a `ValueError`, a
/// panic as a `RuntimeError`.
fn on_big_stack(f: impl FnOnce() -> Result<(), String> + Send + 'static) -> PyResult<()> {
    let t = std::thread::Builder::new()
        .name("ntsim".into())
        .stack_size(STACK)
        .spawn(f)
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the ntsim thread: {e}")))?;
    match t.join() {
        Ok(r) => r.map_err(PyValueError::new_err),
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic".into());
            Err(PyRuntimeError::new_err(format!("ntsim panicked: {msg}")))
        }
    }
}

/// The engine names the CLI takes (clap checks them there).
fn check_engine(e: Option<&str>) -> PyResult<()> {
    match e {
        None | Some("native" | "verilator" | "compiled") => Ok(()),
        Some(x) => Err(PyValueError::new_err(format!(
            "engine {x:?}: give native, verilator or compiled"
        ))),
    }
}

#[pymodule]
fn _ntsim(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    m.add_function(wrap_pyfunction!(scenarios, m)?)?;
    m.add_function(wrap_pyfunction!(toml_of_json, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
