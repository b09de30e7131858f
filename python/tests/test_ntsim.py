"""Tests of the Python package: imports it and runs small scenarios through `run` and
`sweep`. `python3 python/tests/test_ntsim.py` (after `pip install ./python`); also under
pytest. scripts/test-full.sh runs it."""

import tempfile
from pathlib import Path

import ntsim

# Two NDP hosts on one link, one 2 KiB message from h1 to h0 (the CLI tests' tiny.toml).
TINY = {
    "max_cycles": 20000,
    "host": [{"name": "h0", "program": "ndp"}, {"name": "h1", "program": "ndp"}],
    "link": [{"a": "h0", "b": "h1", "delay": 20}],
    "workload": [{"kind": "incast", "senders": ["h1"], "receiver": "h0", "sizes": [2048], "start": 10}],
}


def test_scenarios_lists_the_built_in_ones():
    names = ntsim.scenarios()
    assert "demo" in names and "incast3-ndp-4k" in names, names


def test_a_dict_scenario_runs_and_its_tables_are_dataframes():
    with tempfile.TemporaryDirectory() as out:
        res = ntsim.run(TINY, out=out, name="tiny", set={"host[h1].rtt_pkts": 3})
        assert list(res) == ["tiny"], res
        r = res["tiny"]
        assert r.dir == Path(out) / "tiny"
        m = r.messages
        assert len(m) == 1, m
        assert m["slowdown"].iloc[0] >= 1.0, m
        info = r.info
        assert info["topology"]["host"][1]["rtt_pkts"] == 3, info["topology"]
        assert info["seed"] is not None
        # Every table reads, and the Results' tables carry the run's name.
        for t in ntsim.TABLES:
            assert getattr(r, t) is not None
        assert list(res.messages["run"]) == ["tiny"]
        assert "h0" in set(r.hosts.iloc[:, 0]), r.hosts


def test_a_built_in_scenario_runs_on_the_compiled_engine():
    res = ntsim.run("incast3-ndp-4k", engine="compiled")
    m = res.messages
    assert len(m) == 6 and (m["run"] == "incast3-ndp-4k").all(), m
    assert (m["outcome"] == "delivered").all(), m
    assert res["incast3-ndp-4k"].info["engine"] == "compiled"


def test_a_sweep_has_one_row_per_combination_and_seed():
    with tempfile.TemporaryDirectory() as out:
        df = ntsim.sweep(TINY, {"link.delay": [20, 400]}, seeds=[1, 2], jobs=2, out=out, name="tiny")
        assert len(df) == 4, df
        assert list(df["link.delay"]) == [20, 20, 400, 400], df
        assert list(df["seed"]) == [1, 2, 1, 2], df
        assert (df["delivered"] == 1).all(), df
        assert all(Path(d, "messages.csv").is_file() for d in df["dir"])


def test_bad_input_is_a_value_error_with_ntsims_message():
    for bad, words in [
        (lambda: ntsim.run("no-such-scenario"), "neither a topology file nor a built-in scenario"),
        (lambda: ntsim.run(TINY, set={"host.no_such_key": 1}), "no_such_key"),
        (lambda: ntsim.run(TINY, engine="fast"), "engine"),
    ]:
        try:
            bad()
        except ValueError as e:
            assert words in str(e), str(e)
        else:
            raise AssertionError(f"no error for {words}")


if __name__ == "__main__":
    tests = [v for k, v in sorted(globals().items()) if k.startswith("test_")]
    for t in tests:
        t()
        print(f"ok {t.__name__}")
    print(f"test_ntsim: {len(tests)} passed")
