"""Lesson 6: label noise and overfitting — CB-Boost against AdaBoost, test error by iteration."""
from __future__ import annotations

import numpy as np

from ..compare import Comparison
from ..plots.comparison import compare_figure
from .stages import Compute, Lesson, Look, Question, Reveal, Stage, fmt, stopped_because

ITERATIONS = 200
NAMES = ("CB-Boost", "AdaBoost")
SOURCES = "Bauvin et al. (2020), Sect. 5.4 (CB-Boost against AdaBoost under noise)"


def two_runs(lab):
    """CB-Boost and AdaBoost on the lab's voters, each until it stops or 200 iterations."""
    comparison = Comparison(lab.problem, (("cbboost", {}), ("adaboost", {})),
                            max_iter=ITERATIONS, delta=lab.settings.delta)
    while not comparison.done:
        comparison.step(20)
    return comparison.runs


def _frames(lab):
    return {name: run.to_frame() for name, run in lab.result("runs").items()}


def _figure(lab):
    if "runs" not in lab.results:
        return None
    return compare_figure(_frames(lab), "test_error", y_title="test 0-1 error",
                          title="Test error of the vote (clean test labels)", uirevision="l6")


def _train_figure(lab):
    if "runs" not in lab.results:
        return None
    return compare_figure(_frames(lab), "train_error", y_title="training 0-1 error (noisy labels)",
                          title="Training error on the noisy training labels", uirevision="l6t")


def _last(lab, field):
    return {name: float(getattr(run.history[-1], field))
            for name, run in lab.result("runs").items()}


def _noise(lab):
    return lab.settings.label_noise


def reveal_train(lab):
    last = _last(lab, "train_error")
    lengths = {name: len(run.history) for name, run in lab.result("runs").items()}
    text = (f"With {fmt(100 * _noise(lab), 0)} % of the training labels flipped, the training "
            f"errors at the end are: CB-Boost {fmt(last['CB-Boost'])} after "
            f"{lengths['CB-Boost']} iterations, AdaBoost {fmt(last['AdaBoost'])} after "
            f"{lengths['AdaBoost']}. AdaBoost re-weights the examples it gets wrong, so its "
            "later voters aim at the examples it keeps missing, the flipped ones among them; "
            "CB-Boost adds a voter only while it lowers the C-bound, which rewards a mean "
            "margin large against its spread (μ₁²/μ₂), not a fit of each example.")
    return Reveal(min(last, key=last.get), text, last, SOURCES)


def reveal_test(lab):
    last = _last(lab, "test_error")
    text = (f"Test errors at the end (the test labels are clean): CB-Boost "
            f"**{fmt(last['CB-Boost'])}**, AdaBoost **{fmt(last['AdaBoost'])}**. A lower "
            "training error on noisy labels is not a better vote: the voters that fit the "
            "flipped examples point the wrong way on fresh ones.")
    return Reveal(min(last, key=last.get), text, last, SOURCES)


def reveal_best(lab):
    frame = _frames(lab)["AdaBoost"]
    err = frame["test_error"].to_numpy(dtype=float)
    best = int(np.argmin(err)) + 1
    text = (f"AdaBoost's test error was lowest, **{fmt(err[best - 1])}**, at iteration "
            f"**{best}**; it ends at {fmt(err[-1])} after {len(err)} iterations. Stopping "
            "early would have helped it, but choosing when needs held-out data, which the "
            "training error cannot tell. CB-Boost's own stop (no voter lowers the C-bound) "
            "needs none.")
    return Reveal(best, text, {"best_iteration": best, "best": err[best - 1], "end": err[-1]},
                  SOURCES)


STOPS = ("it reached 200 iterations", "no voter with γ(h) > 0 lowers the C-bound any more",
         "its training error reached 0")


def reveal_stop(lab):
    run = lab.result("runs")["CB-Boost"]
    n = len(run.history)
    reason = run.stop_reason or ""
    answer = STOPS[0] if n >= ITERATIONS else (
        STOPS[1] if reason.startswith("no voter outside the vote") else STOPS[2])
    text = (f"CB-Boost stopped after **{n}** iterations: *{stopped_because(run)}*. Its C-bound "
            f"went from {fmt(run.history[0].c_bound)} to {fmt(run.history[-1].c_bound)}. The stop "
            "means that no voter outside the vote with γ(h) > 0 lowers C = 1 − μ₁²/μ₂ at any "
            "positive weight (Theorem 3's hypothesis restricts the rule to those voters).")
    return Reveal(answer, text, {"iterations": n}, SOURCES)


def claims(lab):
    train, test = _last(lab, "train_error"), _last(lab, "test_error")
    ada = _frames(lab)["AdaBoost"]["test_error"].to_numpy(dtype=float)
    cb = lab.result("runs")["CB-Boost"]
    return [
        ("AdaBoost ends with the lower training error", train["AdaBoost"] < train["CB-Boost"]),
        ("CB-Boost ends with the lower test error", test["CB-Boost"] < test["AdaBoost"]),
        ("AdaBoost's test error is lowest well before its end",
         int(np.argmin(ada)) + 1 < len(ada) // 2 and ada[-1] > ada.min()),
        ("CB-Boost stops before 200 iterations", len(cb.history) < ITERATIONS),
    ]


LESSON = Lesson(
    slug="noise", title="Label noise and overfitting: CB-Boost against AdaBoost", minutes=10,
    summary="Flip 20 % of breast cancer's training labels and watch both learners' training "
            "and test errors over 200 iterations.",
    settings={"source": "real", "real": "breast_cancer", "pool": "stumps",
              "n_thresholds": "10", "label_noise": 0.2},
    algorithm="cbboost", params={"direction": "exhaustive", "eligible": "theorem3"},
    max_iter=ITERATIONS, claims=claims, computations={"runs": two_runs}, next_page="compare",
    leave="Continue on **Compare algorithms** (the sidebar's 'Label noise' setting is kept) or on "
          "**Paper experiments** for the paper's Fig. 3 (feature noise).",
    stages=(
        Stage("Fitting noisy labels",
              "Press **Run both** (CB-Boost and AdaBoost on the same stumps, at most 200 "
              "iterations each). 20 % of the training labels are flipped; the test labels "
              "are not.",
              Question("Which ends with the lower training error (on the noisy labels)?", NAMES),
              Compute("runs", "Run both"), reveal_train, ("h",), _train_figure),
        Stage("On clean test labels", "Read the test errors on the chart.",
              Question("Which ends with the lower test error?", NAMES),
              Look(), reveal_test, (), _figure),
        Stage("When to stop AdaBoost", "Follow AdaBoost's test error along the iterations.",
              Question("At which iteration is AdaBoost's test error the lowest?", low=1,
                       high=ITERATIONS, step=1, tolerance=10),
              Look(), reveal_best, (), _figure),
        Stage("Why CB-Boost stops", "CB-Boost's curve ends early.",
              Question("Why did CB-Boost stop?", STOPS),
              Look(), reveal_stop, ("gamma", "C", "mu"), _figure),
    ),
)
