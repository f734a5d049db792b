"""Every algorithm of the package, named with its paper, its hyper-parameters and what it minimizes.

The app builds its controls from :data:`ALGORITHMS`; the comparison page and the benchmark
iterate over it.  ``max_iter`` and ``delta`` are common to all and not listed per algorithm.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..constraints import Boolean, Constraint, Options
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
    """One hyper-parameter as the app shows it: its widget's label, default, help, log scale
    and ``when`` it is used.

    Its allowed values are the factory's declaration (``factory._parameter_constraints``, a
    :mod:`cbviz.constraints` object), attached by :class:`AlgorithmSpec` as ``constraint``
    with the factory's class name as ``owner``: :meth:`check`, :meth:`parse` and the widget's
    ``kind``/``low``/``high``/``choices`` come from it.
    """

    name: str
    label: str
    default: object
    help: str
    log: bool = False
    when: tuple = ()  # (other parameter, values for which this one is used); () = always
    # (low, high) the widget shows where the declared range does not suit it (a log scale
    # needs finite, positive ends): display only, a link or file may hold any allowed value
    shown: tuple = ()
    constraint: Constraint | None = None
    owner: str = ""

    @property
    def kind(self):
        """The widget's kind: "choice", "bool", "int" or "float"."""
        if isinstance(self.constraint, Options):
            return "choice"
        if isinstance(self.constraint, Boolean):
            return "bool"
        return "int" if self.constraint.kind is int else "float"

    @property
    def low(self):
        """The widget's smallest number: ``shown``'s, else the declared range's (None:
        unbounded; an open end's value is refused by :meth:`check`)."""
        return self.shown[0] if self.shown else self.constraint.low

    @property
    def high(self):
        """The widget's largest number (see :attr:`low`)."""
        return self.shown[1] if self.shown else self.constraint.high

    @property
    def choices(self):
        return self.constraint.choices

    def parse(self, text):
        """The value of a link or file entry (text) if it is allowed, else ParameterError."""
        return self.constraint.parse(text, self.name, self.owner)

    def active(self, values):
        """Whether this parameter is used, given the values of the others."""
        return not self.when or values.get(self.when[0]) in self.when[1]

    def check(self, value):
        """The value if it is allowed, else :class:`ParameterError` naming the range."""
        return self.constraint.check(value, self.name, self.owner)


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

    def __post_init__(self):
        # each parameter's allowed values: the factory's declaration, never a second table
        declared = self.factory._parameter_constraints
        object.__setattr__(self, "params", tuple(
            replace(p, constraint=declared[p.name], owner=self.factory.__name__)
            for p in self.params))

    def constraint(self, name):
        """The factory's declaration of parameter ``name`` (``max_iter`` and ``delta`` too)."""
        return self.factory._parameter_constraints[name]

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
        kwargs = {k: v for k, v in merged.items() if known[k].active(merged)}   # checked there
        if self.iterative:
            kwargs["max_iter"] = max_iter
        return self.factory(delta=delta, **kwargs)


def _mu(default):
    return Param("mu", "μ (first moment of the margin)", default,
                 "the margin's mean the program imposes; smaller μ lets the vote spread its "
                 "weight, larger μ asks for a more confident vote. Its upper limit depends on "
                 "the training data: the largest first moment a vote reaches (for CqBoost and "
                 "the simplex program, the best single voter's)", log=True, shown=(1e-4, 1.0))


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
        (Param("direction", "Direction rule", "exhaustive",
               "exhaustive: the largest exact C-bound decrease (CB-Boost); gradient: the "
               "steepest descent direction (GB-CB-Boost)"),
         Param("eligible", "Eligible voters", "theorem3",
               "theorem3: only voters with γ(h) > 0, Theorem 3's hypothesis (the paper's rule); "
               "all: every voter, scored by its exact C-bound decrease"),
         Param("reuse_voters", "Re-use voters", False,
               "let a voter already in the vote be chosen again (its weight grows by the same "
               "closed form): the authors' code's twice_the_same option"))),
    AlgorithmSpec(
        "mincq", "MinCq", "Laviolette et al. ICML 2011; Germain et al. JMLR 2015",
        "solves one quadratic program: the lowest C-bound of a vote whose margin has mean μ",
        MinCq, "the program's objective: QᵀMQ − AᵀQ (quasi-uniform) or μ₂ (simplex), at fixed μ₁",
        (_mu(0.05), Param("form", "Program", "quasi_uniform",
                          "quasi_uniform: MinCq's program on the quasi-uniform posteriors; "
                          "simplex: the plain program (2) of Roy et al. 2016 over all posteriors")),
        iterative=False),
    AlgorithmSpec(
        "cqboost", "CqBoost", "Roy, Marchand & Laviolette, AISTATS 2016, Algorithm 1",
        "column generation: adds the voter whose edge under the dual example weights violates "
        "the dual constraint most, then re-solves the C-bound program on the chosen voters",
        CqBoost, "second moment of the margin μ₂ on the chosen voters",
        (_mu(0.05), Param("epsilon", "ε (dual tolerance)", 1e-6,
                          "stop when no voter's edge exceeds ν + ε (Algorithm 1's rule; the "
                          "paper's ε is 1e-6)", log=True,
                          shown=(1e-10, 1e-1))),
        extra_plots=_CQ_PLOTS),
    AlgorithmSpec(
        "quadboost", "QuadBoost", "Fortier-Dubois et al., Efficient Learning of Ensembles with QuadBoost",
        "adds the voter most correlated with the residual y − F, with the weight that minimizes "
        "the (regularized) quadratic risk in closed form (eq. 6-9)", QuadBoost,
        "quadratic risk (+ its regularizer)",
        (Param("regularization", "Regularization", None,
               "none: vanilla (eq. 6, stopped by max iterations); l1: soft threshold (eq. 7); "
               "l2: ridge shrinkage (eq. 8); linf: weights clipped at α_max (eq. 9)"),
         Param("lam", "λ", 1e-2, "strength of the L1 / L2 regularizer", log=True,
               when=("regularization", ("l1", "l2")), shown=(1e-6, 1e4)),
         Param("alpha_max", "α_max", 0.05, "largest absolute weight of a voter (Linf)", log=True,
               when=("regularization", ("linf",)), shown=(1e-6, 10.0)),
         Param("reweight", "Re-weight voters", False,
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
        (Param("loss", "Loss", "quadratic",
               "quadratic (M/γ − 1)² or exponential exp(−M/γ) of the margin M"),
         Param("C", "C (loss weight)", 1.0, "weight of the empirical loss against KL", log=True,
               shown=(1e-4, 1e6)),
         Param("gamma", "γ (margin scale)", 0.1, "the margin the loss aims at", log=True)),
        extra_plots=(("Loss and KL<br><sup>the two terms of f</sup>", "value",
                      {"loss_term": "C × Σ loss", "kl_term": "KL(Q‖P)"},
                      "f is the sum of these two terms; KL pulls Q back to the uniform prior."),)),
    AlgorithmSpec(
        "vebboost", "VEB-Boost", "Shivaswamy & Jebara, Variational Empirical Bernstein Boosting",
        "AdaBoost-like steps that penalize the sample variance of the exponential loss",
        VEBBoost, "VEB cost: squared mean exponential loss + λ × its sample variance",
        (Param("lam", "λ (variance penalty)", 0.5,
               "0: no variance penalty; 1: AdaBoost's weights at half the step"),),
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
