"""ntsim from Python: the cycle-accurate nanoTransport NIC and switch simulator's network
runs and sweeps, with their outputs as pandas DataFrames.

    import ntsim
    res = ntsim.run("incast3-ndp-4k")                 # a built-in scenario, a .toml path or a dict
    res.messages                                      # every run's messages.csv, with a `run` column
    res["incast3-ndp-4k"].hosts                       # one run's hosts.csv
    df = ntsim.sweep("tiny.toml", {"link.delay": [20, 400]}, seeds=range(1, 4), jobs=2)

`run` and `sweep` run what `ntsim run` and `ntsim sweep` run (in this process, the GIL
released), write the same files (docs/network.md), and raise `ValueError` with ntsim's
one-line message on bad input. Settings (`set=`, `sweep`'s parameters) take the keys of
`ntsim run --set` (`host.rtt_pkts`, `host[h1].rtt_pkts`, `switch.mode`, ...) and Python
values, written as TOML.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Iterable, Mapping, Optional, Union

import pandas as pd

from . import _ntsim

__version__ = _ntsim.__version__

#: The CSV files every run writes, by the attribute that reads them.
TABLES = ("messages", "hosts", "links", "queues", "throughput", "slowdown_bins", "windows")

Scenario = Union[str, "os.PathLike[str]", Mapping]


class Run:
    """One run's outputs in `dir`: `info` (run.json: the topology as run, seed, engine,
    version, warnings and the summary numbers), `summary` (summary.txt), and each of
    `TABLES` as a DataFrame, read when first asked for."""

    def __init__(self, name: str, dir: Path):
        self.name, self.dir = name, dir
        self._tables: dict = {}

    @property
    def info(self) -> dict:
        return json.loads((self.dir / "run.json").read_text())

    @property
    def summary(self) -> str:
        return (self.dir / "summary.txt").read_text()

    def table(self, name: str) -> pd.DataFrame:
        """`<name>.csv` of this run as a DataFrame."""
        if name not in self._tables:
            self._tables[name] = pd.read_csv(self.dir / f"{name}.csv")
        return self._tables[name]

    def __getattr__(self, name: str):
        if name in TABLES:
            return self.table(name)
        raise AttributeError(name)

    def __repr__(self) -> str:
        return f"Run({self.name!r}, {str(self.dir)!r})"


class Results(dict):
    """The runs of one `run` call by name; each of `TABLES` as an attribute is every
    run's table, one below the other, with a `run` column first."""

    def __getattr__(self, name: str):
        if name in TABLES:
            frames = [r.table(name).assign(run=n) for n, r in self.items()]
            df = pd.concat(frames, ignore_index=True)
            return df[["run"] + [c for c in df.columns if c != "run"]]
        raise AttributeError(name)


def scenarios() -> list:
    """The built-in scenarios' names (`ntsim run --list`)."""
    return _ntsim.scenarios()


def toml_value(v) -> str:
    """A Python value as a TOML value (as `--set` and `--vary` take them)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{json.dumps(str(k))} = {toml_value(x)}" for k, x in v.items()) + " }"
    if isinstance(v, Iterable):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    raise ValueError(f"no TOML form for {v!r}")


def _settings(set: Optional[Mapping]) -> list:
    return [f"{k}={toml_value(v)}" for k, v in (set or {}).items()]


def _scenario_arg(scenario: Scenario, tmp: Path, name: str) -> str:
    """A scenario as `ntsim run` takes it: a dict is written as `<tmp>/<name>.toml`."""
    if isinstance(scenario, Mapping):
        p = tmp / f"{name}.toml"
        p.write_text(_ntsim.toml_of_json(json.dumps(scenario)))
        return str(p)
    return os.fspath(scenario)


def _out_dir(out) -> Path:
    return Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="ntsim-"))


def run(
    scenario: Scenario,
    *,
    out=None,
    seed: Optional[int] = None,
    engine: Optional[str] = None,
    max_cycles: Optional[int] = None,
    threads: Optional[int] = None,
    set: Optional[Mapping] = None,
    name: str = "scenario",
    quiet: bool = True,
) -> Results:
    """Runs a scenario as `ntsim run` does and returns its runs' outputs.

    `scenario`: a built-in scenario's name (`scenarios()`), a topology file (.toml), or a
    topology as a dict (the TOML file's structure; its run is called `name`). `out`: the
    output directory (each run in `out/<run>`; a new temporary directory when None).
    `engine`: "native", "verilator" or "compiled". `set`: settings to change, `{key:
    value}` with the keys of `ntsim run --set`. `quiet=False` prints the progress line.
    """
    out = _out_dir(out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="ntsim-scenario-") as tmp:
        arg = _scenario_arg(scenario, Path(tmp), name)
        _ntsim.run(arg, str(out), seed, engine, max_cycles, threads, _settings(set), quiet)
    # The runs this call wrote (`out` may hold older ones).
    runs = Results()
    for d in sorted(out.iterdir()):
        j = d / "run.json"
        if j.is_file() and j.stat().st_mtime >= t0 - 1:
            runs[d.name] = Run(d.name, d)
    return runs


def sweep(
    scenario: Scenario,
    vary: Optional[Mapping] = None,
    seeds: Optional[Iterable[int]] = None,
    *,
    set: Optional[Mapping] = None,
    jobs: Optional[int] = None,
    engine: Optional[str] = None,
    max_cycles: Optional[int] = None,
    out=None,
    name: str = "scenario",
    quiet: bool = True,
) -> pd.DataFrame:
    """Runs a scenario for every combination of `vary`'s values (`{key: [values]}`) and
    every seed of `seeds` (default: the scenario's own), `jobs` at a time (default: the
    CPUs), as `ntsim sweep` does; returns `sweep.csv` as a DataFrame, one row per run: its
    name, the values it ran with, its seed and its summary numbers (an `error` column
    says why a run failed; then this raises `ValueError` after every run is done). Each
    run's outputs are in `out/<run>-<k>` (a new temporary directory when None), named
    in the DataFrame's `dir` column."""
    out = _out_dir(out)
    vary_args = [f"{k}={','.join(toml_value(v) for v in vs)}" for k, vs in (vary or {}).items()]
    seeds_arg = None if seeds is None else ",".join(str(int(s)) for s in seeds)
    with tempfile.TemporaryDirectory(prefix="ntsim-scenario-") as tmp:
        arg = _scenario_arg(scenario, Path(tmp), name)
        _ntsim.sweep(
            arg,
            str(out),
            vary_args,
            seeds_arg,
            _settings(set),
            jobs or os.cpu_count() or 1,
            engine,
            max_cycles,
            quiet,
        )
    df = pd.read_csv(out / "sweep.csv")
    df["dir"] = [str(out / r) for r in df["run"]]
    return df
