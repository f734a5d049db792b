"""Lesson 3: exhaustive versus gradient — where the two rules pick different voters, and why."""
from __future__ import annotations

import numpy as np

from ..algorithms import lockstep, pick_correlations
from ..plots.landscapes import lockstep_figure
from ..plots.picks import same_vote_picks_figure
from .stages import Compute, Lesson, Look, Question, Reveal, Stage, fmt

PAPER = "Bauvin et al. (2020)"
ITERATIONS = 20
LOWER = ("the exhaustive rule (CB-Boost)", "the gradient rule (GB-CB-Boost)", "they tie")
RULES = ("the exhaustive pick", "the gradient pick")


def both_rules(lab):
    """Both rules run side by side on the lab's problem, and both picks from the same votes."""
    p = lab.problem
    ex, gr, table = lockstep(p.H_train, p.split.y_train, ITERATIONS, p.H_test, p.split.y_test,
                             describe=p.pool.describe, delta=lab.settings.delta)
    return {"ex": ex, "gr": gr, "table": table, "picks": pick_correlations(ex)}


def _runs_figure(lab):
    """Stage 1: the C-bounds of the two independent runs (no count of their picks: each run
    picks from its own vote, which is not what the later stages count)."""
    if "rules" not in lab.results:
        return None
    return lockstep_figure(lab.results["rules"]["table"], marks=False, uirevision="l3")


def _picks_figure(quantity):
    """Stages 2-4: both rules' picks from the exhaustive run's own vote, as the question
    counts them."""
    def figure(lab):
        if "rules" not in lab.results:
            return None
        res = lab.results["rules"]
        return same_vote_picks_figure(res["picks"], quantity,
                                      c_bound=[r.c_bound for r in res["ex"].history],
                                      labels=lab.problem.pool.describe, uirevision=f"l3{quantity}")
    return figure


def _differ(lab):
    picks = lab.result("rules")["picks"]
    return picks, picks[picks["differ"]]


def reveal_lower(lab):
    res = lab.result("rules")
    ce, cg = res["ex"].history[-1].c_bound, res["gr"].history[-1].c_bound
    answer = LOWER[2] if abs(ce - cg) <= 1e-12 else (LOWER[0] if ce < cg else LOWER[1])
    ne, ng = len(res["ex"].history), len(res["gr"].history)
    text = (f"After {ne} and {ng} iterations the exhaustive rule's C-bound is **{fmt(ce, 4)}**, "
            f"the gradient rule's **{fmt(cg, 4)}**. Both add one voter per step with the same "
            "closed-form weight (Theorem 3); they differ only in which voter they add. The "
            "exhaustive rule takes the largest decrease of this step, which is greedy, not a "
            "promise about later steps: the gap after many steps is a measurement, not a "
            "theorem.")
    return Reveal(answer, text, {"exhaustive": ce, "gradient": cg}, f"{PAPER}, Sect. 4 and "
                                                                    "Appendix B (GB-CB-Boost)")


def reveal_count(lab):
    picks, differ = _differ(lab)
    n = len(differ)
    text = (f"From the exhaustive run's own vote at each of its {len(picks)} steps after the "
            f"first, the gradient rule would have taken another voter at **{n}** of them. At "
            "the others the steepest voter at α = 0 is also the one whose optimal step lowers "
            "the C-bound most.")
    return Reveal(n, text, {"differ": n, "steps": len(picks)}, f"{PAPER}, Property 1 and "
                                                                "Appendix B")


def reveal_correlation(lab):
    _, differ = _differ(lab)
    if differ.empty:
        text = "The two rules never differed on this data: nothing to compare."
        return Reveal(RULES[0], text, {"differ": 0}, PAPER)
    re, rg = differ["exhaustive_correlation"].mean(), differ["gradient_correlation"].mean()
    higher = int((differ["exhaustive_correlation"] > differ["gradient_correlation"]).sum())
    answer = RULES[0] if re > rg else RULES[1]
    text = (f"Where the rules differ, the exhaustive pick's correlation with the vote averages "
            f"ρ = **{fmt(re, 2)}**, the gradient pick's **{fmt(rg, 2)}**; the exhaustive pick "
            f"is the more correlated at {higher} of these {len(differ)} steps. Why: the "
            "exhaustive score is S = g²/(ν(F)²ν(h)(1 − ρ²)), where g = γ(h)ν(F) − γ(F)τ(F,h) "
            "is the gradient rule's score. The factor 1/(1 − ρ²) grows as h lines up with F "
            "(and ν(h) = 1 for every ±1 voter): a voter close to the vote can take a long "
            "step before the C-bound turns back up; the gradient rule sees only the slope at "
            "α = 0.")
    return Reveal(answer, text, {"rho_exhaustive": re, "rho_gradient": rg, "higher": higher},
                  f"{PAPER}, Property 1 and Appendix B")


def reveal_decrease(lab):
    _, differ = _differ(lab)
    if differ.empty:
        return Reveal(RULES[0], "The two rules never differed on this data.", {"differ": 0},
                      PAPER)
    de, dg = differ["exhaustive_decrease"].mean(), differ["gradient_decrease"].mean()
    wins = int((differ["exhaustive_decrease"] >= differ["gradient_decrease"]).sum())
    answer = RULES[0] if de >= dg else RULES[1]
    text = (f"Where they differ, the exhaustive pick lowers the C-bound by "
            f"**{fmt(de, 5)}** on average, the gradient pick (with its own optimal weight) by "
            f"**{fmt(dg, 5)}**; the exhaustive pick's decrease is at least as large at {wins} "
            f"of {len(differ)} steps. That is its definition: it takes the largest exact "
            "decrease S of Property 1 among the eligible voters, at the cost of scoring all of "
            "them, which the prefix sums make one pass over the data.")
    return Reveal(answer, text, {"decrease_exhaustive": de, "decrease_gradient": dg,
                                 "wins": wins}, f"{PAPER}, Property 1")


def claims(lab):
    _, differ = _differ(lab)
    return [
        ("the rules differ at some steps", len(differ) > 0),
        ("where they differ the exhaustive pick is the more correlated on average",
         bool(differ["exhaustive_correlation"].mean() > differ["gradient_correlation"].mean())),
        ("the exhaustive pick's decrease is never smaller",
         bool(np.all(differ["exhaustive_decrease"] >= differ["gradient_decrease"] - 1e-12))),
    ]


LESSON = Lesson(
    slug="rules", title="Exhaustive versus gradient: which voter, and why", minutes=12,
    summary="Run CB-Boost's exact rule and the gradient rule side by side on breast cancer and "
            "measure where and why they choose differently.",
    settings={"source": "real", "real": "breast_cancer", "pool": "stumps",
              "n_thresholds": "10"},
    algorithm="cbboost", params={"direction": "exhaustive", "eligible": "theorem3"},
    max_iter=100, claims=claims, computations={"rules": both_rules}, next_page="gradient",
    leave="Continue on **Gradient vs exhaustive**: every candidate's two scores, step by step, "
          "on any data.",
    stages=(
        Stage("Both rules, 20 steps",
              f"Press **Run both rules** ({ITERATIONS} iterations each, from the same first "
              "voter).",
              Question("After 20 iterations, which rule has the lower empirical C-bound?",
                       LOWER),
              Compute("rules", "Run both rules"), reveal_lower, ("C",), _runs_figure,
              formula=(r"\text{exhaustive: } \arg\max_h S_h, \qquad \text{gradient: } \arg\max_h"
                       r" g_h,\quad g_h = \gamma(h)\nu(F) - \gamma(F)\tau(F,h)")),
        Stage("From the same vote",
              "Now take the exhaustive run alone. At each of its steps, both rules look at "
              "the **same** vote F: which voter would each add? The chart of both picks "
              "appears with your answer.",
              Question(f"At how many of the {ITERATIONS - 1} steps after the first would the "
                       "gradient rule, from the same vote, add another voter than the "
                       "exhaustive rule?", low=0, high=ITERATIONS - 1, step=1, tolerance=2),
              Look(), reveal_count, ("S",), _picks_figure("differ"),
              formula=r"S_h = \frac{g_h^2}{\nu(F)\big(\nu(F)\nu(h) - \tau(F,h)^2\big)}",
              figure_first=False),
        Stage("Which pick is closer to the vote",
              "Think of ρ, the correlation of a candidate voter with the current vote F, at "
              "the steps where the two picks differ. The chart of each pick's ρ appears with "
              "your answer.",
              Question("Where they differ, whose pick is the more correlated with the vote?",
                       RULES),
              Look(), reveal_correlation, ("rho", "tau", "nu"), _picks_figure("correlation"),
              formula=(r"S_h = \frac{g_h^2}{\nu(F)^2\,\nu(h)\,(1 - \rho_h^2)},\qquad \rho_h ="
                       r" \frac{\tau(F,h)}{\sqrt{\nu(F)\nu(h)}}"), figure_first=False),
        Stage("Which pick lowers C more",
              "At the same steps, each pick's exact C-bound decrease S (Property 1) if it were "
              "added with its optimal weight. The chart of both decreases appears with your "
              "answer.",
              Question("Where they differ, whose pick lowers the C-bound more at that step?",
                       RULES),
              Look(), reveal_decrease, ("S", "C"), _picks_figure("decrease"),
              formula=r"S_{\text{exhaustive}} = \max_h S_h \ge S_{\text{gradient}}",
              figure_first=False),
    ),
)
