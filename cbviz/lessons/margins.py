"""Lesson 1: margins, μ₁, μ₂ and why the C-bound needs both (C-bound explorer state)."""
from __future__ import annotations

from .. import bounds, cbound_plane
from ..plots.cbound import c_bound_map_figure
from ..plots.regions import margin_figure
from ..markdown import md   # voter labels shown literally in markdown
from .stages import Lesson, Look, Move, Question, Reveal, Stage, Step, fmt

SOURCE_C = ("C-bound: Lacasse et al. (2006); Theorem 1 and Corollary 1 of Bauvin et al. "
            "(2020); C = 1 − (1 − 2r)²/(1 − 2d) for ±1 voters")
CHOICES_DIRECTION = ("the C-bound falls", "the C-bound rises", "the C-bound stays the same")


def _c(r, d):
    return float(bounds.c_bound_from_risks(r, d))


def _map(lab):
    return c_bound_map_figure(cbound_plane.c_bound_grid("risks", n=121),
                              point=(lab.explorer["r"], lab.explorer["d"]))


def _point(lab):
    return lab.explorer["r"], lab.explorer["d"]


def reveal_value(lab):
    r, d = _point(lab)
    c, first = _c(r, d), 2 * r
    mu1, mu2 = 1 - 2 * r, 1 - 2 * d
    tighter = "2r, the first-order bound," if first < c else "the C-bound"
    text = (f"At r = {fmt(r)} and d = {fmt(d)}: μ₁ = 1 − 2r = {fmt(mu1)}, μ₂ = 1 − 2d = "
            f"{fmt(mu2)}, so C = 1 − μ₁²/μ₂ = 1 − {fmt(mu1 ** 2)}/{fmt(mu2)} = **{fmt(c)}**. "
            f"The first-order bound 2r is {fmt(first)}: here {tighter} is the smaller. "
            + ("With d < r the voters disagree too little for the second moment to help: "
               "C − 2r = 2(1 − 2r)(r − d)/(1 − 2d) > 0." if d < r else
               "With d ≥ r the disagreement pays: C − 2r = 2(1 − 2r)(r − d)/(1 − 2d) ≤ 0."))
    return Reveal(c, text, {"r": r, "d": d, "c_bound": c, "first_order": first}, SOURCE_C)


def reveal_direction(lab):
    r, d = _point(lab)
    d0 = lab.lesson.explorer["d"]
    before, after = _c(r, d0), _c(r, d)
    answer = CHOICES_DIRECTION[0] if after < before else (
        CHOICES_DIRECTION[1] if after > before else CHOICES_DIRECTION[2])
    text = (f"With r = {fmt(r)} kept, the C-bound went from {fmt(before)} at d = {fmt(d0)} to "
            f"**{fmt(after)}** at d = {fmt(d)}. Why: with r fixed, μ₁ = 1 − 2r is fixed and "
            "μ₂ = 1 − 2d shrinks as d grows, so μ₁²/μ₂ grows and C = 1 − μ₁²/μ₂ falls "
            "(∂C/∂d = −2(1 − 2r)²/(1 − 2d)² < 0 whenever r < 1/2). Voters that are as accurate "
            "but err on *different* examples make a better vote.")
    return Reveal(answer, text, {"before": before, "after": after, "d0": d0, "d": d}, SOURCE_C)


def reveal_edge(lab):
    r, d = _point(lab)
    c = _c(r, d)
    edge = float(cbound_plane.max_disagreement(r))
    text = (f"At d = {fmt(d)} (the largest reachable disagreement for r = {fmt(r)} is "
            f"2r(1 − r) = {fmt(edge, 4)}) the C-bound is **{fmt(c)}**. On that edge μ₂ = μ₁²: the "
            "variance of the margin μ₂ − μ₁² is 0, every example has the same margin μ₁ > 0, so "
            "the vote is right on every example although each voter still errs with "
            f"probability r = {fmt(r)}. Past the edge no vote exists (μ₂ ≥ μ₁² always).")
    return Reveal(c, text, {"d": d, "edge": edge, "c_bound": c}, SOURCE_C)


def reveal_stump(lab):
    rec = lab.run.history[0]
    e = rec.train_error
    answer = "μ₁ = 1 − 2e and μ₂ = 1"
    text = (f"The first voter, {md(rec.label)}, errs on a share e = {fmt(e)} of the "
            f"{fmt(lab.run.y.size)} training examples. Alone, its margins are +1 where it is "
            f"right and −1 where it errs: μ₁ = 1 − 2e = {fmt(rec.mu1)} and μ₂ = {fmt(rec.mu2)} "
            f"(every squared margin is 1). So C = 1 − μ₁² = 4e(1 − e) = **{fmt(rec.c_bound)}**, "
            f"above its own error {fmt(e)}: with one voter there is no disagreement (d = "
            f"{fmt(rec.disagreement)}) for the C-bound to use. Only a second voter that errs "
            "elsewhere can bring μ₂ below 1; that is what CB-Boost looks for next (lesson 2).")
    return Reveal(answer, text, {"e": e, "mu1": rec.mu1, "mu2": rec.mu2, "c_bound": rec.c_bound},
                  "Bauvin et al. (2020), Definition 7 (empirical C-bound) and Sect. 4")


def _margins(lab):
    if not lab.run.history:
        return None
    rec = lab.run.history[-1]
    M = bounds.margins(lab.run.F, lab.run.y, float(rec.weights.sum()))
    return margin_figure(M, rec.mu1, rec.mu2)


def claims(lab):
    r0, d0 = lab.lesson.explorer["r"], lab.lesson.explorer["d"]
    rec = lab.run.history[0]
    return [
        ("at the first point d < r and 2r is below the C-bound", d0 < r0 and 2 * r0 < _c(r0, d0)),
        ("one ±1 voter has μ₂ = 1 and C = 4e(1 − e) above e",
         abs(rec.mu2 - 1) < 1e-12 and abs(rec.c_bound - 4 * rec.train_error
                                          * (1 - rec.train_error)) < 1e-9
         and rec.c_bound > rec.train_error),
    ]


LESSON = Lesson(
    slug="margins", title="Margins, μ₁, μ₂ and why the C-bound needs both", minutes=10,
    summary="Move a point on the C-bound map, then read μ₁ and μ₂ off a one-voter vote.",
    settings={"source": "toy", "toy": "moons", "n_samples": 300, "toy_noise": 0.25,
              "pool": "stumps", "n_thresholds": "10"},
    algorithm="cbboost", params={"direction": "exhaustive", "eligible": "theorem3"},
    max_iter=100, explorer={"r": 0.3, "d": 0.1}, claims=claims, next_page="explorer",
    leave="Go on in the **C-bound explorer** (the same map, three voters you set by hand and "
          "what the PAC-Bayes bounds cost in examples).",
    stages=(
        Stage("A point of the map",
              "The map shows the C-bound over the Gibbs risk r (x) and the disagreement d (y). "
              "The point is at **r = 0.30, d = 0.10**; nothing to move yet.",
              Question("What is the C-bound at r = 0.30, d = 0.10?", low=0.0, high=1.0,
                       step=0.01, tolerance=0.05),
              Look(), reveal_value, ("r", "d", "mu", "C"), _map,
              formula=r"\mathcal{C} = 1 - \frac{\mu_1^2}{\mu_2} = 1 - \frac{(1 - 2r)^2}{1 - 2d}"),
        Stage("More disagreement",
              "Drag **d up to about 0.40**, keeping r = 0.30.",
              Question("What happens to the C-bound?", CHOICES_DIRECTION),
              Move("d", 0.40, "Disagreement d", 0.0, 0.42, 0.01, tolerance=0.02),
              reveal_direction,
              ("r", "d", "mu", "C"), _map,
              formula=(r"\frac{\partial \mathcal{C}}{\partial d} = -\frac{2(1 - 2r)^2}{(1 -"
                       r" 2d)^2} < 0 \quad (r < \tfrac12)")),
        Stage("The edge of the map",
              "Drag **d to 0.42**, the largest value a vote with r = 0.30 can reach.",
              Question("What is the C-bound there?", low=0.0, high=1.0, step=0.01,
                       tolerance=0.05),
              Move("d", 0.42, "Disagreement d", 0.0, 0.42, 0.01), reveal_edge,
              ("r", "d", "mu", "C"), _map,
              formula=(r"\mu_2 \ge \mu_1^2 \iff d \le 2r(1 - r); \quad \mu_2 = \mu_1^2"
                       r" \Rightarrow \mathcal{C} = 0")),
        Stage("One stump on two moons",
              "Press **Step** once: CB-Boost starts its vote with the one stump of largest "
              "margin γ(h).",
              Question("For a single ±1 voter with training error e, what are μ₁ and μ₂?",
                       ("μ₁ = 1 − 2e and μ₂ = 1", "μ₁ = e and μ₂ = e²",
                        "μ₁ = 1 − e and μ₂ = 1 − e", "μ₁ = 1 − 2e and μ₂ = (1 − 2e)²")),
              Step(1), reveal_stump, ("M", "mu", "C", "gamma", "d"), _margins,
              formula=(r"\mu_1 = 1 - 2e,\quad \mu_2 = 1,\quad \mathcal{C} = 1 - (1 - 2e)^2 = 4e(1"
                       r" - e)")),
    ),
)
