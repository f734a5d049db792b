"""The support (non-zero weights) a run keeps incrementally: every record's ``support`` and
``weights`` are those a scan of the whole weight vector gives, step after step, on every
algorithm and CB-Boost rule (voters chosen again included), fused stump engine or dense."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from sklearn.datasets import make_classification

from cbviz.algorithms.base import Run
from cbviz.algorithms.cbboost import CBBoost
from cbviz.algorithms.registry import ALGORITHMS
from cbviz.voters import StumpPool

POOLS = {"10": dict(n_thresholds=10), "255": dict(n_thresholds=255, binning="quantile"),
         "all": dict(n_thresholds="all")}


@pytest.fixture(scope="module")
def data():
    X, y01 = make_classification(n_samples=160, n_features=6, n_informative=3, n_redundant=1,
                                 flip_y=0.15, random_state=3)
    return X, np.where(y01 == 1, 1.0, -1.0)


def _scanning(monkeypatch):
    """The record-making as it was: the support found by scanning all n weights."""
    def scan(self, k, was):
        self._support = np.flatnonzero(self._a)
    monkeypatch.setattr(Run, "_track", scan)


def _records_equal(got, ref):
    assert len(got) == len(ref)
    for g, r in zip(got, ref):
        for f in dataclasses.fields(g):
            if f.name in ("seconds", "candidates"):
                continue
            a, b = getattr(g, f.name), getattr(r, f.name)
            if isinstance(a, np.ndarray):
                assert a.dtype == b.dtype and np.array_equal(a, b), f.name
            else:
                assert a == b or (a != a and b != b), f.name   # NaN equals NaN here


def _check_each_step(run):
    """Step ``run`` to the end; after each step the record and the run's support are those
    of a scan of the weight vector."""
    while not run.done:
        rec = run.step()
        if rec is None:
            break
        nz = np.flatnonzero(run.weights)
        assert np.array_equal(rec.support, nz) and np.array_equal(run.support, nz)
        assert rec.support.dtype == np.flatnonzero(np.ones(1)).dtype
        assert np.array_equal(rec.weights, run.weights[nz])
        assert rec.n_voters == nz.size
    return run


CB_RULES = [dict(), dict(reuse_voters=True), dict(direction="gradient", reuse_voters=True),
            dict(eligible="all", reuse_voters=True), dict(eligible="all"),
            dict(keep_candidates=True, reuse_voters=True)]


@pytest.mark.parametrize("pool_name", POOLS)
@pytest.mark.parametrize("kw", CB_RULES, ids=lambda kw: ",".join(f"{k}={v}" for k, v in kw.items())
                         or "paper")
def test_cbboost_records_equal_the_scanning_ones(data, monkeypatch, pool_name, kw):
    X, y = data
    pool = StumpPool(**POOLS[pool_name]).fit(X)
    H = pool.operator(X)
    runs = []
    for scan in (False, True):
        with monkeypatch.context() as mp:
            if scan:
                _scanning(mp)
            runs.append(_check_each_step(CBBoost(max_iter=40, **kw).start(H, y, H, y)))
    _records_equal(runs[0].history, runs[1].history)
    for t in (1, len(runs[0].history) // 2, len(runs[0].history)):
        assert np.array_equal(runs[0].weights_at(t), runs[1].weights_at(t))
    if kw.get("reuse_voters") and pool_name == "10":
        assert any(r.extra["reused"] for r in runs[0].history)   # a voter chosen again


def test_reused_voter_keeps_one_support_entry(data):
    X, y = data
    H = StumpPool(3).fit(X).operator(X)
    run = _check_each_step(CBBoost(max_iter=60, reuse_voters=True).start(H, y))
    reused = [r for r in run.history if r.extra["reused"]]
    assert reused
    for r in reused:
        assert np.count_nonzero(r.support == r.index) == 1
        assert r.n_voters == run.history[r.iteration - 2].n_voters


def test_dense_matrix_runs_keep_the_support(data):
    X, y = data
    H = StumpPool(5).fit(X).transform(X)
    _check_each_step(CBBoost(max_iter=30, reuse_voters=True).start(H, y))


@pytest.mark.parametrize("key", sorted(ALGORITHMS))
def test_every_algorithm_records_the_scanned_support(data, monkeypatch, key):
    X, y = data
    H = StumpPool(4).fit(X).operator(X)
    runs = []
    for scan in (False, True):
        with monkeypatch.context() as mp:
            if scan:
                _scanning(mp)
            runs.append(_check_each_step(ALGORITHMS[key].make(max_iter=12).start(H, y)))
    _records_equal(runs[0].history, runs[1].history)


def test_quadboost_sign_flips_move_the_support(data):
    X, y = data
    H = StumpPool(4).fit(X).operator(X)
    for kw in (dict(reweight=True), dict(regularization="l1", lam=1e-3, reweight=True)):
        _check_each_step(ALGORITHMS["quadboost"].make(max_iter=40, **kw).start(H, y))


def test_weights_leaving_and_entering_the_support(data):
    X, y = data
    H = StumpPool(4).fit(X).operator(X)
    run = CBBoost(max_iter=5).start(H, y)
    run._add(7, 2.0)
    run._add(3, 1.0)
    run._add(7, 0.5)
    assert run.support.tolist() == [3, 7]
    run._add(7, -2.5)                      # back to exactly zero: leaves the support
    assert run.support.tolist() == [3]
    run._put(0, 4.0)
    run._put(3, 0.0)
    assert run.support.tolist() == [0]
    run._set_weights(np.where(np.arange(H.shape[1]) % 5 == 0, 1.0, 0.0))
    assert np.array_equal(run.support, np.flatnonzero(run.weights))
    run._put(1, 1.0)
    assert np.array_equal(run.support, np.flatnonzero(run.weights))
    s = run.support
    s[:] = -1                               # a copy: the run's own is untouched
    assert np.array_equal(run.support, np.flatnonzero(run.weights))


def _step_with_copies(run):
    """Step ``run`` to the end; the (support, weights) of the vote after each step, copied."""
    seen = []
    while not run.done:
        if run.step() is None:
            break
        seen.append((run.support, run.weights[run.support]))
    return seen


def _same_vote(rec, support, weights):
    assert rec.support.dtype == support.dtype and np.array_equal(rec.support, support)
    assert rec.weights.dtype == weights.dtype and np.array_equal(rec.weights, weights)
    assert not rec.support.flags.writeable and not rec.weights.flags.writeable


RUNS = [(key, {}) for key in sorted(ALGORITHMS)] + [("cbboost", kw) for kw in CB_RULES[1:]]


@pytest.mark.parametrize("snapshot_min", [1, 64])
@pytest.mark.parametrize("key,kw", RUNS, ids=[f"{k}-{i}" for i, (k, _) in enumerate(RUNS)])
def test_records_rebuilt_from_the_log_of_changes(data, monkeypatch, key, kw, snapshot_min):
    """Records keep the run's log of weight changes (and snapshots), not a copy of the vote:
    read in any order, later, or after pickling, each gives the vote after its step."""
    import pickle

    from cbviz.algorithms import base
    monkeypatch.setattr(base, "SNAPSHOT_MIN", snapshot_min)
    X, y = data
    H = StumpPool(4).fit(X).operator(X)
    run = (CBBoost(max_iter=50, **kw) if kw else ALGORITHMS[key].make(max_iter=50)).start(H, y)
    seen = _step_with_copies(run)
    history = run.history
    assert len(seen) == len(history) >= 1   # MinCq: one step (one program)
    rng = np.random.default_rng(0)
    for order in (range(len(history))[::-1], rng.permutation(len(history)),
                  range(len(history))):
        for t in order:
            _same_vote(history[t], *seen[t])
    again = pickle.loads(pickle.dumps(history))
    for t in rng.permutation(len(history)):
        _same_vote(again[t], *seen[t])
        assert again[t].as_row().keys() == history[t].as_row().keys()
    n = H.shape[1]
    for t in {1, max(1, len(history) // 2), len(history)}:
        a = np.zeros(n)
        a[seen[t - 1][0]] = seen[t - 1][1]
        assert np.array_equal(run.weights_at(t), a)
    assert "support=array(" in repr(history[-1])
    assert "support" not in history[-1].as_row() and "_vote" not in history[-1].as_row()
