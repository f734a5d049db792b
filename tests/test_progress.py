"""cbviz.progress: listeners, parts, threads, and cancelling MinCq's solve and a comparison."""
import threading

import numpy as np
import pytest

from cbviz import progress
from cbviz.algorithms import MinCq
from cbviz.algorithms.mincq import mincq_on_history
from cbviz.algorithms.registry import ALGORITHMS
from cbviz.compare import Comparison
from cbviz.voters import StumpPool
from cbviz.problem import Settings, build_problem


def collect(work, cancel_after=None):
    """Run ``work()`` with a listener; return the reports and whether it was cancelled."""
    seen = []

    def listener(fraction, text):
        seen.append((fraction, text))
        return cancel_after is not None and len(seen) >= cancel_after

    try:
        with progress.reporting(listener):
            work()
    except progress.Cancelled:
        return seen, True
    return seen, False


def test_report_without_listener_does_nothing():
    progress.report(0.5, "nobody listens")


def test_parts_map_into_the_outer_range_and_join_texts():
    def work():
        for k in range(4):
            with progress.part(k / 4, (k + 1) / 4, f"step {k + 1} of 4"):
                progress.report(0.5, "inner")
    seen, _ = collect(work)
    inner = [(f, t) for f, t in seen if t.endswith("inner")]
    assert [f for f, _ in inner] == pytest.approx([0.125, 0.375, 0.625, 0.875])
    assert inner[2][1] == "step 3 of 4 · inner"
    assert seen[0] == (0.0, "step 1 of 4")          # a part opens with its start


def test_fractions_are_clipped_and_a_true_listener_cancels():
    seen = []
    with pytest.raises(progress.Cancelled, match="too far"):
        with progress.reporting(lambda f, t: seen.append(f) or f >= 1.0):
            progress.report(-3.0, "before")
            progress.report(7.0, "too far")
    assert seen == [0.0, 1.0]


def test_listeners_belong_to_their_thread():
    """Each thread hears only its own reports (as each Streamlit session's script thread)."""
    heard, barrier = {}, threading.Barrier(6)

    def target(i):
        mine = []
        with progress.reporting(lambda f, t: mine.append(t) and False):
            barrier.wait()
            for k in range(200):
                progress.report(k / 200, f"{i}:{k}")
        heard[i] = mine

    threads = [threading.Thread(target=target, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(6):
        assert heard[i] == [f"{i}:{k}" for k in range(200)]


@pytest.fixture(scope="module")
def problem():
    """Pima with every midpoint as a threshold: MinCq has 1,065 direct voters (Gram-free)."""
    return build_problem(Settings(source="real", real="pima", n_thresholds="all"))


@pytest.fixture(scope="module")
def pool_problem(problem):
    return problem.H_train, problem.split.y_train


def test_mincq_solve_reports_a_rising_share_and_cancels_cleanly(pool_problem):
    H, y = pool_problem
    factory = MinCq(solver="gram_free")
    whole = factory.start(H, y)
    seen, cancelled = collect(whole.step)
    assert not cancelled and whole.history
    shares = [f for f, _ in seen]
    assert whole.history[0].extra["solver_status"] == "optimal"
    # one report per product (the 41 of the set-up in one)
    assert len(seen) == whole.history[0].extra["solver_products"] - 40
    assert all(0.0 <= f <= 1.0 for f in shares)
    assert all(b >= a for a, b in zip(shares, shares[1:]))         # never goes back
    assert shares[-1] > 0.5 and "relative duality gap" in seen[-1][1]

    run = factory.start(H, y)
    seen, cancelled = collect(run.step, cancel_after=len(shares) // 2)
    assert cancelled
    assert not run.history and not run.done and run.stop_reason is None
    # the cancelled step is not taken: the next one is the uninterrupted solve
    run.step()
    assert run.history[0].objective == pytest.approx(whole.history[0].objective, rel=1e-12)
    np.testing.assert_allclose(run.weights_at(1), whole.weights_at(1), atol=1e-15)


def test_mincq_on_history_reports_each_program():
    from cbviz.algorithms import CBBoost
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 4))
    y = np.where(X[:, 0] - X[:, 1] > 0, 1, -1)
    H = StumpPool(5).fit(X).operator(X)
    run = CBBoost(max_iter=6).start(H, y).run()
    seen, _ = collect(lambda: mincq_on_history(run))
    n = len(run.history)
    assert [f for f, _ in seen] == pytest.approx([k / n for k in range(n)])
    assert seen[1][1] == f"MinCq on the voters of iteration 2 (2 of {n} programs)"


def test_comparison_reports_its_share_and_a_cancel_keeps_the_steps_taken(problem):
    algorithms = [("cbboost", {}), ("mincq", {}), ("adaboost", {})]
    whole = Comparison(problem, algorithms, ["adaboost"], max_iter=5)
    seen, cancelled = collect(lambda: whole.step(None))
    assert not cancelled and whole.done and whole.progress() == 1.0
    shares = [f for f, _ in seen]
    assert all(b >= a - 1e-12 for a, b in zip(shares, shares[1:]))
    assert any("operator products" in t for _, t in seen)
    assert seen[-1][1] == "fitting AdaBoost (decision stumps) (scikit-learn)"

    cmp = Comparison(problem, algorithms, ["adaboost"], max_iter=5)
    first_mincq = next(i for i, (_, t) in enumerate(seen) if "operator products" in t)
    _, cancelled = collect(lambda: cmp.step(None), cancel_after=first_mincq + 3)
    assert cancelled
    lengths = {name: len(run.history) for name, run in cmp.runs.items()}
    assert lengths == {"CB-Boost": 1, "MinCq": 0, "AdaBoost": 0}  # one round, in turn
    assert not cmp.baselines
    cmp.step(None)                  # goes on from there to the same end
    for name, run in cmp.runs.items():
        ref = whole.runs[name]
        assert len(run.history) == len(ref.history)
        assert run.history[-1].c_bound == pytest.approx(ref.history[-1].c_bound, rel=1e-9)


def test_every_algorithm_steps_on_all_midpoints(problem):
    """Each registered algorithm on a real set with every midpoint as a threshold."""
    assert problem.n_voters > 2_000
    for key, spec in ALGORITHMS.items():
        run = spec.make(max_iter=3).start(problem.H_train, problem.split.y_train,
                                          problem.H_test, problem.split.y_test)
        while not run.done:
            run.step()
        assert run.history, key
        assert 0.0 <= run.history[-1].c_bound <= 1.0
