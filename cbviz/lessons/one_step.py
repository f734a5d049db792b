"""Lesson 2: one CB-Boost step — Theorem 3's weight, Property 1's decrease, Corollary 2's sum."""
from __future__ import annotations

import numpy as np

from .. import plots
from ..markdown import md   # voter labels shown literally in markdown
from .stages import Lesson, Question, Reveal, Stage, Step, fmt, stopped_because

PAPER = "Bauvin et al. (2020)"
EQUAL = ("equal to the predicted decrease", "smaller than predicted", "larger than predicted")
DOUBLE = ("higher than at α*", "lower than at α*", "the same as at α*")
ERRORS = ("yes, at every step", "no: at some steps it stays or rises")
STOPS = ("it reached its iteration limit",
         "no voter outside the vote with γ(h) > 0 lowers the C-bound any more",
         "its training error reached 0")


def _c_bound_figure(lab):
    frame = lab.frame()
    if frame.empty:
        return None
    return plots.series_figure(frame, {"c_bound": "empirical C-bound", "train_error":
                                       "training error"}, current=len(frame),
                               title="The C-bound and the training error of the vote",
                               y_title="fraction of training examples / bound", uirevision="l2")


def _curve_figure(lab):
    if len(lab.run.history) < 2:
        return None
    return plots.direction_curve_figure(lab.run.direction_curve(2))


def reveal_decrease(lab):
    rec = lab.run.history[1]
    gap = rec.actual_decrease - rec.predicted_decrease
    answer = EQUAL[0] if abs(gap) <= 1e-9 else (EQUAL[1] if gap < 0 else EQUAL[2])
    text = (f"Step 2 added **{md(rec.label)}** with weight α* = {fmt(rec.alpha, 4)} (the first voter "
            f"has weight 1). Before the step Property 1 predicted a decrease S = "
            f"{fmt(rec.predicted_decrease, 6)}; the C-bound recomputed after it fell from "
            f"{fmt(lab.run.history[0].c_bound, 6)} to {fmt(rec.c_bound, 6)}, a decrease of "
            f"{fmt(rec.actual_decrease, 6)} (difference {gap:.1e}). Why: along one voter h, "
            "C(F + αh) is a ratio of two quadratics in α; Theorem 3 gives its minimizer α* = "
            "(γ(h)ν(F) − γ(F)τ(F,h)) / (γ(F)ν(h) − γ(h)τ(F,h)) and Property 1 the value there, "
            "so the exhaustive rule knows each candidate's exact decrease before taking it.")
    return Reveal(answer, text, {"alpha": rec.alpha, "predicted": rec.predicted_decrease,
                                 "actual": rec.actual_decrease, "c_bound": rec.c_bound},
                  f"{PAPER}, Theorem 3 and Property 1")


def reveal_double(lab):
    curve = lab.run.direction_curve(2)
    a = curve.alpha_star
    c_star = float(curve.c_star)
    c_double = float(np.interp(2 * a, curve.alphas, curve.c_values))
    c_half = float(np.interp(a / 2, curve.alphas, curve.c_values))
    answer = DOUBLE[0] if c_double > c_star else (DOUBLE[1] if c_double < c_star else DOUBLE[2])
    text = (f"Along the second voter, the C-bound is {fmt(curve.c_now, 4)} at α = 0, "
            f"**{fmt(c_star, 4)}** at α* = {fmt(a, 4)}, {fmt(c_half, 4)} at α*/2 and "
            f"{fmt(c_double, 4)} at 2α*. Why: α* is the only minimum of C along that line "
            "(Theorem 3); past it μ₁²/μ₂ falls again: the new voter outweighs the vote it was "
            "added to correct.")
    return Reveal(answer, text, {"alpha_star": a, "c_star": c_star, "c_double": c_double,
                                 "c_half": c_half}, f"{PAPER}, Theorem 3")


def reveal_errors(lab):
    frame = lab.frame()
    c, err = frame["c_bound"].to_numpy(), frame["train_error"].to_numpy()
    flat = int(np.sum(np.diff(err) >= 0))
    answer = ERRORS[1] if flat else ERRORS[0]
    rises = int(np.sum(np.diff(c) > 1e-12))
    t = len(frame)
    text = (f"Over iterations 1 to {t} the C-bound fell from {fmt(c[0])} to {fmt(c[-1])} and "
            f"rose at {rises} steps; the training error went from {fmt(err[0])} to "
            f"{fmt(err[-1])} and did not fall at **{flat} of {t - 1}** steps. Why: CB-Boost "
            "never increases the C-bound (each step is the exact minimum along a line through "
            "the current vote), but the C-bound is an upper bound on the training error "
            "(Corollary 1), not the error itself: a step can lower C by moving margins that "
            "stay on the same side of 0.")
    return Reveal(answer, text, {"c_first": c[0], "c_last": c[-1], "flat": flat, "rises": rises},
                  f"{PAPER}, Corollary 1 and Theorem 3")


def reveal_stop(lab):
    run = lab.run
    n = len(run.history)
    reason = run.stop_reason or ""
    if n >= run.max_iter:
        answer = STOPS[0]
    elif reason.startswith("no voter outside the vote"):
        answer = STOPS[1]
    else:
        answer = STOPS[2]
    frame = lab.frame()
    total = float(np.nansum(frame["predicted_decrease"].to_numpy(dtype=float)))
    drop = run.history[0].c_bound - run.history[-1].c_bound
    text = (f"The run stopped after **{n}** iterations (limit {run.max_iter}): "
            f"*{stopped_because(run)}*. "
            f"Its training error is {fmt(run.history[-1].train_error)}. The predicted decreases "
            f"of iterations 2 to {n} add up to {fmt(total, 6)}, and the C-bound fell by "
            f"{fmt(drop, 6)} from iteration 1: Corollary 2 bounds the training error by C of "
            "the first voter minus that sum. Theorem 3 needs γ(h) > 0, so the rule looks only "
            "at such voters: the run stops when none of them outside the vote lowers C, even "
            "if other voters still could (the step page's 'Eligible voters' control tries them).")
    return Reveal(answer, text, {"iterations": n, "sum": total, "drop": drop},
                  f"{PAPER}, Algorithm 1, Theorem 3 and Corollary 2")


def claims(lab):
    frame = lab.frame()
    c = frame["c_bound"].to_numpy()
    pred = frame["predicted_decrease"].to_numpy(dtype=float)[1:]
    act = frame["actual_decrease"].to_numpy(dtype=float)[1:]
    return [
        ("the C-bound never increases", bool(np.all(np.diff(c) <= 1e-12))),
        ("the measured decrease equals the predicted one", bool(np.allclose(pred, act,
                                                                           atol=1e-9))),
        ("the sum of the decreases is the C-bound's drop (Corollary 2)",
         abs(pred.sum() - (c[0] - c[-1])) <= 1e-9),
        ("the run stops before its limit, for want of an improving voter",
         len(frame) < lab.run.max_iter and lab.run.done),
    ]


LESSON = Lesson(
    slug="one-step", title="One CB-Boost step: Theorem 3's weight and the decrease it predicts",
    minutes=12,
    summary="Step CB-Boost on two moons and check each step's weight and C-bound decrease "
            "against the closed forms, then watch why the run stops.",
    settings={"source": "toy", "toy": "moons", "n_samples": 300, "toy_noise": 0.25,
              "pool": "stumps", "n_thresholds": "10"},
    algorithm="cbboost", params={"direction": "exhaustive", "eligible": "theorem3"},
    max_iter=100, claims=claims,
    leave="Continue on **Step through an algorithm** with this very run (its Theorem 3 curve and "
          "the voters table are among its charts).",
    stages=(
        Stage("The second voter",
              "Press **Step** until the vote has **2 voters**. The second step adds one stump "
              "with the weight α* of Theorem 3.",
              Question("Before the step, Property 1 predicts the C-bound decrease S. The "
                       "decrease measured after the step will be:", EQUAL),
              Step(2), reveal_decrease, ("alpha", "S", "gamma", "nu", "tau", "C"),
              _c_bound_figure,
              formula=(r"\alpha^* = \frac{\gamma(h)\nu(F) - \gamma(F)\tau(F,h)}{\gamma(F)\nu(h) -"
                       r" \gamma(h)\tau(F,h)}, \qquad S = \frac{\big(\gamma(h)\nu(F) -"
                       r" \gamma(F)\tau(F,h)\big)^2}{\nu(F)\big(\nu(F)\nu(h) - \tau(F,h)^2\big)}")),
        Stage("Too much weight",
              "Look at the curve: the C-bound along the second voter's weight α.",
              Question("If that voter got twice the weight, 2α*, the C-bound would be:", DOUBLE),
              Step(2), reveal_double, ("alpha", "C"), _curve_figure,
              formula=r"\alpha^* = \arg\min_{\alpha \ge 0} \mathcal{C}(F + \alpha h)"),
        Stage("Ten more voters",
              "Step until the vote has **12 voters**.",
              Question("Does the training error fall at every step, as the C-bound does?",
                       ERRORS),
              Step(12), reveal_errors, ("C",), _c_bound_figure,
              formula=r"\text{training error} \le \mathcal{C} = 1 - \mu_1^2/\mu_2"),
        Stage("Why it stops",
              "Press **Step** (or **To the end**) until the run stops.",
              Question("Why will CB-Boost stop?", STOPS),
              Step(100), reveal_stop, ("gamma", "C", "S"), _c_bound_figure,
              formula=r"\mathcal{C}_T = \mathcal{C}_1 - \sum_{t=2}^{T} S_t"),
    ),
)
