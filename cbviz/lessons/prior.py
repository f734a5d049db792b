"""Lesson 7: honest bounds — a prior built on held-out examples against one built on the
training set."""
from __future__ import annotations

import dataclasses

from .. import bounds
from ..plots.comparison import compare_figure
from ..problem import build_problem
from .stages import Compute, Lesson, Look, Question, Reveal, Stage, Step, fmt

HELD_OUT = 0.3
ITERATIONS = 30
HOLDS = ("yes: the bound counts the same m examples either way",
         "not strictly: the prior must not depend on the examples the bound counts")
MOVES = ("higher", "lower", "the same")
CAUSES = {"m": "m, the number of examples the bound counts",
          "kl": "KL(Q‖P), the distance to the prior",
          "empirical": "the vote's empirical risks r, d and e"}
SHORT = {"m": "m", "kl": "KL(Q‖P)", "empirical": "the empirical risks"}
SOURCE = ("McAllester (1999) and Germain et al. (2015): the prior P is fixed before the sample "
          "the bound counts")


def held_out_run(lab):
    """The same run with the voters built from a held-out part of the training data."""
    settings = dataclasses.replace(lab.settings, prior_fraction=HELD_OUT)
    problem = build_problem(settings)
    run = lab.lesson.make_run(problem, settings.delta)
    while len(run.history) < len(lab.run.history) and run.step() is not None:
        pass
    return {"problem": problem, "run": run}


def _pair(lab):
    held = lab.result("held_out")["run"]
    return lab.run.history[-1], held.history[-1], lab.run.y.size, held.y.size


def _figure(lab):
    if "held_out" not in lab.results:
        return None
    frames = {"voters from the training part": lab.frame(),
              f"voters from a held-out {fmt(100 * HELD_OUT, 0)} %": lab.results["held_out"][
                  "run"].to_frame()}
    key, _ = bounds.tightest(lab.run.history[-1])
    return compare_figure(frames, key, title=f"{bounds.PAC_BOUNDS[key]}",
                          y_title="bound on the true risk", uirevision="l7")


def reveal_holds(lab):
    m, n = lab.run.y.size, lab.problem.n_voters
    rec = lab.run.history[-1]
    key, value = bounds.tightest(rec)
    text = (f"The {fmt(n)} stumps of the pool have thresholds spread between each feature's "
            f"smallest and largest value **on the m = {fmt(m)} training examples**, and the "
            f"bounds (here the tightest, {bounds.PAC_BOUNDS[key]}, is {fmt(value)}) count the "
            "same examples. The PAC-Bayes theorems hold for a prior P chosen before the "
            "sample is drawn; a uniform prior over a pool built from the sample depends on it. "
            "The papers do it this way (the thresholds use only each feature's smallest and "
            "largest value), but the theorem as stated does not cover it.")
    return Reveal(HOLDS[1], text, {"m": m, "n": n, "bound": value}, SOURCE)


def reveal_move(lab):
    a, b, m_a, m_b = _pair(lab)
    key, _ = bounds.tightest(a)
    va, vb = getattr(a, key), getattr(b, key)
    answer = MOVES[0] if vb > va else (MOVES[1] if vb < va else MOVES[2])
    text = (f"With the voters built from a held-out {fmt(100 * HELD_OUT, 0)} % of the training "
            f"part, the run learns on, and the bound counts, m = {fmt(m_b)} examples instead of "
            f"{fmt(m_a)}. After {b.iteration} iterations the {bounds.PAC_BOUNDS[key]} is "
            f"**{fmt(vb)}** against {fmt(va)}. This one holds as stated: its prior does not "
            "depend on the examples it counts.")
    return Reveal(answer, text, {"bound_train": va, "bound_held_out": vb, "m_train": m_a,
                                 "m_held_out": m_b}, SOURCE)


def causes(lab):
    """The tightest bound's change put down to each input, one at a time (the others at the
    held-out run's values): input -> held-out bound minus the bound with that input back."""
    a, b, m_a, m_b = _pair(lab)
    key, _ = bounds.tightest(a)
    delta = lab.settings.delta

    def value(src_m, src_kl, src_emp):
        return bound_of(key, src_emp, src_kl.kl, src_m, delta)
    now = value(m_b, b, b)
    return {"m": now - value(m_a, b, b), "kl": now - value(m_b, a, b),
            "empirical": now - value(m_b, b, a)}


def bound_of(key, rec, kl, m, delta):
    """PAC-Bayes bound ``key`` from a record's empirical quantities with ``kl`` and ``m``."""
    if key == "first_order_bound":
        return bounds.first_order_bound(rec.gibbs_risk, kl, m, delta)
    if key == "pac_bound_1":
        return bounds.pac_bound_1(rec.gibbs_risk, rec.disagreement, kl, m, delta)
    if key == "tandem_bound":
        return bounds.tandem_bound(rec.joint_error, kl, m, delta)
    return bounds.cqboost_c_bound(rec.mu1, rec.mu2, kl, m, delta)


def reveal_cause(lab):
    effect = causes(lab)
    a, b, _, _ = _pair(lab)
    tight, _ = bounds.tightest(a)
    up = getattr(b, tight) >= getattr(a, tight)
    key = max(effect, key=lambda k: effect[k] if up else -effect[k])
    parts = "; ".join(f"{SHORT[k]}: {fmt(effect[k], sign=True)}" for k in effect)
    text = (f"Putting each input back to its value without a held-out part, one at a time: "
            f"{parts}. The largest share is **{CAUSES[key]}**. Every bound's deviation term "
            "shrinks as m grows: an honest prior costs the examples it was built from.")
    return Reveal(CAUSES[key], text, dict(effect), SOURCE)


def reveal_test(lab):
    a, b, _, _ = _pair(lab)
    answer = MOVES[0] if b.test_error > a.test_error else (
        MOVES[1] if b.test_error < a.test_error else MOVES[2])
    text = (f"Test error **{fmt(b.test_error)}** with the held-out part against "
            f"{fmt(a.test_error)} without (same test examples). The voters now come from fewer "
            "examples and the vote learns on fewer: the price of the honest bound is paid in "
            "data, whatever the test error does on one split.")
    return Reveal(answer, text, {"test_train": a.test_error, "test_held_out": b.test_error},
                  SOURCE)


def claims(lab):
    a, b, _, _ = _pair(lab)
    key, _ = bounds.tightest(a)
    effect = causes(lab)
    return [
        ("the bound with a held-out prior is higher", getattr(b, key) > getattr(a, key)),
        ("m is the largest cause", max(effect, key=effect.get) == "m"),
    ]


LESSON = Lesson(
    slug="prior", title="Honest bounds: a prior built on held-out examples", minutes=10,
    summary="The uniform prior over stumps built from the training set depends on it; build "
            "them from a held-out part instead and measure what the honest bound costs.",
    settings={"source": "real", "real": "breast_cancer", "pool": "stumps",
              "n_thresholds": "10", "prior_fraction": 0.0},
    algorithm="cbboost", params={"direction": "exhaustive", "eligible": "theorem3"},
    max_iter=ITERATIONS, claims=claims, computations={"held_out": held_out_run},
    leave="Continue on **Step through an algorithm**, with the sidebar's 'Prior part' setting "
          "(under Split, noise, normalization).",
    stages=(
        Stage("Does the theorem hold?",
              f"Step until the vote has **{ITERATIONS} voters** (the pool is built from the "
              "whole training part, as the papers do).",
              Question("Do the PAC-Bayes bounds on the page hold as their theorems state?", HOLDS),
              Step(ITERATIONS), reveal_holds, ("P", "m", "delta"), None),
        Stage("A held-out prior",
              f"Press **Build the voters from a held-out {fmt(100 * HELD_OUT, 0)} %** and rerun "
              f"{ITERATIONS} iterations.",
              Question("Will the tightest bound be higher or lower?", MOVES),
              Compute("held_out", "Build the voters from a held-out part"), reveal_move,
              ("P", "m", "KL"), _figure,
              formula=(r"\begin{gathered}\text{with probability} \ge 1 - \delta \text{ over } S"
                       r" \sim D^m: \\ \text{bound}\big(\hat r_S(Q), \mathrm{KL}(Q\|P), m,"
                       r" \delta\big) \text{ for all } Q, \\ \textbf{if } P \textbf{ does not"
                       r" depend on } S\end{gathered}")),
        Stage("Where the price comes from", "Each bound depends on m, KL(Q‖P) and the vote's "
                                            "empirical risks.",
              Question("Which input's change moved the bound the most?", tuple(CAUSES.values())),
              Look(), reveal_cause, ("m", "KL", "r", "d", "e"), _figure,
              formula=(r"\text{tandem: } 4\,\mathrm{kl}^{-1}\Big(e,\ \frac{2\,\mathrm{KL} +"
                       r" \ln(2\sqrt m/\delta)}{m}\Big)")),
        Stage("And the test error", "The test examples are the same in both runs.",
              Question("With the held-out prior part, the test error is…", MOVES),
              Look(), reveal_test, (), _figure),
    ),
)
