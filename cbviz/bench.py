"""Per-iteration speed of CB-Boost against its peers, measured in one run.

``python -m cbviz.bench [--m 11800 --d 784 --iters 20]`` times, on a seeded
``make_classification`` set of the CB-Boost paper's MNIST 4-vs-9 size:

(a) the stump operator (sorted prefix sums), 10 thresholds per feature + complements;
(b) the stump operator, every threshold;
(c) the dense voter matrix, 10 thresholds per feature + complements;
(d) scikit-learn's ``AdaBoostClassifier`` with depth-1 trees, same number of iterations.

It prints one row per configuration and the ratios the project tracks: d/a (target >= 20),
c/a (target >= 5) and b/a (target <= 2).
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.datasets import make_classification
from sklearn.ensemble import AdaBoostClassifier
from sklearn.tree import DecisionTreeClassifier

from .algorithms import CBBoost
from .voters import StumpPool


def time_cbboost(H, y, iters):
    """Seconds per CB-Boost iteration (steps 2..iters; step 1 only picks the best voter)."""
    run = CBBoost(max_iter=iters).start(H, y)
    run.step()
    t0 = time.perf_counter()
    steps = 0
    while run.step() is not None:
        steps += 1
    return (time.perf_counter() - t0) / max(steps, 1), steps


def time_adaboost(X, y, iters, seed):
    """Seconds per AdaBoost iteration (depth-1 trees, SAMME)."""
    ada = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=iters,
                             random_state=seed)
    t0 = time.perf_counter()
    ada.fit(X, y)
    return (time.perf_counter() - t0) / len(ada.estimators_), len(ada.estimators_)


def measure(m=11800, d=784, iters=20, seed=0, dense=True):
    """Rows ``(name, n_voters, setup_s, per_iter_s, iterations)`` for the four configurations."""
    X, y01 = make_classification(n_samples=m, n_features=d, n_informative=min(d, 60),
                                 n_redundant=min(d // 4, 100), random_state=seed)
    y = np.where(y01 == 1, 1, -1)
    rows = []
    for name, n_thr, as_dense in [("(a) operator, 10 thresholds", 10, False),
                                  ("(b) operator, all thresholds", "all", False),
                                  ("(c) dense matrix, 10 thresholds", 10, True)]:
        if as_dense and not dense:
            continue
        t0 = time.perf_counter()
        pool = StumpPool(n_thr).fit(X)
        H = pool.transform(X) if as_dense else pool.operator(X)
        setup = time.perf_counter() - t0
        per, steps = time_cbboost(H, y, iters)
        rows.append((name, pool.n_voters_, setup, per, steps))
        del H
    per, steps = time_adaboost(X, y, iters, seed)
    rows.append(("(d) sklearn AdaBoost, depth-1 trees", d, 0.0, per, steps))
    return rows


def report(rows):
    """The table and the ratios as text."""
    lines = [f"{'configuration':38s} {'voters':>9s} {'setup s':>8s} {'ms/iter':>9s} {'iters':>6s}"]
    for name, n, setup, per, steps in rows:
        lines.append(f"{name:38s} {n:9d} {setup:8.2f} {per * 1e3:9.2f} {steps:6d}")
    per = {row[0][:3]: row[3] for row in rows}
    a = per["(a)"]
    lines.append("")
    lines.append(f"d/a = {per['(d)'] / a:6.1f}x  (AdaBoost per iteration / operator; target >= 20)")
    if "(c)" in per:
        lines.append(f"c/a = {per['(c)'] / a:6.1f}x  (dense matrix / operator; target >= 5)")
    lines.append(f"b/a = {per['(b)'] / a:6.2f}x  (all thresholds / 10 thresholds; target <= 2)")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m cbviz.bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--m", type=int, default=11800, help="examples (default: MNIST 4v9 size)")
    ap.add_argument("--d", type=int, default=784, help="features")
    ap.add_argument("--iters", type=int, default=20, help="boosting iterations per configuration")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-dense", action="store_true", help="skip (c), which needs m*n*8 bytes")
    args = ap.parse_args(argv)
    rows = measure(args.m, args.d, args.iters, args.seed, dense=not args.no_dense)
    print(f"CB-Boost per-iteration time, m={args.m}, d={args.d}, seed={args.seed}")
    print(report(rows))


if __name__ == "__main__":
    main()
