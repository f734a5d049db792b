"""Every algorithm of the package, named with its paper, its hyper-parameters and what it minimizes.

The app builds its controls from :data:`ALGORITHMS`; the comparison page and the benchmark
iterate over it.  ``max_iter`` and ``delta`` are common to all and not listed per algorithm.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field

from .adaboost import AdaBoost
from .base import ParameterError
from .cbboost import CBBoost
from .cqboost import CqBoost
from .klboost import KLBoost
from .mincq import MinCq
from .quadboost import QuadBoost
from .vebboost import VEBBoost

__all__ = ["Param", "AlgorithmSpec", "ALGORITHMS", "make_algorithm"]


@dataclass(frozen=True)
class Param:
    """One hyper-parameter: ``kind`` is "int", "float", "choice" or "bool"; ``low``/``high``
    bound numbers (inclusive), ``choices`` lists the values of a "choice"."""

    name: str
    label: str
    kind: str
    default: object
    help: str
    low: float | None = None
    high: float | None = None
    choices: tuple = ()
    log: bool = False
    when: tuple = ()  # (other parameter, values for which this one is used); () = always

    def parse(self, text):
        """The value of a link or file entry (text) if it is allowed, else ParameterError."""
        if self.kind == "choice":
            by_text = {"none" if c is None else str(c): c for c in self.choices}
            if str(text) not in by_text:
                raise ParameterError(f"{self.name} must be one of {', '.join(by_text)}; got "
                                     f"{str(text)[:40]!r}")
            return by_text[str(text)]
        if self.kind == "bool":
            if str(text).lower() not in ("true", "false"):
                raise ParameterError(f"{self.name} must be true or false; got {str(text)[:40]!r}")
            return str(text).lower() == "true"
        try:
            value = int(text) if self.kind == "int" else float(text)
        except (TypeError, ValueError, OverflowError):
            raise ParameterError(f"{self.name} must be a number in [{self.low}, {self.high}]; "
                                 f"got {str(text)[:40]!r}") from None
        return self.check(value)

    def active(self, values):
        """Whether this parameter is used, given the values of the others."""
        return not self.when or values.get(self.when[0]) in self.when[1]

    def check(self, value):
        """The value if it is allowed, else :class:`ParameterError` naming the range."""
        got = f"got {str(value)[:40]!r}"
        if self.kind == "choice":
            if not any(value is c or (isinstance(value, str) and value == c)
                       for c in self.choices):
                raise ParameterError(f"{self.name} must be one of {self.choices}, {got}")
        elif self.kind == "bool":
            if not isinstance(value, bool):
                raise ParameterError(f"{self.name} must be True or False, {got}")
        elif (isinstance(value, bool) or not isinstance(value, numbers.Real)
              or not (self.low <= value <= self.high)):
            raise ParameterError(f"{self.name} must be a number in [{self.low}, {self.high}], "
                                 f"{got}")
        return value


@dataclass(frozen=True)
class AlgorithmSpec:
    """An algorithm as the app and the benchmark see it."""

    key: str
    name: str
    paper: str
    description: str
    factory: type
    objective: str
    params: tuple = field(default_factory=tuple)
    iterative: bool = True
    extra_plots: tuple = ()  # (title, y axis title, {record column: legend name}, explanation)

    def defaults(self):
        return {p.name: p.default for p in self.params}

    def make(self, max_iter=100, delta=0.05, **values):
        """The algorithm's stepper factory with ``values`` (defaults for the rest)."""
        known = {p.name: p for p in self.params}
        unknown = set(values) - set(known)
        if unknown:
            raise ParameterError(f"{self.name} has no hyper-parameter {sorted(unknown)}; "
                                 f"it has {sorted(known)}")
        merged = {**self.defaults(), **values}
        kwargs = {k: known[k].check(v) for k, v in merged.items() if known[k].active(merged)}
        if self.iterative:
            kwargs["max_iter"] = max_iter
        return self.factory(delta=delta, **kwargs)


def _mu(default):
    return Param("mu", "μ (first moment of the margin)", "float", default,
                 "the margin's mean the program imposes; smaller μ lets the vote spread its "
                 "weight, larger μ asks for a more confident vote", 1e-4, 1.0, log=True)


_CQ_PLOTS = (
    ("Column generation<br><sup>the added column's edge against the dual variable ν</sup>",
     "edge / ν", {"edge": "edge of the added column", "nu": "ν after re-solving",
                  "violation": "edge − ν of the previous program (stop when ≤ ε)"},
     "CqBoost adds the column with the largest edge Σᵢ αᵢ yᵢ h(xᵢ) under the dual example "
     "weights α of the previous program, and stops when no edge exceeds that program's ν by more "
     "than ε (Roy et al. 2016, Algorithm 1)."),
    ("Example weights<br><sup>how the dual weighting concentrates</sup>", "weight / nats",
     {"example_weight_max": "largest |example weight| (share)",
      "example_weight_entropy": "entropy of |example weights| (nats; ln m = uniform)"},
     "The duals α of the margin constraints weight the examples. The entropy of their shares "
     "is ln m for the uniform weighting and falls as the weight concentrates on a few examples."),
)
_REWEIGHT_PLOT = (
    "Weighted error of the chosen voter", "weighted 0-1 error", {"weighted_error": "weighted error"},
    "The error of the chosen voter under the example weights of its iteration; 1/2 is chance.")

ALGORITHMS = {spec.key: spec for spec in (
    AlgorithmSpec(
        "cbboost", "CB-Boost", "Bauvin et al., Fast greedy C-bound minimization with guarantees, Machine Learning 2020, Algorithm 1",
        "adds one voter per step with the weight that minimizes the empirical C-bound in "
        "closed form (Theorem 3)", CBBoost, "empirical C-bound",
        (Param("direction", "Direction rule", "choice", "exhaustive",
               "exhaustive: the largest exact C-bound decrease (CB-Boost); gradient: the "
               "steepest descent direction (GB-CB-Boost)", choices=("exhaustive", "gradient")),
         Param("eligible", "Eligible voters", "choice", "theorem3",
               "theorem3: only voters with γ(h) > 0, Theorem 3's hypothesis (the paper's rule); "
               "all: every voter, scored by its exact C-bound decrease", choices=("theorem3", "all")),
         Param("reuse_voters", "Re-use voters", "bool", False,
               "let a voter already in the vote be chosen again (its weight grows by the same "
               "closed form): the authors' code's twice_the_same option"))),
    AlgorithmSpec(
        "mincq", "MinCq", "Laviolette et al. ICML 2011; Germain et al. JMLR 2015",
        "solves one quadratic program: the lowest C-bound of a vote whose margin has mean μ",
        MinCq, "the program's objective: QᵀMQ − AᵀQ (quasi-uniform) or μ₂ (simplex), at fixed μ₁",
        (_mu(0.05), Param("form", "Program", "choice", "quasi_uniform",
                          "quasi_uniform: MinCq's program on the quasi-uniform posteriors; "
                          "simplex: the plain program (2) of Roy et al. 2016 over all posteriors",
                          choices=("quasi_uniform", "simplex"))), iterative=False),
    AlgorithmSpec(
        "cqboost", "CqBoost", "Roy, Marchand & Laviolette, AISTATS 2016, Algorithm 1",
        "column generation: adds the voter whose edge under the dual example weights violates "
        "the dual constraint most, then re-solves the C-bound program on the chosen voters",
        CqBoost, "second moment of the margin μ₂ on the chosen voters",
        (_mu(0.05), Param("epsilon", "ε (dual tolerance)", "float", 1e-6,
                          "stop when no voter's edge exceeds ν + ε", 1e-10, 1e-1, log=True)),
        extra_plots=_CQ_PLOTS),
    AlgorithmSpec(
        "quadboost", "QuadBoost", "Fortier-Dubois et al., Efficient Learning of Ensembles with QuadBoost",
        "adds the voter most correlated with the residual y − F, with the weight that minimizes "
        "the (regularized) quadratic risk in closed form (eq. 6-9)", QuadBoost,
        "quadratic risk (+ its regularizer)",
        (Param("regularization", "Regularization", "choice", None,
               "none: vanilla (eq. 6, stopped by max iterations); l1: soft threshold (eq. 7); "
               "l2: ridge shrinkage (eq. 8); linf: weights clipped at α_max (eq. 9)",
               choices=(None, "l1", "l2", "linf")),
         Param("lam", "λ", "float", 1e-2, "strength of the L1 / L2 regularizer", 1e-6, 1e4,
               log=True, when=("regularization", ("l1", "l2"))),
         Param("alpha_max", "α_max", "float", 0.05, "largest absolute weight of a voter (Linf)",
               1e-6, 10.0, log=True, when=("regularization", ("linf",))),
         Param("reweight", "Re-weight voters", "bool", False,
               "let a voter already in the ensemble be chosen again (Sect. 3.1)")),
        extra_plots=(("Quadratic risk and regularizer<br><sup>Theorem 1's norm term</sup>",
                      "value", {"quadratic_risk": "quadratic risk", "regularizer":
                                "regularizer (Theorem 1)"},
                      "The empirical quadratic risk mean((y − F)²) and the weight-dependent part of "
                      "the paper's Theorem 1 regularizer."),)),
    AlgorithmSpec(
        "klboost", "KL-regularized learner", "Germain et al., From PAC-Bayes Bounds to KL Regularization, NIPS 2009, Algorithm 1",
        "coordinate descent on C × (sum of losses) + KL(Q‖P) over quasi-uniform posteriors; "
        "one iteration is one pass over the voters", KLBoost, "f(Q) = C × Σ loss + KL(Q‖P)",
        (Param("loss", "Loss", "choice", "quadratic",
               "quadratic (M/γ − 1)² or exponential exp(−M/γ) of the margin M",
               choices=("quadratic", "exponential")),
         Param("C", "C (loss weight)", "float", 1.0, "weight of the empirical loss against KL",
               1e-4, 1e6, log=True),
         Param("gamma", "γ (margin scale)", "float", 0.1, "the margin the loss aims at",
               1e-4, 1e4, log=True)),
        extra_plots=(("Loss and KL<br><sup>the two terms of f</sup>", "value",
                      {"loss_term": "C × Σ loss", "kl_term": "KL(Q‖P)"},
                      "f is the sum of these two terms; KL pulls Q back to the uniform prior."),)),
    AlgorithmSpec(
        "vebboost", "VEB-Boost", "Shivaswamy & Jebara, Variational Empirical Bernstein Boosting",
        "AdaBoost-like steps that penalize the sample variance of the exponential loss",
        VEBBoost, "VEB cost: squared mean exponential loss + λ × its sample variance",
        (Param("lam", "λ (variance penalty)", "float", 0.5,
               "0: no variance penalty; 1: AdaBoost's weights at half the step", 0.0, 1.0),),
        extra_plots=(_REWEIGHT_PLOT,)),
    AlgorithmSpec(
        "adaboost", "AdaBoost", "Freund & Schapire 1997 (discrete AdaBoost)",
        "re-weights the examples after each step and adds the voter with the least weighted "
        "error, with weight ½ ln((1 − ε)/ε)", AdaBoost, "exponential loss mean(exp(−y F))",
        extra_plots=(_REWEIGHT_PLOT,)),
)}


def make_algorithm(key, max_iter=100, delta=0.05, **values):
    """The stepper factory of registered algorithm ``key`` (see :data:`ALGORITHMS`)."""
    if key not in ALGORITHMS:
        raise ParameterError(f"unknown algorithm {key!r}; known: {sorted(ALGORITHMS)}")
    return ALGORITHMS[key].make(max_iter=max_iter, delta=delta, **values)
