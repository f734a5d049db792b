"""Checks of the Fig. 1 protocol (cbviz.bench.fig1_protocol) and of its reading against the paper
(cbviz.bench.claims): the quick preset end to end, the ratio table, the verdicts on constructed
tables (one where every claim of Sect. 5.1 holds, one where each fails), the CSV files and
the command line.  No assertion compares measured times between algorithms.
"""
from __future__ import annotations

import importlib
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from cbviz import bench
from cbviz.algorithms import ParameterError

CLAIM_IDS = ["1a-i", "1a-ii", "1b", "1c", "1d-i", "1d-ii"]
AXIS = {"n": "n_voters", "m": "m", "T": "T"}


@pytest.fixture(scope="module")
def fig1_tables():
    return bench.fig1(bench.QUICK_FIG1)


def test_fig1_tables_have_the_documented_columns_and_positive_times(fig1_tables):
    cfg = bench.QUICK_FIG1
    assert set(fig1_tables) == {"n", "m", "T"}
    for sweep, t in fig1_tables.items():
        assert list(t.columns) == bench.FIG1_COLUMNS and (t["sweep"] == sweep).all()
        assert (t["fit_s"] > 0).all() and (t["start_s"] > 0).all()
        assert t["runs"].between(1, cfg.repeat).all()
        assert (t.loc[t["algorithm"] != "MinCq", "per_iter_s"] > 0).all()
    n = fig1_tables["n"]
    assert sorted(set(n["n_voters"])) == [2 * cfg.d * k for k in cfg.n_grid]
    assert (n["m"] == cfg.m_fixed).all() and (n["T"] == cfg.T_fixed).all()
    assert set(fig1_tables["m"]["m"]) == set(cfg.m_grid)
    names = {a for a, _, _ in bench.FIG1_ALGORITHMS}
    assert set(n["algorithm"]) == set(fig1_tables["m"]["algorithm"]) == names
    assert set(fig1_tables["T"]["algorithm"]) == names - {"MinCq"}


def test_mincq_runs_at_every_n_and_m_and_says_its_mu(fig1_tables):
    for sweep in ("n", "m"):
        mincq = fig1_tables[sweep].query("algorithm == 'MinCq'")
        assert len(mincq) == 2 and (mincq["iterations"] == 1).all()
        assert mincq["note"].str.match(r"one quadratic program .*mu = [0-9.e-]+ \((the paper's|"
                                       r"half the reach)").all()


def test_race_interleaves_the_runs_keeps_each_fastest_and_respects_the_budget(monkeypatch):
    module = importlib.import_module("cbviz.bench.fig1_protocol")   # (cbviz.bench.fig1: the function)
    calls, totals = [], {}

    def make_factory(key, T, H, y, **params):
        if key == "bad":
            raise ParameterError("refused")
        return key

    def time_run(factory, H, y):
        calls.append(factory)
        return bench.Timing(0.0, np.array([]), next(totals[factory]), None)

    monkeypatch.setattr(module, "make_factory", make_factory)
    monkeypatch.setattr(module, "time_run", time_run)
    algorithms = [("A", "a", {}), ("B", "b", {}), ("X", "bad", {})]
    totals.update(a=iter([3.0, 1.0, 2.0]), b=iter([1.0, 9.0, 0.5]))
    fits = module._race(None, None, 5, replace(bench.QUICK_FIG1, repeat=3,
                                               repeat_budget=100), algorithms)
    assert calls == ["a", "b"] * 3 and isinstance(fits["X"], ParameterError)
    assert [(fits[k][0].total, fits[k][1]) for k in "AB"] == [(1.0, 3), (0.5, 3)]
    calls.clear()
    totals.update(a=iter([3.0, 1.0]), b=iter([1.0, 9.0]))
    fits = module._race(None, None, 5, replace(bench.QUICK_FIG1, repeat=3,
                                               repeat_budget=2.5), algorithms)
    assert calls == ["a", "b", "b"]      # A stops after 3 s, B after 1 + 9 s
    assert [(fits[k][0].total, fits[k][1]) for k in "AB"] == [(3.0, 1), (1.0, 2)]


def test_fig1_T_is_a_prefix_of_one_run(fig1_tables):
    T = fig1_tables["T"]
    for _, t in T.groupby("algorithm"):
        t = t.sort_values("T")
        assert t["start_s"].nunique() == 1             # one run per algorithm
        assert np.all(np.diff(t["fit_s"]) > 0)
        full = t["iterations"] == t["T"]
        assert (t.loc[full, "note"] == "").all() and (t.loc[~full, "note"] != "").all()
        np.testing.assert_allclose(t["per_iter_s"],
                                   (t["fit_s"] - t["start_s"]) / t["iterations"], rtol=1e-12)


def test_quick_preset_gives_every_ratio_and_every_claim(fig1_tables):
    cfg = bench.QUICK_FIG1
    summary = bench.fig1_summary(fig1_tables)
    r = summary["ratios"]
    assert list(r.columns) == bench.RATIO_COLUMNS and "CB-Boost" not in set(r["algorithm"])
    # every value of every grid, every algorithm but CB-Boost (MinCq not in the T sweep)
    assert len(r) == 4 * len(cfg.n_grid) + 4 * len(cfg.m_grid) + 3 * len(cfg.T_grid)
    for sweep, t in fig1_tables.items():
        cb = t.query("algorithm == 'CB-Boost'").set_index(AXIS[sweep])["fit_s"]
        rs = r[r["sweep"] == sweep]
        np.testing.assert_array_equal(rs["cbboost_fit_s"], rs[AXIS[sweep]].map(cb))
    np.testing.assert_allclose(r["ratio"], r["fit_s"] / r["cbboost_fit_s"], rtol=1e-12)
    c = summary["claims"]
    assert list(c.columns) == bench.CLAIM_COLUMNS and list(c["claim"]) == CLAIM_IDS
    assert set(c["verdict"]) <= {"agrees", "disagrees"} and (c["measured"] != "").all()
    assert ((c["reason"] != "") == (c["verdict"] == "disagrees")).all()
    text = bench.fig1_report({**fig1_tables, **summary})
    assert "fit time (s) vs number of voters n" in text and "fit time / CB-Boost's vs T" in text
    section = text.split("Paper (Sect. 5.1) vs ours\n")[1].splitlines()
    assert [line.split(":")[0] for line in section] == [f"{i} {v}" for i, v in
                                                         zip(c["claim"], c["verdict"])]


# ------------------------------------------------------------------ verdicts on made-up tables

def _sweep(sweep, values, fits, fixed):
    """A FIG1_COLUMNS table: ``fits`` maps algorithm -> fit seconds at each of ``values``;
    per-iteration time = fit / T."""
    rows = []
    for algorithm, times in fits.items():
        for value, fit in zip(values, times):
            point = {**fixed, AXIS[sweep]: value}
            rows.append(dict(sweep=sweep, algorithm=algorithm, **point, iterations=point["T"],
                             runs=1, start_s=0.0, fit_s=fit, note="",
                             per_iter_s=np.nan if algorithm == "MinCq" else fit / point["T"]))
    return pd.DataFrame(rows, columns=bench.FIG1_COLUMNS)


def _tables(n, m, T):
    return {"n": _sweep("n", [100, 1000], n, dict(m=500, T=50)),
            "m": _sweep("m", [100, 1000], m, dict(n_voters=100, T=50)),
            "T": _sweep("T", [10, 20], T, dict(n_voters=100, m=500))}


# the paper's picture: MinCq longest, CqBoost >= 2x the greedy ones and growing with m far more
# than MinCq, CB-Boost faster than AdaBoost and GB-CB-Boost, GB-CB-Boost's iteration dearer
PAPER = _tables(
    n={"MinCq": [10, 90], "CqBoost": [4, 6], "GB-CB-Boost": [1.2, 1.3], "CB-Boost": [1, 1],
       "AdaBoost": [1.1, 1.2]},
    m={"MinCq": [10, 11], "CqBoost": [2, 20], "GB-CB-Boost": [1.1, 2.2], "CB-Boost": [1, 2],
       "AdaBoost": [1.1, 2.1]},
    T={"CqBoost": [3, 7], "GB-CB-Boost": [1.2, 2.4], "CB-Boost": [1, 2], "AdaBoost": [1.1, 2.2]})
# each claim fails: MinCq fast, CqBoost as fast as the greedy ones, the rules equal, AdaBoost
# faster than CB-Boost at one T
OURS = _tables(
    n={"MinCq": [0.5, 4], "CqBoost": [1.1, 1.2], "GB-CB-Boost": [1, 1], "CB-Boost": [1, 1],
       "AdaBoost": [1.5, 1.5]},
    m={"MinCq": [1, 3], "CqBoost": [1, 4], "GB-CB-Boost": [1, 4], "CB-Boost": [1, 4],
       "AdaBoost": [1, 5]},
    T={"CqBoost": [1.1, 2.5], "GB-CB-Boost": [1, 2], "CB-Boost": [1, 2], "AdaBoost": [0.9, 3]})


def test_every_claim_agrees_with_tables_drawn_as_the_paper_says():
    c = bench.fig1_claims(PAPER).set_index("claim")
    assert (c["verdict"] == "agrees").all() and (c["reason"] == "").all()
    assert c.loc["1a-i", "measured"] == "MinCq / slowest other: 2.50x (n=100), 15.00x (n=1000)"
    assert "MinCq 1.10x, CqBoost 10.00x" in c.loc["1b", "measured"]
    assert "AdaBoost / CB-Boost 1.10x, GB-CB-Boost / CB-Boost 1.20x" in c.loc["1d-i", "measured"]


def test_every_claim_disagrees_with_tables_where_it_fails():
    c = bench.fig1_claims(OURS).set_index("claim")
    assert (c["verdict"] == "disagrees").all() and (c["reason"] != "").all()
    assert "MinCq / slowest other: 0.33x (n=100), 2.67x (n=1000)" == c.loc["1a-i", "measured"]
    assert "grows 8.0x for 10x the voters" in c.loc["1a-i", "reason"]
    assert "CqBoost 4.00x (CB-Boost 4.00x)" in c.loc["1b", "measured"]
    assert c.loc["1c", "measured"].endswith("1.10x (GB-CB-Boost, T=10), 0.83x (AdaBoost, T=20)")
    # 1d-i fails on both counts, and says why for each
    assert "AdaBoost" in c.loc["1d-i", "reason"] and "fused pass" in c.loc["1d-i", "reason"]
    assert c.loc["1d-ii", "measured"].startswith("GB-CB-Boost / CB-Boost per iteration: "
                                                 "1.00x over 6 points")


def test_one_failing_point_is_enough_to_disagree():
    T = PAPER["T"].copy()
    T.loc[(T["algorithm"] == "AdaBoost") & (T["T"] == 20), "fit_s"] = 2.05   # 1.025x CB-Boost
    c = bench.fig1_claims({**PAPER, "T": T}).set_index("claim")["verdict"]
    assert c["1d-i"] == "disagrees" and c["1c"] == "agrees"


def test_claims_without_their_sweep_or_algorithm_are_not_measured():
    c = bench.fig1_claims({"T": PAPER["T"]}).set_index("claim")
    assert list(c["verdict"]) == ["not measured"] * 3 + ["agrees", "agrees", "not measured"]
    no_mincq = PAPER["n"][PAPER["n"]["algorithm"] != "MinCq"]
    c = bench.fig1_claims({**PAPER, "n": no_mincq}).set_index("claim")["verdict"]
    assert c["1a-i"] == "not measured" and c["1a-ii"] == "agrees"
    assert bench.fig1_claims({})["verdict"].eq("not measured").all()


def test_ratios_of_made_up_tables_are_at_every_point():
    r = bench.fig1_ratios(OURS)
    assert len(r) == 4 * 2 + 4 * 2 + 3 * 2
    ada = r.query("sweep == 'T' and algorithm == 'AdaBoost'")
    assert ada["T"].tolist() == [10, 20] and ada["ratio"].tolist() == [0.9, 1.5]
    assert bench.fig1_ratios({}).columns.tolist() == bench.RATIO_COLUMNS


# ------------------------------------------------------------------ files and command line

def test_csv_files_are_written_and_read_back_equal(fig1_tables, tmp_path):
    tables = {**fig1_tables, **bench.fig1_summary(fig1_tables)}
    paths = bench.write_fig1(tables, tmp_path / "out")
    assert sorted(p.name for p in paths) == ["fig1_T.csv", "fig1_claims.csv", "fig1_m.csv",
                                             "fig1_n.csv", "fig1_ratios.csv"]
    for name, table in tables.items():
        pd.testing.assert_frame_equal(bench.read_table(tmp_path / "out" / f"fig1_{name}.csv"),
                                      table)


def test_cli_fig1_writes_the_csv_files_with_the_options_given(capsys, tmp_path):
    bench.main(["fig1", "--quick", "--out", str(tmp_path), "--T-grid", "3", "6",
                "--n-grid", "1", "2"])
    out = capsys.readouterr().out
    assert "fit time (s) vs number of voters n" in out and "Paper (Sect. 5.1) vs ours" in out
    T = bench.read_table(tmp_path / "fig1_T.csv")
    assert sorted(set(T["T"])) == [3, 6]
    n = bench.read_table(tmp_path / "fig1_n.csv")
    assert sorted(set(n["n_voters"])) == [2 * bench.QUICK_FIG1.d * k for k in (1, 2)]
    claims = bench.read_table(tmp_path / "fig1_claims.csv")
    assert list(claims["claim"]) == CLAIM_IDS
    assert (tmp_path / "fig1_m.csv").exists() and (tmp_path / "fig1_ratios.csv").exists()


def test_fig1_config_rejects_bad_grids_and_its_default_is_the_bench_data():
    with pytest.raises(ParameterError, match="n_grid"):
        bench.Fig1Config(n_grid=(1, 1, 2))
    with pytest.raises(ParameterError, match="T_grid"):
        bench.Fig1Config(T_grid=(0, 5))
    with pytest.raises(ParameterError, match="repeat"):
        bench.Fig1Config(repeat=0)
    full = bench.Fig1Config()
    assert (full.d, full.m_fixed, max(full.m_grid)) == (784, 11791, 11791)
    assert 2 * full.d * max(full.n_grid) == 15680 and max(full.T_grid) == 200
