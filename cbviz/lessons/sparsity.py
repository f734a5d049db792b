"""Lesson 5: sparse versus dense votes — CB-Boost, CqBoost and MinCq on the same voters."""
from __future__ import annotations

import math

import numpy as np

from ..compare import Comparison
from ..plots.comparison import compare_figure
from .stages import Compute, Lesson, Look, Question, Reveal, Stage, fmt

NAMES = ("CB-Boost", "CqBoost", "MinCq")
MU = 0.05
ALGORITHMS = (("cbboost", {}), ("cqboost", {"mu": MU}), ("mincq", {"mu": MU}))
SOURCES = ("Bauvin et al. (2020); Roy et al. (2016), CqBoost; Germain et al. (2015), MinCq")


def three_votes(lab):
    """The three algorithms on the lab's voters, each run until it stops (at most 100 steps)."""
    comparison = Comparison(lab.problem, ALGORITHMS, max_iter=100, delta=lab.settings.delta)
    while not comparison.done:
        comparison.step(10)
    return {name: run for name, run in comparison.runs.items()}


def _last(lab):
    return {name: run.history[-1] for name, run in lab.result("votes").items()}


def _figure(lab):
    if "votes" not in lab.results:
        return None
    frames = {name: run.to_frame() for name, run in lab.results["votes"].items()}
    return compare_figure(frames, "c_bound", title="Empirical C-bound of the three votes",
                          y_title="empirical C-bound", uirevision="l5")


def _table(last, field, digits=3):
    return ", ".join(f"{name} {fmt(getattr(rec, field), digits)}" for name, rec in last.items())


def _best(last, field, highest=False):
    pick = max if highest else min
    return pick(last, key=lambda name: getattr(last[name], field))


def reveal_voters(lab):
    last = _last(lab)
    n = lab.problem.n_voters
    text = (f"Voters with a non-zero weight, out of the pool's {fmt(n)}: "
            f"{_table(last, 'n_voters')}. CB-Boost adds one voter per iteration and stops when "
            "none improves the C-bound; CqBoost adds one column per iteration (column "
            "generation) until its dual condition holds or its limit; MinCq solves one "
            "quadratic program over the whole pool at once (Germain et al. 2015) and keeps "
            "whatever weights its solution has, with no push toward few voters.")
    return Reveal(_best(last, "n_voters", highest=True), text,
                  {name: rec.n_voters for name, rec in last.items()}, SOURCES)


def outside_mincq(lab, run):
    """How far ``run``'s vote is from MinCq's program (quasi-uniform, mean margin mu): scaled
    to mean margin mu, ``(its largest signed weight on a direct voter, the voters above the
    cap, the cap 1/n')``; None when the pool is not self-complemented."""
    if not lab.problem.H_train.is_self_complemented():
        return None
    a = run.weights_at()
    half = a.size // 2
    gamma = float(np.mean(run.y * lab.problem.H_train.matvec(a)))
    signed = np.abs(a[:half] - a[half:]) * MU / gamma
    return float(signed.max()), int(np.sum(signed > 1 / half * (1 + 1e-9))), 1 / half


def reveal_c_bound(lab):
    last = _last(lab)
    text = (f"Empirical C-bounds: {_table(last, 'c_bound')}. MinCq minimizes the C-bound among "
            f"the quasi-uniform votes whose first margin moment is μ = {MU:g}, over the whole "
            "pool at once; CqBoost minimizes the second moment μ₂ under μ₁ ≥ μ, with weights "
            "summing to 1 on the columns it has generated; CB-Boost minimizes greedily, one "
            "voter and one closed-form weight at a time, never revisiting a weight.")
    outside = outside_mincq(lab, lab.result("votes")["CqBoost"])
    if outside is not None:
        top, above, cap = outside
        lower = last["CqBoost"].c_bound < last["MinCq"].c_bound
        text += (f" Why {'CqBoost can go below' if lower else 'neither is bound by'} MinCq's "
                 f"C-bound: quasi-uniform means that, scaled to μ₁ = {MU:g}, no voter carries "
                 f"more than 1/{fmt(round(1 / cap))} = {fmt(cap, 4)} of signed weight (one over "
                 "the voters before complements). CqBoost's program has no "
                 f"such cap: its vote, at the same μ₁, puts {fmt(top, 4)} on one voter and "
                 f"exceeds the cap on {above} voters. It lies outside MinCq's program, so MinCq's "
                 "optimum does not bind it.")
    return Reveal(_best(last, "c_bound"), text,
                  {name: rec.c_bound for name, rec in last.items()}, SOURCES)


def reveal_test(lab):
    last = _last(lab)
    text = (f"Test errors: {_table(last, 'test_error')}; training errors: "
            f"{_table(last, 'train_error')}. The C-bound bounds the training error (Corollary "
            "1 of Bauvin et al.) and, through a PAC-Bayes bound, the true risk; neither orders "
            "the test errors of two votes. Check it: is the lowest C-bound also the lowest test "
            f"error here? The lowest C-bound is {_best(last, 'c_bound')}'s, the lowest test "
            f"error {_best(last, 'test_error')}'s.")
    return Reveal(_best(last, "test_error"), text,
                  {name: rec.test_error for name, rec in last.items()}, SOURCES)


def reveal_kl(lab):
    last = _last(lab)
    text = (f"KL(Q‖P) to the uniform prior, in nats: {_table(last, 'kl', 2)} (at most ln n = "
            f"{fmt(math.log(lab.problem.n_voters), 2)}). A dense vote "
            "spreads Q over the pool and stays close to the uniform prior; a sparse vote puts "
            "all of Q on a few voters and pays ln n minus the entropy of its weights. Every "
            "PAC-Bayes bound adds this KL term (divided by m) to the empirical quantities.")
    return Reveal(_best(last, "kl"), text, {name: rec.kl for name, rec in last.items()},
                  "Bauvin et al. (2020), Sect. 2; Germain et al. (2015)")


def claims(lab):
    last = _last(lab)
    return [
        ("MinCq uses the most voters", _best(last, "n_voters", highest=True) == "MinCq"),
        ("MinCq's vote is the closest to the prior", _best(last, "kl") == "MinCq"),
        ("CB-Boost uses the fewest voters", min(last, key=lambda k: last[k].n_voters)
         == "CB-Boost"),
    ]


CHOICES = tuple(NAMES)
LESSON = Lesson(
    slug="sparsity", title="Sparse versus dense votes: CB-Boost, CqBoost and MinCq", minutes=12,
    summary="Three ways to minimize the C-bound on the same breast-cancer stumps: how many "
            "voters each keeps, the C-bound, the test error and the KL term it reaches.",
    settings={"source": "real", "real": "breast_cancer", "pool": "stumps",
              "n_thresholds": "10"},
    algorithm="cbboost", params={"direction": "exhaustive", "eligible": "theorem3"},
    max_iter=100, claims=claims, computations={"votes": three_votes}, next_page="compare",
    leave="Continue on **Compare algorithms**: any of the algorithms, and scikit-learn's "
          "ensembles, on the same voters.",
    stages=(
        Stage("How many voters",
              "Press **Run the three algorithms** (CB-Boost and CqBoost until they stop, at "
              "most 100 iterations; MinCq with μ = 0.05).",
              Question("Which vote gives a non-zero weight to the most voters?", CHOICES),
              Compute("votes", "Run the three algorithms"), reveal_voters, ("Q", "m"), _figure),
        Stage("The lowest C-bound", "Read the C-bound of each vote on the chart.",
              Question("Which reaches the lowest empirical C-bound?", CHOICES),
              Look(), reveal_c_bound, ("C", "mu"), _figure),
        Stage("The lowest test error", "Think about what the C-bound promises.",
              Question("Which has the lowest test error?", CHOICES),
              Look(), reveal_test, ("C",), _figure),
        Stage("Distance to the prior", "The PAC-Bayes bounds pay KL(Q‖P) for a posterior far "
                                       "from the uniform prior.",
              Question("Which vote is the closest to the uniform prior (smallest KL)?", CHOICES),
              Look(), reveal_kl, ("KL", "Q", "P"), _figure,
              formula=r"\mathrm{KL}(Q\|P) = \ln n + \sum_k Q_k \ln Q_k \in [0, \ln n]"),
    ),
)
