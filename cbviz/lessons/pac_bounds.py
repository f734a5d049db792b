"""Lesson 4: why the PAC-Bayes bounds can rise while the empirical C-bound falls, and which
bound is the tightest when."""
from __future__ import annotations

import numpy as np

from .. import bounds, plots
from .stages import Lesson, Look, Question, Reveal, Stage, Step, fmt

ROY = "Roy et al. (2016), Theorem 2 (Theorem 2 of Bauvin et al. 2020)"
EARLY, LATE = 2, 20
LARGER = ("the PAC-Bayes C-bound", "the empirical C-bound", "they are equal")
MOVES = ("it rose", "it fell")
DRIVERS = {"mu1": "μ₁, the mean margin", "mu2": "μ₂, the second moment of the margin",
           "kl": "KL(Q‖P), the distance to the prior"}


def _figure(lab):
    frame = lab.frame()
    return None if frame.empty else plots.bounds_figure(frame, current=len(frame))


def _m(lab):
    return lab.run.y.size


def reveal_larger(lab):
    rec = lab.run.history[EARLY - 1]
    m, delta = _m(lab), lab.settings.delta
    answer = LARGER[0] if rec.pac_bound > rec.c_bound else (
        LARGER[1] if rec.pac_bound < rec.c_bound else LARGER[2])
    log_term = float(np.log(2 * np.sqrt(m) / (delta / 2)))
    eps1 = float(np.sqrt(2 / m * (rec.kl + log_term)))
    text = (f"At iteration {EARLY}: empirical C-bound **{fmt(rec.c_bound)}**, PAC-Bayes C-bound "
            f"**{fmt(rec.pac_bound)}**. The empirical one measures μ₁ = {fmt(rec.mu1)} and μ₂ = "
            f"{fmt(rec.mu2)} on the m = {fmt(m)} training examples; the PAC-Bayes one bounds the "
            f"true risk with probability 1 − δ = {fmt(1 - delta, 2)}, so it replaces μ₁ by "
            f"μ₁ − ε₁ (ε₁ = {fmt(eps1)} here, from KL = {fmt(rec.kl, 2)} nats, m and δ) and μ₂ by "
            "μ₂ + ε₂: the price of a guarantee on unseen examples.")
    return Reveal(answer, text, {"c_bound": rec.c_bound, "pac_bound": rec.pac_bound,
                                 "eps1": eps1}, ROY)


def _rose(lab):
    early, late = lab.run.history[EARLY - 1], lab.run.history[min(LATE, len(lab.run.history))
                                                              - 1]
    return early, late, late.pac_bound > early.pac_bound


def reveal_move(lab):
    early, late, rose = _rose(lab)
    text = (f"From iteration {early.iteration} to {late.iteration} the empirical C-bound went "
            f"from {fmt(early.c_bound)} to {fmt(late.c_bound)} and the PAC-Bayes C-bound from "
            f"{fmt(early.pac_bound)} to **{fmt(late.pac_bound)}**. The next stage measures "
            "which of its inputs moved it.")
    return Reveal(MOVES[0] if rose else MOVES[1], text,
                  {"c_early": early.c_bound, "c_late": late.c_bound,
                   "pac_early": early.pac_bound, "pac_late": late.pac_bound}, ROY)


def drivers(lab):
    """The PAC-Bayes C-bound at the late iteration with one input put back to its early value:
    input -> change of the bound that this input's own move caused (late minus that)."""
    early, late, _ = _rose(lab)
    m, delta = _m(lab), lab.settings.delta
    now = {"mu1": late.mu1, "mu2": late.mu2, "kl": late.kl}
    value = bounds.cqboost_c_bound(now["mu1"], now["mu2"], now["kl"], m, delta)
    effect = {}
    for key in now:
        back = {**now, key: getattr(early, key)}
        effect[key] = value - bounds.cqboost_c_bound(back["mu1"], back["mu2"], back["kl"], m,
                                                     delta)
    return effect


def reveal_driver(lab):
    early, late, rose = _rose(lab)
    effect = drivers(lab)
    sign = 1.0 if rose else -1.0
    key = max(effect, key=lambda k: sign * effect[k])
    digits = {"mu1": 3, "mu2": 3, "kl": 2}   # KL in nats with two decimals, as everywhere
    parts = "; ".join(f"{DRIVERS[k].split(',')[0]} from {fmt(getattr(early, k), digits[k])} to "
                      f"{fmt(getattr(late, k), digits[k])} moved it by {fmt(effect[k], sign=True)}"
                      for k in effect)
    c_fell = late.c_bound < early.c_bound
    text = (f"Putting each input back to its iteration-{early.iteration} value, one at a time, "
            f"at iteration {late.iteration}: {parts}. The largest share is **{DRIVERS[key]}**. "
            + ("The empirical C-bound fell because μ₁²/μ₂ grew: μ₂ fell faster than μ₁². "
               if c_fell else "The empirical C-bound did not fall here. ")
            + "The PAC-Bayes bound subtracts from μ₁ a deviation ε₁ that depends on KL, m and "
            "δ only, not on μ₁: when the weight spreads over more voters and μ₁ shrinks, less "
            f"of μ₁ is left above ε₁. KL(Q‖P) {'fell' if late.kl < early.kl else 'rose'} "
            f"meanwhile, from {fmt(early.kl, 2)} to {fmt(late.kl, 2)} nats.")
    return Reveal(DRIVERS[key], text, {k: effect[k] for k in effect}, ROY)


def reveal_tightest(lab):
    rec = lab.run.history[-1]
    key, value = bounds.tightest(rec)
    values = ", ".join(f"{name.split(' (')[0]} {fmt(getattr(rec, k))}"
                       for k, name in bounds.PAC_BOUNDS.items())
    first = lab.run.history[0]
    k0, _ = bounds.tightest(first)
    text = (f"At iteration {rec.iteration}: {values}. The tightest is **{bounds.PAC_BOUNDS[key]}"
            f"** = {fmt(value)}; at iteration 1 it was the {bounds.PAC_BOUNDS[k0]}. The "
            "first-order bound uses the Gibbs risk r alone, so disagreement cannot help it; "
            "the tandem bound uses the joint error e = r − d/2, which disagreement lowers. All "
            "four hold with probability 1 − δ each, for the uniform prior over the pool "
            "chosen before the sample (lesson 7).")
    return Reveal(bounds.PAC_BOUNDS[key], text,
                  {k: float(getattr(rec, k)) for k in bounds.PAC_BOUNDS},
                  "Germain et al. (2015); Roy et al. (2016), Thm 2; Masegosa et al. (2020)")


def claims(lab):
    early, late, rose = _rose(lab)
    effect = drivers(lab)
    first, last = lab.run.history[0], lab.run.history[-1]
    return [
        ("the empirical C-bound falls from iteration 2 to 20", late.c_bound < early.c_bound),
        ("the PAC-Bayes C-bound rises meanwhile", rose),
        ("μ₁ falls and is the largest driver", late.mu1 < early.mu1
         and max(effect, key=effect.get) == "mu1"),
        ("the KL term falls as the weight spreads", late.kl < early.kl),
        ("the tightest bound changes between iteration 1 and the end",
         bounds.tightest(first)[0] != bounds.tightest(last)[0]),
    ]


LESSON = Lesson(
    slug="pac-bounds", title="Why the PAC-Bayes bounds can rise while the C-bound falls",
    minutes=12,
    summary="On breast cancer, CB-Boost lowers the empirical C-bound at every step while its "
            "PAC-Bayes C-bound rises; measure which input drives it and which bound is tightest.",
    settings={"source": "real", "real": "breast_cancer", "pool": "stumps",
              "n_thresholds": "10", "delta": 0.05},
    algorithm="cbboost", params={"direction": "exhaustive", "eligible": "theorem3"},
    max_iter=100, claims=claims,
    leave="Continue on **Step through an algorithm** with this run: the 'Risk bounds' chart and its "
          "'What is this?' panel.",
    stages=(
        Stage("Empirical or guaranteed",
              f"Step until the vote has **{EARLY} voters**.",
              Question(f"At iteration {EARLY}, which is larger?", LARGER),
              Step(EARLY), reveal_larger, ("C", "mu", "KL", "m", "delta"), _figure,
              formula=(r"1 - \frac{\max(0,\, \mu_1 - \epsilon_1)^2}{\min(1,\, \mu_2 +"
                       r" \epsilon_2)},\quad \epsilon_1 = \sqrt{\tfrac{2}{m}\big(\mathrm{KL} +"
                       r" \ln\tfrac{4\sqrt m}{\delta}\big)},\quad \epsilon_2 ="
                       r" \sqrt{\tfrac{2}{m}\big(2\,\mathrm{KL} + \ln\tfrac{4\sqrt"
                       r" m}{\delta}\big)}")),
        Stage("Twenty voters",
              f"Step until the vote has **{LATE} voters** (the empirical C-bound falls at every "
              "step).",
              Question(f"From iteration {EARLY} to {LATE}, the PAC-Bayes C-bound…", MOVES),
              Step(LATE), reveal_move, ("C", "mu", "KL"), _figure,
              formula=(r"1 - \frac{\max(0,\, \mu_1 - \epsilon_1)^2}{\min(1,\, \mu_2 +"
                       r" \epsilon_2)},\quad \epsilon_1 = \sqrt{\tfrac{2}{m}\big(\mathrm{KL} +"
                       r" \ln\tfrac{4\sqrt m}{\delta}\big)},\quad \epsilon_2 ="
                       r" \sqrt{\tfrac{2}{m}\big(2\,\mathrm{KL} + \ln\tfrac{4\sqrt"
                       r" m}{\delta}\big)}")),
        Stage("What drives it",
              "The PAC-Bayes C-bound depends on μ₁, μ₂, KL(Q‖P), m and δ; m and δ did not "
              "change.",
              Question("Which input's move changed it the most?", tuple(DRIVERS.values())),
              Look(), reveal_driver, ("mu", "KL", "m", "delta"), _figure,
              formula=(r"1 - \frac{\max(0,\, \mu_1 - \epsilon_1)^2}{\min(1,\, \mu_2 +"
                       r" \epsilon_2)},\quad \epsilon_1 = \sqrt{\tfrac{2}{m}\big(\mathrm{KL} +"
                       r" \ln\tfrac{4\sqrt m}{\delta}\big)},\quad \epsilon_2 ="
                       r" \sqrt{\tfrac{2}{m}\big(2\,\mathrm{KL} + \ln\tfrac{4\sqrt"
                       r" m}{\delta}\big)}")),
        Stage("The tightest bound",
              "Press **Step** (or **To the end**) until the run stops.",
              Question("Which of the four PAC-Bayes bounds is the tightest at the end?",
                       tuple(bounds.PAC_BOUNDS.values())),
              Step(100), reveal_tightest, ("r", "d", "e", "KL", "delta"), _figure,
              formula=(r"\text{tandem: } 4\,\mathrm{kl}^{-1}\Big(e,\ \frac{2\,\mathrm{KL} +"
                       r" \ln(2\sqrt m/\delta)}{m}\Big), \qquad \text{first order: }"
                       r" 2\,\mathrm{kl}^{-1}\Big(r,\ \frac{\mathrm{KL} +"
                       r" \ln(\xi(m)/\delta)}{m}\Big)")),
    ),
)
